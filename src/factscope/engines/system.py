"""A system, defined once: the ``System`` base class that each system subclasses (RefChecker's check, Truly Ground,
KaLMA, CONNER), and the one place where a run starts, in this process or on Ray.

A subclass says how one input record is read (``parse``) and a file of them (``read``), whether its spec calls an
LLM (``needs_llm``), how its components are built from a spec (``ready``) and put together into its ``Pipeline``
(``build``; ``pipeline`` adds the spec's options to its manifest), what one pass over all the records must settle
before a run and which records stop it (``prepare``), the typed result of a run's rows and totals (``result``),
the rows of its summary table (``summary_rows``), what a terminal shows around that table (``figure_tables``,
``notes``), the figures of its summary file (``summary_figures``), what its failed records failed at
(``failures``), its report hooks (``report``), and what a server needs of it: the spec fields it chooses at
start-up (``served``, ``served_spec``), the web form of one record (``form``) and the few figures a page shows of
a request's run (``page_figures``); and its command (``command_form``), with the reader, the spec and the notes a
command makes of its options (``reader``, ``command_spec``, ``spec_notes``). The template methods here are the
same for every system: ``run`` (and ``execute``, which also hands back the skipped input records and the LLM usage) chooses the engine
and applies every run policy, so that the Python API, the CLI, the server and the Ray engine behave the same.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Sized
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypedDict, TypeVar, Unpack, cast, get_args, get_origin

from pydantic import BaseModel
from rich.table import Table as RichTable

from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_notes import InputNotes, report_usable
from factscope.core.files.manifest import DigestedItems, spec_settings
from factscope.core.files.output_checks import check_outputs
from factscope.core.files.results_lock import results_lock
from factscope.core.files.tables import Table, is_table, is_table_file, table_name, table_records
from factscope.core.options.validation import rule_refusal
from factscope.core.record_form import RecordForm
from factscope.core.runs.loop import (
    Pipeline,
    ProgressCallback,
    RunRows,
    report_progress,
    reporting_setup,
    run_pipeline,
)
from factscope.core.runs.result import RunResult
from factscope.core.runs.results import ResultRows, Totals
from factscope.engines.command_form import CommandForm
from factscope.engines.parts import (
    LLMClient,
    RecordSource,
    ReportHooks,
    RunFacts,
    RunOutcome,
    SystemBuild,
    facts_of,
)
from factscope.engines.ray import RayOptions, require_ray, run_on_ray
from factscope.engines.served import ServedField, served_spec
from factscope.engines.shards import check_results_folder, readable_items

SpecT = TypeVar("SpecT")
Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
TotalsT = TypeVar("TotalsT", bound=Totals[Any])
RunT = TypeVar("RunT", bound=RunResult[Any])

Engine = Literal["local", "ray"]
"""Where a run goes: ``local``, this process; ``ray``, a Ray cluster (``factscope.engines.ray``)."""

LoadedCallback = Callable[[int, list[InputError]], None]
"""Told how many records a run has (those the parser passes over counted) and the input records that could not be
read; it may raise to stop the run. Before a local run, once the input has been read; after a Ray run, whose workers
read it."""

LLMSource = LLMClient | Callable[[], LLMClient] | None
"""An LLM client, or a function that makes one (called only when the spec needs an LLM; a Ray run needs a
picklable function, as each worker makes its own client)."""

REQUEST = "request"
"""The 'file' name of a request's records in their errors."""

RECORDS = "<records>"
"""The 'file' name of records given in memory in their errors."""


class RunOptions(TypedDict, total=False):
    """The keyword arguments of ``System.run``, each as ``System.execute`` takes it (its default is there)."""

    engine: Engine
    llm: LLMSource
    output: str | Path | None
    batch_size: int
    progress: ProgressCallback | None
    overwrite: bool
    retry_failed: bool
    ray: RayOptions | None
    loaded: LoadedCallback | None
    notes: InputNotes | None


@dataclass(frozen=True)
class Execution(Generic[RunT]):
    """What a run hands back: its typed result, the input records that could not be read (located errors), the
    records the parser passed over (an answers file's failed generations) and, on Ray, the LLM usage of every
    worker summed (the fields of ``factscope.llm.client.LLMUsage``; in this process it is the client's own)."""

    result: RunT
    problems: list[InputError] = field(default_factory=list)
    passed_over: int = 0
    llm_usage: Mapping[str, int] = field(default_factory=dict)


class System(ABC, Generic[SpecT, Item, Row, TotalsT, RunT]):
    """One system, defined once (see the module's description). ``SpecT`` is its frozen dataclass of component
    specs and settings: plain values (names, numbers, paths) travel to an engine's workers; ready objects are
    used as they are in this process. An instance's own attributes (set by a subclass's ``__init__``) say how
    its input files are read."""

    name: ClassVar[str]
    """The short name: check, ground, attribute, knowledge."""
    manifest: ClassVar[str]
    """The system its results files' manifests name."""
    command: ClassVar[str]
    """Its command line: `factscope check`, `factscope attribute score`; a server's endpoint is named after it
    (/v1/check, /v1/attribute/score)."""
    title: ClassVar[str]
    spec_type: type[SpecT]
    """The type of its spec, which its ``System[...]`` base names."""
    row_type: type[Row]
    """The type of its result rows; this and the next two are the types its ``System[...]`` base names."""
    run_type: type[RunT]
    totals_type: type[TotalsT]
    """The running totals of its summary; a report counts rows held in memory into an empty one."""
    report: ClassVar[ReportHooks[Any]]
    records: ClassVar[str] = "records"
    """What its input records are called in messages (\"no usable answers\")."""
    llm_users: ClassVar[str]
    """When its runs use an LLM: the components that call one, naming the parameters that choose them (the
    condition of ``unused_llm``'s refusal)."""
    served: ClassVar[tuple[ServedField, ...]] = ()
    """The fields of its spec that a server chooses once, at start-up (the components it builds); a request may
    set the fields marked ``per_request`` (``factscope.core.options.metadata.about``), and the others keep their
    defaults."""
    form: ClassVar[RecordForm]
    """The web form of one of its records."""
    request_record: ClassVar[type[BaseModel]]
    """One of its records as a request sends it (``parse_request``): the model whose JSON Schema a server's API
    schema shows for a record, its input model with what ``parse`` asks of a record besides."""
    command_form: ClassVar[CommandForm]
    """Its command: what a command line builds it from (``factscope.cli.form_commands``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's ``spec_type``, ``row_type``, ``totals_type`` and ``run_type``: the types its ``System[...]``
        base names."""
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            if get_origin(base) is System:
                spec, _, row, totals, run = get_args(base)
                named_types = (("spec_type", spec), ("row_type", row), ("totals_type", totals), ("run_type", run))
                for attribute, named in named_types:
                    if isinstance(named, type):
                        setattr(cls, attribute, named)

    @abstractmethod
    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> Item | None:
        """One JSON object of an input file (or of a request) as an item; a bad record raises a located
        InputError, and a record to pass over, not run (an answers file's failed generation), gives None."""

    @abstractmethod
    def read(self, path: Path) -> RecordSource[Item]:
        """The items of an input file, streamed where its format allows."""

    @abstractmethod
    def needs_llm(self, spec: SpecT) -> bool:
        """Whether the spec's components call an LLM endpoint."""

    def unused_llm(self, spec: SpecT) -> str | None:
        """Why an LLM given to a run of ``spec`` would go unused, in the words of a rule's refusal (`llm` counts
        only with ...), or None when a component of ``spec`` calls one."""
        return None if self.needs_llm(spec) else rule_refusal("llm", self.llm_users)

    def reader(self, reading: Sequence[Any], notes: InputNotes) -> System[SpecT, Item, Row, TotalsT, RunT]:
        """The system reading its input as the instances ``reading`` of its command's reader options say
        (``command_form.reading``, in order), ``notes`` told what it finds there; itself by default."""
        return self

    def command_spec(self, spec: SpecT, *, endpoint: bool) -> SpecT:
        """The spec a command runs: ``spec`` as its options make it, with what they leave to the run settled
        (``endpoint``: whether an LLM endpoint is configured); ``spec`` itself by default."""
        return spec

    def spec_notes(self, spec: SpecT) -> list[str]:
        """Lines a terminal shows before a run of ``spec`` (what it will not compute, and why); none by default."""
        return []

    @abstractmethod
    def ready(self, spec: SpecT, llm: LLMClient | None) -> SpecT:
        """The spec with its components built from their names (with the LLM client where they need one), so
        that ``build`` only puts them together: a server builds its models once and a pipeline per request."""

    @abstractmethod
    def build(self, spec: SpecT, llm: LLMClient | None) -> Pipeline[Item, Row, TotalsT]:
        """The components built from the spec (``ready``), as the system's pipeline."""

    def pipeline(self, spec: SpecT, llm: LLMClient | None) -> Pipeline[Item, Row, TotalsT]:
        """The pipeline of ``spec`` (``build``), whose manifest also records every option of the spec that is not
        at its default (``spec_settings``; the settings ``build`` gives win)."""
        built = self.build(spec, llm)
        return dataclasses.replace(built, settings={**spec_settings(spec), **built.settings})

    def prepare(self, spec: SpecT, items: Iterable[Item]) -> SpecT:
        """The spec with what a run must know of all its items settled by one pass over them; raises when the
        items must not run as they are. The base class needs nothing."""
        return spec

    @abstractmethod
    def result(self, produced: RunRows[Row], totals: TotalsT, facts: RunFacts) -> RunT:
        """The typed run result of a run's rows and totals."""

    @abstractmethod
    def summary_rows(self, run: RunT, outcome: RunOutcome) -> list[tuple[str, object]]:
        """The rows of the run's summary table (label, value)."""

    def summary_title(self, run: RunT, output: Path) -> str:
        """The title of the run's summary table: "run" by default."""
        return "run"

    def figure_tables(self, run: RunT) -> list[RichTable]:
        """The tables of the run's figures that a terminal shows above its summary table; none by default."""
        return []

    def notes(self, run: RunT) -> list[str]:
        """Lines a terminal shows below the summary table (what was not computed, and why); none by default."""
        return []

    def summary_figures(self, run: RunT, problems: Sequence[InputError]) -> object:
        """The run's figures as JSON values, as a summary file holds them: its ``model_dump`` by default."""
        return run.model_dump(mode="json")

    def failures(self, run: RunT) -> tuple[int, str]:
        """How many records of the run failed, and what failed in them, in words (for the message that ends a
        run with failures): ``run.failed`` records by default."""
        return run.failed, "records"

    def served_spec(self, chosen: Mapping[str, Any], *, mode: str, web: Any) -> SpecT:
        """The spec a server runs with: the ``served`` fields as ``chosen`` (by field name), the server's check
        ``mode`` for every model check, and the spec's defaults for the rest (``factscope.engines.served``). ``web``
        is the server's web retrieval settings, for a system that serves a web retriever (none by default)."""
        return cast(SpecT, served_spec(self.spec_type, chosen, mode=mode))

    def page_figures(self, run: RunT) -> list[tuple[str, float | bool | None]]:
        """The few figures of a run that a page showing one request's results puts above them; none by
        default."""
        return []

    def mergeable(self, spec: SpecT) -> bool:
        """Whether a record's row depends on it alone, so that records of several requests may share a batch."""
        return True

    def check_usable(
        self, count: int, problems: Sequence[InputError], path: str | Path, notes: InputNotes | None
    ) -> None:
        """The run policy of an input file once read: ``notes`` is told of the records skipped (``problems``),
        and a file with no usable record (``count`` 0) is an InputError naming ``path``."""
        report_usable(count, problems, self.records, path, notes)

    def refuse_ray(self) -> None:
        """Raise a ConfigError when this instance's reading settings cannot be honoured on Ray (which reads
        JSONL records with ``parse`` alone); the base class reads nothing else."""

    def items(self, inputs: str | Path | Table | Iterable[Item | dict[str, Any]]) -> Iterable[Item]:
        """The items of ``inputs``: a file (``read``), a table (``table_items``) or items and dicts (each dict
        read as a record; a bad one raises its InputError, a passed-over one is left out)."""
        if isinstance(inputs, (str, Path)):
            return self.read(Path(inputs))
        if is_table(inputs):
            return self.table_items(inputs)
        if not isinstance(inputs, Iterator) and hasattr(inputs, "problems"):
            return cast(RecordSource[Item], inputs)
        items = []
        for line, item in enumerate(inputs, start=1):
            parsed = self.parse(item, path=Path(RECORDS), line=line) if isinstance(item, dict) else item
            if parsed is not None:
                items.append(parsed)
        return items

    def table_items(self, table: Table) -> list[Item]:
        """The items of an in-memory table (a pandas DataFrame or a ``datasets.Dataset``), each row read as a
        record of an input file (``parse``; a row it passes over is left out); a bad row raises its InputError,
        which names the table, the row (from 1) and the column."""
        name = Path(table_name(table))
        parsed = (self.parse(record, path=name, line=row) for row, record in table_records(table))
        return [item for item in parsed if item is not None]

    def parse_request(self, item: Any, index: int) -> Item:
        """One record of a request (``index`` from 0) as an item; a located InputError when it is not an object
        or holds nothing to run."""
        if not isinstance(item, dict):
            raise InputError(f"expected an object, got {type(item).__name__}", path=REQUEST, line=index)
        parsed = self.parse(item, path=Path(REQUEST), line=index)
        if parsed is None:
            raise InputError("holds nothing to run (a failed generation has no answer to score)", path=REQUEST,
                             line=index, field="failed")
        return parsed

    def run(
        self, spec: SpecT, inputs: str | Path | Table | Iterable[Item | dict[str, Any]], **options: Unpack[RunOptions]
    ) -> RunT:
        """Run the system over ``inputs`` and return its typed result: ``execute`` with the same keyword arguments
        and defaults (``RunOptions``)."""
        return self.execute(spec, inputs, **options).result

    def execute(
        self,
        spec: SpecT,
        inputs: str | Path | Table | Iterable[Item | dict[str, Any]],
        *,
        engine: Engine = "local",
        llm: LLMSource = None,
        output: str | Path | None = None,
        batch_size: int = 32,
        progress: ProgressCallback | None = None,
        overwrite: bool = False,
        retry_failed: bool = False,
        ray: RayOptions | None = None,
        loaded: LoadedCallback | None = None,
        notes: InputNotes | None = None,
    ) -> Execution[RunT]:
        """Run the system over ``inputs`` on ``engine``: the spec prepared on the items (one pass), the pipeline
        built once (per worker on Ray) and run with resume, a manifest and streaming writes, and the typed result.

        ``local``: ``inputs`` is a file, a table, or items and dicts; a one-pass iterator is gathered into a list,
        as the items are read more than once. ``ray``: ``inputs`` is a JSON / JSONL file or a folder of ``*.jsonl``
        shards and ``output`` a results folder (``factscope.engines.ray``; ``ray`` is a ``RayOptions``, whose
        ``batch_size`` this call sets); ``llm`` must then be a picklable function that makes the client.
        ``loaded`` is told the records' count and problems (see ``LoadedCallback``); an input file is then held
        to ``check_usable``, which tells ``notes`` (and its reader's warnings) of what it skipped. A bad ``output``
        (or results folder) is refused, and its lock taken (``factscope.core.files.results_lock``), before the input is
        read or any model loads (``factscope.core.files.output_checks``)."""
        if engine == "ray":
            ran = self._execute_on_ray(spec, inputs, llm, output, batch_size, progress, overwrite, retry_failed, ray)
            done = ran.result
            self._loaded(done.new_records + done.resumed_records + ran.passed_over, ran.problems, inputs, loaded,
                         notes)
            return ran
        if engine != "local":
            raise ConfigError(f"unknown `engine` {engine!r}: use `engine='local'` or `engine='ray'`")
        check_outputs(output, overwrite=overwrite)
        with results_lock(output) if output is not None else nullcontext():
            items = self.items(inputs)
            if isinstance(items, Iterator):
                items = list(items)
            prepared = self.prepare(spec, items)
            count = _count(items) + int(getattr(items, "failed_generations", 0))
            problems = list(getattr(items, "problems", []))
            self._loaded(count, problems, inputs, loaded, notes, warnings=getattr(items, "warnings", []))
            client = _client(llm, self.needs_llm(prepared))
            with reporting_setup(progress):
                pipeline = self.pipeline(prepared, client)
            report_progress(progress, *pipeline.components.values())
            produced, totals = run_pipeline(
                pipeline, items, output=output, batch_size=batch_size, progress=progress, overwrite=overwrite,
                retry_failed=retry_failed,
            )
            usage = vars(client.usage) if client is not None and hasattr(client, "usage") else {}
            return Execution(
                self.result(produced, totals, facts_of(pipeline)),
                problems=problems,
                passed_over=int(getattr(items, "failed_generations", 0)),
                llm_usage={name: int(value) for name, value in usage.items()},
            )

    def _loaded(
        self, count: int, problems: list[InputError], inputs: object, loaded: LoadedCallback | None,
        notes: InputNotes | None, warnings: Sequence[str] = (),
    ) -> None:
        """Tell ``loaded`` of the input read and ``notes`` of its reader's ``warnings``, then hold an input file
        to ``check_usable``."""
        if loaded is not None:
            loaded(count, problems)
        if notes is not None:
            for warning in warnings:
                notes.warning(warning)
        if isinstance(inputs, (str, Path)):
            self.check_usable(count, problems, inputs, notes)

    def _execute_on_ray(
        self,
        spec: SpecT,
        inputs: object,
        llm: LLMSource,
        output: str | Path | None,
        batch_size: int,
        progress: ProgressCallback | None,
        overwrite: bool,
        retry_failed: bool,
        ray: RayOptions | None,
    ) -> Execution[RunT]:
        if not isinstance(inputs, (str, Path)):
            raise ConfigError("`engine='ray'` reads a file or a folder of *.jsonl shards: give `inputs` as a path")
        if output is None:
            raise ConfigError("`engine='ray'` writes a results folder: give `output`")
        path, folder = Path(inputs), Path(output)
        if is_table_file(path):
            raise InputError(
                "`engine='ray'` reads JSON / JSONL records (or a folder of *.jsonl shards); run a Parquet or CSV file "
                "with `engine='local'`, or write it as JSONL first",
                path=path,
            )
        self.refuse_ray()
        if llm is not None and not callable(llm):
            raise ConfigError("`engine='ray'` makes an LLM client in each worker: give `llm` as a picklable "
                              "function that makes one")
        require_ray()
        check_results_folder(folder, overwrite=overwrite)
        prepared = self.prepare(spec, readable_items(path, self.parse))
        options = dataclasses.replace(ray if ray is not None else RayOptions(), batch_size=batch_size)
        sharded = run_on_ray(
            SystemBuild(self, prepared, llm), self.parse, path, folder, options=options, overwrite=overwrite,
            retry_failed=retry_failed, progress=progress,
        )
        return Execution(
            self.result(sharded.produced, sharded.totals, sharded.facts()),
            problems=sharded.problems,
            passed_over=sharded.passed_over,
            llm_usage=sharded.llm_usage,
        )

    def summarize(
        self, rows: Sequence[Row], *, seconds: float = 0.0, pipeline: Pipeline[Item, Row, TotalsT] | None = None
    ) -> RunT:
        """The run result of rows held in memory (a server's batch, a report's rows), all counted as new: counted
        by ``pipeline``'s totals and named by its components, or without one by the system's empty totals
        (``totals_type``) with its components unnamed."""
        totals = pipeline.new_totals() if pipeline is not None else self.totals_type()
        for row in rows:
            totals.add(row)
        produced = RunRows(results=ResultRows(self.row_type, rows=rows), new=len(rows), resumed=0, seconds=seconds)
        facts = facts_of(pipeline) if pipeline is not None else RunFacts(names={}, settings={})
        return self.result(produced, totals, facts)


def _count(items: Iterable[Any]) -> int:
    """How many items there are: a list's or a sized reader's length, the count of a reader that digested itself
    on a complete pass (``prepare``'s), else one pass over them."""
    if isinstance(items, Sized):
        return len(items)
    digest = items.digest if isinstance(items, DigestedItems) else None
    return digest.count if digest is not None else sum(1 for _ in items)


def _client(llm: LLMSource, needed: bool) -> LLMClient | None:
    """The client of ``llm`` (made by it when it is a function, and only when ``needed``)."""
    if llm is None or not callable(llm):
        return llm
    return llm() if needed else None
