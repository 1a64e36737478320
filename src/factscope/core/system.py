"""A system, defined once: what the Python API, every CLI command (local and on Ray), the server and the reports
are built from.

A ``SystemDefinition`` holds everything that is particular to one system (RefChecker's check, Truly Ground, KaLMA,
CONNER): how one input record is read, how a file of them is read, how its components are built from a spec and
put together into its ``Pipeline``, what one pass over all the records must settle before a run (the breakdown
factors, the helpfulness pool), how a run's rows and totals become its typed run result, the rows of its summary
table and its report hooks. ``run_system`` runs a definition in this process; ``SystemBuild`` is the picklable
factory an engine sends to its workers, each building the pipeline once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from markupsafe import Markup
from pydantic import BaseModel

from factscope.core.errors import InputError
from factscope.core.manifest import SettingValue
from factscope.core.results import Totals
from factscope.core.run import Pipeline, ProgressCallback, RunRows, report_progress, run_pipeline
from factscope.core.run_result import RunResult
from factscope.core.tables import Table, table_name, table_records

LLMClient = Any
"""An ``LLMClient`` of ``factscope.llm`` (a layer above core, so named here only)."""

Spec = TypeVar("Spec")
Item = TypeVar("Item")
Item_co = TypeVar("Item_co", covariant=True)
Row = TypeVar("Row", bound=BaseModel)
TotalsT = TypeVar("TotalsT", bound=Totals[Any])
RunT = TypeVar("RunT", bound=RunResult[Any])


class RecordParser(Protocol[Item_co]):
    """Turns one JSON object of an input file into an item; a bad record raises a located InputError, and a record
    that is to be passed over, not run (an answers file's failed generation), gives None."""

    def __call__(self, item: dict[str, Any], /, *, path: Path, line: int) -> Item_co | None: ...


class RecordSource(Protocol[Item_co]):
    """A file's items, read again each time they are iterated; the records that could not be read are in
    ``problems`` (located errors) once the items have been read."""

    problems: list[InputError]

    def __iter__(self) -> Iterator[Item_co]: ...


@dataclass(frozen=True)
class RunFacts:
    """What a run result says of the pipeline that made it: the name of each component and the manifest's
    settings (the same on the driver of a Ray run, which never builds the models, as in a local run)."""

    names: Mapping[str, str]
    settings: Mapping[str, SettingValue]


@dataclass(frozen=True)
class RunOutcome:
    """What a front-end adds to a run result in its summary table: the input records skipped, the results file
    (or folder), and rows of its own (a supplied-facts count), placed after the skipped count."""

    skipped: int
    output: Path
    rows: Sequence[tuple[str, object]] = ()


@dataclass(frozen=True)
class ReportHooks(Generic[Row]):
    """What ``factscope report`` and the server's pages need of a system's result rows."""

    fields: tuple[str, ...]
    """Row fields only this system's results have (any one tells the system of a file without a manifest)."""
    flagged: Callable[[Row], bool]
    flagged_means: str
    """What ``only='hallucinated'`` keeps, in words."""
    record: Callable[[Row, str], Markup]
    """One row as an HTML fragment, under an anchor."""
    overview: Callable[[Sequence[Row]], Markup]
    """The figures and charts of all the rows, at the top of the shared page."""
    caption: Callable[[Row], str]
    """A record's short line of figures in the page's contents."""
    record_in_context: Callable[[Row, str, Sequence[str]], Markup] | None = None
    """One row as ``record`` shows it followed by the input contexts it was judged against, for a system whose rows
    do not hold them (None: its rows hold their own texts)."""


def always_mergeable(spec: object) -> bool:
    """A system whose rows depend on their own records alone, whatever its spec."""
    return True


@dataclass(frozen=True)
class SystemDefinition(Generic[Spec, Item, Row, TotalsT, RunT]):
    """One system, defined once (see the module's description). ``Spec`` is its frozen dataclass of component
    specs and settings: plain values (names, numbers, paths) travel to an engine's workers; ready objects are
    used as they are in this process."""

    name: str
    """The short name: check, ground, attribute, knowledge."""
    manifest: str
    """The system its results files' manifests name."""
    command: str
    title: str
    row_type: type[Row]
    run_type: type[RunT]
    parse: RecordParser[Item]
    """One JSON object of an input file (or of a request) as an item."""
    read: Callable[[Path], RecordSource[Item]]
    """The items of an input file, streamed where its format allows."""
    needs_llm: Callable[[Spec], bool]
    """Whether the spec's components call an LLM endpoint."""
    ready: Callable[[Spec, LLMClient | None], Spec]
    """The spec with its components built from their names (with the LLM client where they need one), so that
    ``build`` only puts them together: a server builds its models once and a pipeline per request."""
    build: Callable[[Spec, LLMClient | None], Pipeline[Item, Row, TotalsT]]
    """The components built from the spec (``ready``), as the system's pipeline."""
    prepare: Callable[[Spec, Iterable[Item]], Spec]
    """The spec with what a run must know of all its items settled by one pass over them."""
    result: Callable[[RunRows[Row], TotalsT, RunFacts], RunT]
    """The typed run result of a run's rows and totals."""
    summary_rows: Callable[[RunT, RunOutcome], list[tuple[str, object]]]
    """The rows of the run's summary table (label, value)."""
    report: ReportHooks[Row]
    mergeable: Callable[[Spec], bool] = always_mergeable
    """Whether a record's row depends on it alone, so that records of several requests may share a batch."""

    def run(
        self,
        spec: Spec,
        items: Iterable[Item],
        *,
        llm: LLMClient | None = None,
        output: str | Path | None = None,
        batch_size: int = 32,
        progress: ProgressCallback | None = None,
        overwrite: bool = False,
        retry_failed: bool = False,
    ) -> RunT:
        """Run the system over ``items`` in this process: the spec prepared on them, the pipeline built once and
        run by ``run_pipeline`` (resume, manifest, streaming writes), and the typed result. ``items`` is read
        more than once: give a list or a re-iterable reader (a one-pass iterator is gathered into a list)."""
        if isinstance(items, Iterator):
            items = list(items)
        pipeline = self.build(self.prepare(spec, items), llm)
        report_progress(progress, *pipeline.components.values())
        produced, totals = run_pipeline(
            pipeline,
            items,
            output=output,
            batch_size=batch_size,
            progress=progress,
            overwrite=overwrite,
            retry_failed=retry_failed,
        )
        return self.result(produced, totals, facts_of(pipeline))

    def table_items(self, table: Table) -> list[Item]:
        """The items of an in-memory table (a pandas DataFrame or a ``datasets.Dataset``), each row read as a
        record of an input file (``parse``; a row it passes over is left out); a bad row raises its InputError,
        which names the table, the row (from 1) and the column."""
        name = Path(table_name(table))
        parsed = (self.parse(record, path=name, line=row) for row, record in table_records(table))
        return [item for item in parsed if item is not None]

    def summarize(
        self, pipeline: Pipeline[Item, Row, TotalsT], rows: Sequence[Row], *, seconds: float
    ) -> RunT:
        """The run result of rows held in memory (a server's batch), counted by ``pipeline``'s totals."""
        from factscope.core.results import ResultRows

        totals = pipeline.new_totals()
        for row in rows:
            totals.add(row)
        produced = RunRows(results=ResultRows(self.row_type, rows=rows), new=len(rows), resumed=0, seconds=seconds)
        return self.result(produced, totals, facts_of(pipeline))


def facts_of(pipeline: Pipeline[Any, Any, Any]) -> RunFacts:
    """The names and manifest settings of a built pipeline."""
    return RunFacts(names=pipeline.names(), settings=pipeline.manifest([]).settings)


@dataclass(frozen=True)
class SystemBuild(Generic[Spec, Item, Row, TotalsT, RunT]):
    """A system's pipeline, built where it runs: an engine sends this to each worker, which calls it once, so the
    models load once per worker. ``llm`` makes the LLM client (called only when the spec needs one)."""

    system: SystemDefinition[Spec, Item, Row, TotalsT, RunT]
    spec: Spec
    llm: Callable[[], LLMClient] | None = None

    def __call__(self) -> Pipeline[Item, Row, TotalsT]:
        return self.with_client()[0]

    def with_client(self) -> tuple[Pipeline[Item, Row, TotalsT], LLMClient | None]:
        """The pipeline and the LLM client it calls (None when the spec needs none), whose usage the worker
        reports."""
        client = self.llm() if self.llm is not None and self.system.needs_llm(self.spec) else None
        return self.system.build(self.spec, client), client
