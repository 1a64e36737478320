"""A scoring run's figures as a terminal shows them: one table per number of removed triples when the answers
hold several (``group_tables``), else the one group's figures in the summary table itself, whose title then names
the group (``score_title``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from factscope.core.display.figure_table import summary_table

if TYPE_CHECKING:
    from factscope.kalma.task import AttributionRun

TITLE = "attribute score"


def group_tables(run: AttributionRun) -> list[Table]:
    """A table of each group's figures ('removed=N'), when the run has more than one group; else none."""
    if len(run.summary) < 2:
        return []
    return [summary_table(f"{TITLE} ({group})", list(figures.items())) for group, figures in run.summary.items()]


def score_title(run: AttributionRun) -> str:
    """The title of a scoring run's summary table: it names the run's group when there is only one."""
    if len(run.summary) == 1:
        return f"{TITLE} ({next(iter(run.summary))})"
    return TITLE


def single_group_rows(run: AttributionRun) -> list[tuple[str, object]]:
    """The figures of the run's one group, shown in the summary table; none when there are several (each has
    its own table, ``group_tables``)."""
    if len(run.summary) != 1:
        return []
    return list(next(iter(run.summary.values())).items())
