"""Progress on a terminal: a rich progress bar per stage of a run, or plain progress lines where stderr is not a
terminal (a log file, CI, nohup). ``ProgressDisplay`` is a progress callback for the run loop
(``factscope.core.runs.loop``), as the Python API's ``progress=`` and the command line take it; ``progress`` is one
stage's bar, for work that counts its own steps (training a checker)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Self

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from factscope.core.runs.loop import ProgressEvent

console = Console(stderr=True)
"""Progress goes to stderr; notes printed while a bar shows go through this console too, above the bar."""


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
    """A progress callback for the run loop (``factscope.core.runs.loop``) that draws each stage with ``progress``.

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
