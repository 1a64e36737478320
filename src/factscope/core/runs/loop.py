"""The run loop every system shares: batches, a streaming results file, resume, and progress through a callback.

A system supplies a function that turns a batch of input items into result rows; ``run_batches`` reads the
items one at a time, skips those whose key is already in the results file (resume), calls the function batch by
batch, writes each row as soon as its batch is done and counts it into the system's ``Totals``, the mergeable
figures its summary is made of. The rows already in the file are counted as the file is opened, so the summary
covers exactly the rows the file holds, and memory does not grow with the number of records: the run hands back
a lazy reader of the file, not a list, and between batches the memory a batch freed goes back to the operating
system (``factscope.core.runs.heap``), so the resident set does not creep up either. With ``retry_failed``, the rows the
system's ``failed`` predicate picks are first taken out of the file, so their items are processed again and
replaced in place. Library code draws nothing: the CLI passes a callback that draws rich bars, a notebook user
passes none (or their own).

A run holds its results file's lock (``factscope.core.files.results_lock``) from before it reads the file to its end,
so a second run on the same file is refused before any work rather than writing every record again. A results
file that already repeats some record ids (written by two runs before files were locked) is counted one row per
id, the first, and a ``RepeatedRecords`` warning says how many rows were left out.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypedDict, TypeVar, runtime_checkable

from pydantic import BaseModel

from factscope.core.files.manifest import (
    RunManifest,
    SettingValue,
    describe,
    discard_unwritten,
    fingerprint_items,
    prepare_results,
)
from factscope.core.files.results_file import ResultWriter, drop_rows
from factscope.core.files.results_lock import results_lock
from factscope.core.runs.heap import HeapTrimmer
from factscope.core.runs.results import RepeatedRecords, ResultRows, Totals, repeated_message
from factscope.core.version import __version__

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
TotalsT = TypeVar("TotalsT", bound=Totals[Any])


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


_SETUP: ContextVar[ProgressCallback | None] = ContextVar("factscope_setup_progress", default=None)
"""The progress callback of the run whose components are being built (``reporting_setup``)."""


@contextmanager
def reporting_setup(callback: ProgressCallback | None) -> Iterator[None]:
    """While a run builds its components, the slow first-use work they do (a model unpacked into the cache)
    reports to ``callback`` as a stage of its own (``setup_stage``)."""
    token = _SETUP.set(callback)
    try:
        yield
    finally:
        _SETUP.reset(token)


def setup_stage(name: str, total: int | None) -> AbstractContextManager[StageProgress]:
    """A stage of a component's setup, reported to the run that builds it (``reporting_setup``); counted and
    shown nowhere outside one."""
    return stage(_SETUP.get(), name, total)


def run_manifest(
    system: str,
    items: Iterable[object],
    components: Mapping[str, object],
    settings: Mapping[str, SettingValue] | None = None,
) -> RunManifest:
    """The manifest of a run: a fingerprint of its input records, a description of each component, and any
    further ``settings`` that change results."""
    described: dict[str, SettingValue] = {name: describe(component) for name, component in components.items()}
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
    """What a run produced: its rows (the whole results file, earlier runs' included when resuming, read lazily)
    and its counts."""

    results: ResultRows[Row]
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
    items: Iterable[Item],
    process: Callable[[Sequence[Item]], Sequence[Row]],
    *,
    key: Callable[[Item], str],
    row_type: type[Row],
    totals: Totals[Row] | None = None,
    output: str | Path | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    stage_name: str = "running",
    manifest: RunManifest | None = None,
    overwrite: bool = False,
    failed: Callable[[Row], bool] | None = None,
    retry_failed: bool = False,
    total: int | None = None,
) -> RunRows[Row]:
    """Process ``items`` in batches of ``batch_size``, writing each result row to ``output`` as it is made.

    ``items`` are read once, one at a time, so a generator over a large file keeps memory flat. With ``output``,
    the run's ``manifest`` (what produces the results) is checked against the file's first: a file made by other
    inputs or settings is refused unless ``overwrite`` (see ``prepare_results``). Then items whose key is already
    in the file are skipped, and the returned rows are the whole file (earlier runs included), read lazily as
    ``row_type``; without ``output`` they are held in memory. ``process`` returns the rows of a batch (an item
    whose work failed in a way a rerun should retry may have none); rows are keyed by their ``id`` field.
    ``totals`` counts every row of the file once: the rows found there as it is opened, then each new row.
    ``total`` (default: ``len(items)`` when it has one) is the number of items, for progress.

    With ``retry_failed``, the rows of the file that ``failed`` (the system's predicate on a ``row_type`` row)
    picks are removed first (the file is rewritten atomically), so their items run again and each record keeps
    one row; the manifest must still match, as retrying is resuming. Without ``failed`` nothing is retried.

    ``output`` is locked for the whole run: ``ResultsLocked`` (an InputError naming the other process) when
    another run holds it. A run that made ``output`` and stops with an error before its first row removes it. A write the disk refuses raises ``StorageError`` naming the file and what is intact.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if output is None:
        return _run(items, process, key, row_type, totals, None, batch_size, progress, stage_name, 0, total)
    if manifest is None:
        raise ValueError("a results file needs the run's manifest")
    with results_lock(output):
        made = not Path(output).exists()
        prepare_results(output, manifest, overwrite=overwrite)
        retried = 0
        if retry_failed and failed is not None:
            predicate = failed
            retried = drop_rows(output, lambda row: predicate(row_type.model_validate(row)))
        try:
            return _run(items, process, key, row_type, totals, output, batch_size, progress, stage_name, retried,
                        total)
        except BaseException:
            if made:
                discard_unwritten(output)
            raise


def _run(
    items: Iterable[Item],
    process: Callable[[Sequence[Item]], Sequence[Row]],
    key: Callable[[Item], str],
    row_type: type[Row],
    totals: Totals[Row] | None,
    output: str | Path | None,
    batch_size: int,
    progress: ProgressCallback | None,
    stage_name: str,
    retried: int,
    total: int | None,
) -> RunRows[Row]:
    """The loop of ``run_batches`` once the results file (if any) is locked and prepared."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    started = time.perf_counter()
    count = totals.add if totals is not None else None
    writer = (
        ResultWriter(output, seen=(lambda row: count(row_type.model_validate(row))) if count is not None else None)
        if output is not None
        else None
    )
    if writer is not None and writer.repeated:
        warnings.warn(RepeatedRecords(repeated_message(writer.path, writer.repeated)), stacklevel=4)
    kept: list[Row] = []
    new = 0
    trim = HeapTrimmer()
    try:
        resumed = len(writer.done) if writer is not None else 0
        todo = (item for item in items if writer is None or key(item) not in writer.done)
        with stage(progress, stage_name, None if total is None else max(total - resumed, 0)) as bar:
            for batch in _batches(todo, batch_size):
                for row in process(batch):
                    if writer is not None and not writer.write(row):
                        continue
                    if writer is None:
                        kept.append(row)
                    if count is not None:
                        count(row)
                    new += 1
                bar.advance(len(batch))
                trim()
    finally:
        if writer is not None:
            writer.close()
    results = (
        ResultRows(row_type, path=output, count=resumed + new) if output is not None else ResultRows(row_type, rows=kept)
    )
    return RunRows(results=results, new=new, resumed=resumed, seconds=time.perf_counter() - started,
                   retried=retried)


@dataclass(frozen=True)
class Pipeline(Generic[Item, Row, TotalsT]):
    """A system's run in the form every engine runs it: the batch function (its models already built), how items
    and rows are keyed, the totals its summary is made of (``TotalsT``), and what goes into the results file's
    manifest.

    ``run_pipeline`` runs it in this process; ``factscope.engines.ray`` runs the same pipeline on Ray actors, so
    both give the same rows and, through ``Totals.merge``, the same summary.
    """

    system: str
    stage_name: str
    row_type: type[Row]
    key: Callable[[Item], str]
    process: Callable[[Sequence[Item]], Sequence[Row]]
    new_totals: Callable[[], TotalsT]
    components: Mapping[str, object]
    settings: Mapping[str, SettingValue]
    failed: Callable[[Row], bool]
    """Whether a row records a failure a rerun with ``retry_failed`` should try again."""
    crashed: Callable[[Item, str], Row]
    """The failed row of an item whose processing ended its worker process every time it was tried, with the
    reason: an engine with worker processes writes it in the item's place, so the run finishes, ``failed`` picks
    it and a resumed run does not try it again."""

    def manifest(self, items: Iterable[object]) -> RunManifest:
        """The manifest of a run of this pipeline over ``items`` (see ``run_manifest``)."""
        return run_manifest(self.system, items, self.components, self.settings)

    def names(self) -> dict[str, str]:
        """The name of each component the pipeline has (its ``name``, else its type's)."""
        return {
            name: str(getattr(part, "name", type(part).__name__))
            for name, part in self.components.items()
            if part is not None
        }


def run_pipeline(
    pipeline: Pipeline[Item, Row, TotalsT],
    items: Iterable[Item],
    *,
    output: str | Path | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
) -> tuple[RunRows[Row], TotalsT]:
    """Run ``pipeline`` over ``items`` in this process (``run_batches``): its rows and the totals of the whole
    results file. ``items`` is read twice, once for the manifest's fingerprint and once to run (once only when
    a reader digested them on an earlier complete pass, ``factscope.core.files.manifest.DigestedItems``), so give a
    list or a re-iterable reader; a one-pass iterator is first gathered into a list."""
    if isinstance(items, Iterator):
        items = list(items)
    manifest = pipeline.manifest(items) if output is not None else None
    totals = pipeline.new_totals()
    produced = run_batches(
        items,
        pipeline.process,
        key=pipeline.key,
        row_type=pipeline.row_type,
        totals=totals,
        output=output,
        batch_size=batch_size,
        progress=progress,
        stage_name=pipeline.stage_name,
        manifest=manifest,
        overwrite=overwrite,
        failed=pipeline.failed,
        retry_failed=retry_failed,
        total=manifest.inputs["records"].size if manifest is not None else None,
    )
    return produced, totals


def _batches(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    """``items`` in consecutive lists of ``size`` (the last may be shorter)."""
    batch: list[Item] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
