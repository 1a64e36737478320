"""A stand-in system for the server's tests of batching and jobs: no model, the real run loop and results file.

Its items are ``{id, text}`` records; its row of an item is the text's length. ``gate`` (when set) holds every
batch after the first ``free_batches`` until it is opened, so a test can stop or cancel a job mid-run.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from factscope.core.error_location import parse_located
from factscope.core.errors import InputError
from factscope.core.input_files import read_json_records
from factscope.core.run import ProgressCallback, run_batches, run_manifest
from factscope.serve.systems import REQUEST, LoadedCallback, System


class FakeItem(BaseModel):
    id: str
    text: str


class FakeRow(BaseModel):
    id: str
    length: int


class FakeRun(BaseModel):
    results: list[FakeRow]
    batch_ids: list[str]


class FakeSystem(System[FakeItem, FakeRow]):
    name = "fake"
    title = "Fake"
    run_type = FakeRun
    row_type = FakeRow

    def __init__(self, free_batches: int | None = None) -> None:
        self.batches: list[list[str]] = []
        self.free_batches = free_batches
        self.gate = threading.Event()

    def parse(self, item: Any, index: int) -> FakeItem:
        return parse_located(FakeItem, item, path=REQUEST, line=index)

    def process(self, items: Sequence[FakeItem]) -> list[FakeRow]:
        self.batches.append([item.id for item in items])
        if self.free_batches is not None and len(self.batches) > self.free_batches:
            self.gate.wait(30)
        return [FakeRow(id=item.id, length=len(item.text)) for item in items]

    def assemble(self, items: Sequence[FakeItem], rows: Sequence[FakeRow], seconds: float) -> FakeRun:
        return FakeRun(results=list(rows), batch_ids=list(self.batches[-1]))

    def run_file(self, path: Path, output: Path, *, batch_size: int, progress: ProgressCallback,
                 loaded: LoadedCallback) -> FakeRun:
        items, problems = [], []
        for line, data in read_json_records(path):
            try:
                if isinstance(data, InputError):
                    raise data
                items.append(parse_located(FakeItem, data, path=path, line=line))
            except InputError as error:
                problems.append(error)
        loaded(len(items), problems)
        if not items:
            raise InputError("no usable records", path=path)
        produced = run_batches(items, self.process, key=lambda item: item.id, row_type=FakeRow, output=output,
                               batch_size=batch_size, progress=progress, stage_name="faking",
                               manifest=run_manifest("fake", items, {}))
        return FakeRun(results=list(produced.results), batch_ids=[])

    def warm(self) -> None:
        return None
