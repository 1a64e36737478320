"""CONNER's knowledge scoring, defined once (``KNOWLEDGE``): records and evaluator from a ``KnowledgeSpec``, the
scoring pipeline, ``KnowledgeRun``, its summary rows and its report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from factscope.checkers.segmented import CheckMode
from factscope.conner import report
from factscope.conner.data import KnowledgeRecord, KnowledgeRecords, KnowledgeTask, parse_knowledge_record
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.scores import KnowledgeScores
from factscope.conner.task import KnowledgeRun, knowledge_pipeline, knowledge_pool, knowledge_run
from factscope.conner.totals import KnowledgeTotals
from factscope.core.manifest import SettingValue, fingerprint_file
from factscope.core.run import Pipeline, RunRows
from factscope.core.system import ReportHooks, RunFacts, RunOutcome, SystemDefinition
from factscope.metrics.conner import Aggregation, EvidenceAggregation, SentenceRanking
from factscope.retrieve.web_settings import WebSettings

if TYPE_CHECKING:
    from factscope.checkers.base import Checker
    from factscope.conner.coherence import ParagraphCoherence
    from factscope.conner.relevance import RelevanceModel
    from factscope.hf.causal_lm import TokenLogProbs
    from factscope.llm.client import LLMClient


@dataclass(frozen=True)
class KnowledgeSpec:
    """The evaluator of a knowledge-scoring run: a ready ``evaluator``, or the parts
    ``factscope.conner.evaluator_setup.make_evaluator`` builds it from (``corpus`` enables factuality and
    open-ended validity, and its fingerprint goes into the manifest; ``lm``, a causal LM or 'endpoint', enables
    sentence coherence, informativeness and helpfulness; ``mode`` 'fast' has a model checker score each
    knowledge sentence only against the most relevant segments of each evidence passage; ``checker``,
    ``relevance``, ``coherence`` and ``lm`` are each a name or a ready object). ``pool``: the knowledge texts the
    helpfulness baselines are drawn from (settled by ``prepare`` when a causal LM is configured). A ``retriever``
    that searches the web or Wikipedia ('web:serper', 'web:brave', 'wikipedia') needs no corpus: it searches as
    ``web`` says."""

    evaluator: KnowledgeEvaluator | None = None
    corpus: Path | None = None
    retriever: str = "bm25"
    evidence_k: int = 5
    aggregate: Aggregation = "min"
    evidence_aggregate: EvidenceAggregation = "max"
    rank_by: SentenceRanking = "entailment"
    hard: bool = False
    checker: str | Checker = "embedded"
    relevance: str | RelevanceModel = "bi-encoder"
    coherence: str | ParagraphCoherence = "proxy"
    lm: str | TokenLogProbs | None = None
    baselines: int = 3
    weights: str = "0.25,0.25,0.25,0.25"
    seed: int = 0
    mode: CheckMode = "exact"
    pool: tuple[str, ...] | None = None
    web: WebSettings = field(default_factory=WebSettings)


def needs_llm(spec: KnowledgeSpec) -> bool:
    """Whether the evaluator's parts named by ``spec`` call an LLM endpoint (an 'endpoint' LM or an LLM checker)."""
    from factscope.checkers.registry import CHECKERS

    if spec.evaluator is not None:
        return False
    checker_calls_llm = isinstance(spec.checker, str) and spec.checker != "none" and CHECKERS.needs_llm(spec.checker)
    return spec.lm == "endpoint" or checker_calls_llm


def make_spec_evaluator(spec: KnowledgeSpec, llm: LLMClient | None) -> KnowledgeEvaluator:
    """The evaluator of ``spec``: its ready one, else built from its parts (``llm`` for the LLM ones)."""
    from factscope.conner.evaluator_setup import make_evaluator

    if spec.evaluator is not None:
        return spec.evaluator
    return make_evaluator(
        corpus=spec.corpus,
        retriever=spec.retriever,
        evidence_k=spec.evidence_k,
        aggregate=spec.aggregate,
        evidence_aggregate=spec.evidence_aggregate,
        rank_by=spec.rank_by,
        hard=spec.hard,
        checker=spec.checker,
        relevance=spec.relevance,
        coherence=spec.coherence,
        lm=spec.lm,
        baselines=spec.baselines,
        weights=spec.weights,
        seed=spec.seed,
        mode=spec.mode,
        llm=llm,
        web=spec.web,
    )


def ready(spec: KnowledgeSpec, llm: LLMClient | None) -> KnowledgeSpec:
    """``spec`` with its evaluator built (``llm`` for the LLM parts)."""
    return replace(spec, evaluator=make_spec_evaluator(spec, llm))


def build(spec: KnowledgeSpec, llm: LLMClient | None) -> Pipeline[KnowledgeRecord, KnowledgeScores, KnowledgeTotals]:
    """The scoring pipeline of ``spec``'s evaluator, drawing helpfulness baselines from its ``pool``."""
    settings: dict[str, SettingValue] = {"corpus": fingerprint_file(spec.corpus).sha256} if spec.corpus else {}
    return knowledge_pipeline(
        make_spec_evaluator(spec, llm), pool=spec.pool if spec.pool is not None else [], settings=settings
    )


def uses_lm(spec: KnowledgeSpec) -> bool:
    """Whether ``spec`` scores with a causal LM (whose helpfulness baselines need the pool of all records)."""
    return spec.evaluator.lm is not None if spec.evaluator is not None else spec.lm not in (None, "none")


def prepare(spec: KnowledgeSpec, records: Iterable[KnowledgeRecord]) -> KnowledgeSpec:
    """``spec`` with the helpfulness pool of ``records`` (``knowledge_pool``) when it scores with a causal LM."""
    if spec.pool is not None or not uses_lm(spec):
        return spec
    return replace(spec, pool=tuple(knowledge_pool(records)))


def mergeable(spec: KnowledgeSpec) -> bool:
    """Whether a record's scores depend on it alone: not with a causal LM, whose helpfulness baselines are
    drawn from the knowledge of all the records run together (and depend on each record's id)."""
    return not uses_lm(spec)


def result(produced: RunRows[KnowledgeScores], totals: KnowledgeTotals, facts: RunFacts) -> KnowledgeRun:
    """The typed result of a knowledge-scoring run."""
    return knowledge_run(produced, totals)


def summary_rows(run: KnowledgeRun, outcome: RunOutcome) -> list[tuple[str, object]]:
    """The figures of a knowledge-scoring run's summary table: counts, then each metric's mean."""
    rows: list[tuple[str, object]] = [
        ("records scored (new / resumed)", f"{run.new_records} / {run.resumed_records}"),
        ("records skipped (bad input)", outcome.skipped),
        *outcome.rows,
    ]
    for metric, figure in run.summary.means.items():
        rows.append((f"{metric} (mean of {figure.records})", figure.mean))
    return rows


@dataclass(frozen=True)
class KnowledgeParser:
    """One knowledge record of a JSON / JSONL file or request, ``task`` given to the records that name none."""

    task: KnowledgeTask | None = None

    def __call__(self, item: dict[str, Any], /, *, path: Path, line: int) -> KnowledgeRecord:
        return parse_knowledge_record({"task": self.task, **item} if self.task else item, path=path, line=line)


KNOWLEDGE: SystemDefinition[KnowledgeSpec, KnowledgeRecord, KnowledgeScores, KnowledgeTotals, KnowledgeRun] = (
    SystemDefinition(
        name="knowledge",
        manifest="knowledge score",
        command="factscope knowledge score",
        title="Knowledge quality (CONNER)",
        row_type=KnowledgeScores,
        run_type=KnowledgeRun,
        parse=KnowledgeParser(),
        read=KnowledgeRecords,
        needs_llm=needs_llm,
        ready=ready,
        build=build,
        prepare=prepare,
        result=result,
        summary_rows=summary_rows,
        report=ReportHooks(
            fields=("factuality", "not_computed"),
            flagged=report.is_flagged,
            flagged_means="records with a non-verified or inconsistent knowledge sentence",
            record=report.record_html,
            overview=report.overview_html,
            caption=report.record_caption,
        ),
        mergeable=mergeable,
    )
)
"""CONNER's knowledge-quality metrics."""
