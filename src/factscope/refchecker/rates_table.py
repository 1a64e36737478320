"""A check run's label rates as the terminal shows them (RefChecker eq. 1, overall and per context setting)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from factscope.core.display.figure_table import format_value
from factscope.core.schema import LABELS

if TYPE_CHECKING:
    from factscope.refchecker.task import CheckRun


def rates_table(run: CheckRun) -> Table:
    """Label rates (RefChecker eq. 1), abstain and hallucination rates, overall and per context setting; its
    headers whole at 80 columns (no outer border)."""
    table = Table(title="hallucination rates (share of claims, averaged over responses)", header_style="bold",
                  show_edge=False)
    table.caption = (
        "E / N / C: Entailment, Neutral, Contradiction, averaged over answering responses; halluc.: N + C; "
        "abstained: responses with no claims, abstain: their share"
    )
    for column in ("setting", "responses", "E", "N", "C", "halluc.", "abstained", "abstain"):
        table.add_column(column, justify="left" if column == "setting" else "right", min_width=len(column))
    groups = [("all", run.rates), *run.rates_by_setting.items()]
    for name, rates in groups:
        values = [rates.rates[label] if rates.rates else None for label in LABELS]
        table.add_row(
            name,
            str(rates.responses),
            *(format_value(v) for v in values),
            format_value(rates.hallucination_rate),
            str(rates.abstained),
            format_value(rates.abstain_rate),
        )
    return table
