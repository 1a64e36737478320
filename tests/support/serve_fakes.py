"""A stand-in system for the server's tests of batching and jobs: no model, the real run loop and results file.

Its items are ``{id, text}`` records; its row of an item is the text's length. ``FakeSystem`` is served as the
server serves every system (``ServedSystem``) over a real ``System`` subclass (``FakeRuns``) whose pipeline calls
``FakeSystem.batch``. ``gate`` (when set) holds every batch after the first ``free_batches`` until it is opened, so
a test can stop or cancel a job mid-run.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup
from pydantic import BaseModel

from factscope.core.errors import InputError
from factscope.core.files.error_location import parse_located
from factscope.core.files.input_files import read_json_records
from factscope.core.record_form import FormField, RecordForm
from factscope.core.runs.loop import Pipeline, RunRows
from factscope.core.runs.result import RunResult
from factscope.engines.parts import ReportHooks, RunFacts, RunOutcome
from factscope.engines.system import System
from factscope.serve.systems import ServedSystem


class FakeItem(BaseModel):
    id: str
    text: str


class FakeRow(BaseModel):
    id: str
    length: int


class FakeRun(RunResult[FakeRow]):
    batch_ids: list[str]


class FakeTotals:
    def add(self, row: FakeRow) -> None:
        return None

    def merge(self, other: FakeTotals) -> None:
        return None


class FakeRecords:
    """The items of a JSONL file, read again on each pass; the bad records in ``problems``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problems: list[InputError] = []

    def __iter__(self):
        problems = []
        for line, data in read_json_records(self.path):
            try:
                if isinstance(data, InputError):
                    raise data
                yield parse_located(FakeItem, data, path=self.path, line=line)
            except InputError as error:
                problems.append(error)
        self.problems = problems


class FakeRuns(System[None, FakeItem, FakeRow, FakeTotals, FakeRun]):
    name = "fake"
    manifest = "fake"
    command = "factscope fake"
    title = "Fake"
    request_record = FakeItem
    form = RecordForm("A stand-in system: each record's row is its text's length.",
                      (FormField("id", "Id", required=True), FormField("text", "Text", required=True)))
    row_type = FakeRow
    run_type = FakeRun
    report = ReportHooks(fields=("length",), flagged=lambda row: False, flagged_means="none",
                         record=lambda row, anchor: Markup(""), overview=lambda rows: Markup(""),
                         caption=lambda row: "")

    def __init__(self, owner: FakeSystem) -> None:
        self.owner = owner

    def parse(self, item: dict[str, Any], /, *, path: Path, line: int) -> FakeItem:
        return parse_located(FakeItem, item, path=path, line=line)

    def read(self, path: Path) -> FakeRecords:
        return FakeRecords(path)

    def needs_llm(self, spec: None) -> bool:
        return False

    def ready(self, spec: None, llm: Any) -> None:
        return spec

    def build(self, spec: None, llm: Any) -> Pipeline[FakeItem, FakeRow, FakeTotals]:
        return Pipeline(system="fake", stage_name="faking", row_type=FakeRow, key=lambda item: item.id,
                        process=lambda batch: self.owner.batch(batch), new_totals=FakeTotals, components={},
                        settings={}, failed=lambda row: False,
                        crashed=lambda item, reason: FakeRow(id=item.id, length=-1))

    def result(self, produced: RunRows[FakeRow], totals: FakeTotals, facts: RunFacts) -> FakeRun:
        batch_ids = list(self.owner.batches[-1]) if self.owner.batches else []
        return FakeRun(results=produced.results, failed=0, batch_ids=batch_ids, **produced.counts())

    def summary_rows(self, run: FakeRun, outcome: RunOutcome) -> list[tuple[str, object]]:
        return []


class FakeSystem(ServedSystem[FakeItem, FakeRow]):
    def __init__(self, free_batches: int | None = None) -> None:
        self.batches: list[list[str]] = []
        self.free_batches = free_batches
        self.gate = threading.Event()
        super().__init__(FakeRuns(self), spec=None)

    def batch(self, items: Sequence[FakeItem]) -> list[FakeRow]:
        self.batches.append([item.id for item in items])
        if self.free_batches is not None and len(self.batches) > self.free_batches:
            self.gate.wait(30)
        return [FakeRow(id=item.id, length=len(item.text)) for item in items]
