"""The run loop every system shares: batches, a streaming results file, resume, and progress through a callback.

A system supplies a function that turns a batch of input items into result rows; ``run_batches`` skips the
items whose key is already in the results file (resume), calls the function batch by batch, writes each row
as soon as its batch is done, reports progress to an optional callback, and reads the whole file back so that
the caller summarises exactly the rows it holds. With ``retry_failed``, the rows the system's ``failed`` predicate
picks are first taken out of the file, so their items are processed again and replaced in place. Library code draws nothing: the CLI passes a callback that
draws rich bars, a notebook user passes none (or their own).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Protocol, TypedDict, TypeVar, runtime_checkable

from pydantic import BaseModel

from factscope.core.io import ResultWriter, drop_rows
from factscope.core.manifest import RunManifest, Setting, describe, fingerprint_items, prepare_results

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)


@dataclass(frozen=True)
class ProgressEvent:
    """Where one stage of a run stands: ``done`` of ``total`` items (``total`` None when unknown)."""

    stage: str
    done: int
    total: int | None
    finished: bool = False


ProgressCallback = Callable[[ProgressEvent], None]
"""Receives an event when a stage starts, after every step, and when it finishes."""


class StageProgress:
    """Counts one stage's items and reports them to a callback (a no-op without one)."""

    def __init__(self, callback: ProgressCallback | None, stage: str, total: int | None) -> None:
        self._callback = callback
        self.stage = stage
        self.total = total
        self.done = 0

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more items done."""
        self.done += n
        self._emit()

    def set_total(self, total: int) -> None:
        """Set the stage's total once it is known."""
        self.total = total
        self._emit()

    def _emit(self, finished: bool = False) -> None:
        if self._callback is not None:
            self._callback(ProgressEvent(self.stage, self.done, self.total, finished))


@contextmanager
def stage(callback: ProgressCallback | None, name: str, total: int | None) -> Iterator[StageProgress]:
    """A stage of work reported to ``callback``: a start event, one per ``advance``, and a finish event."""
    progress = StageProgress(callback, name, total)
    progress._emit()
    try:
        yield progress
    finally:
        progress._emit(finished=True)


def run_manifest(
    system: str,
    items: Sequence[object],
    components: Mapping[str, object],
    settings: Mapping[str, Setting] | None = None,
) -> RunManifest:
    """The manifest of a run: a fingerprint of its input records, a description of each component, and any
    further ``settings`` that change results."""
    from factscope import __version__

    described: dict[str, Setting] = {name: describe(component) for name, component in components.items()}
    return RunManifest(
        system=system,
        factscope_version=__version__,
        inputs={"records": fingerprint_items(items)},
        settings={**described, **(settings or {})},
    )


@runtime_checkable
class ReportsProgress(Protocol):
    """A component that reports its own work (the LLM extractor and checker report their calls)."""

    progress: ProgressCallback | None


def report_progress(callback: ProgressCallback | None, *components: object) -> None:
    """Point the components among ``components`` that report their own work at ``callback``."""
    for component in components:
        if isinstance(component, ReportsProgress):
            component.progress = callback


@dataclass
class RunRows(Generic[Row]):
    """What a run produced: every row of the results (earlier runs' included when resuming) and its counts."""

    rows: list[Row]
    new: int
    resumed: int
    seconds: float
    retried: int = 0
    """Rows marked failed that were taken out of the file to be processed again (``retry_failed``)."""

    def counts(self) -> RunCounts:
        """The counts every typed run result carries, under the names those results use."""
        return RunCounts(new_records=self.new, resumed_records=self.resumed, seconds=self.seconds)


class RunCounts(TypedDict):
    """Records processed by this run, records found already done, and the run's seconds."""

    new_records: int
    resumed_records: int
    seconds: float


def run_batches(
    items: Sequence[Item],
    process: Callable[[Sequence[Item]], Sequence[Row]],
    *,
    key: Callable[[Item], str],
    row_type: type[Row],
    output: str | Path | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    stage_name: str = "running",
    manifest: RunManifest | None = None,
    overwrite: bool = False,
    failed: Callable[[Row], bool] | None = None,
    retry_failed: bool = False,
) -> RunRows[Row]:
    """Process ``items`` in batches of ``batch_size``, writing each result row to ``output`` as it is made.

    With ``output``, the run's ``manifest`` (what produces the results) is checked against the file's first:
    a file made by other inputs or settings is refused unless ``overwrite`` (see ``prepare_results``). Then
    items whose key is already in the file are skipped and the returned rows are the whole file (earlier runs
    included), read back as ``row_type``. ``process`` returns the rows of a batch (an item whose work failed
    in a way a rerun should retry may have none); rows are keyed by their ``id`` field.

    With ``retry_failed``, the rows of the file that ``failed`` (the system's predicate on a ``row_type`` row)
    picks are removed first (the file is rewritten atomically), so their items run again and each record keeps
    one row; the manifest must still match, as retrying is resuming. Without ``failed`` nothing is retried.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if output is not None:
        if manifest is None:
            raise ValueError("a results file needs the run's manifest")
        prepare_results(output, manifest, overwrite=overwrite)
    started = time.perf_counter()
    retried = 0
    if output is not None and retry_failed and failed is not None:
        predicate = failed
        retried = drop_rows(output, lambda row: predicate(row_type.model_validate(row)))
    writer = ResultWriter(output) if output is not None else None
    try:
        todo = [item for item in items if writer is None or key(item) not in writer.done]
        fresh: list[Row] = []
        with stage(progress, stage_name, len(todo)) as bar:
            for start in range(0, len(todo), batch_size):
                batch = todo[start : start + batch_size]
                for row in process(batch):
                    if writer is not None:
                        writer.write(row)
                    fresh.append(row)
                bar.advance(len(batch))
        rows = [row_type.model_validate(row) for row in writer.rows()] if writer is not None else fresh
    finally:
        if writer is not None:
            writer.close()
    return RunRows(
        rows=rows,
        new=len(fresh),
        resumed=len(rows) - len(fresh),
        seconds=time.perf_counter() - started,
        retried=retried,
    )
