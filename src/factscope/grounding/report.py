"""The report of `factscope ground` results: grounding precision, recall and F1 by factor, the F1 distribution,
and per record the response and gold facts marked present or absent with their presence scores.

Figures come from ``summarize`` (the same macro averages the command prints); charts are inline SVG from
``factscope.plots``; text is escaped by the autoescaping templates in ``grounding/templates``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from factscope.core.schema import MODEL_FIELD
from factscope.grounding.task import DEFAULT_FACTORS, FactJudgement, GroundResult, summarize
from factscope.metrics.grounding import GroundingAverages
from factscope.plots.bars import grouped_bars
from factscope.plots.histogram import histogram
from factscope.plots.svg import Series
from factscope.plots.templating import render_html

FIGURES = (
    ("precision", "precision"),
    ("recall", "recall"),
    ("f1", "F1"),
    ("answer_accuracy", "answer accuracy"),
)


@dataclass(frozen=True)
class GroupRow:
    """One line of the figures table: a factor, its group and the group's averages."""

    factor: str
    group: str
    averages: GroundingAverages


def report_factors(results: Sequence[GroundResult]) -> list[str]:
    """The factors the page breaks results down by: those of the paper's factors the records have, then
    ``model`` when records name one."""
    present = {name for r in results for name, value in r.metadata.items() if value is not None}
    return [name for name in (*DEFAULT_FACTORS, MODEL_FIELD) if name in present]


RESULT_FIELDS = ("response_facts", "gold_facts")
"""Row fields only grounding results have (any one tells the system of a results file without a manifest)."""

FLAGGED_MEANS = "records with a response fact absent from the context"
"""What ``is_flagged`` keeps, in words."""


def is_flagged(result: GroundResult) -> bool:
    """True when the response states a fact judged absent from the context (an ungrounded fact)."""
    return any(fact.present is False for fact in result.response_facts)


def fact_class(fact: FactJudgement) -> str:
    """The CSS class of a judged fact: 'present', 'absent' or 'unjudged'."""
    if fact.present is None:
        return "unjudged"
    return "present" if fact.present else "absent"


def overview_html(results: Sequence[GroundResult]) -> Markup:
    """The figures of every record: a table overall and per factor group, P/R/F1 bars per group, and the
    distribution of per-record F1."""
    factors = report_factors(results)
    summary = summarize(results, factors)
    rows = [GroupRow("all", "all", summary.overall)]
    rows += [
        GroupRow(b.factor, group, averages) for b in summary.by_factor for group, averages in b.groups.items()
    ]
    chart = grouped_bars(
        [row.group if row.factor == "all" else f"{row.factor}: {row.group}" for row in rows],
        [Series(name) for _, name in FIGURES],
        [[getattr(row.averages, key) for key, _ in FIGURES] for row in rows],
        title="grounding precision, recall and F1 by factor (macro averages)",
        chart="ground-factors",
    )
    f1s = [r.f1 for r in results if not r.failed and r.f1 is not None]
    spread = histogram(f1s, title="grounding F1 per record", x_label="F1", chart="ground-f1")
    return render_html(
        "factscope.grounding", "overview.html.j2", summary=summary, rows=rows, figures=FIGURES,
        charts=[Markup(chart), Markup(spread)],
    )


def record_html(result: GroundResult, anchor: str, contexts: Sequence[str] = ()) -> Markup:
    """One record: question, response, answer check, and its response and gold facts present or absent.
    ``contexts`` (the example's input contexts, which results rows do not hold) are shown after the facts when
    given, so a reader can see what the response facts were judged against."""
    return render_html(
        "factscope.grounding", "record.html.j2", result=result, anchor=anchor, fact_class=fact_class,
        contexts=list(contexts),
    )


def record_caption(result: GroundResult) -> str:
    """The record's line in the page's contents: its F1, or why it has none."""
    if result.failed:
        return "failed"
    return "F1 n/a" if result.f1 is None else f"F1 {result.f1:.2f}"
