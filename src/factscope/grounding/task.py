"""The grounding task of Truly Ground: decompose responses into atomic facts, judge presence, score, report.

For each example: response facts (from an Extractor) are judged against the input contexts (precision), the gold
facts against the response (recall), F1 is the grounding score; answer accuracy checks the response for the answer.
``ground`` runs this in batches; ``factscope.grounding.generation`` produces the responses with an LLM first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from pydantic import BaseModel, Field

from factscope.core.display.notebook import ShownAsHtml
from factscope.core.errors import ConfigError
from factscope.core.files.manifest import SettingValue
from factscope.core.runs.loop import Pipeline
from factscope.core.runs.result import RunResult
from factscope.grounding.data import GroundExample, ScoredExamples
from factscope.grounding.presence import PresenceModel, decide
from factscope.metrics.grounding import (
    AverageTotals,
    Breakdown,
    BreakdownTotals,
    GroundingAverages,
    GroundingScore,
    contains_answer,
    count_present,
    grounding_score,
)
from factscope.metrics.ratios import EmptyPolicy

if TYPE_CHECKING:
    from factscope.claims.base import Extractor

DEFAULT_FACTORS: tuple[str, ...] = ("pop", "has_multi", "has_answer")
"""The paper's factors: popularity (high / low), single / multi context, definite / free-form."""


class FactJudgement(BaseModel):
    """One atomic fact, its presence score and decision (None: unjudged)."""

    fact: str
    score: float | None
    present: bool | None


class GroundResult(ShownAsHtml, BaseModel):
    """One example's grounding result, as written to the output JSONL."""

    id: str
    question: str
    response: str | None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    answer_correct: bool | None = None
    response_facts: list[FactJudgement] = Field(default_factory=list)
    gold_facts: list[FactJudgement] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    failed: bool = False
    error: str | None = None
    raw: str | None = None

    item_level: ClassVar[str] = "facts"
    item_fields: ClassVar[tuple[str, ...]] = ("response_facts", "gold_facts")

    def item_rows(self) -> list[dict[str, Any]]:
        """One table row per fact (``factscope.core.files.result_tables``): ``side`` 'response' (judged against the
        contexts: precision) or 'gold' (judged against the response: recall), its number on that side from 1,
        its text, presence score and decision (None: unjudged)."""
        return [
            {"id": self.id, "side": side, "fact": number, "text": judged.fact, "score": judged.score,
             "present": judged.present}
            for side, facts in (("response", self.response_facts), ("gold", self.gold_facts))
            for number, judged in enumerate(facts, start=1)
        ]

    def grounding(self) -> GroundingScore | None:
        """The record's score object (None for a failed record, which averages leave out)."""
        if self.failed:
            return None
        return GroundingScore(
            self.precision,
            self.recall,
            self.f1,
            count_present(j.present for j in self.response_facts),
            count_present(j.present for j in self.gold_facts),
        )


class GroundSummary(BaseModel):
    """Macro averages over the scored records, the breakdowns by factor, and what was left out."""

    overall: GroundingAverages
    by_factor: list[Breakdown]
    records: int
    failed: int
    unjudged_facts: int


def _judgements(facts: Sequence[str], scores: Sequence[float], threshold: float) -> list[FactJudgement]:
    decisions = decide(np.asarray(scores, dtype=np.float64), threshold)
    return [
        FactJudgement(fact=f, score=None if math.isnan(s) or math.isinf(s) else float(s), present=d)
        for f, s, d in zip(facts, scores, decisions)
    ]


def score_batch(
    examples: Sequence[GroundExample],
    extractor: Extractor,
    presence: PresenceModel,
    *,
    no_response_facts: EmptyPolicy = "zero",
    no_gold_facts: EmptyPolicy = "skip",
) -> list[GroundResult]:
    """Grounding results of a batch of examples that all have a response."""
    extractions = extractor.extract([e.response or "" for e in examples], [e.question for e in examples])
    facts: list[str] = []
    sources: list[Sequence[str]] = []
    for example, extraction in zip(examples, extractions):
        for claim in extraction.claims:
            facts.append(claim.render())
            sources.append(example.contexts)
        for gold in example.gold_facts:
            facts.append(gold)
            sources.append([example.response or ""])
    scores = presence.score(facts, sources).tolist() if facts else []
    results = []
    cursor = 0
    for example, extraction in zip(examples, extractions):
        n_response, n_gold = len(extraction.claims), len(example.gold_facts)
        response_scores = scores[cursor : cursor + n_response]
        gold_scores = scores[cursor + n_response : cursor + n_response + n_gold]
        cursor += n_response + n_gold
        result = GroundResult(
            id=example.id,
            question=example.question,
            response=example.response,
            response_facts=_judgements(
                [c.render() for c in extraction.claims], response_scores, presence.threshold
            ),
            gold_facts=_judgements(example.gold_facts, gold_scores, presence.threshold),
            answer_correct=contains_answer(example.response or "", example.answer)
            if example.answer
            else None,
            metadata=example.metadata,
        )
        if extraction.failed:
            result.failed = True
            result.error = f"fact decomposition failed: {extraction.error}"
            result.raw = extraction.raw
        else:
            score = grounding_score(
                [j.present for j in result.response_facts],
                [j.present for j in result.gold_facts],
                no_response_facts=no_response_facts,
                no_gold_facts=no_gold_facts,
            )
            result.precision, result.recall, result.f1 = score.precision, score.recall, score.f1
        results.append(result)
    return results


@dataclass
class GroundTotals:
    """The mergeable figures of a grounding run, fed one result row at a time (see ``factscope.core.runs.results``):
    the overall macro averages, one breakdown per factor, and what was left out."""

    factors: tuple[str, ...] = DEFAULT_FACTORS
    overall: AverageTotals = field(default_factory=AverageTotals)
    by_factor: dict[str, BreakdownTotals] = field(default_factory=dict)
    records: int = 0
    failed: int = 0
    unjudged_facts: int = 0

    def __post_init__(self) -> None:
        self.factors = tuple(self.factors)
        for factor in self.factors:
            self.by_factor.setdefault(factor, BreakdownTotals(factor))

    def add(self, row: GroundResult) -> None:
        """Count one record; a failed record is counted, not averaged."""
        self.records += 1
        self.failed += row.failed
        self.unjudged_facts += sum(1 for j in row.response_facts if j.present is None)
        self.unjudged_facts += sum(1 for j in row.gold_facts if j.present is None)
        score = row.grounding()
        if score is None:
            return
        self.overall.add(score, row.answer_correct)
        for factor in self.factors:
            self.by_factor[factor].add(score, row.answer_correct, row.metadata)

    def merge(self, other: GroundTotals) -> None:
        """Count every row ``other`` counted (broken down by the same factors)."""
        if other.factors != self.factors:
            raise ValueError(f"cannot merge totals by factors {other.factors} into totals by {self.factors}")
        self.overall.merge(other.overall)
        for factor in self.factors:
            self.by_factor[factor].merge(other.by_factor[factor])
        self.records += other.records
        self.failed += other.failed
        self.unjudged_facts += other.unjudged_facts

    def summary(self) -> GroundSummary:
        """The summary of the rows counted."""
        return GroundSummary(
            overall=self.overall.averages(),
            by_factor=[self.by_factor[factor].breakdown() for factor in self.factors],
            records=self.records,
            failed=self.failed,
            unjudged_facts=self.unjudged_facts,
        )


def summarize(results: Iterable[GroundResult], factors: Sequence[str] = DEFAULT_FACTORS) -> GroundSummary:
    """Macro averages and per-factor breakdowns; failed records are counted, not averaged (``GroundTotals``)."""
    totals = GroundTotals(tuple(factors))
    for result in results:
        totals.add(result)
    return totals.summary()


def metadata_fields(examples: Iterable[GroundExample]) -> list[str]:
    """The metadata fields that at least one example has (with a value), sorted."""
    return sorted({name for example in examples for name, value in example.metadata.items() if value is not None})


def breakdown_factors(examples: Iterable[GroundExample], factors: Sequence[str] | None) -> list[str]:
    """The fields to break results down by: ``factors`` when every one is in some example's metadata (else
    ConfigError naming the missing ones and the fields present); with None, those of the paper's factors
    (``DEFAULT_FACTORS``) that some example has. ``examples`` are read once."""
    return choose_factors(metadata_fields(examples), factors)


def choose_factors(present: Sequence[str], factors: Sequence[str] | None) -> list[str]:
    """``breakdown_factors`` given the metadata fields ``present`` in the examples."""
    if factors is None:
        return [name for name in DEFAULT_FACTORS if name in present]
    missing = [name for name in factors if name not in present]
    if missing:
        fields = ", ".join(present) if present else "none (pass a metadata file, or give records metadata)"
        raise ConfigError(
            f"cannot break results down by {', '.join(repr(name) for name in missing)}: no record has "
            f"{'that field' if len(missing) == 1 else 'those fields'} in its metadata. Fields present: {fields}"
        )
    return list(factors)


class GroundRun(RunResult[GroundResult]):
    """A whole grounding run: its summary, what produced it, and every result in the results file (earlier runs'
    included when resuming, read lazily; left out of ``model_dump``). ``failed`` counts the records whose fact
    decomposition failed (``summary.failed``)."""

    summary: GroundSummary
    extractor: str
    presence: str
    threshold: float

    def headline(self) -> list[tuple[str, object]]:
        """The mean grounding precision, recall and F1."""
        overall = self.summary.overall
        return [("precision", overall.precision), ("recall", overall.recall), ("F1", overall.f1)]


def ground_failed(row: GroundResult) -> bool:
    """Whether a row records a failed fact decomposition (a rerun with ``retry_failed`` scores it again)."""
    return row.failed


def ground_pipeline(
    extractor: Extractor,
    presence: PresenceModel,
    *,
    factors: Sequence[str] = (),
    no_response_facts: EmptyPolicy = "zero",
    no_gold_facts: EmptyPolicy = "skip",
    settings: Mapping[str, SettingValue] | None = None,
) -> Pipeline[GroundExample, GroundResult, GroundTotals]:
    """The grounding task as a pipeline any engine runs: decompose, judge presence and score each batch of
    examples (each must have a response); its totals break results down by ``factors`` (chosen beforehand with
    ``breakdown_factors``). ``factscope.ground`` runs it."""
    chosen = tuple(factors)
    return Pipeline(
        system="ground",
        stage_name="grounding",
        row_type=GroundResult,
        key=lambda example: example.id,
        process=lambda batch: score_batch(
            batch, extractor, presence, no_response_facts=no_response_facts, no_gold_facts=no_gold_facts
        ),
        new_totals=lambda: GroundTotals(chosen),
        components={"extractor": extractor, "presence": presence},
        settings={"no_response_facts": no_response_facts, "no_gold_facts": no_gold_facts, **(settings or {})},
        failed=ground_failed,
        crashed=ground_crashed,
    )


def ground_crashed(example: GroundExample, reason: str) -> GroundResult:
    """The failed row of an example whose scoring ended its worker process (``Pipeline.crashed``), with
    ``reason``; ``retry_failed`` scores it again."""
    return GroundResult(
        id=example.id,
        question=example.question,
        response=example.response,
        metadata=dict(example.metadata),
        failed=True,
        error=reason,
    )


@dataclass
class ExampleSurvey:
    """What one pass over the examples finds before a run: those without a response, and the metadata fields."""

    without_response: list[str] = field(default_factory=list)
    fields: set[str] = field(default_factory=set)


def survey_examples(examples: Iterable[GroundExample]) -> ExampleSurvey:
    """The ids of the examples without a response and the metadata fields with a value, in one pass; the examples
    of a file, which surveyed themselves when it was opened (``ScoredExamples``: all have a response), are not
    read again."""
    if isinstance(examples, ScoredExamples):
        return ExampleSurvey(fields=set(examples.fields))
    survey = ExampleSurvey()
    for example in examples:
        if example.response is None:
            survey.without_response.append(example.id)
        survey.fields.update(name for name, value in example.metadata.items() if value is not None)
    return survey

