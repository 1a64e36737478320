"""What the user sees: rich progress bars and summary tables."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Self

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from factscope.core.run import ProgressEvent

console = Console(stderr=True)
"""Progress, notes and skipped records go to stderr."""

results_console = Console()
"""Summary tables go to stdout, so that ``> summary.txt`` keeps them."""


class _Bar:
    """A handle on one progress task."""

    def __init__(self, progress: Progress, task: TaskID) -> None:
        self._progress = progress
        self._task = task

    def advance(self, n: int = 1) -> None:
        """Move the bar forward by ``n`` items."""
        self._progress.advance(self._task, n)

    def total(self, total: int) -> None:
        """Change the bar's total (when the amount of work becomes known later)."""
        self._progress.update(self._task, total=total)


LOG_INTERVAL_SECONDS = 30.0
"""Off a terminal, the least time between two progress lines of one stage."""


class _LogBar:
    """Progress written as plain lines, for logs: a start line, a line at most every ``LOG_INTERVAL_SECONDS``
    with the count, rate and time left, and an end line with the time taken.

    The rate and the time left are measured from the first item done, so that start-up work (loading a model)
    does not inflate the estimate; until a second step has been seen the time left reads "estimating".
    """

    def __init__(self, description: str, total: int | None) -> None:
        self._description = description
        self._total = total
        self._done = 0
        self._started = self._last = time.monotonic()
        self._first: tuple[float, int] | None = None
        self._say(f"started, {total:,} to do" if total is not None else "started")

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more items; write a line when the interval has passed."""
        self._done += n
        now = time.monotonic()
        if self._first is None:
            self._first = (now, self._done)
        if now - self._last >= LOG_INTERVAL_SECONDS:
            self._last = now
            self._say(self._status(now))

    def _status(self, now: float) -> str:
        line = f"{self._count()} in {_clock(now - self._started)}"
        first_time, first_done = self._first or (now, self._done)
        if now <= first_time or self._done <= first_done:
            return line + (", time left: estimating" if self._total else "")
        per_second = (self._done - first_done) / (now - first_time)
        line += f", {_rate(per_second)}"
        if self._total:
            line += f", about {_clock((self._total - self._done) / per_second)} left"
        return line

    def total(self, total: int) -> None:
        """Change the stage's total."""
        self._total = total

    def finish(self) -> None:
        """Write the end line."""
        self._say(f"{self._count()} done in {_clock(time.monotonic() - self._started)}")

    def _count(self) -> str:
        if not self._total:
            return f"{self._done:,}"
        return f"{self._done:,}/{self._total:,} ({100 * self._done / self._total:.0f}%)"

    def _say(self, text: str) -> None:
        console.print(f"{self._description}: {text}", markup=False, highlight=False, soft_wrap=True)


def _rate(per_second: float) -> str:
    """Items a second, a minute when fewer than one a second, an hour when fewer than one a minute."""
    if per_second >= 1:
        return f"{per_second:,.1f}/s"
    if per_second * 60 >= 1:
        return f"{60 * per_second:,.1f}/min"
    return f"{3600 * per_second:,.1f}/h"


def _clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a duration."""
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


_active: list[Progress] = []


@contextmanager
def progress(description: str, total: int | None) -> Iterator[_Bar | _LogBar]:
    """A progress bar for ``total`` items on the terminal; plain progress lines when stderr is not a terminal
    (a log file, CI, nohup), so that long runs show their work there too.

    Bars opened while another is showing join it as extra lines, so tasks and stages can nest.
    """
    if not console.is_terminal:
        lines = _LogBar(description, total)
        yield lines
        lines.finish()
        return
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
    with Progress(*columns, console=console, transient=False) as bar:
        _active.append(bar)
        try:
            yield _Bar(bar, bar.add_task(description, total=total))
        finally:
            _active.pop()


class ProgressDisplay:
    """A progress callback for the run loop (``factscope.core.run``) that draws each stage with ``progress``.

    Use it as a context manager so that bars still open when a run stops are closed.
    """

    def __init__(self) -> None:
        self._open: dict[str, tuple[AbstractContextManager[_Bar | _LogBar], _Bar | _LogBar, int]] = {}

    def __call__(self, event: ProgressEvent) -> None:
        if event.stage not in self._open:
            if event.finished:
                return
            manager: AbstractContextManager[_Bar | _LogBar] = progress(event.stage, event.total)
            self._open[event.stage] = (manager, manager.__enter__(), 0)
        manager, bar, shown = self._open[event.stage]
        if event.total is not None:
            bar.total(event.total)
        if event.done > shown:
            bar.advance(event.done - shown)
            self._open[event.stage] = (manager, bar, event.done)
        if event.finished:
            del self._open[event.stage]
            manager.__exit__(None, None, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        for manager, _, _ in reversed(list(self._open.values())):
            manager.__exit__(None, None, None)
        self._open.clear()


def summary_table(title: str, rows: list[tuple[str, object]]) -> Table:
    """A two-column table of named figures; floats are shown with 4 decimals, None as 'n/a'. The title, names and
    values are shown as written, never read as markup (they hold file names and ids)."""
    table = Table(title=Text(title), show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(Text(name), Text(format_value(value)))
    return table


def format_value(value: object) -> str:
    """A figure as the tables print it."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def print_table(table: Table) -> None:
    """Print a summary table to stdout."""
    results_console.print(table)


def print_warning(message: str) -> None:
    """Print one warning line (printed literally, never read as markup)."""
    console.print(f"[bold yellow]warning:[/] {escape(message)}", highlight=False)


def print_skipped(problem: object) -> None:
    """Report one skipped input record (its message printed literally, never read as markup)."""
    console.print(f"[yellow]skipped[/] {escape(str(problem))}", highlight=False)
