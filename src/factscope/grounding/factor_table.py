"""A grounding run's figures as the terminal shows them: precision, recall, F1 and answer accuracy, overall and
per group of each breakdown factor (Truly Ground's popularity, single / multi context, definite / free-form)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from factscope.core.display.figure_table import format_value

if TYPE_CHECKING:
    from factscope.grounding.task import GroundSummary
    from factscope.metrics.grounding import GroundingAverages


def factor_table(summary: GroundSummary) -> Table:
    """Precision, recall, F1 and answer accuracy (macro averages over records), overall and per factor group;
    a factor's records without a value are counted on a row of their own."""
    table = Table(title="grounding (macro average over records)", header_style="bold")
    for column in ("factor", "group", "records", "precision", "recall", "F1", "answer acc."):
        table.add_column(column, justify="left" if column in {"factor", "group"} else "right")

    def add(factor: str, group: str, averages: GroundingAverages) -> None:
        table.add_row(
            Text(factor),
            Text(group),
            str(averages.records),
            format_value(averages.precision),
            format_value(averages.recall),
            format_value(averages.f1),
            format_value(averages.answer_accuracy),
        )

    add("all", "", summary.overall)
    for item in summary.by_factor:
        for group, averages in item.groups.items():
            add(item.factor, group, averages)
        if item.missing:
            table.add_row(Text(item.factor), "(no value)", str(item.missing), "", "", "", "")
    return table
