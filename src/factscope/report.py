"""What the user sees: rich progress bars and summary tables."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

console = Console(stderr=True)
"""Progress and tables go to stderr, so stdout stays clean for piping."""


class _Bar:
    """A handle on one progress task."""

    def __init__(self, progress: Progress, task: int) -> None:
        self._progress = progress
        self._task = task

    def advance(self, n: int = 1) -> None:
        """Move the bar forward by ``n`` items."""
        self._progress.advance(self._task, n)

    def total(self, total: int) -> None:
        """Change the bar's total (when the amount of work becomes known later)."""
        self._progress.update(self._task, total=total)


_active: list[Progress] = []


@contextmanager
def progress(description: str, total: int | None) -> Iterator[_Bar]:
    """A progress bar for ``total`` items on the terminal (silent when stderr is not a terminal).

    Bars opened while another is showing join it as extra lines, so tasks and stages can nest.
    """
    if _active:
        outer = _active[-1]
        task = outer.add_task(description, total=total)
        try:
            yield _Bar(outer, task)
        finally:
            outer.remove_task(task)
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False, disable=not console.is_terminal) as bar:
        _active.append(bar)
        try:
            yield _Bar(bar, bar.add_task(description, total=total))
        finally:
            _active.pop()


def summary_table(title: str, rows: list[tuple[str, object]]) -> Table:
    """A two-column table of named figures; floats are shown with 4 decimals, None as 'n/a'."""
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(name, format_value(value))
    return table


def format_value(value: object) -> str:
    """A figure as the tables print it."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def print_table(table: Table) -> None:
    """Print a table to the user's terminal (stderr)."""
    console.print(table)


def print_skipped(problem: object) -> None:
    """Report one skipped input record (its message printed literally, never read as markup)."""
    console.print(f"[yellow]skipped[/] {escape(str(problem))}", highlight=False)
