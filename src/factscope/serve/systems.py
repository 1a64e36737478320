"""The four systems as the server runs them: the same record readers and run functions as the command line.

Each system reads a request's records with the readers its input files use (errors name the record and the
field), runs a batch of records through its task function with no results file (synchronous requests), or a
whole input file into a results file with resume (jobs). Components are built from their specs once, on first
use, and shared by every request and job.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, create_model

from factscope.conner.scores import KnowledgeScores
from factscope.conner.task import KnowledgeRun
from factscope.core.errors import InputError
from factscope.core.results import ResultRows
from factscope.core.run import ProgressCallback, RunRows
from factscope.grounding.task import GroundResult, GroundRun
from factscope.kalma.scores import AttributionScore
from factscope.kalma.task import AttributionRun
from factscope.refchecker.task import CheckResult, CheckRun
from factscope.serve.config import Components

REQUEST = "request"
"""The 'file' name of a request's records in their errors."""

Item = TypeVar("Item")
Row = TypeVar("Row", bound=BaseModel)
RunT = TypeVar("RunT", bound=BaseModel)

LoadedCallback = Callable[[int, list[InputError]], None]
"""Told, once a job's file is read, how many records it will run and the records that were skipped."""


class ComponentCache:
    """Components built once per process, by kind and spec; building happens under a lock."""

    def __init__(self, components: Components) -> None:
        self.components = components
        self._built: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def get(self, kind: str, spec: str, build: Callable[[], Any]) -> Any:
        """The component of ``kind`` and ``spec``, built by ``build`` the first time."""
        with self._lock:
            key = (kind, spec)
            if key not in self._built:
                self._built[key] = build()
            return self._built[key]


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
    """One system as the server runs it; subclasses name their readers, task function and result models."""

    name: ClassVar[str]
    title: ClassVar[str]
    run_type: ClassVar[type[BaseModel]]
    row_type: ClassVar[type[BaseModel]]
    mergeable: ClassVar[bool] = True
    """Whether records of several requests may share one model batch (their results do not depend on it)."""

    def __init__(self, cache: ComponentCache) -> None:
        self.cache = cache

    @property
    def options(self) -> Components:
        """The server's component settings."""
        return self.cache.components

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
        """Result rows of ``items`` in their order, from the system's task function (no results file)."""

    @abstractmethod
    def assemble(self, items: Sequence[Item], rows: Sequence[Row], seconds: float) -> BaseModel:
        """The typed run result of one request, from its items and rows."""

    def answer(self, run: RunT, rows: Sequence[Row]) -> RunT:
        """``run`` as a request's answer (``run_type``, a subclass of the run's type): its figures and ``rows``."""
        answered = self.run_type.model_validate({**dict(run), "results": list(rows)})
        assert isinstance(answered, type(run))
        return answered

    @abstractmethod
    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> BaseModel:
        """Run a whole input file into ``output`` (resumed when it holds rows of the same run)."""

    @abstractmethod
    def warm(self) -> None:
        """Build the system's components now (else on the first request)."""


class CheckSystem(System[Any, CheckResult]):
    """Claim-level hallucination checking (RefChecker)."""

    name = "check"
    title = "Check claims (RefChecker)"
    run_type = answer_type(CheckRun, CheckResult)
    row_type = CheckResult

    def parts(self) -> tuple[Any, Any]:
        """The extractor and the checker, built on first use."""
        from factscope.checkers.registry import make_checker
        from factscope.claims.registry import make_extractor

        options = self.options
        extractor = self.cache.get(
            "extractor", options.check_extractor, lambda: make_extractor(options.check_extractor, llm=options.llm)
        )
        checker = self.cache.get(
            "checker", options.check_checker, lambda: make_checker(options.check_checker, llm=options.llm)
        )
        return extractor, checker

    def warm(self) -> None:
        self.parts()

    def parse(self, item: Any, index: int) -> Any:
        from factscope.refchecker.data import parse_record

        return parse_record(_object(item, index), path=REQUEST, line=index)

    def process(self, items: Sequence[Any]) -> list[CheckResult]:
        from factscope.refchecker.task import check

        extractor, checker = self.parts()
        return list(check(items, extractor=extractor, checker=checker, batch_size=max(1, len(items))).results)

    def assemble(self, items: Sequence[Any], rows: Sequence[CheckResult], seconds: float) -> CheckRun:
        from factscope.refchecker.task import summarize_run

        extractor, checker = self.parts()
        return self.answer(summarize_run(rows, new_records=len(rows), seconds=seconds, extractor=extractor.name,
                                         checker=checker.name), rows)

    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> CheckRun:
        from factscope.refchecker.data import CheckRecords
        from factscope.refchecker.task import check

        records = CheckRecords(path)
        count = sum(1 for _ in records)
        loaded(count, records.problems)
        if not count:
            raise InputError("no usable records", path=path)
        extractor, checker = self.parts()
        return check(records, extractor=extractor, checker=checker, output=output, batch_size=batch_size,
                     progress=progress)


class GroundSystem(System[Any, GroundResult]):
    """Grounding precision / recall / F1 (Truly Ground)."""

    name = "ground"
    title = "Grounding (Truly Ground)"
    run_type = answer_type(GroundRun, GroundResult)
    row_type = GroundResult

    def parts(self) -> tuple[Any, Any]:
        """The fact extractor and the presence model, built on first use."""
        from factscope.claims.registry import make_extractor
        from factscope.grounding.presence import make_presence

        options = self.options
        extractor = self.cache.get(
            "extractor", options.ground_extractor, lambda: make_extractor(options.ground_extractor, llm=options.llm)
        )
        presence = self.cache.get(
            "presence", options.ground_presence, lambda: make_presence(options.ground_presence, llm=options.llm)
        )
        return extractor, presence

    def warm(self) -> None:
        self.parts()

    def parse(self, item: Any, index: int) -> Any:
        from factscope.grounding.data import generic_example

        example = generic_example(_object(item, index), path=Path(REQUEST), line=index)
        if example.response is None:
            raise InputError("missing; the response to score", path=REQUEST, line=index, field="response")
        return example

    def process(self, items: Sequence[Any]) -> list[GroundResult]:
        from factscope.grounding.task import ground

        extractor, presence = self.parts()
        run = ground(items, extractor=extractor, presence=presence, batch_size=max(1, len(items)), factors=[])
        return list(run.results)

    def assemble(self, items: Sequence[Any], rows: Sequence[GroundResult], seconds: float) -> GroundRun:
        from factscope.grounding.task import breakdown_factors, summarize

        extractor, presence = self.parts()
        summary = summarize(rows, breakdown_factors(items, None))
        return self.answer(GroundRun(
            results=ResultRows(GroundResult, rows=rows), summary=summary, failed=summary.failed,
            new_records=len(rows), resumed_records=0, seconds=seconds, extractor=extractor.name,
            presence=presence.name, threshold=presence.threshold,
        ), rows)

    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> GroundRun:
        from factscope.grounding.data import load_dataset
        from factscope.grounding.task import ground

        dataset = load_dataset(path)
        examples = [example for example in dataset.examples if example.response is not None]
        without = [
            InputError("missing; the response to score", path=path, field="response")
            for example in dataset.examples
            if example.response is None
        ]
        loaded(len(examples), [*dataset.errors, *without])
        if not examples:
            raise InputError("no record with a response to score", path=path)
        extractor, presence = self.parts()
        return ground(examples, extractor=extractor, presence=presence, output=output, batch_size=batch_size,
                      progress=progress)


class AttributeSystem(System[Any, AttributionScore]):
    """Knowledge-graph citation quality (KaLMA)."""

    name = "attribute"
    title = "Attribution to a knowledge graph (KaLMA)"
    run_type = answer_type(AttributionRun, AttributionScore)
    row_type = AttributionScore

    def _checker(self) -> Any:
        from factscope.checkers.registry import make_checker

        options = self.options
        return self.cache.get(
            "checker", options.attribute_checker, lambda: make_checker(options.attribute_checker, llm=options.llm)
        )

    def warm(self) -> None:
        self._checker()

    def parse(self, item: Any, index: int) -> Any:
        from factscope.kalma.answers import read_answer

        record = read_answer(_object(item, index), path=Path(REQUEST), line=index)
        if record is None:
            raise InputError("a failed generation has no answer to score", path=REQUEST, line=index, field="failed")
        return record

    def process(self, items: Sequence[Any]) -> list[AttributionScore]:
        from factscope.kalma.task import score

        return list(score(items, self._checker(), batch_size=max(1, len(items))).results)

    def assemble(self, items: Sequence[Any], rows: Sequence[AttributionScore], seconds: float) -> AttributionRun:
        from factscope.kalma.task import attribution_run
        from factscope.kalma.totals import AttributionTotals

        totals = AttributionTotals()
        for row in rows:
            totals.add(row)
        checker = self._checker()
        produced = RunRows(results=ResultRows(AttributionScore, rows=rows), new=len(rows), resumed=0, seconds=seconds)
        run = attribution_run(produced, totals, checker=getattr(checker, "name", type(checker).__name__))
        return self.answer(run, rows)

    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> AttributionRun:
        from factscope.kalma.answers import AnswerRecords
        from factscope.kalma.task import score

        answers = AnswerRecords(path)
        count = sum(1 for _ in answers)
        loaded(count, answers.problems)
        if not count:
            raise InputError("no usable answers", path=path)
        return score(answers, self._checker(), output=output, batch_size=batch_size, progress=progress)


class KnowledgeSystem(System[Any, KnowledgeScores]):
    """CONNER's knowledge-quality metrics."""

    name = "knowledge"
    title = "Knowledge quality (CONNER)"
    run_type = answer_type(KnowledgeRun, KnowledgeScores)
    row_type = KnowledgeScores

    @property
    def mergeable(self) -> bool:  # type: ignore[override]
        """Helpfulness baselines are drawn from the batch's knowledge and depend on each record's id, so with a
        language model each request runs alone."""
        return self.options.knowledge_lm is None

    def _evaluator(self) -> Any:
        from factscope.conner.evaluator_setup import make_evaluator

        options = self.options
        spec = f"{options.knowledge_checker}|{options.knowledge_corpus}|{options.knowledge_lm}"
        return self.cache.get(
            "evaluator",
            spec,
            lambda: make_evaluator(corpus=options.knowledge_corpus, checker=options.knowledge_checker,
                                   lm=options.knowledge_lm, llm=options.llm),
        )

    def warm(self) -> None:
        self._evaluator()

    def parse(self, item: Any, index: int) -> Any:
        from factscope.conner.data import parse_knowledge_record

        return parse_knowledge_record(_object(item, index), path=REQUEST, line=index)

    def process(self, items: Sequence[Any]) -> list[KnowledgeScores]:
        from factscope.conner.task import knowledge

        return list(knowledge(items, self._evaluator(), batch_size=max(1, len(items))).results)

    def assemble(self, items: Sequence[Any], rows: Sequence[KnowledgeScores], seconds: float) -> KnowledgeRun:
        from factscope.conner.task import knowledge_run
        from factscope.conner.totals import KnowledgeTotals

        totals = KnowledgeTotals()
        for row in rows:
            totals.add(row)
        return self.answer(knowledge_run(
            RunRows(results=ResultRows(KnowledgeScores, rows=rows), new=len(rows), resumed=0, seconds=seconds), totals
        ), rows)

    def run_file(
        self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback, loaded: LoadedCallback
    ) -> KnowledgeRun:
        from factscope.conner.data import KnowledgeRecords
        from factscope.conner.task import knowledge

        records = KnowledgeRecords(path)
        count = sum(1 for _ in records)
        loaded(count, records.problems)
        if not count:
            raise InputError("no usable records", path=path)
        return knowledge(records, self._evaluator(), output=output, batch_size=batch_size, progress=progress)


def _object(item: Any, index: int) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise InputError(f"expected an object, got {type(item).__name__}", path=REQUEST, line=index)
    return item


SYSTEMS: tuple[type[System[Any, Any]], ...] = (CheckSystem, GroundSystem, AttributeSystem, KnowledgeSystem)
"""Every system the server runs, in the order pages list them."""


def make_systems(components: Components) -> dict[str, System[Any, Any]]:
    """One instance of each system, sharing one component cache."""
    cache = ComponentCache(components)
    return {system.name: system(cache) for system in SYSTEMS}


def timed(process: Callable[[], Any]) -> tuple[Any, float]:
    """``process()`` and the seconds it took."""
    started = time.perf_counter()
    return process(), time.perf_counter() - started
