"""The report of `factscope attribute score` results: citation quality, alignment and [NA] figures per number
of removed triples, citation precision and recall per answer, and per answer its sentences with each citation
coloured by its judgement (correct and in the minimum set, correct only, wrong) and its [NA] marks.

Figures come from ``summarize`` (the same figures the command prints); charts are inline SVG from
``factscope.plots``; text is escaped by the autoescaping templates in ``kalma/templates``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from factscope.kalma.scores import AttributionScore, CitationJudgement
from factscope.kalma.totals import summarize
from factscope.plots.bars import grouped_bars
from factscope.plots.histogram import histogram
from factscope.plots.svg import Series, Style
from factscope.plots.templating import render_html

GROUP_FIGURES = (
    ("correctness", "correctness"),
    ("micro_precision", "precision (micro)"),
    ("micro_recall", "recall (micro)"),
    ("micro_f1", "F1 (micro)"),
    ("alignment_value", "alignment"),
    ("na_precision", "[NA] precision"),
    ("na_recall", "[NA] recall"),
)
"""The figures charted per number of removed triples, with their names."""

PER_ANSWER_BARS = 30
"""Up to this many answers, precision and recall are drawn per answer; above it, as two histograms."""

PRECISION_STYLE = Style("#4c72b0", "solid")
RECALL_STYLE = Style("#dd8452", "hatch")


@dataclass(frozen=True)
class SentenceView:
    """One sentence of an answer with its citations and whether it is marked [NA]."""

    number: int
    text: str
    citations: list[CitationJudgement]
    not_available: bool


def answer_precision(row: AttributionScore) -> float | None:
    """Citation precision of one answer: citations in the minimum set over all citations (None without any)."""
    return row.counts.precise / row.counts.citations if row.counts.citations else None


def answer_recall(row: AttributionScore) -> float | None:
    """Citation recall of one answer: minimum-set triples cited over the minimum set (None when it is empty)."""
    return row.counts.recalled / row.counts.knowledge if row.counts.knowledge else None


RESULT_FIELDS = ("citations", "counts")
"""Row fields only attribution scores have (any one tells the system of a results file without a manifest)."""

FLAGGED_MEANS = "answers citing a triple not in the graph or with an unreadable citation"
"""What ``is_flagged`` keeps, in words."""


def is_flagged(row: AttributionScore) -> bool:
    """True when an answer cites a triple that is not in the graph, or has a citation that cannot be read."""
    return bool(row.issues) or any(not citation.correct for citation in row.citations)


def citation_class(citation: CitationJudgement) -> str:
    """The CSS class of a citation: 'precise' (in the minimum set), 'correct' (in the graph only) or 'wrong'."""
    if citation.precise:
        return "precise"
    return "correct" if citation.correct else "wrong"


def citation_title(citation: CitationJudgement) -> str:
    """The hover text of a citation: how each test judged it."""
    entailed = {True: "yes", False: "no", None: "not checked or the check failed"}[citation.entailed]
    return (
        f"in the graph: {'yes' if citation.correct else 'no'}; in the minimum set: "
        f"{'yes' if citation.precise else 'no'}; the sentence entails it: {entailed}"
    )


def sentences_of(row: AttributionScore) -> list[SentenceView]:
    """The answer's sentences, each with the citations mapped to it."""
    return [
        SentenceView(
            number=index + 1,
            text=sentence,
            citations=[c for c in row.citations if c.sentence == index],
            not_available=index in row.na_sentences,
        )
        for index, sentence in enumerate(row.sentences)
    ]


def overview_html(rows: Sequence[AttributionScore]) -> Markup:
    """The figures of every answer: KaLMA's figures per number of removed triples (table and bars), and
    citation precision and recall per answer."""
    summary = summarize(rows)
    groups = list(summary)
    shown = [(key, name) for key, name in GROUP_FIGURES if any(key in summary[g] for g in groups)]
    charts = [
        grouped_bars(
            groups,
            [Series(name) for _, name in shown],
            [[_as_float(summary[g].get(key)) for key, _ in shown] for g in groups],
            title="citation quality and alignment by number of removed triples",
            chart="attribute-groups",
        )
    ]
    precisions = [answer_precision(row) for row in rows]
    recalls = [answer_recall(row) for row in rows]
    if len(rows) <= PER_ANSWER_BARS:
        charts.append(
            grouped_bars(
                [row.id for row in rows],
                [Series("precision", PRECISION_STYLE), Series("recall", RECALL_STYLE)],
                [[p, r] for p, r in zip(precisions, recalls)],
                title="citation precision and recall per answer",
                chart="attribute-answers",
            )
        )
    else:
        for figure, values, style in (("precision", precisions, PRECISION_STYLE), ("recall", recalls, RECALL_STYLE)):
            charts.append(
                histogram(
                    [value for value in values if value is not None],
                    title=f"citation {figure} per answer",
                    x_label=figure,
                    style=style,
                    chart=f"attribute-{figure}",
                )
            )
    return render_html(
        "factscope.kalma",
        "overview.html.j2",
        summary=summary,
        names=list(dict.fromkeys(name for figures in summary.values() for name in figures)),
        answers=len(rows),
        charts=[Markup(chart) for chart in charts],
    )


def _as_float(value: float | None) -> float | None:
    return None if value is None else float(value)


def record_html(row: AttributionScore, anchor: str) -> Markup:
    """One answer: its sentences with coloured citations and [NA] marks, unreadable citations, its counts,
    [NA] counts and G-Eval scores."""
    return render_html(
        "factscope.kalma",
        "record.html.j2",
        row=row,
        anchor=anchor,
        sentences=sentences_of(row),
        precision=answer_precision(row),
        recall=answer_recall(row),
        citation_class=citation_class,
        citation_title=citation_title,
    )


def record_caption(row: AttributionScore) -> str:
    """The answer's line in the page's contents: its citation precision and recall."""
    precision, recall = answer_precision(row), answer_recall(row)
    shown = [
        f"P {precision:.2f}" if precision is not None else "P n/a",
        f"R {recall:.2f}" if recall is not None else "R n/a",
    ]
    return ", ".join(shown)
