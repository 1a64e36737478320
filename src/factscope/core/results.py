"""What a run hands back besides its summary: its rows, read lazily from the results file, and the mergeable
totals a summary is built from.

A run over millions of records cannot hold its rows in memory. ``ResultRows`` reads the results file again each
time it is iterated, one row at a time; only a run that wrote no file keeps its rows in memory. A system's
summary comes from ``Totals``: counts and exact sums that take one row at a time and merge with the totals of
another part of the input, so a summary costs the same memory for ten records as for ten million, and an engine
that splits the input into shards gets the same figures as one that does not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

from pydantic import BaseModel

Row = TypeVar("Row", bound=BaseModel)
RowT_contra = TypeVar("RowT_contra", bound=BaseModel, contravariant=True)


class Totals(Protocol[RowT_contra]):
    """The running totals of a system's summary: fed one result row at a time, merged across parts of a run."""

    def add(self, row: RowT_contra) -> None:
        """Count one result row."""

    def merge(self, other: Self) -> None:
        """Count every row ``other`` counted."""


def iter_json_rows(path: str | Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL results file, one at a time; a torn last line (a killed run's) and a line that
    is not a JSON object are passed over, as ``ResultWriter`` passes over them."""
    with Path(path).open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n") or not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(row, dict):
                yield row


class ResultRows(Generic[Row]):
    """The rows of a run: read from its results file (or the results shards of a sharded run, one after another,
    in ``paths``) each time they are iterated, or held in memory when the run wrote no file. ``len`` is the number
    of rows; indexing reads the files up to that row (a scan, for tests and small files: iterate for anything
    large)."""

    def __init__(self, row_type: type[Row], *, path: str | Path | None = None, rows: Sequence[Row] | None = None,
                 count: int | None = None, paths: Sequence[str | Path] | None = None) -> None:
        if sum(given is not None for given in (path, rows, paths)) != 1:
            raise ValueError("give the results file, the results shards or the rows: one of them")
        self.row_type = row_type
        self.paths = [Path(path)] if path is not None else [Path(p) for p in paths or ()]
        self.path = self.paths[0] if path is not None else None
        self._rows = list(rows) if rows is not None else None
        self._count = count

    def __iter__(self) -> Iterator[Row]:
        if self._rows is not None:
            yield from self._rows
            return
        for path in self.paths:
            for row in iter_json_rows(path):
                yield self.row_type.model_validate(row)

    def __len__(self) -> int:
        if self._rows is not None:
            return len(self._rows)
        if self._count is None:
            self._count = sum(1 for path in self.paths for _ in iter_json_rows(path))
        return self._count

    def __getitem__(self, index: int) -> Row:
        size = len(self)
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError(f"row {index} of {size}")
        if self._rows is not None:
            return self._rows[position]
        for number, row in enumerate(self):
            if number == position:
                return row
        raise IndexError(f"row {index}: the results file changed while it was read")

    def __repr__(self) -> str:
        where = f"path={str(self.path)!r}" if self.path is not None else (
            f"shards={len(self.paths)}" if self.paths else "in memory"
        )
        return f"ResultRows[{self.row_type.__name__}]({where}, rows={len(self)})"
