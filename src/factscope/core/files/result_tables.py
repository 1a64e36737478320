"""Result rows as tables: one row per record, or one row per item of a record (a claim, a fact, a citation, a
knowledge sentence), as pandas DataFrames and as Parquet or CSV files.

A record's row is its result flattened: nested objects become dotted columns (``summary.hallucination_rate``,
``metadata.pop``; an empty object gives none), lists stay lists, and the list of items is left out (it has a level of its own). A row model
with items names their level and lists them (``ItemTable``); every row of a level starts with the record's
``id``. In a CSV file a list or object cell is written as JSON, as the table readers
(``factscope.core.files.tables``) read it back.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel

from factscope.core.errors import InputError
from factscope.core.files.tables import TABLES_EXTRA
from factscope.core.schema import LABELS

RECORDS = "records"
"""The level of one row per record, which every result has."""

SPANS = "spans"
"""The level of one row per labelled span of a response, which the check system's results have."""


@runtime_checkable
class ItemTable(Protocol):
    """A result row whose items get a table row each: ``item_level`` names the level ('claims'),
    ``item_fields`` are the row's fields the items come from (left out of the record's row)."""

    item_level: ClassVar[str]
    item_fields: ClassVar[tuple[str, ...]]

    def item_rows(self) -> list[dict[str, Any]]:
        """One table row per item, each starting with the record's ``id``."""
        ...


@runtime_checkable
class SpanTable(Protocol):
    """A result row whose response is split into labelled spans, each a table row of the level 'spans'."""

    def span_rows(self) -> list[dict[str, Any]]:
        """One table row per labelled span, each starting with the record's ``id``."""
        ...


def levels(row_type: type[BaseModel]) -> tuple[str, ...]:
    """The table levels of a result row model: 'records', its item level where it has one, and 'spans' where its
    rows have spans."""
    item_level = getattr(row_type, "item_level", None)
    found = (RECORDS, item_level) if isinstance(item_level, str) else (RECORDS,)
    return (*found, SPANS) if hasattr(row_type, "span_rows") else found


def probability_columns(probs: Sequence[float] | None) -> dict[str, float | None]:
    """The columns of an (Entailment, Neutral, Contradiction) probability vector: ``p_entailment``,
    ``p_neutral``, ``p_contradiction`` (None without one)."""
    return {
        f"p_{label.value.lower()}": (float(probs[index]) if probs is not None else None)
        for index, label in enumerate(LABELS)
    }


def record_row(row: BaseModel) -> dict[str, Any]:
    """A record's table row: its fields flattened (dotted names), its items' fields left out."""
    left_out = set(getattr(row, "item_fields", ()))
    data = row.model_dump(mode="json", exclude=left_out)
    flat: dict[str, Any] = {}
    _flatten(data, "", flat)
    return flat


def _flatten(value: dict[str, Any], prefix: str, into: dict[str, Any]) -> None:
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict):
            _flatten(item, f"{name}.", into)
        else:
            into[name] = item


def table_rows(rows: Iterable[BaseModel], row_type: type[BaseModel], level: str = RECORDS) -> Iterator[dict[str, Any]]:
    """The table rows of result rows at ``level`` (see ``levels``); another level raises InputError naming the
    levels there are."""
    known = levels(row_type)
    if level not in known:
        raise InputError(
            f"no {level!r} level in {row_type.__name__} results; the levels are "
            f"{', '.join(known[:-1])} or {known[-1]}"
        )
    for row in rows:
        if level == RECORDS:
            yield record_row(row)
        elif level == SPANS and isinstance(row, SpanTable):
            yield from row.span_rows()
        elif isinstance(row, ItemTable):
            yield from row.item_rows()


def data_frame(rows: Iterable[dict[str, Any]]) -> Any:
    """A pandas DataFrame of table rows (columns in the order they first appear); without pandas, an
    InputError naming the extra to install."""
    try:
        import pandas as pd
    except ImportError:
        raise InputError(f"tables need pandas: {TABLES_EXTRA}") from None
    return pd.DataFrame.from_records(list(rows))


def write_table(rows: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write table rows to a ``.parquet`` or ``.csv`` file (chosen by its suffix); return how many. Parquet needs
    pyarrow (a column whose values are of kinds one Parquet column cannot hold is written as JSON text); CSV writes lists and objects as
    JSON. Another suffix raises InputError."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".csv"):
        raise InputError("write tables to a .parquet or a .csv file", path=path)
    table = list(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        _write_csv(table, path)
    else:
        _write_parquet(table, path)
    return len(table)


def _columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(name for row in rows for name in row))


def _write_csv(rows: Sequence[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=_columns(rows))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: _csv_cell(value) for key, value in row.items()})


def _csv_cell(value: Any) -> Any:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value


def _write_parquet(rows: Sequence[dict[str, Any]], path: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"writing Parquet needs pyarrow: {TABLES_EXTRA}", path=path) from None
    columns = {name: [row.get(name) for row in rows] for name in _columns(rows)}
    pq.write_table(pa.table({name: _parquet_column(pa, values) for name, values in columns.items()}), path)


def _parquet_column(pa: Any, values: list[Any]) -> Any:
    """A column as a pyarrow array; one whose values are of kinds Parquet cannot hold in one column (text and
    numbers, lists of both) as each value's JSON text."""
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if value is None else json.dumps(value, ensure_ascii=False) for value in values])
