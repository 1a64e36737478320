"""The four systems as the server runs them, each built from its definition (``factscope.core.system``).

A system reads a request's records with its definition's record parser (errors name the record and the field),
runs a batch of records through its pipeline with no results file (synchronous requests), or a whole input file
into a results file with resume (jobs), through the definition's run. Its components are built from the server's
specs once, on first use (the definition's ``ready``), and shared by every request and job; a pipeline is put
together from them for the records at hand.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, create_model

from factscope.checkers.settings import CheckerSettings
from factscope.conner.system import KNOWLEDGE, KnowledgeSpec
from factscope.core.errors import InputError
from factscope.core.run import Pipeline, ProgressCallback
from factscope.core.system import SystemDefinition
from factscope.grounding.system import GROUND, GroundSpec
from factscope.kalma.system import ATTRIBUTE, AttributeSpec
from factscope.refchecker.system import CHECK, CheckSpec
from factscope.serve.config import Components

REQUEST = "request"
"""The 'file' name of a request's records in their errors."""

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
RunT = TypeVar("RunT", bound=BaseModel)

LoadedCallback = Callable[[int, list[InputError]], None]
"""Told, once a job's file is read, how many records it will run and the records that were skipped."""


def answer_type(run_type: type[BaseModel], row_type: type[BaseModel]) -> type[BaseModel]:
    """``run_type`` as a request's answer: the same figures, with the rows in the body as a list (a run keeps them
    out of its dumps, as a results file may be long; a request's rows are few)."""
    return create_model(
        f"{run_type.__name__}Answer",
        __base__=run_type,
        __doc__=run_type.__doc__,
        results=(list[row_type], ...),  # type: ignore[valid-type]
    )


class System(ABC, Generic[Item, Row]):
    """One system as the server runs it: what the micro-batcher, the jobs and the pages call."""

    name: str
    title: str
    run_type: type[BaseModel]
    row_type: type[BaseModel]
    mergeable: bool = True
    """Whether records of several requests may share one model batch (their results do not depend on it)."""

    @abstractmethod
    def parse(self, item: Any, index: int) -> Item:
        """One request record (``index`` from 0) as the system's input item; raises a located InputError."""

    def item_id(self, item: Item) -> str:
        """The item's id."""
        return str(item.id)  # type: ignore[attr-defined]

    def with_id(self, item: Item, new_id: str) -> Item:
        """A copy of ``item`` under another id (records of several requests share one batch)."""
        if isinstance(item, BaseModel):
            return item.model_copy(update={"id": new_id})
        return dataclasses.replace(item, id=new_id)  # type: ignore[type-var]

    @abstractmethod
    def process(self, items: Sequence[Item]) -> list[Row]:
        """Result rows of ``items`` in their order (no results file)."""

    @abstractmethod
    def assemble(self, items: Sequence[Item], rows: Sequence[Row], seconds: float) -> BaseModel:
        """The typed run result of one request, from its items and rows."""

    @abstractmethod
    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> BaseModel:
        """Run a whole input file into ``output`` (resumed when it holds rows of the same run)."""

    @abstractmethod
    def warm(self) -> None:
        """Build the system's components now (else on the first request)."""


class DefinedSystem(System[Item, Row]):
    """A system run from its definition with the components of ``spec`` (built on first use, under a lock)."""

    def __init__(
        self, definition: SystemDefinition[Any, Item, Row, Any, Any], spec: Any, llm: Any = None
    ) -> None:
        self.definition = definition
        self.name = definition.name
        self.title = definition.title
        self.run_type = answer_type(definition.run_type, definition.row_type)
        self.row_type = definition.row_type
        self.mergeable = definition.mergeable(spec)
        self.llm = llm
        self._spec = spec
        self._ready: Any = None
        self._pipeline: Pipeline[Item, Row, Any] | None = None
        self._lock = threading.Lock()

    def ready(self) -> Any:
        """The spec with its components built (the first call builds them)."""
        with self._lock:
            if self._ready is None:
                self._ready = self.definition.ready(self._spec, self.llm)
            return self._ready

    def warm(self) -> None:
        self.ready()

    def pipeline(self, items: Sequence[Item]) -> Pipeline[Item, Row, Any]:
        """The pipeline for ``items``: the one built once, unless the definition settles something on them."""
        spec = self.ready()
        prepared = self.definition.prepare(spec, items)
        if prepared is not spec:
            return self.definition.build(prepared, self.llm)
        with self._lock:
            if self._pipeline is None:
                self._pipeline = self.definition.build(spec, self.llm)
            return self._pipeline

    def parse(self, item: Any, index: int) -> Item:
        if not isinstance(item, dict):
            raise InputError(f"expected an object, got {type(item).__name__}", path=REQUEST, line=index)
        parsed = self.definition.parse(item, path=Path(REQUEST), line=index)
        if parsed is None:
            raise InputError("holds nothing to run (a failed generation has no answer to score)", path=REQUEST,
                             line=index, field="failed")
        return parsed

    def process(self, items: Sequence[Item]) -> list[Row]:
        return list(self.pipeline(items).process(items))

    def assemble(self, items: Sequence[Item], rows: Sequence[Row], seconds: float) -> BaseModel:
        run = self.definition.summarize(self.pipeline(items), rows, seconds=seconds)
        return self.run_type.model_validate({**dict(run), "results": list(rows)})

    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> BaseModel:
        records = self.definition.read(path)
        count = sum(1 for _ in records)
        loaded(count, records.problems)
        if not count:
            raise InputError("no usable records", path=path)
        return self.definition.run(
            self.ready(), records, llm=self.llm, output=output, batch_size=batch_size, progress=progress
        )


def make_systems(components: Components) -> dict[str, System[Any, Any]]:
    """Each system, in the order pages list them, with the server's components."""
    llm = components.llm
    mode: CheckerSettings = {"mode": components.mode}
    systems: list[System[Any, Any]] = [
        DefinedSystem(
            CHECK,
            CheckSpec(extractor=components.check_extractor, checker=components.check_checker, checker_settings=mode,
                      retriever=components.check_retriever, web=components.web),
            llm,
        ),
        DefinedSystem(
            GROUND,
            GroundSpec(
                extractor=components.ground_extractor, presence=components.ground_presence, mode=components.mode
            ),
            llm,
        ),
        DefinedSystem(ATTRIBUTE, AttributeSpec(checker=components.attribute_checker, checker_settings=mode), llm),
        DefinedSystem(
            KNOWLEDGE,
            KnowledgeSpec(
                corpus=components.knowledge_corpus,
                checker=components.knowledge_checker,
                lm=components.knowledge_lm,
                mode=components.mode,
            ),
            llm,
        ),
    ]
    return {system.name: system for system in systems}


def timed(process: Callable[[], Any]) -> tuple[Any, float]:
    """``process()`` and the seconds it took."""
    started = time.perf_counter()
    return process(), time.perf_counter() - started
