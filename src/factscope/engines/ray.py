"""The Ray engine: a system's pipeline run on a Ray cluster, giving the rows and the summary a run in one process
gives.

The input (a JSON / JSONL file or a folder of ``*.jsonl`` shards, see ``factscope.engines.shards``) is cut into
work units, ranges of lines of one shard. Ray Data maps a pool of actors over the units: each actor calls the
pipeline's factory once (its models are loaded once per actor), reads its units with factscope's own reader, so
a bad record is reported with its file, line and field and skipped, leaves out the records whose results the
folder already holds, and yields the rows of each batch as soon as the batch is done. The driver writes the rows
as they stream back into one results shard per input shard, through ``ResultWriter`` keyed by record id, so a
unit run again after a worker died (actors are restarted and their tasks retried) never writes a record twice.
Each written row is counted into its shard's ``Totals``; the run's totals are the shards' merged, which the
exact sums of ``factscope.metrics.running`` make equal to the totals of one sequential run.

Units are handed back in input order, so a fresh run writes each shard's rows in the order of its records.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from factscope.core.errors import ConfigError, InputError
from factscope.core.io import ResultWriter, drop_rows, read_json_records
from factscope.core.manifest import RunManifest
from factscope.core.results import ResultRows, Totals
from factscope.core.run import Pipeline, ProgressCallback, RunRows, stage
from factscope.core.system import RecordParser, RunFacts
from factscope.engines.shards import (
    WorkUnit,
    input_fingerprints,
    input_shards,
    prepare_results_folder,
    result_shard,
    work_units,
)

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
TotalsT = TypeVar("TotalsT", bound=Totals[Any])

INSTALL_RAY = "the Ray engine needs Ray, an optional extra: pip install 'factscope[ray]'"

PASSED_ENVIRONMENT = (
    "HF_HUB_OFFLINE",
    "HF_HOME",
    "TRANSFORMERS_OFFLINE",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
)
"""Environment variables handed to the workers when set (with every ``FACTSCOPE_*`` one): offline model loading,
the model cache and the LLM endpoint's settings."""


@dataclass(frozen=True)
class RayOptions:
    """Where and how wide a Ray run goes.

    ``address``: an existing cluster (``ray://head:10001`` or ``auto``); None starts a local one of ``num_cpus``
    CPUs (None: all). ``concurrency``: actors, each with the pipeline's models; ``num_gpus``: GPUs per actor
    (fractions share a GPU). ``batch_size``: records per pipeline batch; ``lines_per_unit``: input lines per work
    unit. A dead actor is started again and its unfinished units retried (Ray Data's fault tolerance).
    """

    address: str | None = None
    num_cpus: int | None = None
    concurrency: int = 1
    num_gpus: float = 0.0
    batch_size: int = 32
    lines_per_unit: int = 1024


@dataclass(frozen=True)
class PipelineShape:
    """What the driver needs of a pipeline without its models: how rows are typed, counted and judged failed, the
    names of its components, and its manifest (inputs left empty)."""

    system: str
    stage_name: str
    row_type: type[BaseModel]
    new_totals: Callable[[], Totals[Any]]
    failed: Callable[[Any], bool] | None
    manifest: RunManifest
    names: dict[str, str]


@dataclass
class ShardedRun(Generic[Row, TotalsT]):
    """A Ray run: its rows (every results shard, read lazily) and counts, the merged totals, the skipped input
    records' errors, the records the parser passed over, the names of the pipeline's components, the folder's
    manifest (``settings`` describes each component) and the results folder."""

    produced: RunRows[Row]
    totals: TotalsT
    problems: list[InputError]
    passed_over: int
    names: dict[str, str]
    manifest: RunManifest
    output: Path

    def facts(self) -> RunFacts:
        """The names and manifest settings a system's run result is made with."""
        return RunFacts(names=self.names, settings=self.manifest.settings)


def require_ray() -> Any:
    """The ``ray`` module; a ConfigError saying how to install it when it is missing."""
    try:
        import ray
        import ray.data
    except ImportError:
        raise ConfigError(INSTALL_RAY) from None
    return ray


def run_on_ray(
    build: Callable[[], Pipeline[Item, Row, TotalsT]],
    parse: RecordParser[Item],
    input: Path,
    output: Path,
    *,
    options: RayOptions | None = None,
    overwrite: bool = False,
    retry_failed: bool = False,
    progress: ProgressCallback | None = None,
) -> ShardedRun[Row, TotalsT]:
    """Run the pipeline ``build`` makes over the records of ``input`` on Ray, writing the results folder
    ``output`` (see the module's description).

    ``build`` is sent to every actor, which calls it once; ``parse`` turns each JSON object into an item (a bad
    record's InputError is reported, never fatal). The folder's manifest must match the run's unless
    ``overwrite``; a rerun resumes, skipping the records whose rows the shards hold; with ``retry_failed`` the
    rows the pipeline's ``failed`` picks are first taken out, so their records run again. Ray is started here
    when it is not running yet (and stopped at the end), on ``options.address`` or as a local cluster.
    """
    ray = require_ray()
    options = options or RayOptions()
    shards = input_shards(input)
    started_here = not ray.is_initialized()
    if started_here:
        _start(ray, options)
    try:
        return _run(ray, build, parse, shards, output, options, overwrite, retry_failed, progress)
    finally:
        if started_here:
            ray.shutdown()


def _start(ray: Any, options: RayOptions) -> None:
    """Connect to the cluster at ``options.address``, or start a local one; workers get the environment variables
    that point them at the models and the LLM endpoint. A Ray Client address (``ray://``) takes only the runtime
    environment; the others also keep Ray's own logging to errors."""
    passed = {
        name: value
        for name, value in os.environ.items()
        if name in PASSED_ENVIRONMENT or name.startswith("FACTSCOPE_")
    }
    runtime_env = {"env_vars": passed} if passed else None
    if options.address is not None and "://" in options.address:
        ray.init(address=options.address, runtime_env=runtime_env)
        return
    ray.init(
        address=options.address,
        num_cpus=None if options.address else options.num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.ERROR,
        runtime_env=runtime_env,
    )


@dataclass
class _Shard:
    """The driver's side of one results shard: its writer, its totals, and the line of each id written now."""

    path: Path
    writer: ResultWriter
    totals: Totals[Any]
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class _Collector:
    """What the driver makes of the actors' output: each row written once to its shard and counted, each skipped
    record's error kept once, each passed-over record counted once (a retried unit hands them back again)."""

    row_type: type[BaseModel]
    shards: dict[str, _Shard]
    problems: dict[str, InputError] = field(default_factory=dict)
    passed_over: set[tuple[str, int]] = field(default_factory=set)
    new: int = 0

    def take(self, kind: str, shard: str, key: str, line: int, payload: str) -> bool:
        """Take one output of an actor; True when it was not taken before (a record newly done)."""
        if kind == "passed":
            fresh = (shard, line) not in self.passed_over
            self.passed_over.add((shard, line))
            return fresh
        state = self.shards[shard]
        first = state.lines.get(key)
        if kind == "problem" or (first is not None and first != line):
            problem = _problem(payload) if kind == "problem" else _repeated(key, first, shard, line)
            fresh = str(problem) not in self.problems
            self.problems.setdefault(str(problem), problem)
            return fresh
        row = json.loads(payload)
        if not state.writer.write(row):
            return False
        state.lines[key] = line
        state.totals.add(self.row_type.model_validate(row))
        self.new += 1
        return True


def _run(
    ray: Any,
    build: Callable[[], Pipeline[Any, Any, Any]],
    parse: RecordParser[Any],
    shards: Sequence[Path],
    output: Path,
    options: RayOptions,
    overwrite: bool,
    retry_failed: bool,
    progress: ProgressCallback | None,
) -> ShardedRun[Any, Any]:
    shape = (
        ray.get(ray.remote(num_gpus=options.num_gpus)(describe).remote(build))
        if options.num_gpus
        else describe(build)
    )
    manifest = shape.manifest.model_copy(update={"inputs": input_fingerprints(shards)})
    prepare_results_folder(output, manifest, overwrite=overwrite)
    started = time.perf_counter()
    retried = 0
    states: dict[str, _Shard] = {}
    try:
        for shard in shards:
            path = result_shard(output, shard)
            if retry_failed and shape.failed is not None:
                retried += drop_rows(path, partial(_judge, shape.failed, shape.row_type))
            totals = shape.new_totals()
            writer = ResultWriter(path, seen=partial(_count, totals, shape.row_type))
            states[str(shard)] = _Shard(path, writer, totals)
        resumed = sum(len(state.writer.done) for state in states.values())
        units = [unit for shard in shards for unit in work_units(shard, options.lines_per_unit)]
        lines = sum(unit.last - unit.first + 1 for unit in units)
        collected = _Collector(shape.row_type, states)
        with stage(progress, shape.stage_name, max(lines - resumed, 0)) as bar:
            if units:
                done = ray.put({name: frozenset(state.writer.done) for name, state in states.items()})
                for output_row in _stream(ray, units, build, parse, done, options):
                    if collected.take(*output_row):
                        bar.advance()
    finally:
        for state in states.values():
            state.writer.close()
    totals = shape.new_totals()
    for state in states.values():
        totals.merge(state.totals)
    results: ResultRows[Any] = ResultRows(
        shape.row_type, paths=[state.path for state in states.values()], count=resumed + collected.new
    )
    produced = RunRows(
        results=results,
        new=collected.new,
        resumed=resumed,
        seconds=time.perf_counter() - started,
        retried=retried,
    )
    return ShardedRun(
        produced=produced,
        totals=totals,
        problems=list(collected.problems.values()),
        passed_over=len(collected.passed_over),
        names=shape.names,
        manifest=manifest,
        output=output,
    )


def _judge(failed: Callable[[Any], bool], row_type: type[BaseModel], row: dict[str, Any]) -> bool:
    return failed(row_type.model_validate(row))


def _count(totals: Totals[Any], row_type: type[BaseModel], row: dict[str, Any]) -> None:
    totals.add(row_type.model_validate(row))


def describe(build: Callable[[], Pipeline[Any, Any, Any]]) -> PipelineShape:
    """Build the pipeline once and keep what the driver needs of it: built on the driver for CPU actors, and in a
    Ray task with an actor's GPUs for GPU actors (the driver may have no GPU)."""
    pipeline = build()
    return PipelineShape(
        system=pipeline.system,
        stage_name=pipeline.stage_name,
        row_type=pipeline.row_type,
        new_totals=pipeline.new_totals,
        failed=pipeline.failed,
        manifest=pipeline.manifest([]),
        names=pipeline.names(),
    )


def _stream(
    ray: Any,
    units: Sequence[WorkUnit],
    build: Callable[[], Pipeline[Any, Any, Any]],
    parse: RecordParser[Any],
    done: Any,
    options: RayOptions,
) -> Iterator[tuple[str, str, str, int, str]]:
    """(kind, shard, key, line, payload) of every row and skipped record the actors hand back, units in input
    order. Ray Data's context is set for the run (order kept, its own progress bars off) and restored after."""
    context = ray.data.DataContext.get_current()
    options_before = context.execution_options
    bars_before, print_before = context.enable_progress_bars, context.print_on_execution_start
    context.execution_options = copy.deepcopy(options_before)
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    try:
        yield from _rows(ray, units, build, parse, done, options)
    finally:
        context.execution_options = options_before
        context.enable_progress_bars, context.print_on_execution_start = bars_before, print_before


def _rows(
    ray: Any,
    units: Sequence[WorkUnit],
    build: Callable[[], Pipeline[Any, Any, Any]],
    parse: RecordParser[Any],
    done: Any,
    options: RayOptions,
) -> Iterator[tuple[str, str, str, int, str]]:
    dataset = ray.data.from_items(
        [{"shard": unit.shard, "first": unit.first, "last": unit.last} for unit in units],
        override_num_blocks=len(units),
    ).map_batches(
        ShardWorker,
        fn_constructor_kwargs={
            "build": build,
            "parse": parse,
            "done": done,
            "batch_size": options.batch_size,
        },
        batch_size=1,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=options.concurrency),
        num_gpus=options.num_gpus or None,
    )
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        for kind, shard, key, line, payload in zip(
            batch["kind"], batch["shard"], batch["key"], batch["line"], batch["payload"]
        ):
            yield str(kind), str(shard), str(key), int(line), str(payload)


class ShardWorker:
    """One actor of the pool: the pipeline built once, then the work units given to it, read, filtered and run a
    batch at a time."""

    def __init__(
        self, build: Callable[[], Pipeline[Any, Any, Any]], parse: RecordParser[Any], done: Any, batch_size: int
    ) -> None:
        import ray

        self.pipeline = build()
        self.parse = parse
        self.done: Mapping[str, frozenset[str]] = ray.get(done) if isinstance(done, ray.ObjectRef) else done
        self.batch_size = batch_size

    def __call__(self, units: Mapping[str, Any]) -> Iterator[dict[str, list[Any]]]:
        for shard, first, last in zip(units["shard"], units["first"], units["last"]):
            yield from self.run_unit(WorkUnit(str(shard), int(first), int(last)))

    def run_unit(self, unit: WorkUnit) -> Iterator[dict[str, list[Any]]]:
        """The rows and skipped records of one unit, a batch at a time."""
        path = Path(unit.shard)
        done = self.done.get(unit.shard, frozenset())
        items: list[Any] = []
        lines: list[int] = []
        problems: list[InputError] = []
        passed: list[int] = []
        for line, raw in _unit_records(unit):
            try:
                if isinstance(raw, InputError):
                    raise raw
                item = self.parse(raw, path=path, line=line)
            except InputError as error:
                problems.append(error)
                continue
            if item is None:
                passed.append(line)
                continue
            if self.pipeline.key(item) in done:
                continue
            items.append(item)
            lines.append(line)
            if len(items) == self.batch_size:
                yield self.columns(unit, items, lines, problems, passed)
                items, lines, problems, passed = [], [], [], []
        if items or problems or passed:
            yield self.columns(unit, items, lines, problems, passed)

    def columns(
        self,
        unit: WorkUnit,
        items: Sequence[Any],
        lines: Sequence[int],
        problems: Sequence[InputError],
        passed: Sequence[int],
    ) -> dict[str, list[Any]]:
        """One output batch: the rows of ``items`` (run through the pipeline), the errors of ``problems`` and the
        lines of the records ``passed`` over."""
        line_of = {self.pipeline.key(item): line for item, line in zip(items, lines)}
        rows = self.pipeline.process(items) if items else []
        out: dict[str, list[Any]] = {"kind": [], "shard": [], "key": [], "line": [], "payload": []}
        for row in rows:
            data = row.model_dump(mode="json")
            key = str(data["id"])
            _append(out, "row", unit.shard, key, line_of.get(key, 0), json.dumps(data, ensure_ascii=False))
        for problem in problems:
            payload = {
                "message": problem.reason,
                "path": problem.path,
                "line": problem.line,
                "field": problem.field,
            }
            _append(
                out, "problem", unit.shard, "", problem.line or 0, json.dumps(payload, ensure_ascii=False)
            )
        for line in passed:
            _append(out, "passed", unit.shard, "", line, "")
        return out


def _unit_records(unit: WorkUnit) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """The records (or located errors) of the unit's lines, read with factscope's reader; a problem with the whole
    file (bytes that are not UTF-8) ends the unit as its last error."""
    try:
        for line, raw in read_json_records(unit.shard):
            if line > unit.last:
                return
            if line >= unit.first:
                yield line, raw
    except InputError as error:
        yield error.line or unit.first, error


def _append(out: dict[str, list[Any]], kind: str, shard: str, key: str, line: int, payload: str) -> None:
    for column, value in zip(("kind", "shard", "key", "line", "payload"), (kind, shard, key, line, payload)):
        out[column].append(value)


def _problem(payload: str) -> InputError:
    given = json.loads(payload)
    return InputError(given["message"], path=given["path"], line=given["line"], field=given["field"])


def _repeated(key: str, first: int | None, shard: str, line: int) -> InputError:
    return InputError(
        f"id {key!r} is already used by line {first}; only the first record with an id is read, so this one is "
        "skipped: give it an id of its own",
        path=shard,
        line=line,
        field="id",
    )
