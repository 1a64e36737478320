"""What the user sees: skipped records, notes and warnings on stderr (the progress bars' console), summary
tables on stdout."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from factscope.cli.parameter_flags import in_context
from factscope.core.display.figure_table import summary_table
from factscope.core.display.progress import console

SHOWN_SKIPPED = 20
"""How many skipped records a command that may skip many lists one by one."""

results_console = Console()
"""Summary tables go to stdout, so that ``> summary.txt`` keeps them."""


def print_table(*tables: Table) -> None:
    """Print summary tables to stdout."""
    results_console.print(*tables)


def print_summary(title: str, rows: list[tuple[str, object]]) -> None:
    """Print a command's summary table: ``rows`` of (label, value) under ``title``."""
    print_table(summary_table(title, rows))


def _say(label: str, message: object) -> None:
    """Print ``label`` (rich markup) and ``message`` (never read as markup) as one line on stderr."""
    console.print(f"{label} {escape(str(message))}", highlight=False)


def print_warning(*messages: str) -> None:
    """Print a warning line for each of ``messages``."""
    for message in messages:
        _say("[bold yellow]warning:[/]", message)


def print_skipped(*problems: object, limit: int | None = None) -> None:
    """Report each skipped input record; with ``limit``, the first ``limit`` and how many more there are."""
    for problem in problems[:limit]:
        _say("[yellow]skipped[/]", problem)
    if limit is not None and len(problems) > limit:
        _say("[yellow]skipped[/]", f"{len(problems) - limit} more records")


def print_next(step: str) -> None:
    """Print what to do next after a run (``step``, never read as markup) as one line on stderr."""
    _say("[bold green]next:[/]", step)


def print_notes(notes: Iterable[str]) -> None:
    """Print each of a library's notes (what was not computed, and why), its parameters shown as flags."""
    for note in notes:
        _say("[yellow]note[/]", in_context(note))


class TerminalNotes:
    """What a reader found in its input (``factscope.core.files.input_notes.InputNotes``), printed on stderr."""

    def skipped(self, problems: Sequence[object]) -> None:
        """Print each skipped input record."""
        print_skipped(*problems)

    def note(self, line: str) -> None:
        """Print a note as it is."""
        console.print(line, markup=False)

    def warning(self, line: str) -> None:
        """Print a warning line."""
        _say("[yellow]warning[/]", line)
