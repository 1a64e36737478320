"""The dataset figures of a knowledge run, as mergeable totals fed one row at a time (see
``factscope.core.runs.results``): each metric's mean over the records that have it, and why a metric was not
computed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import BaseModel

from factscope.conner.scores import KnowledgeScores, knowledge_failed
from factscope.metrics.running import RunningMean

METRICS = (
    "factuality", "relevance", "coherence_sentence", "coherence_paragraph", "informativeness", "helpfulness", "validity",
)


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


@dataclass
class KnowledgeTotals:
    """The mergeable figures of a knowledge run, fed one result row at a time (see ``factscope.core.runs.results``): an
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
