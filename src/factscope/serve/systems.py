"""The systems as the server runs them: the same ``System`` objects as the API and the CLI (``factscope.systems``),
each with the server's spec (``factscope.serve.components``).

A served system reads a request's records with its system's record parser (errors name the record and the
field), runs a batch of records through its pipeline with no results file (synchronous requests), or a whole input
file into a results file with resume (jobs), through the system's run. Its components are built from the server's
specs once, on first use (the system's ``ready``), and shared by every request and job; a pipeline is put together
from them for the records at hand, with the request's options (``factscope.serve.request_options``), after the
system's ``prepare`` has accepted them.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, create_model

from factscope.core.errors import InputError
from factscope.core.runs.loop import Pipeline, ProgressCallback
from factscope.engines.system import LoadedCallback, System
from factscope.serve.components import ServerComponents
from factscope.serve.endpoints import endpoint_path
from factscope.serve.request_options import RecordsRequest, RequestOptions, options_model, request_model
from factscope.systems import SYSTEMS

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
RunT = TypeVar("RunT", bound=BaseModel)



def answer_type(run_type: type[BaseModel], row_type: type[BaseModel]) -> type[BaseModel]:
    """``run_type`` as a request's answer: the same figures, with the rows in the body as a list (a run keeps them
    out of its dumps, as a results file may be long; a request's rows are few)."""
    return create_model(
        f"{run_type.__name__}Answer",
        __base__=run_type,
        __doc__=run_type.__doc__,
        results=(list[row_type], ...),  # type: ignore[valid-type]
    )


class ServedSystem(Generic[Item, Row]):
    """One system as the server runs it, with the components of ``spec`` (built on first use, under a lock, and
    shared by every request and job): what the micro-batcher, the jobs and the pages call. It reads and runs
    records through the system's own methods, so a request meets the same policies as the API and the CLI."""

    def __init__(self, system: System[Any, Item, Row, Any, Any], spec: Any, llm: Any = None) -> None:
        self.system = system
        self.name = system.name
        self.title = system.title
        self.path = endpoint_path(system)
        """The path of its synchronous endpoint."""
        self.run_type = answer_type(system.run_type, system.row_type)
        self.row_type = system.row_type
        self.request_type: type[RecordsRequest] = request_model(system.name, type(spec), system.request_record)
        """The body of a synchronous request: its records and the options of the spec a request may set."""
        self.options_type: type[RequestOptions] = options_model(system.name, type(spec))
        """The options of a job: those of a synchronous request, without its records."""
        self.mergeable = system.mergeable(spec)
        """Whether records of several requests may share one model batch (their results do not depend on it)."""
        self.llm = llm
        self._spec = spec
        self._ready: Any = None
        self._pipeline: Pipeline[Item, Row, Any] | None = None
        self._lock = threading.Lock()

    def ready(self) -> Any:
        """The spec with its components built (the first call builds them)."""
        with self._lock:
            if self._ready is None:
                self._ready = self.system.ready(self._spec, self.llm)
            return self._ready

    def warm(self) -> None:
        """Build the system's components now (else on the first request)."""
        self.ready()

    def admit(self, items: Sequence[Item], options: Mapping[str, Any] | None = None) -> None:
        """Raise the system's InputError when it refuses to run ``items`` together with a request's ``options``
        (its ``prepare``: check stops on records without references unless ``allow_missing_references``), so
        that a request meets the policies of the API and the CLI."""
        self.system.prepare(_with(self._spec, options), items)

    def pipeline(self, items: Sequence[Item], options: Mapping[str, Any] | None = None) -> Pipeline[Item, Row, Any]:
        """The pipeline for ``items`` with a request's ``options``: the one built once, unless the request sets
        options or the system settles something on the items."""
        spec = self.ready()
        prepared = self.system.prepare(_with(spec, options), items)
        if prepared is not spec:
            return self.system.pipeline(prepared, self.llm)
        with self._lock:
            if self._pipeline is None:
                self._pipeline = self.system.pipeline(spec, self.llm)
            return self._pipeline

    def parse(self, item: Any, index: int) -> Item:
        """One request record (``index`` from 0) as the system's input item; raises a located InputError."""
        return self.system.parse_request(item, index)

    def item_id(self, item: Item) -> str:
        """The item's id."""
        return str(item.id)  # type: ignore[attr-defined]

    def with_id(self, item: Item, new_id: str) -> Item:
        """A copy of ``item`` under another id (records of several requests share one batch)."""
        if isinstance(item, BaseModel):
            return item.model_copy(update={"id": new_id})
        return dataclasses.replace(item, id=new_id)  # type: ignore[type-var]

    def process(self, items: Sequence[Item], options: Mapping[str, Any] | None = None) -> list[Row]:
        """Result rows of ``items`` in their order, with a request's ``options`` (no results file)."""
        return list(self.pipeline(items, options).process(items))

    def assemble(
        self, items: Sequence[Item], rows: Sequence[Row], seconds: float, options: Mapping[str, Any] | None = None
    ) -> BaseModel:
        """The typed run result of one request, from its items, rows and ``options``."""
        run = self.system.summarize(rows, seconds=seconds, pipeline=self.pipeline(items, options))
        return self.run_type.model_validate({**dict(run), "results": list(rows)})

    def run_file(
        self,
        path: Path,
        output: Path,
        *,
        batch_size: int,
        progress: ProgressCallback,
        loaded: LoadedCallback,
        options: Mapping[str, Any] | None = None,
    ) -> BaseModel:
        """Run a whole input file into ``output`` with a job's ``options`` (resumed when it holds rows of the same
        run); a file with no usable record is an InputError."""

        def counted(count: int, problems: list[InputError]) -> None:
            loaded(count, problems)
            if not count:
                raise InputError("no usable records", path=path)

        return self.system.run(_with(self.ready(), options), path, llm=self.llm, output=output,
                               batch_size=batch_size, progress=progress, loaded=counted)


def _with(spec: Any, options: Mapping[str, Any] | None) -> Any:
    """``spec`` with a request's ``options`` set, a list as a tuple (``spec`` itself when there are none)."""
    if not options:
        return spec
    return dataclasses.replace(spec, **{name: tuple(v) if isinstance(v, list) else v for name, v in options.items()})


def make_systems(components: ServerComponents) -> dict[str, ServedSystem[Any, Any]]:
    """Every system (``factscope.systems``), in the order pages list them, with the server's components."""
    return {system.name: ServedSystem(system, components.spec(system), components.llm) for system in SYSTEMS}


def timed(process: Callable[[], Any]) -> tuple[Any, float]:
    """``process()`` and the seconds it took."""
    started = time.perf_counter()
    return process(), time.perf_counter() - started
