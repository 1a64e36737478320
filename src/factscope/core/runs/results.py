"""What a run hands back besides its summary: its rows, read lazily from the results file, and the mergeable
totals a summary is built from.

A results file holds one row per record id. A file written before results files were locked may hold more (two
runs appended the same records to it at once): every reader keeps the **first** row of each id, the row a resumed
run counts into its summary and skips the record for (``ResultWriter``), passes over the later ones and says once
how many it passed over (``FirstRows``, ``RepeatedRecords``).

A run over millions of records cannot hold its rows in memory. ``ResultRows`` reads the results file again each
time it is iterated, one row at a time; only a run that wrote no file keeps its rows in memory. A system's
summary comes from ``Totals``: counts and exact sums that take one row at a time and merge with the totals of
another part of the input, so a summary costs the same memory for ten records as for ten million, and an engine
that splits the input into shards gets the same figures as one that does not.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, Self, TypeVar

from pydantic import BaseModel

from factscope.core.errors import FactscopeWarning

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


class FirstRows:
    """Picks the first row of each record id from the rows of one results file (or several, read in turn) and
    counts the later rows of an id already picked (``repeated``); a row without the key is kept. Holds the ids
    seen, so its memory grows with the records, as a resumed run's does."""

    def __init__(self, key: str = "id") -> None:
        self.key = key
        self.seen: set[str] = set()
        self.repeated = 0

    def keep(self, row: Mapping[str, Any]) -> bool:
        """Whether ``row`` is the first of its id (False, counted, for a later one)."""
        if self.key not in row:
            return True
        key = str(row[self.key])
        if key in self.seen:
            self.repeated += 1
            return False
        self.seen.add(key)
        return True


class RepeatedRecords(FactscopeWarning):
    """A results file holds more than one row for some record ids; its readers keep the first row of each."""


def repeated_message(where: str | Path, count: int) -> str:
    """What a reader says once of a results file in which ``count`` rows repeat the id of an earlier row."""
    rows = "row repeats" if count == 1 else "rows repeat"
    return (
        f"{where}: {count} {rows} the record id of an earlier row (two runs wrote this file at once); the first "
        f"row of each record is kept and the {count} later one{'s' if count != 1 else ''} left out"
    )


class ResultRows(Generic[Row]):
    """The rows of a run: read from its results file (or the results shards of a sharded run, one after another,
    in ``paths``) each time they are iterated, or held in memory when the run wrote no file. A file's rows are one
    per record id, the first row of each (``FirstRows``; a ``RepeatedRecords`` warning, once, says how many later
    ones were left out). ``len`` is the number of rows; indexing reads the files up to that row (a scan, for tests
    and small files: iterate for anything large)."""

    def __init__(self, row_type: type[Row], *, path: str | Path | None = None, rows: Sequence[Row] | None = None,
                 count: int | None = None, paths: Sequence[str | Path] | None = None) -> None:
        if sum(given is not None for given in (path, rows, paths)) != 1:
            raise ValueError("give the results file, the results shards or the rows: one of them")
        self.row_type = row_type
        self.paths = [Path(path)] if path is not None else [Path(p) for p in paths or ()]
        self.path = self.paths[0] if path is not None else None
        self._rows = list(rows) if rows is not None else None
        self._count = count
        self._warned = False

    def __iter__(self) -> Iterator[Row]:
        if self._rows is not None:
            yield from self._rows
            return
        first = FirstRows()
        for path in self.paths:
            for row in iter_json_rows(path):
                if first.keep(row):
                    yield self.row_type.model_validate(row)
        self._warn(first.repeated)

    def __len__(self) -> int:
        if self._rows is not None:
            return len(self._rows)
        if self._count is None:
            first = FirstRows()
            self._count = sum(1 for path in self.paths for row in iter_json_rows(path) if first.keep(row))
            self._warn(first.repeated)
        return self._count

    def _warn(self, repeated: int) -> None:
        """Say once, the first time a read finds them, how many rows repeated an earlier row's id."""
        if repeated and not self._warned:
            self._warned = True
            where = self.paths[0] if len(self.paths) == 1 else f"{self.paths[0].parent} (results shards)"
            warnings.warn(RepeatedRecords(repeated_message(where, repeated)), stacklevel=3)

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
