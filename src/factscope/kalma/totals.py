"""The dataset figures of KaLMA's scoring, as mergeable totals fed one row at a time (see
``factscope.core.runs.results``): per number of removed triples, one column of KaLMA Table 5."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from factscope.kalma.scores import AttributionScore, score_failed
from factscope.metrics.attribution import AlignmentTotals, CitationTotals, NATotals
from factscope.metrics.geval import ASPECTS, AspectTotals
from factscope.metrics.ratios import EmptyPolicy

AttributionFigures = dict[str, float | int | None]
"""Named dataset figures of one group of answers (citation quality, alignment, [NA] quality, G-Eval means)."""


@dataclass
class RemovedGroupTotals:
    """The mergeable figures of the answers with one number of removed triples (one column of KaLMA Table 5)."""

    empty_answers: EmptyPolicy = "skip"
    citations: CitationTotals = field(init=False)
    alignment: AlignmentTotals = field(default_factory=AlignmentTotals)
    na: NATotals = field(default_factory=NATotals)
    judged: int = 0
    aspects: dict[str, AspectTotals] = field(default_factory=lambda: {a: AspectTotals(a) for a in ASPECTS})
    citation_issues: int = 0

    def __post_init__(self) -> None:
        self.citations = CitationTotals(self.empty_answers)

    def add(self, row: AttributionScore) -> None:
        """Count one answer's row."""
        self.citations.add(row.counts)
        for entailed in row.alignment:
            self.alignment.add(entailed)
        if row.na is not None:
            self.na.add(row.na)
        if row.geval:
            self.judged += 1
            for aspect, totals in self.aspects.items():
                if aspect in row.geval:
                    totals.add(row.geval[aspect])
        self.citation_issues += len(row.issues)

    def merge(self, other: RemovedGroupTotals) -> None:
        """Count every row ``other`` counted."""
        self.citations.merge(other.citations)
        self.alignment.merge(other.alignment)
        self.na.merge(other.na)
        self.judged += other.judged
        for aspect, totals in other.aspects.items():
            self.aspects.setdefault(aspect, AspectTotals(aspect)).merge(totals)
        self.citation_issues += other.citation_issues

    def figures(self) -> AttributionFigures:
        """Citation quality, alignment, [NA] quality (when an answer had removed knowledge), G-Eval means (when
        an answer was judged) and parse issues."""
        figures: AttributionFigures = self.citations.quality().as_dict()
        figures.update({f"alignment_{k}": v for k, v in self.alignment.alignment().as_dict().items()})
        if self.na.answers:
            figures.update({k if k.startswith("na_") else f"na_{k}": v
                            for k, v in self.na.quality().as_dict().items()})
        if self.judged:
            for aspect in (totals.score() for totals in self.aspects.values()):
                figures[aspect.aspect] = aspect.mean
                figures[f"{aspect.aspect}_weighted"] = aspect.weighted_mean
                figures[f"{aspect.aspect}_failed"] = aspect.failed
        figures["citation_issues"] = self.citation_issues
        return figures


@dataclass
class AttributionTotals:
    """The mergeable figures of a scoring run, fed one result row at a time (see ``factscope.core.runs.results``):
    one ``RemovedGroupTotals`` per number of removed triples, and the rows with a failed call."""

    empty_answers: EmptyPolicy = "skip"
    groups: dict[int, RemovedGroupTotals] = field(default_factory=dict)
    failed: int = 0

    def add(self, row: AttributionScore) -> None:
        """Count one answer's row; an answer that could not be scored (``error``) is counted failed, not scored."""
        if row.error is None:
            self.groups.setdefault(row.removed, RemovedGroupTotals(self.empty_answers)).add(row)
        self.failed += score_failed(row)

    def merge(self, other: AttributionTotals) -> None:
        """Count every row ``other`` counted (under the same ``empty_answers`` policy)."""
        if other.empty_answers != self.empty_answers:
            raise ValueError("cannot merge attribution totals kept under different empty_answers policies")
        for removed, group in other.groups.items():
            self.groups.setdefault(removed, RemovedGroupTotals(self.empty_answers)).merge(group)
        self.failed += other.failed

    def summary(self) -> dict[str, AttributionFigures]:
        """The figures of each group, keyed ``removed=N`` in increasing N."""
        return {f"removed={removed}": self.groups[removed].figures() for removed in sorted(self.groups)}


def summarize(rows: Iterable[AttributionScore], *, empty_answers: EmptyPolicy = "skip"
              ) -> dict[str, AttributionFigures]:
    """Dataset figures from score rows, grouped by how many triples were removed (KaLMA Table 5):
    citation quality, alignment, [NA] quality, G-Eval means, parse issues (``AttributionTotals``)."""
    totals = AttributionTotals(empty_answers)
    for row in rows:
        totals.add(row)
    return totals.summary()
