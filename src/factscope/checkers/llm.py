"""An LLM as the checker (RefChecker, section 4.2 and Figure 16): Entailment / Neutral / Contradiction per claim.

Modes: ``single`` asks one question per claim; ``joint`` puts up to ``batch_size`` claims of one record (same
references and question) in one call and asks for numbered answers. A joint reply that does not parse (not
exactly one "N. Label" line per claim) is not guessed at: those claims are asked again one by one. Each reply is
bounded to what it needs: a label (``LABEL_TOKENS``), or one line per claim of the call (``LINE_TOKENS`` each), in a
reply format of exactly that many lines (``joint_format``), which an in-process model decodes to.

References: with ``passages="each"`` (default) every passage of a record is checked on its own and the labels
are merged by RefChecker A.3 (``merge_passage_labels``); with ``passages="together"`` all passages go into one
prompt as a numbered list (from 1, a blank line between passages; a single passage as it is) and the LLM applies
that rule itself, as in the paper's prompt; ``passages="refchecker"`` does the same in the exact text RefChecker's
evaluation gives its LLM checkers: ``Passage 0: ...`` numbered from 0, one line each, a single passage included.

A task that carries a claim-triplet is shown in the paper's form ("subject", "predicate", "object"); other
claims are shown as their text.

Replies are parsed strictly: after trimming whitespace, quotes, markdown emphasis, a leading "Answer:" and a
final full stop, the reply must be one of the three labels. Otherwise the verdict has ``label=None``,
``failed=True``, the raw reply and the reason. With several passages, a claim that no passage entails is
failed when some passage's answer failed, since that passage might have entailed it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from string import Template
from typing import TYPE_CHECKING

from factscope.checkers.base import CheckTask
from factscope.checkers.merge import merge_passage_labels
from factscope.checkers.options import CheckerOptions, LLMCheckMode, PassageMode
from factscope.core.prompts import load_prompt
from factscope.core.runs.loop import ProgressCallback, StageProgress, stage
from factscope.core.schema import Claim, Label, Verdict
from factscope.llm.reply_format import ReplyFormat

if TYPE_CHECKING:
    from factscope.llm.client import ChatReply, LLMClient

Unit = tuple[int, int]
"""(task index, passage-group index): one claim asked against one reference text."""

_DECORATION = re.compile(r"^[\s\"'`*_]+|[\s\"'`*_.!]+$")
_ANSWER_PREFIX = re.compile(r"^(?:#+\s*)?(?:final\s+)?(?:answer|label)\s*:\s*", re.IGNORECASE)
_JOINT_LINE = re.compile(r"^\s*(?:claim\s*)?(?P<number>\d+)\s*[.):\-]\s*(?P<label>.+?)\s*$", re.IGNORECASE)
_FENCE_LINE = re.compile(r"^\s*```[\w-]*\s*$")
LABELS = ("Entailment", "Neutral", "Contradiction")
LABEL_FORMAT = ReplyFormat.one_of(LABELS)
"""A single-claim reply: one label."""
LABEL_TOKENS = 16
"""Reply tokens a single-claim answer may take: a label, with room for the decoration the parser trims."""
LINE_TOKENS = 12
"""Reply tokens each line of a joint answer may take ("N. Label" and its line break, decorated)."""


def joint_format(count: int) -> ReplyFormat:
    """A joint reply for ``count`` claims: exactly the lines "1. Label" to "count. Label", in order."""
    if count < 1:
        raise ValueError(f"a joint reply needs at least one claim, got {count}")
    labels = "(" + "|".join(LABELS) + ")"
    return ReplyFormat.matching("\n".join(f"{number}\\. {labels}" for number in range(1, count + 1)))


def render_triplet(triplet: tuple[str, str, str]) -> str:
    """A claim-triplet in the paper's form: ("subject", "predicate", "object")."""
    return "(" + ", ".join(f'"{part}"' for part in triplet) + ")"


def render_claim(claim: Claim) -> str:
    """A claim as the checker prompt shows it: a triplet as ("subject", "predicate", "object"), else its text."""
    if claim.triplet is not None:
        return render_triplet(claim.triplet)
    return claim.text


def task_claim(task: CheckTask) -> str:
    """A task's claim as the checker prompt shows it: its triplet in the paper's form when it has one."""
    return render_triplet(task.triplet) if task.triplet is not None else task.claim


def parse_label(reply: str) -> Label:
    """The label of a single-claim reply; raises ValueError unless the reply is just one label."""
    text = _DECORATION.sub("", reply.strip())
    text = _DECORATION.sub("", _ANSWER_PREFIX.sub("", text))
    try:
        return Label.parse(text)
    except ValueError:
        raise ValueError(f"reply is not one of Entailment, Neutral, Contradiction: {reply[:120]!r}") from None


def parse_joint_labels(reply: str, count: int) -> list[Label]:
    """The labels of a joint reply: exactly one "N. Label" line for each N in 1..count; raises ValueError."""
    labels: dict[int, Label] = {}
    for line in reply.splitlines():
        if not line.strip() or _FENCE_LINE.match(line):
            continue
        match = _JOINT_LINE.match(line)
        if match is None:
            raise ValueError(f"not an answer line: {line.strip()[:80]!r}")
        number = int(match.group("number"))
        if not 1 <= number <= count or number in labels:
            raise ValueError(f"answer number {number} is repeated or not in 1..{count}")
        labels[number] = parse_label(match.group("label"))
    missing = [number for number in range(1, count + 1) if number not in labels]
    if missing:
        raise ValueError(f"no answer for claim(s) {', '.join(map(str, missing))}")
    return [labels[number] for number in range(1, count + 1)]


@dataclass(frozen=True)
class _Batch:
    """One ``check`` call's tasks, the reference texts of each (``_passage_groups``), the answers of its units so
    far and its progress bar."""

    tasks: Sequence[CheckTask]
    groups: list[list[str]]
    answers: dict[Unit, _Answer]
    bar: StageProgress


@dataclass
class _Answer:
    """One passage group's answer for one claim: a label, or a failure with its reason."""

    label: Label | None
    raw: str | None
    error: str | None = None


class LLMChecker:
    """Checks claims against references with an OpenAI-compatible chat model (implements Checker), with
    RefChecker's checker prompt: a claim a call, or a record's claims together, each passage apart or all at once."""

    def __init__(
        self,
        client: LLMClient,
        options: CheckerOptions | None = None,
        *,
        batch_size: int = 8,
        prompt: str = "check_triplet",
        joint_prompt: str = "check_triplet_joint",
        max_tokens: int | None = None,
    ) -> None:
        """A checker that asks ``client`` as ``options`` say (a ``CheckerOptions``; None: the defaults): per record
        or per claim (``llm_mode``), per passage or for all (``llm_passages``). ``batch_size`` is the claims of one
        joint call, ``prompt`` and ``joint_prompt`` the prompts' names, ``max_tokens`` the reply's limit."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        options = options or CheckerOptions()
        self.client = client
        self.mode: LLMCheckMode = options.llm_mode
        self.batch_size = batch_size
        self.passages: PassageMode = options.llm_passages
        self.single_template = Template(load_prompt(prompt))
        self.joint_template = Template(load_prompt(joint_prompt))
        self.max_tokens = max_tokens
        self.name = f"llm:{client.config.model}"
        self.progress: ProgressCallback | None = None
        """Receives the progress of the LLM calls when set (the CLI sets it to draw a bar)."""

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task, in order; model calls for the whole batch run concurrently."""
        groups = [self._passage_groups(task.references) for task in tasks]
        units = [(t, g) for t, task_groups in enumerate(groups) for g in range(len(task_groups))]
        with stage(self.progress, "LLM checker calls", None) as bar:
            batch = _Batch(tasks, groups, {}, bar)
            pending, joint_calls = units, 0
            if self.mode == "joint":
                pending, joint_calls = self._check_joint(batch, units)
            bar.set_total(joint_calls + len(pending))
            self._check_single(batch, pending)
        answers = batch.answers
        return [self._verdict([answers[(t, g)] for g in range(len(groups[t]))]) for t in range(len(tasks))]

    def _passage_groups(self, references: Sequence[str]) -> list[str]:
        """The reference texts the prompts show: one per passage, or all passages numbered in one."""
        if self.passages == "refchecker":
            return ["".join(f"Passage {i}: {text}\n" for i, text in enumerate(references))] if references else []
        if self.passages == "each" or len(references) <= 1:
            return list(references)
        return ["\n\n".join(f"Passage {i}: {text}" for i, text in enumerate(references, start=1))]

    def _check_single(self, batch: _Batch, units: list[Unit]) -> None:
        conversations = [
            [{"role": "user", "content": self._single_prompt(batch.tasks[t], batch.groups[t][g])}] for t, g in units
        ]
        replies = (
            self.client.chat_many(
                conversations, on_done=batch.bar.advance, reply_format=LABEL_FORMAT,
                max_tokens=self.max_tokens or LABEL_TOKENS,
            )
            if units else []
        )
        for unit, reply in zip(units, replies, strict=True):
            batch.answers[unit] = _single_answer(reply)

    def _check_joint(self, batch: _Batch, units: list[Unit]) -> tuple[list[Unit], int]:
        """Ask the joint questions; returns the units whose joint reply did not parse (for single calls) and
        the number of joint calls."""
        tasks, groups, answers, bar = batch.tasks, batch.groups, batch.answers, batch.bar
        batches: dict[tuple[str, str | None], list[Unit]] = {}
        for t, g in units:
            batches.setdefault((groups[t][g], tasks[t].question), []).append((t, g))
        chunks = [
            members[start : start + self.batch_size]
            for members in batches.values()
            for start in range(0, len(members), self.batch_size)
        ]
        conversations = [
            [{"role": "user", "content": self._joint_prompt(tasks, groups, chunk)}] for chunk in chunks
        ]

        bar.set_total(len(chunks))
        replies = (
            self.client.chat_many(
                conversations, on_done=bar.advance, reply_format=[joint_format(len(chunk)) for chunk in chunks],
                max_tokens=[self.max_tokens or LINE_TOKENS * len(chunk) for chunk in chunks],
            )
            if chunks else []
        )
        retry: list[Unit] = []
        for chunk, reply in zip(chunks, replies, strict=True):
            if reply.failed:
                for unit in chunk:
                    answers[unit] = _Answer(None, reply.raw, f"LLM call failed: {reply.error}")
                continue
            try:
                labels = parse_joint_labels(reply.text or "", len(chunk))
            except ValueError:
                retry.extend(chunk)
                continue
            for unit, label in zip(chunk, labels, strict=True):
                answers[unit] = _Answer(label, reply.text)
        return retry, len(chunks)

    def _single_prompt(self, task: CheckTask, reference: str) -> str:
        return self.single_template.safe_substitute(
            question=_question(task.question), reference=reference, claim=task_claim(task)
        )

    def _joint_prompt(self, tasks: Sequence[CheckTask], groups: list[list[str]], chunk: list[Unit]) -> str:
        first_task, first_group = chunk[0]
        claims = "\n".join(
            f"{number}. {task_claim(tasks[t])}" for number, (t, _) in enumerate(chunk, start=1)
        )
        return self.joint_template.safe_substitute(
            question=_question(tasks[first_task].question),
            reference=groups[first_task][first_group],
            claims=claims,
            count=str(len(chunk)),
        )

    def _verdict(self, answers: list[_Answer]) -> Verdict:
        raw = _joined_raw(answers)
        for index, answer in enumerate(answers):
            if answer.label is Label.ENTAILMENT:
                return Verdict(
                    label=Label.ENTAILMENT, evidence_reference=self._reference_index(index), raw=raw
                )
        failures = [(index, answer) for index, answer in enumerate(answers) if answer.label is None]
        if failures:
            reasons = "; ".join(
                (f"passage {index + 1}: " if len(answers) > 1 else "") + str(answer.error)
                for index, answer in failures
            )
            return Verdict(label=None, failed=True, raw=raw, error=reasons)
        label = merge_passage_labels(answer.label for answer in answers if answer.label is not None)
        decisive = next((index for index, answer in enumerate(answers) if answer.label is label), None)
        evidence = self._reference_index(decisive) if label is Label.CONTRADICTION else None
        return Verdict(label=label, evidence_reference=evidence, raw=raw)

    def _reference_index(self, group_index: int | None) -> int | None:
        """The reference a passage group stands for; None when all passages were asked together."""
        return group_index if self.passages == "each" else None


def _question(question: str | None) -> str:
    return " ".join(question.split()) if question else "(not given)"


def _single_answer(reply: ChatReply) -> _Answer:
    if reply.failed:
        return _Answer(None, reply.raw, f"LLM call failed: {reply.error}")
    try:
        return _Answer(parse_label(reply.text or ""), reply.text)
    except ValueError as error:
        return _Answer(None, reply.text, str(error))


def _joined_raw(answers: list[_Answer]) -> str | None:
    if len(answers) == 1:
        return answers[0].raw
    if not answers:
        return None
    return "\n".join(f"[passage {index}] {answer.raw}" for index, answer in enumerate(answers, start=1))
