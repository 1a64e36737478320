"""An LLM judge with MiniCheck's prompt (``--checker llm:minicheck``), for Bespoke-MiniCheck-7B served by vLLM or
any OpenAI-compatible chat model.

Facts of MiniCheck's published LLM checker that this follows: a system message asking whether the claim is
consistent with the document, answered "Yes" or "No", and the user message ``Document: ...\\nClaim: ...``
(``prompts/minicheck_system.txt``, ``prompts/minicheck_user.txt``); the claim is split into sentences, each
sentence is supported when some document chunk supports it, and the claim is supported when every sentence is
(the minimum over sentences of the maximum over chunks). Here each reference is one document, sent whole.

A reply is parsed strictly: after trimming whitespace, quotes and a final full stop it must be Yes or No (any
case). Supported claims are Entailment, others Neutral (the prompt cannot say Contradiction). A claim none of whose
answers decide it (a sentence with no Yes and a failed answer) is a failed verdict with the raw replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from string import Template

from factscope.checkers.base import CheckTask
from factscope.core.prompts import load_prompt
from factscope.core.runs.loop import ProgressCallback, stage
from factscope.core.schema import Label, Verdict
from factscope.core.text import split_sentences
from factscope.llm.client import ChatReply, LLMClient
from factscope.llm.reply_format import ReplyFormat

_DECORATION = re.compile(r"^[\s\"'`*_]+|[\s\"'`*_.!]+$")


YES_NO_FORMAT = ReplyFormat.one_of(["Yes", "No"])
"""MiniCheck's reply: Yes or No."""


def parse_yes_no(reply: str) -> bool:
    """True for Yes, False for No; anything else raises ValueError."""
    answer = _DECORATION.sub("", reply).lower()
    if answer not in ("yes", "no"):
        raise ValueError(f"reply is not Yes or No: {reply[:120]!r}")
    return answer == "yes"


class MiniCheckLLMChecker:
    """Checks claims with MiniCheck's Yes/No prompt over an OpenAI-compatible chat model (implements Checker)."""

    def __init__(self, client: LLMClient) -> None:
        self.client = client
        self.system = load_prompt("minicheck_system")
        self.user = Template(load_prompt("minicheck_user"))
        self.name = f"llm:minicheck:{client.config.model}"
        self.progress: ProgressCallback | None = None
        """Receives the progress of the LLM calls when set (the CLI sets it to draw a bar)."""

    def messages(self, document: str, sentence: str) -> list[dict[str, str]]:
        """The chat messages of one (document, claim sentence) question."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user.substitute(document=document, claim=sentence)},
        ]

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        """One verdict per task; all questions of the batch are asked concurrently."""
        questions = [
            (t, s, r)
            for t, task in enumerate(tasks)
            for s, sentence in enumerate(_sentences(task.claim))
            for r in range(len(task.references))
        ]
        conversations = [
            self.messages(tasks[t].references[r], _sentences(tasks[t].claim)[s]) for t, s, r in questions
        ]
        with stage(self.progress, "LLM checker calls", len(conversations)) as bar:
            replies = (
                self.client.chat_many(conversations, on_done=bar.advance, reply_format=YES_NO_FORMAT)
                if conversations else []
            )
        answers: dict[int, dict[int, list[ChatReply]]] = {}
        for (t, s, _), reply in zip(questions, replies, strict=True):
            answers.setdefault(t, {}).setdefault(s, []).append(reply)
        return [self._verdict(task, answers.get(t, {})) for t, task in enumerate(tasks)]

    def _verdict(self, task: CheckTask, by_sentence: dict[int, list[ChatReply]]) -> Verdict:
        if not task.references:
            return Verdict(label=Label.NEUTRAL, reason="no reference text to check against")
        raw = "\n".join(reply.text or reply.raw or "" for replies in by_sentence.values() for reply in replies)
        supported: list[bool] = []
        errors: list[str] = []
        for s in range(len(_sentences(task.claim))):
            said = [_answer(reply) for reply in by_sentence.get(s, [])]
            if any(answer is True for answer in said):
                supported.append(True)
            elif any(isinstance(answer, str) for answer in said):
                errors.extend(answer for answer in said if isinstance(answer, str))
            else:
                supported.append(False)
        if all(supported) and not errors:
            return Verdict(label=Label.ENTAILMENT, raw=raw, reason="every sentence of the claim: Yes")
        if not all(supported):
            return Verdict(label=Label.NEUTRAL, raw=raw, reason="a sentence of the claim: No for every reference")
        return Verdict(label=None, failed=True, raw=raw, error="; ".join(errors))


def _sentences(claim: str) -> list[str]:
    return split_sentences(claim) or [claim]


def _answer(reply: ChatReply) -> bool | str:
    """True / False for Yes / No, or the reason the reply gives neither."""
    if reply.failed:
        return f"LLM call failed: {reply.error}"
    try:
        return parse_yes_no(reply.text or "")
    except ValueError as error:
        return str(error)
