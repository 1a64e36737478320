"""What the user sees: notes and skipped records on stderr (the progress bars' console), summary tables on
stdout. The bars and the tables are the library's (``factscope.core.progress_display``,
``factscope.core.figure_table``); a command imports them from there, and this module re-exports the names that
commands still take from here."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from factscope.core.figure_table import format_value, summary_table
from factscope.core.progress_display import ProgressDisplay, console

__all__ = [
    "ProgressDisplay", "TerminalNotes", "console", "format_value", "print_notes", "print_skipped", "print_table",
    "print_warning", "results_console", "summary_table",
]

results_console = Console()
"""Summary tables go to stdout, so that ``> summary.txt`` keeps them."""


def print_table(table: Table) -> None:
    """Print a summary table to stdout."""
    results_console.print(table)


def print_warning(message: str) -> None:
    """Print one warning line (printed literally, never read as markup)."""
    console.print(f"[bold yellow]warning:[/] {escape(message)}", highlight=False)


def print_skipped(*problems: object) -> None:
    """Report each skipped input record (its message printed literally, never read as markup)."""
    for problem in problems:
        console.print(f"[yellow]skipped[/] {escape(str(problem))}", highlight=False)


def print_notes(notes: Iterable[str]) -> None:
    """Print each of a library's notes (what was not computed, and why), the parameters it names shown as the
    running command's flags."""
    from factscope.cli.output_paths import running_command
    from factscope.cli.parameter_flags import in_context

    command = running_command()
    for note in notes:
        shown = in_context(note, command) if command is not None else note
        console.print(f"[yellow]note[/] {escape(shown)}", highlight=False)


class TerminalNotes:
    """What a reader found in its input (``factscope.core.input_notes.InputNotes``), printed on stderr: skipped
    records, notes and warnings, each printed literally."""

    def skipped(self, problems: Sequence[object]) -> None:
        """Print each skipped input record."""
        print_skipped(*problems)

    def note(self, line: str) -> None:
        """Print a note as it is."""
        console.print(line, markup=False)

    def warning(self, line: str) -> None:
        """Print a warning line."""
        console.print(f"[yellow]warning[/] {escape(line)}")
