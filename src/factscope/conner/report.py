"""The report of `factscope knowledge score` results: the mean and the distribution of every CONNER metric, why
a metric was not computed, and per record its six dimensions and each knowledge sentence with its evidence.

Figures come from ``summarize`` (the same means the command prints); charts are inline SVG from
``factscope.plots``; text is escaped by the autoescaping templates in ``conner/templates``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from factscope.conner.scores import KnowledgeScores, SentenceEvidence
from factscope.conner.totals import SUMMARY_METRICS, summarize
from factscope.plots.histogram import histogram
from factscope.plots.svg import DEFAULT_STYLES
from factscope.plots.templating import render_html

DIMENSIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("factuality", "factuality", ("factual_consistent", "non_verified", "factual_inconsistent")),
    ("relevance", "relevance", ("relevance",)),
    ("coherence", "coherence", ("coherence_sentence", "coherence_paragraph")),
    ("informativeness", "informativeness", ("informativeness",)),
    ("helpfulness", "helpfulness", ("helpfulness",)),
    ("validity", "validity", ("validity",)),
)
"""CONNER's six dimensions with the metrics that measure each (factuality has three, coherence two)."""

EVIDENCE_CLASSES = ("consistent", "non-verified", "inconsistent")
"""What a knowledge sentence's largest NLI probability (E, N, C) says of it."""


@dataclass(frozen=True)
class MetricView:
    """One metric of a record: its name, value and, when it has none, why."""

    name: str
    value: float | None
    reason: str | None


def evidence_class(sentence: SentenceEvidence) -> str:
    """'consistent', 'non-verified' or 'inconsistent' by the sentence's largest probability; 'unchecked'
    without probabilities."""
    if sentence.probs is None:
        return "unchecked"
    return EVIDENCE_CLASSES[max(range(3), key=lambda index: sentence.probs[index] if sentence.probs else 0.0)]


def evidence_title(sentence: SentenceEvidence) -> str:
    """The hover text of a knowledge sentence: its probabilities and evidence passage."""
    if sentence.probs is None:
        return (
            f"not checked ({sentence.failed_checks} failed checks)"
            if sentence.failed_checks
            else "not checked"
        )
    entail, neutral, contradict = sentence.probs
    source = f"; evidence from {sentence.doc_id}" if sentence.doc_id else ""
    return (
        f"P(consistent) {entail:.4f}, P(non-verified) {neutral:.4f}, P(inconsistent) {contradict:.4f}{source}"
    )


RESULT_FIELDS = ("factuality", "not_computed")
"""Row fields only knowledge scores have (any one tells the system of a results file without a manifest)."""

FLAGGED_MEANS = "records with a non-verified or inconsistent knowledge sentence"
"""What ``is_flagged`` keeps, in words."""


def is_flagged(row: KnowledgeScores) -> bool:
    """True when a knowledge sentence is not supported by its best evidence (non-verified or inconsistent)."""
    return any(evidence_class(sentence) in ("non-verified", "inconsistent") for sentence in row.sentences)


def dimensions_of(row: KnowledgeScores) -> list[tuple[str, list[MetricView]]]:
    """The record's six dimensions, each with its metrics' values or the reason they were not computed."""
    out = []
    for _, title, metrics in DIMENSIONS:
        views = []
        for metric in metrics:
            reason_key = "factuality" if metric in DIMENSIONS[0][2] else metric
            views.append(MetricView(metric, row.value(metric), row.not_computed.get(reason_key)))
        out.append((title, views))
    return out


def overview_html(rows: Sequence[KnowledgeScores]) -> Markup:
    """The means of every metric (with how many records have it), the reasons metrics were not computed, and
    one histogram per metric that has values."""
    summary = summarize(rows)
    charts = []
    for index, metric in enumerate(SUMMARY_METRICS):
        values = [v for v in (row.value(metric) for row in rows) if v is not None]
        if not values:
            continue
        charts.append(
            Markup(
                histogram(
                    values,
                    title=f"{metric} per record",
                    x_label=metric,
                    high=max(1.0, max(values)),
                    low=min(0.0, min(values)),
                    style=DEFAULT_STYLES[index % len(DEFAULT_STYLES)],
                    chart=f"knowledge-{metric}",
                )
            )
        )
    return render_html("factscope.conner", "overview.html.j2", summary=summary, charts=charts)


def record_html(row: KnowledgeScores, anchor: str) -> Markup:
    """One record: its six dimensions as figures with bars, and its knowledge sentences coloured by what their
    best evidence says, the evidence passage beside each."""
    return render_html(
        "factscope.conner",
        "record.html.j2",
        row=row,
        anchor=anchor,
        dimensions=dimensions_of(row),
        evidence_class=evidence_class,
        evidence_title=evidence_title,
    )


def record_caption(row: KnowledgeScores) -> str:
    """The record's line in the page's contents: its factual-consistent score."""
    value = row.value("factual_consistent")
    return "factuality n/a" if value is None else f"consistent {value:.2f}"
