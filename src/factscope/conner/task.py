"""CONNER's knowledge evaluation (CONNER section 3): six metrics for knowledge acquired for a query.

``KnowledgeEvaluator`` composes the parts, each optional: a retriever over the user's corpus and a checker
(factuality, open-ended validity), a checker alone (span validity), a relevance model, a paragraph coherence
model, and a causal LM (sentence coherence, informativeness, helpfulness). A metric whose part is missing
is reported in ``not_computed`` with the reason and the option that supplies it; the others still run.
Every model is called once per batch of records, on deduplicated inputs.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, Field

from factscope.checkers.base import Checker, CheckTask
from factscope.conner.data import KnowledgeRecord
from factscope.conner.templates import answer_pair, informativeness_pair
from factscope.core.errors import BackendError
from factscope.core.manifest import Setting
from factscope.core.run import Pipeline, ProgressCallback, RunRows, report_progress, run_pipeline
from factscope.core.run_result import RunResult
from factscope.core.schema import LABELS, Verdict
from factscope.core.text import split_sentences
from factscope.metrics import conner
from factscope.metrics.running import RunningMean

if TYPE_CHECKING:
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.retrieve.corpus import Retriever

METRICS = (
    "factuality", "relevance", "coherence_sentence", "coherence_paragraph", "informativeness", "helpfulness", "validity",
)


class SentenceEvidence(BaseModel):
    """One knowledge sentence, its best-entailing evidence and the sentence's NLI vector (E, N, C): that evidence's
    vector, or with evidence aggregated by mean, the mean over its passages."""

    sentence: str
    evidence: str | None = None
    doc_id: str | None = None
    probs: tuple[float, float, float] | None = None
    failed_checks: int = 0


class Factuality(BaseModel):
    """The three-dimensional factuality score of eq. 1."""

    consistent: float
    non_verified: float
    inconsistent: float


class KnowledgeScores(BaseModel):
    """CONNER's scores for one record; a metric left as None is explained in ``not_computed``."""

    id: str
    factuality: Factuality | None = None
    relevance: float | None = None
    coherence_sentence: float | None = None
    coherence_paragraph: float | None = None
    informativeness: float | None = None
    helpfulness: float | None = None
    validity: float | None = None
    q_know: float | None = None
    not_computed: dict[str, str] = Field(default_factory=dict)
    sentences: list[SentenceEvidence] = Field(default_factory=list)

    def value(self, metric: str) -> float | None:
        """A metric as one number (factuality: its factual-consistent dimension)."""
        if metric == "factuality":
            return self.factuality.consistent if self.factuality else None
        if metric in ("factual_consistent", "non_verified", "factual_inconsistent"):
            if self.factuality is None:
                return None
            return {"factual_consistent": self.factuality.consistent, "non_verified": self.factuality.non_verified,
                    "factual_inconsistent": self.factuality.inconsistent}[metric]
        return getattr(self, metric)


@dataclass
class KnowledgeSettings:
    """How the metrics are computed (defaults follow the paper where it gives one)."""

    evidence_k: int = 5
    """l: evidence passages retrieved per knowledge sentence (and per open-ended answer, eq. 8)."""
    aggregate: conner.Aggregation = "min"
    """How sentence factuality is aggregated over the knowledge (eq. 1: min)."""
    evidence_aggregate: conner.EvidenceAggregation = "max"
    """How a sentence's evidence passages are aggregated (eq. 1: max, the passage that best entails it)."""
    rank_by: conner.SentenceRanking = "entailment"
    """How min and max rank sentences: by entailment probability (eq. 1) or by argmax label (the released scripts)."""
    hard_factuality: bool = False
    """Replace each sentence's NLI vector by the one-hot of its argmax before aggregating."""
    baselines: int = 3
    """u: random other knowledge texts forming the helpfulness baseline (eq. 6)."""
    seed: int = 0
    """Seed of the baseline draw; each record's draw also depends on its id, so reruns are stable."""
    weights: tuple[float, float, float, float] = conner.DEFAULT_QKNOW_WEIGHTS
    """gamma of Q_know (eq. 9) over (factuality, relevance, paragraph coherence, informativeness)."""


@dataclass
class KnowledgeEvaluator:
    """Computes CONNER's six metrics for batches of records with whichever parts are configured."""

    checker: Checker | None = None
    retriever: Retriever | None = None
    relevance: RelevanceModel | None = None
    coherence: ParagraphCoherence | None = None
    lm: TokenLogProbs | None = None
    settings: KnowledgeSettings = field(default_factory=KnowledgeSettings)

    def score(self, records: Sequence[KnowledgeRecord], pool: Sequence[str] | None = None) -> list[KnowledgeScores]:
        """Scores for each record; ``pool`` is the knowledge the helpfulness baselines are drawn from
        (default: the knowledge of ``records``)."""
        results = [KnowledgeScores(id=record.id) for record in records]
        sentences = [split_sentences(record.knowledge) or [record.knowledge.strip()] for record in records]
        self._factuality(sentences, results)
        self._relevance(records, results)
        self._coherence(sentences, results)
        self._language_model(records, sentences, results, list(pool) if pool is not None else None)
        self._validity(records, results)
        for result in results:
            self._q_know(result)
        return results

    def _factuality(self, sentences: list[list[str]], results: list[KnowledgeScores]) -> None:
        if self.retriever is None or self.checker is None:
            reason = _missing(retriever=self.retriever, checker=self.checker)
            for result in results:
                result.not_computed["factuality"] = reason
            return
        flat = [sentence for group in sentences for sentence in group]
        hits = self.retriever.search_many(flat, self.settings.evidence_k)
        tasks = [CheckTask(claim=s, references=(hit.text,)) for s, per in zip(flat, hits) for hit in per]
        verdicts = iter(self.checker.check(tasks))
        evidence_of = iter(hits)
        for group, result in zip(sentences, results):
            per_sentence: list[np.ndarray] = []
            for sentence in group:
                found = next(evidence_of)
                rows, kept, failed = [], [], 0
                for hit in found:
                    probs = _probs(next(verdicts))
                    if probs is None:
                        failed += 1
                        continue
                    rows.append(probs)
                    kept.append(hit)
                detail = SentenceEvidence(sentence=sentence, failed_checks=failed)
                if found and not rows:
                    result.sentences.append(detail)
                    continue
                matrix = np.array(rows) if rows else np.array([[0.0, 1.0, 0.0]])
                if kept:
                    best = conner.best_evidence(matrix)
                    detail.evidence, detail.doc_id = kept[best].text, kept[best].doc_id
                entailment, neutral, contradiction = (
                    float(v) for v in conner.sentence_factuality(matrix, self.settings.evidence_aggregate)
                )
                detail.probs = (entailment, neutral, contradiction)
                per_sentence.append(matrix)
                result.sentences.append(detail)
            if len(per_sentence) < len(group):
                result.not_computed["factuality"] = "the checker failed on every evidence passage of a sentence"
                continue
            score = conner.factuality(
                per_sentence,
                self.settings.aggregate,
                self.settings.hard_factuality,
                self.settings.evidence_aggregate,
                self.settings.rank_by,
            )
            result.factuality = Factuality(
                consistent=score.consistent, non_verified=score.non_verified, inconsistent=score.inconsistent
            )

    def _relevance(self, records: Sequence[KnowledgeRecord], results: list[KnowledgeScores]) -> None:
        if self.relevance is None:
            for result in results:
                result.not_computed["relevance"] = "no relevance model; pass --relevance-model"
            return
        scores = self.relevance.score([(record.query, record.knowledge) for record in records])
        for result, value in zip(results, scores):
            result.relevance = float(value)

    def _coherence(self, sentences: list[list[str]], results: list[KnowledgeScores]) -> None:
        if self.coherence is None:
            for result in results:
                result.not_computed["coherence_paragraph"] = "no paragraph coherence model; pass --coherence-model"
            return
        for result, value in zip(results, self.coherence.score(sentences)):
            result.coherence_paragraph = float(value)

    def _language_model(
        self,
        records: Sequence[KnowledgeRecord],
        sentences: list[list[str]],
        results: list[KnowledgeScores],
        pool: list[str] | None,
    ) -> None:
        if self.lm is None:
            reason = "no causal LM; pass --lm MODEL (a local folder or cached hub name) or --lm endpoint"
            for result in results:
                for metric in ("coherence_sentence", "informativeness", "helpfulness"):
                    result.not_computed[metric] = reason
            return
        pool = pool if pool is not None else [record.knowledge for record in records]
        pairs: list[tuple[str, str]] = []
        plans: list[tuple[list[int], int, int | None, list[int]]] = []
        for record, group, result in zip(records, sentences, results):
            sentence_ids = [_add(pairs, ("", sentence)) for sentence in group]
            info_id = _add(pairs, informativeness_pair(record))
            help_id, baseline_ids = None, []
            if not record.answer:
                result.not_computed["helpfulness"] = "the record has no 'answer'"
            else:
                negatives = self._baseline_knowledge(record, pool)
                if not negatives:
                    result.not_computed["helpfulness"] = "no other knowledge to draw the random baseline from"
                else:
                    help_id = _add(pairs, answer_pair(record, record.knowledge, record.answer))
                    baseline_ids = [_add(pairs, answer_pair(record, k, record.answer)) for k in negatives]
            plans.append((sentence_ids, info_id, help_id, baseline_ids))
        try:
            logprobs = self.lm.logprobs(pairs)
        except BackendError as error:
            for result in results:
                for metric in ("coherence_sentence", "informativeness", "helpfulness"):
                    result.not_computed.setdefault(metric, f"{LM_FAILED}: {error}")
            return
        for result, (sentence_ids, info_id, help_id, baseline_ids) in zip(results, plans):
            sentence_values = [logprobs[i] for i in sentence_ids if len(logprobs[i])]
            if sentence_values:
                result.coherence_sentence = conner.sentence_coherence(sentence_values)
            else:
                result.not_computed["coherence_sentence"] = "no sentence had a scored token"
            if len(logprobs[info_id]):
                result.informativeness = conner.informativeness(logprobs[info_id])
            else:
                result.not_computed["informativeness"] = "the knowledge had no scored token"
            if help_id is not None:
                losses = [conner.answer_loss(logprobs[i]) for i in baseline_ids if len(logprobs[i])]
                if len(logprobs[help_id]) and losses:
                    result.helpfulness = conner.helpfulness(conner.answer_loss(logprobs[help_id]), losses)
                else:
                    result.not_computed["helpfulness"] = "the answer had no scored token"

    def _baseline_knowledge(self, record: KnowledgeRecord, pool: list[str]) -> list[str]:
        """u random knowledge texts other than the record's own (seeded by settings.seed and the record id)."""
        others = sorted({text for text in pool if text.strip() and text != record.knowledge})
        digest = hashlib.sha256(f"{self.settings.seed}:{record.id}".encode()).hexdigest()
        draw = random.Random(int(digest[:16], 16))
        return draw.sample(others, min(self.settings.baselines, len(others)))

    def _validity(self, records: Sequence[KnowledgeRecord], results: list[KnowledgeScores]) -> None:
        tasks: list[CheckTask] = []
        plans: list[tuple[KnowledgeScores, list[int], bool]] = []
        open_ended = [(record, result) for record, result in zip(records, results) if record.task == "dialogue"]
        answers = [record.answer or "" for record, _ in open_ended]
        evidence_retriever = self.retriever if self.checker is not None else None
        hits = iter(
            evidence_retriever.search_many(answers, self.settings.evidence_k)
            if evidence_retriever is not None and answers
            else []
        )
        for record, result in zip(records, results):
            if not record.answer:
                result.not_computed["validity"] = "the record has no 'answer'"
                if record.task == "dialogue" and evidence_retriever is not None:
                    next(hits)
                continue
            if self.checker is None:
                result.not_computed["validity"] = "no checker; pass --checker"
                continue
            if record.task == "qa":
                if not record.gold_answer:
                    result.not_computed["validity"] = "span validity (eq. 7) needs 'gold_answer'"
                    continue
                premise, hypothesis = f"{record.query} {record.gold_answer}", f"{record.query} {record.answer}"
                plans.append((result, [_add_task(tasks, CheckTask(claim=hypothesis, references=(premise,)))], True))
            elif self.retriever is None:
                result.not_computed["validity"] = "open-ended validity (eq. 8) needs evidence; pass --corpus"
            else:
                found = next(hits)
                if not found:
                    result.not_computed["validity"] = "no evidence retrieved for the answer"
                    continue
                ids = [_add_task(tasks, CheckTask(claim=record.answer, references=(hit.text,))) for hit in found]
                plans.append((result, ids, False))
        verdicts = self.checker.check(tasks) if tasks and self.checker is not None else []
        for result, ids, span in plans:
            rows = [probs for probs in (_probs(verdicts[i]) for i in ids) if probs is not None]
            if not rows:
                result.not_computed["validity"] = VALIDITY_CHECKS_FAILED
            elif span:
                result.validity = conner.span_validity(rows[0])
            else:
                result.validity = conner.open_validity(np.array(rows))

    def _q_know(self, result: KnowledgeScores) -> None:
        parts = [result.value(metric) for metric in conner.INTRINSIC_DIMENSIONS]
        missing = [metric for metric, value in zip(conner.INTRINSIC_DIMENSIONS, parts) if value is None]
        if missing:
            result.not_computed["q_know"] = f"needs {', '.join(missing)}"
            return
        result.q_know = conner.q_know([float(v) for v in parts if v is not None], self.settings.weights)


def _probs(verdict: Verdict) -> np.ndarray | None:
    """A verdict's (E, N, C) probabilities; a label without probabilities counts as one-hot; failures None."""
    if verdict.failed or verdict.label is None:
        return None
    if verdict.probs is not None:
        return np.asarray(verdict.probs, dtype=float)
    return np.eye(3)[LABELS.index(verdict.label)]


def _add(pairs: list[Any], pair: Any) -> int:
    pairs.append(pair)
    return len(pairs) - 1


def _add_task(tasks: list[CheckTask], task: CheckTask) -> int:
    tasks.append(task)
    return len(tasks) - 1


def _missing(**parts: object) -> str:
    flags = {"retriever": "--corpus", "checker": "--checker"}
    absent = [f"{name} ({flags[name]})" for name, part in parts.items() if part is None]
    return f"needs a {' and a '.join(absent)}"


SUMMARY_METRICS: tuple[str, ...] = (
    "factual_consistent",
    "non_verified",
    "factual_inconsistent",
    *METRICS[1:],
    "q_know",
)
"""The figures a knowledge run is summarised by: factuality's three dimensions, the other five metrics, Q_know."""


class MetricMean(BaseModel):
    """A metric's mean over the records where it was computed (``records`` of them; None when none)."""

    mean: float | None
    records: int


class KnowledgeSummary(BaseModel):
    """Dataset means of every metric, and why a metric was not computed where it was not (the reason given for
    the most records; between reasons given equally often, the first in alphabetical order)."""

    records: int
    means: dict[str, MetricMean]
    not_computed: dict[str, str]


class KnowledgeRun(RunResult[KnowledgeScores]):
    """A whole knowledge-scoring run: its summary, the counts, and every result in the results file (earlier runs'
    included when resuming, read lazily; left out of ``model_dump``). ``failed``: rows with a failed checker or
    causal-LM call (``knowledge_failed``)."""

    summary: KnowledgeSummary


VALIDITY_CHECKS_FAILED = "the checker failed on every premise"
"""The ``not_computed`` reason of a validity whose every check failed."""
LM_FAILED = "the causal LM failed"
"""How the ``not_computed`` reason of a metric starts when the causal LM's call failed."""


def knowledge_failed(row: KnowledgeScores) -> bool:
    """Whether a row records a failed call a rerun should retry: a failed evidence check of a knowledge
    sentence, a validity whose every check failed, or a failed causal-LM call."""
    return (
        any(sentence.failed_checks for sentence in row.sentences)
        or row.not_computed.get("validity") == VALIDITY_CHECKS_FAILED
        or any(reason.startswith(LM_FAILED) for reason in row.not_computed.values())
    )


@dataclass
class KnowledgeTotals:
    """The mergeable figures of a knowledge run, fed one result row at a time (see ``factscope.core.results``): an
    exact mean per summary metric, how often each reason for a metric not computed was given, and the failures."""

    records: int = 0
    failed: int = 0
    means: dict[str, RunningMean] = field(default_factory=lambda: {m: RunningMean() for m in SUMMARY_METRICS})
    reasons: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, row: KnowledgeScores) -> None:
        """Count one record; a metric it lacks is left out of that metric's mean, not read as zero."""
        self.records += 1
        self.failed += knowledge_failed(row)
        for metric, mean in self.means.items():
            value = row.value(metric)
            if value is not None:
                mean.add(value)
        for metric, reason in row.not_computed.items():
            self.reasons.setdefault(metric, Counter())[reason] += 1

    def merge(self, other: KnowledgeTotals) -> None:
        """Count every row ``other`` counted."""
        self.records += other.records
        self.failed += other.failed
        for metric, mean in other.means.items():
            self.means.setdefault(metric, RunningMean()).merge(mean)
        for metric, reasons in other.reasons.items():
            self.reasons.setdefault(metric, Counter()).update(reasons)

    def summary(self) -> KnowledgeSummary:
        """The means of the rows counted, and per metric not always computed its most common reason."""
        return KnowledgeSummary(
            records=self.records,
            means={metric: MetricMean(mean=mean.mean, records=mean.count) for metric, mean in self.means.items()},
            not_computed={
                metric: min(reasons.items(), key=lambda pair: (-pair[1], pair[0]))[0]
                for metric, reasons in sorted(self.reasons.items())
            },
        )


def summarize(results: Iterable[KnowledgeScores]) -> KnowledgeSummary:
    """Means of each metric over the records that have it; a record without a metric is left out, not zero
    (``KnowledgeTotals``)."""
    totals = KnowledgeTotals()
    for row in results:
        totals.add(row)
    return totals.summary()


def knowledge_pool(records: Iterable[KnowledgeRecord]) -> list[str]:
    """The knowledge texts helpfulness baselines are drawn from: each non-blank one of ``records`` once, sorted."""
    return sorted({record.knowledge for record in records if record.knowledge.strip()})


def knowledge_pipeline(
    evaluator: KnowledgeEvaluator,
    *,
    pool: Sequence[str] | None = None,
    settings: Mapping[str, Setting] | None = None,
) -> Pipeline[KnowledgeRecord, KnowledgeScores, KnowledgeTotals]:
    """CONNER's scoring as a pipeline any engine runs: ``evaluator`` scores each batch of records, drawing
    helpfulness baselines from ``pool`` (``knowledge_pool`` of every record; default: each batch's own knowledge).
    See ``knowledge`` for the rest."""
    shared = list(pool) if pool is not None else None
    return Pipeline(
        system="knowledge score",
        stage_name="scoring knowledge",
        row_type=KnowledgeScores,
        key=lambda record: record.id,
        process=lambda batch: evaluator.score(batch, pool=shared),
        new_totals=KnowledgeTotals,
        components={"evaluator": evaluator},
        settings=dict(settings or {}),
        failed=knowledge_failed,
    )


def knowledge(
    records: Iterable[KnowledgeRecord],
    evaluator: KnowledgeEvaluator,
    *,
    output: str | Path | None = None,
    batch_size: int = 16,
    progress: ProgressCallback | None = None,
    settings: Mapping[str, Setting] | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> KnowledgeRun:
    """Score ``records`` on CONNER's metrics in batches, writing each result as soon as it is done.

    ``records`` is read more than once (a list, or a re-iterable reader). Helpfulness baselines are drawn from the
    knowledge of all ``records`` (``knowledge_pool``: those texts are held in memory when a causal LM is
    configured). With ``output``, records already in that file are skipped (resume), the summary covers the whole
    file and ``results`` reads it lazily; with ``retry_failed``, the file's rows with a failed checker or causal-LM
    call (``knowledge_failed``) are scored again and replaced in place.
    """
    if isinstance(records, Iterator):
        records = list(records)
    pool = knowledge_pool(records) if evaluator.lm is not None else []
    report_progress(progress, evaluator.checker)
    pipeline = knowledge_pipeline(evaluator, pool=pool, settings=settings)
    produced, totals = run_pipeline(
        pipeline,
        records,
        output=output,
        batch_size=batch_size,
        progress=progress,
        overwrite=overwrite,
        retry_failed=retry_failed,
    )
    return knowledge_run(produced, totals)


def knowledge_run(produced: RunRows[KnowledgeScores], totals: KnowledgeTotals) -> KnowledgeRun:
    """The typed result of a knowledge run from its rows and totals."""
    return KnowledgeRun(results=produced.results, failed=totals.failed, summary=totals.summary(), **produced.counts())
