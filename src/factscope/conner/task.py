"""CONNER's knowledge-scoring run (CONNER section 3): ``KnowledgeEvaluator`` (``factscope.conner.evaluator``)
scores batches of records as a ``Pipeline`` any engine runs (``knowledge_pipeline``) or in this process
(``knowledge``); each record's row is a ``KnowledgeScores`` (``factscope.conner.scores``), the dataset figures
come from ``KnowledgeTotals`` (``factscope.conner.totals``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from factscope.conner.data import KnowledgeRecord
from factscope.conner.evaluator import KnowledgeEvaluator
from factscope.conner.scores import NOT_SCORED, KnowledgeScores, knowledge_failed
from factscope.conner.totals import METRICS, KnowledgeSummary, KnowledgeTotals
from factscope.core.files.manifest import SettingValue
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.core.runs.result import RunResult


class KnowledgeRun(RunResult[KnowledgeScores]):
    """A whole knowledge-scoring run: its summary, the counts, and every result in the results file (earlier runs'
    included when resuming, read lazily; left out of ``model_dump``). ``failed``: rows with a failed checker or
    causal-LM call, or of a record that could not be scored (``knowledge_failed``)."""

    summary: KnowledgeSummary

    def headline(self) -> list[tuple[str, object]]:
        """The mean of every metric computed."""
        return [(name, figure.mean) for name, figure in self.summary.means.items() if figure.mean is not None]


def knowledge_pool(records: Iterable[KnowledgeRecord]) -> list[str]:
    """The knowledge texts helpfulness baselines are drawn from: each non-blank one of ``records`` once, sorted."""
    return sorted({record.knowledge for record in records if record.knowledge.strip()})


def knowledge_pipeline(
    evaluator: KnowledgeEvaluator,
    *,
    pool: Sequence[str] | None = None,
    settings: Mapping[str, SettingValue] | None = None,
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
        crashed=knowledge_crashed,
    )


def knowledge_crashed(record: KnowledgeRecord, reason: str) -> KnowledgeScores:
    """The failed row of a record whose scoring ended its worker process (``Pipeline.crashed``): every metric
    and Q_know not computed, for ``reason``, so ``retry_failed`` scores it again."""
    why = f"{NOT_SCORED}: {reason}"
    return KnowledgeScores(id=record.id, not_computed={metric: why for metric in (*METRICS, "q_know")})


def knowledge_run(produced: RunRows[KnowledgeScores], totals: KnowledgeTotals) -> KnowledgeRun:
    """The typed result of a knowledge run from its rows and totals."""
    return KnowledgeRun(results=produced.results, failed=totals.failed, summary=totals.summary(), **produced.counts())

