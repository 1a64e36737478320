"""Using CONNER's scores (the paper's section 5): knowledge generation, knowledge selection, demonstration selection.

Knowledge is generated through the LLM backend with the paper's zero-shot and few-shot templates (Appendix F,
Tables 11 and 12) and answers with its few-shot answer template (Table 13). Knowledge selection samples r
candidates (top-p) and keeps the argmax of Q_know; demonstration selection scores m random training examples
and builds the few-shot prompt from the n best.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from factscope.conner.data import KnowledgeRecord
from factscope.conner.templates import answer_prompt, few_shot_prompt, zero_shot_prompt
from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions

if TYPE_CHECKING:
    from factscope.conner.evaluator import KnowledgeEvaluator
    from factscope.conner.scores import KnowledgeScores
    from factscope.llm.client import LLMClient

GenerationMode = Literal["zero", "few"]
"""Zero-shot knowledge (the Table 11 prompt) or few-shot (Table 12 examples)."""


class Candidate(BaseModel):
    """One generated text; a failed call keeps its error and raw reply and has no text."""

    text: str | None = None
    failed: bool = False
    error: str | None = None
    raw: str | None = None
    q_know: float | None = None


class GeneratedKnowledge(BaseModel):
    """The knowledge (and answer) generated for one record; usable as input to `factscope knowledge score`."""

    id: str
    query: str
    topic: str | None = None
    task: str = "qa"
    gold_answer: str | None = None
    knowledge: str | None = None
    answer: str | None = None
    selected: int | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    failed: bool = False
    error: str | None = None
    prompt: str | None = None


@dataclass(frozen=True)
class GenerationSettings(ValidatedOptions):
    """Sampling of knowledge candidates (the paper: top-p 0.9, r = 5) and answer length."""

    mode: GenerationMode = field(default="zero", metadata=about("zero (Table 11 prompt) or few (Table 12 examples)"))
    candidates: int = 1
    """r: candidates per query; 1 decodes greedily (temperature 0), more sample with top_p."""
    top_p: float = 0.9
    temperature: float = 1.0
    """Sampling temperature when candidates > 1."""
    seed: int = 0
    max_tokens: int = 256
    answer_max_tokens: int = 64


@dataclass(frozen=True)
class CandidateSampling(ValidatedOptions):
    """The candidates of knowledge selection (CONNER section 5: r = 5, top-p 0.9), which keeps the best of them
    by Q_know: the ``GenerationSettings`` of a selection run (``settings``)."""

    candidates: int = field(default=5, metadata=about("r: knowledge candidates sampled per query", min=2))
    top_p: float = field(default=GenerationSettings.top_p, metadata=about(
        "nucleus sampling p, above 0 and at most 1", min=0.0, min_open=True, max=1.0
    ))
    temperature: float = field(default=GenerationSettings.temperature, metadata=about(
        "sampling temperature", min=0.0
    ))

    def settings(self, generation: GenerationSettings) -> GenerationSettings:
        """``generation`` sampling these candidates."""
        return replace(generation, candidates=self.candidates, top_p=self.top_p, temperature=self.temperature)


class KnowledgeGenerator:
    """Prompts an OpenAI-compatible chat model for knowledge and answers, in batches with the client's cache."""

    def __init__(self, client: LLMClient, settings: GenerationSettings | None = None) -> None:
        self.client = client
        self.settings = settings or GenerationSettings()

    def prompt(self, record: KnowledgeRecord, demonstrations: Sequence[KnowledgeRecord] = ()) -> str:
        """The knowledge-generation prompt: Table 11 (zero-shot) or Appendix F.2 with Table 12 (few-shot)."""
        if self.settings.mode == "few":
            return few_shot_prompt(record, [d for d in demonstrations if d.task == record.task])
        return zero_shot_prompt(record)

    def generate(
        self, records: Sequence[KnowledgeRecord], demonstrations: Sequence[KnowledgeRecord] = ()
    ) -> list[GeneratedKnowledge]:
        """r knowledge candidates per record (the first kept as ``knowledge`` until a selection picks one)."""
        r = max(1, self.settings.candidates)
        prompts = [self.prompt(record, demonstrations) for record in records]
        messages = [[{"role": "user", "content": prompt}] for prompt in prompts for _ in range(r)]
        params: list[dict[str, Any]] = [self._sampling(i) for _ in records for i in range(r)]
        replies = self._chat(messages, params, self.settings.max_tokens)
        results = []
        for index, (record, prompt) in enumerate(zip(records, prompts)):
            candidates = [_candidate(reply) for reply in replies[index * r : (index + 1) * r]]
            result = GeneratedKnowledge(
                id=record.id, query=record.query, topic=record.topic, task=record.task,
                gold_answer=record.gold_answer, candidates=candidates, prompt=prompt,
            )
            usable = [i for i, c in enumerate(candidates) if not c.failed]
            if usable:
                result.selected, result.knowledge = usable[0], candidates[usable[0]].text
            else:
                result.failed, result.error = True, candidates[0].error
            results.append(result)
        return results

    def answer(
        self, records: Sequence[KnowledgeRecord], generated: Sequence[GeneratedKnowledge],
        demonstrations: Sequence[KnowledgeRecord] = (),
    ) -> None:
        """Fill ``answer`` with the few-shot answer (Table 13) that uses each record's chosen knowledge."""
        todo = [(record, item) for record, item in zip(records, generated) if item.knowledge]
        messages = [
            [{"role": "user", "content": answer_prompt(record, item.knowledge or "",
                                                       [d for d in demonstrations if d.task == record.task])}]
            for record, item in todo
        ]
        replies = self._chat(messages, [{"temperature": 0.0} for _ in todo], self.settings.answer_max_tokens)
        for (_, item), reply in zip(todo, replies):
            if reply.failed or not (reply.text or "").strip():
                item.failed, item.error = True, f"answer generation failed: {reply.error or 'empty reply'}"
            else:
                item.answer = reply.text.strip().split("\n")[0].strip()

    def _sampling(self, index: int) -> dict[str, Any]:
        if self.settings.candidates <= 1:
            return {"temperature": 0.0}
        return {"temperature": self.settings.temperature, "top_p": self.settings.top_p, "seed": self.settings.seed + index}

    def _chat(self, messages: list[list[dict[str, str]]], params: list[dict[str, Any]], max_tokens: int) -> list[Any]:
        """chat_many per distinct parameter set (candidates differ by seed), results in input order."""
        replies: list[Any] = [None] * len(messages)
        groups: dict[tuple, list[int]] = {}
        for i, p in enumerate(params):
            groups.setdefault(tuple(sorted(p.items())), []).append(i)
        for key, indices in groups.items():
            got = self.client.chat_many([messages[i] for i in indices], max_tokens=max_tokens, **dict(key))
            for i, reply in zip(indices, got):
                replies[i] = reply
        return replies


def keep_best_candidates(
    records: Sequence[KnowledgeRecord], generated: Sequence[GeneratedKnowledge], evaluator: KnowledgeEvaluator,
    pool: Sequence[str] | None = None,
) -> None:
    """Knowledge selection: score every usable candidate and keep k = argmax Q_know (ties: the earliest).

    A record none of whose candidates gets a Q_know keeps its first usable candidate and says why.
    """
    candidates_as_records: list[KnowledgeRecord] = []
    owners: list[tuple[GeneratedKnowledge, int]] = []
    for record, item in zip(records, generated):
        for index, candidate in enumerate(item.candidates):
            if not candidate.failed and candidate.text:
                candidates_as_records.append(
                    record.model_copy(update={"id": f"{record.id}#{index}", "knowledge": candidate.text, "answer": None})
                )
                owners.append((item, index))
    if not candidates_as_records:
        return
    texts = list(pool) if pool is not None else [r.knowledge for r in candidates_as_records]
    scores = evaluator.score(candidates_as_records, pool=texts)
    for (item, index), score in zip(owners, scores):
        item.candidates[index].q_know = score.q_know
    for item in generated:
        scored = [(c.q_know, -i) for i, c in enumerate(item.candidates) if c.q_know is not None]
        if scored:
            item.selected = -max(scored)[1]
            item.knowledge = item.candidates[item.selected].text
        elif item.knowledge:
            reasons = {s for s, (owner, _) in zip(scores, owners) if owner is item}
            why = next(iter(reasons)).not_computed.get("q_know", "unknown") if reasons else "no usable candidate"
            item.error = f"no candidate has a Q_know ({why}); kept the first"


class DemonstrationChoice(BaseModel):
    """The demonstrations chosen for few-shot prompting, with the Q_know of every scored sample."""

    selected: list[str]
    scores: dict[str, float | None]
    not_scored: dict[str, str] = Field(default_factory=dict)


def sample_demonstrations(train: Sequence[KnowledgeRecord], n: int, seed: int = 0) -> list[KnowledgeRecord]:
    """n random training examples (the paper's few-shot baseline), seeded."""
    return random.Random(seed).sample(list(train), min(n, len(train)))


def select_demonstrations(
    train: Sequence[KnowledgeRecord], evaluator: KnowledgeEvaluator, *, m: int = 30, n: int = 8, seed: int = 0
) -> tuple[list[KnowledgeRecord], DemonstrationChoice]:
    """Prompt engineering (section 5): sample m training examples, keep the n with the highest Q_know."""
    sample = sample_demonstrations(train, m, seed)
    scores: list[KnowledgeScores] = evaluator.score(sample, pool=[r.knowledge for r in train])
    ranked = sorted(
        ((s.q_know, i) for i, s in enumerate(scores) if s.q_know is not None), key=lambda item: (-item[0], item[1])
    )
    chosen = [sample[i] for _, i in ranked[:n]]
    choice = DemonstrationChoice(
        selected=[r.id for r in chosen],
        scores={r.id: s.q_know for r, s in zip(sample, scores)},
        not_scored={r.id: s.not_computed.get("q_know", "") for r, s in zip(sample, scores) if s.q_know is None},
    )
    return chosen, choice


def _candidate(reply: Any) -> Candidate:
    if reply.failed:
        return Candidate(failed=True, error=reply.error, raw=reply.raw)
    text = (reply.text or "").strip()
    if not text:
        return Candidate(failed=True, error="empty reply", raw=reply.raw or reply.text)
    return Candidate(text=text)
