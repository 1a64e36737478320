"""The Ray engine: a system's pipeline run on a Ray cluster, giving the rows and the summary a run in one process
gives.

The input (a JSON / JSONL file or a folder of ``*.jsonl`` shards, see ``factscope.engines.shards``) is cut into
work units, ranges of lines of one shard found by their byte offsets, so that a unit of a large file reads only
its own bytes. The driver keeps a pool of Ray actors busy with the units: each actor builds the pipeline once (its
models are loaded once per actor) and reads its units with factscope's own reader, so a bad record is reported
with its file, line and field and skipped. A unit runs in two calls: the actor first hands back the ids of the
unit's records, the driver answers with those its results shards already hold (the resume state of that unit
alone), and the actor then runs the others a batch at a time, streaming each batch's rows back. The driver writes
the rows into one results shard per input shard, through ``ResultWriter`` keyed by record id, in input order.

A worker process that dies (a crash in native code, the out-of-memory killer, a lost node) is replaced, and its
unit goes on from the last batch handed back, the next batch's records one call each; a record that ends its worker
``RayOptions.max_crashes`` times is written as a failed row with the reason (the pipeline's ``crashed``), so the
run finishes. Each actor reports its LLM client's usage, which the driver sums. Each written row is counted into
its shard's ``Totals``; the run's totals are the shards' merged, which the exact sums of
``factscope.metrics.running`` make equal to the totals of one sequential run.
"""

from __future__ import annotations

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
from factscope.core.files.manifest import RunManifest
from factscope.core.files.results_file import ResultWriter, drop_rows
from factscope.core.files.results_lock import results_lock
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions
from factscope.core.runs.loop import Pipeline, ProgressCallback, RunRows, stage
from factscope.core.runs.results import ResultRows, Totals
from factscope.engines.parts import RecordParser, RunFacts, SystemBuild
from factscope.engines.shards import (
    WorkUnit,
    input_fingerprints,
    input_shards,
    prepare_results_folder,
    result_shard,
    unit_records,
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


ON_RAY = CountsWhen(lambda values: values["engine"] == "ray", "with `engine='ray'`", warn=True)
"""The rule of a Ray run's settings: warned about on the local engine (scripts pass them for either)."""


@dataclass(frozen=True)
class RayOptions(ValidatedOptions):
    """Where and how wide a Ray run goes.

    ``address``: an existing cluster (``ray://head:10001`` or ``auto``); None starts a local one of ``num_cpus``
    CPUs (None: all). ``concurrency``: actors, each with the pipeline's models; ``num_gpus``: GPUs per actor
    (fractions share a GPU). ``batch_size``: records per pipeline batch; ``lines_per_unit``: input lines per work
    unit. A dead actor is replaced and its unit goes on; ``max_crashes``: times a record may end its worker before
    it is written as a failed row. ``address``, ``concurrency`` and ``num_gpus`` carry their help: a front-end
    offers them as options.
    """

    address: str | None = field(default=None, metadata=about(
        "the Ray cluster (ray://HEAD:10001, or auto; default: a new local one) "
        "\\[env RAY_ADDRESS]", flag="--ray-address",
    ))
    num_cpus: int | None = None
    concurrency: int = field(default=1, metadata=about(
        "Ray actors, each loading the models once (with `engine='ray'`)", min=1, counts_when=ON_RAY
    ))
    num_gpus: float = field(default=0.0, metadata=about(
        "GPUs per Ray actor (0.25: four share one GPU; with `engine='ray'`, `device='cuda'`)", min=0.0,
        counts_when=ON_RAY
    ))
    batch_size: int = 32
    lines_per_unit: int = 1024
    max_crashes: int = 3


@dataclass(frozen=True)
class PipelineShape:
    """What the driver needs of a pipeline without its models: how rows are typed, counted and judged failed, the
    names of its components, and its manifest (inputs left empty)."""

    system: str
    stage_name: str
    row_type: type[BaseModel]
    new_totals: Callable[[], Totals[Any]]
    failed: Callable[[Any], bool]
    crashed: Callable[[Any, str], BaseModel]
    manifest: RunManifest
    names: dict[str, str]


@dataclass
class ShardedRun(Generic[Row, TotalsT]):
    """A Ray run: its rows (every results shard, read lazily) and counts, the merged totals, the skipped input
    records' errors, the records the parser passed over, the names of the pipeline's components, the folder's
    manifest (``settings`` describes each component), the results folder, the LLM usage of every actor summed
    (the fields of ``factscope.llm.client.LLMUsage``; empty without an LLM) and the records written as failed
    because they ended their worker."""

    produced: RunRows[Row]
    totals: TotalsT
    problems: list[InputError]
    passed_over: int
    names: dict[str, str]
    manifest: RunManifest
    output: Path
    llm_usage: dict[str, int] = field(default_factory=dict)
    crashed: int = 0

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
        with results_lock(output):
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


Output = tuple[str, str, str, int, str]
"""(kind, shard, key, line, payload) of one thing an actor hands back: a row, a skipped record's error
('problem') or a record the parser passed over ('passed')."""


@dataclass
class _Collector:
    """What the driver makes of the actors' output: each row written once to its shard and counted, each skipped
    record's error kept once, each passed-over record counted once (a unit gone on after a crash may hand them
    back again)."""

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
            if retry_failed:
                retried += drop_rows(path, partial(_judge, shape.failed, shape.row_type))
            totals = shape.new_totals()
            writer = ResultWriter(path, seen=partial(_count, totals, shape.row_type))
            states[str(shard)] = _Shard(path, writer, totals)
        resumed = sum(len(state.writer.done) for state in states.values())
        units = [unit for shard in shards for unit in work_units(shard, options.lines_per_unit)]
        lines = sum(unit.last - unit.first + 1 for unit in units)
        collected = _Collector(shape.row_type, states)
        pool = _UnitPool(ray, build, parse, shape, options, states)
        with stage(progress, shape.stage_name, max(lines - resumed, 0)) as bar:
            for output_row in pool.outputs(units):
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
        llm_usage=pool.usage(),
        crashed=pool.crashed,
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
        crashed=pipeline.crashed,
        manifest=pipeline.manifest([]),
        names=pipeline.names(),
    )


@dataclass
class _UnitState:
    """Where one work unit stands on the driver: the records it holds (line, id), those its results shard held
    before the run (resumed), the last line whose output came back, how many records it runs one call each (after
    a crash), each record's crashes, the crashes outside any one record, its output not yet written, and whether it
    is done."""

    index: int
    unit: WorkUnit
    keys: list[tuple[int, str]] | None = None
    skip: frozenset[str] = frozenset()
    reached: int = 0
    isolated: int = 0
    crashes: dict[int, int] = field(default_factory=dict)
    early_crashes: int = 0
    buffered: list[Output] = field(default_factory=list)
    finished: bool = False


@dataclass
class _Slot:
    """One actor of the pool, the unit it works on and the call in flight (a plain call or a stream)."""

    actor: Any
    name: str
    unit: _UnitState | None = None
    call: Any = None


class _UnitPool:
    """The driver's pool of ``options.concurrency`` actors: hands out work units in input order (at most twice as
    many ahead of the first unfinished one as there are actors), gives each its unit's resume state, replaces an
    actor that dies and goes on with its unit, and yields every output in input order."""

    def __init__(
        self,
        ray: Any,
        build: Callable[[], Pipeline[Any, Any, Any]],
        parse: RecordParser[Any],
        shape: PipelineShape,
        options: RayOptions,
        states: Mapping[str, _Shard],
    ) -> None:
        self.ray = ray
        self.parse = parse
        self.shape = shape
        self.options = options
        self.states = states
        gpus = {"num_gpus": options.num_gpus} if options.num_gpus else {}
        self.worker = ray.remote(max_restarts=0, **gpus)(ShardWorker)
        self.build = build
        self.started = 0
        self.usage_of: dict[str, dict[str, int]] = {}
        self.crashed = 0

    def _actor(self) -> _Slot:
        self.started += 1
        actor = self.worker.remote(self.build, self.parse, self.options.batch_size)
        return _Slot(actor, f"actor-{self.started}")

    def outputs(self, units: Sequence[WorkUnit]) -> Iterator[Output]:
        """Every output of every unit, in input order."""
        from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError

        lost = (ActorDiedError, ActorUnavailableError, RayActorError)
        waiting = [_UnitState(index, unit) for index, unit in enumerate(units)]
        slots = [self._actor() for _ in range(min(self.options.concurrency, len(units)))]
        try:
            yield from self._drive(slots, waiting, lost)
        finally:
            for slot in slots:
                self.ray.kill(slot.actor)

    def _drive(
        self, slots: list[_Slot], waiting: list[_UnitState], lost: tuple[type[Exception], ...]
    ) -> Iterator[Output]:
        """Keep every slot busy and yield the output of each unit once it and the units before it are done."""
        handed = 0
        first_open = 0
        while first_open < len(waiting):
            for slot in slots:
                if slot.unit is None and handed < len(waiting) and handed < first_open + 2 * len(slots):
                    slot.unit = waiting[handed]
                    handed += 1
                    self._next_call(slot)
            busy = [slot for slot in slots if slot.call is not None]
            ready, _ = self.ray.wait([slot.call for slot in busy], num_returns=1)
            slot = next(slot for slot in busy if slot.call == ready[0])
            try:
                self._advance(slot)
            except lost as error:
                self._lost(slot, error)
                slots[slots.index(slot)] = replacement = self._actor()
                replacement.unit = slot.unit
                if replacement.unit is not None:
                    self._next_call(replacement)
            while first_open < len(waiting) and waiting[first_open].finished:
                yield from waiting[first_open].buffered
                waiting[first_open].buffered = []
                first_open += 1

    def _next_call(self, slot: _Slot) -> None:
        """Start the slot's next call on its unit: read its ids first, then run it from where it stands."""
        state = slot.unit
        assert state is not None
        if state.keys is None:
            slot.call = slot.actor.keys.remote(state.unit)
            return
        slot.call = slot.actor.run.options(num_returns="streaming").remote(
            state.unit, state.skip, state.reached, state.isolated > 0
        )

    def _advance(self, slot: _Slot) -> None:
        """Take what the slot's call has ready."""
        state = slot.unit
        assert state is not None
        if state.keys is None:
            state.keys = [(int(line), str(key)) for line, key in self.ray.get(slot.call)]
            shard = self.states[state.unit.shard]
            state.skip = frozenset(
                key for _, key in state.keys if key in shard.writer.done and key not in shard.lines
            )
            self._next_call(slot)
            return
        try:
            reference = next(slot.call)
        except StopIteration:
            if state.reached >= state.unit.last:
                state.finished = True
                slot.unit = slot.call = None
            else:
                self._next_call(slot)
            return
        batch = self.ray.get(reference)
        state.buffered.extend(tuple(item) for item in batch["outputs"])
        state.reached = max(state.reached, int(batch["reached"]))
        if batch["ran"] and state.isolated:
            state.isolated -= 1
        if batch["usage"]:
            self.usage_of[slot.name] = batch["usage"]

    def _lost(self, slot: _Slot, error: Exception) -> None:
        """Account for the death of the slot's actor. After a crash in a batch, the unit's next batch of records
        run one call each, so that a crash names its record; a record that has ended its worker
        ``max_crashes`` times is written as failed and passed over."""
        state = slot.unit
        if state is None:
            return
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        isolated = state.isolated > 0
        culprit = self._culprit(state) if isolated else None
        if not isolated:
            state.isolated = self.options.batch_size
        if culprit is None:
            if isolated or state.keys is None:
                state.early_crashes += 1
            if state.early_crashes >= self.options.max_crashes:
                raise RuntimeError(
                    f"the Ray workers died {state.early_crashes} times on {state.unit.shard} lines "
                    f"{state.unit.first}-{state.unit.last} outside any one record ({reason}); see the Ray logs "
                    "in /tmp/ray/session_latest/logs"
                ) from error
            return
        line, key = culprit
        state.crashes[line] = state.crashes.get(line, 0) + 1
        if state.crashes[line] < self.options.max_crashes:
            return
        state.buffered.extend(self._crashed_outputs(state.unit, line, key, state.crashes[line], reason))
        state.reached = line
        state.isolated = 0
        self.crashed += 1

    @staticmethod
    def _culprit(state: _UnitState) -> tuple[int, str] | None:
        """The record a unit running one record per call was on: its first record after the last output."""
        for line, key in state.keys or []:
            if line > state.reached and key not in state.skip:
                return line, key
        return None

    def _crashed_outputs(self, unit: WorkUnit, line: int, key: str, crashes: int, reason: str) -> list[Output]:
        """The failed row the pipeline's ``crashed`` makes of the record on ``line``, or, when that line no longer
        holds a record the parser reads (the input changed during the run), its error."""
        message = (
            f"record {key!r} ended its worker process {crashes} times ({reason}), so it was not run; rerun with "
            "`retry_failed=True` after fixing the cause, or leave the record out"
        )
        path = Path(unit.shard)
        for found, raw in unit_records(unit):
            if found != line or isinstance(raw, InputError):
                continue
            item = self.parse(raw, path=path, line=line)
            if item is not None:
                row = self.shape.crashed(item, message).model_dump(mode="json")
                return [("row", unit.shard, key, line, json.dumps(row, ensure_ascii=False))]
        error = {"message": message, "path": unit.shard, "line": line, "field": None}
        return [("problem", unit.shard, "", line, json.dumps(error))]

    def usage(self) -> dict[str, int]:
        """The LLM usage of every actor (each replaced one included), summed."""
        summed: dict[str, int] = {}
        for usage in self.usage_of.values():
            for name, amount in usage.items():
                summed[name] = summed.get(name, 0) + amount
        return summed


class ShardWorker:
    """One actor of the pool: the pipeline built once (with its LLM client, whose usage it reports), then work
    units read, filtered and run a batch at a time."""

    def __init__(self, build: Callable[[], Pipeline[Any, Any, Any]], parse: RecordParser[Any], batch_size: int) -> None:
        self.pipeline, self.client = build.with_client() if isinstance(build, SystemBuild) else (build(), None)
        self.parse = parse
        self.batch_size = batch_size

    def keys(self, unit: WorkUnit) -> list[tuple[int, str]]:
        """(line, id) of each record of the unit that the parser reads and runs."""
        found = []
        for line, item in self._items(unit):
            if not isinstance(item, (InputError, type(None))):
                found.append((line, self.pipeline.key(item)))
        return found

    def run(self, unit: WorkUnit, skip: frozenset[str], after: int, one: bool) -> Iterator[dict[str, Any]]:
        """The outputs of the unit's records after line ``after`` and not in ``skip``, a batch at a time, each
        with the last line it covers, the records it ran and the LLM usage so far; the last covers the unit's
        last line. With ``one``, only the next record is run (and the call ends after it)."""
        size = 1 if one else self.batch_size
        items: list[Any] = []
        lines: list[int] = []
        outputs: list[Output] = []
        for line, item in self._items(unit):
            if line <= after:
                continue
            if isinstance(item, InputError):
                outputs.append(("problem", unit.shard, "", item.line or line, _error_payload(item)))
            elif item is None:
                outputs.append(("passed", unit.shard, "", line, ""))
            elif self.pipeline.key(item) not in skip:
                items.append(item)
                lines.append(line)
                if len(items) == size:
                    yield self._batch(unit, items, lines, outputs, line)
                    if one:
                        return
                    items, lines, outputs = [], [], []
        yield self._batch(unit, items, lines, outputs, unit.last)

    def _items(self, unit: WorkUnit) -> Iterator[tuple[int, Any]]:
        """(line, item) of each of the unit's lines: the item, its InputError, or None for a record passed over."""
        path = Path(unit.shard)
        for line, raw in unit_records(unit):
            try:
                if isinstance(raw, InputError):
                    raise raw
                yield line, self.parse(raw, path=path, line=line)
            except InputError as error:
                yield line, error

    def _batch(
        self, unit: WorkUnit, items: Sequence[Any], lines: Sequence[int], outputs: list[Output], reached: int
    ) -> dict[str, Any]:
        line_of = {self.pipeline.key(item): line for item, line in zip(items, lines)}
        for row in self.pipeline.process(items) if items else []:
            data = row.model_dump(mode="json")
            key = str(data["id"])
            outputs.append(("row", unit.shard, key, line_of.get(key, 0), json.dumps(data, ensure_ascii=False)))
        usage = {name: int(value) for name, value in vars(self.client.usage).items()} if self.client else {}
        return {"outputs": outputs, "reached": reached, "ran": len(items), "usage": usage}


def _error_payload(problem: InputError) -> str:
    payload = {"message": problem.reason, "path": problem.path, "line": problem.line, "field": problem.field}
    return json.dumps(payload, ensure_ascii=False)


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
