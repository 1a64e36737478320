"""Input records from tables: Parquet and CSV files, pandas DataFrames and Hugging Face ``datasets.Dataset``s.

A table holds one record a row, the input format's fields as its columns. Each reader yields
``(row, record | InputError)`` as ``read_json_records`` does, so a bad row is skipped with its place and the
rest go on: ``read_records`` picks the reader of a file by its suffix (``.parquet``, ``.csv``, else JSON / JSONL).

- Parquet is streamed a batch of rows at a time (pyarrow, the ``tables`` extra); a row's number counts from 1;
  list columns are lists.
- CSV (UTF-8, a header row of column names) is read a row at a time; a row is located by the line it starts on.
  A cell whose text is a JSON list or object (``["passage one", "passage two"]``) is read as that list or
  object, so list fields (``references``, ``gold_facts``, ``graph``, ...) are JSON in their cell; any other cell
  is its text.
- In both, an empty cell (a null) is no value: the field is missing, and takes its default where it has one.

``table_records`` reads a DataFrame or a Dataset in memory (duck-typed, neither library imported); a missing
value (None, NaN, ``pd.NA``) is no value, NumPy arrays and scalars become lists and Python numbers.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeAlias

from factscope.core.errors import InputError
from factscope.core.files.input_files import read_json_records
from factscope.core.files.record_limits import max_record_bytes, oversized_record, require_file

TABLES_EXTRA = "pip install 'factscope[tables]'"
"""The install command of the optional table libraries (pandas, pyarrow, datasets)."""

PARQUET_BATCH_ROWS = 1_024
"""Rows read from a Parquet file at a time."""

Table: TypeAlias = Any
"""A pandas DataFrame or a ``datasets.Dataset`` (typed loosely: neither library is a dependency)."""

Records = Iterator[tuple[int, dict[str, Any] | InputError]]
"""(row or line, record) of each record of an input file; a bad one as its located InputError."""


def read_records(path: str | Path) -> Records:
    """The records of an input file by its suffix: ``.parquet`` (``parquet_records``), ``.csv``
    (``csv_records``), anything else JSON or JSONL (``read_json_records``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return parquet_records(path)
    if suffix == ".csv":
        return csv_records(path)
    return read_json_records(path)


def is_table_file(path: str | Path) -> bool:
    """Whether ``read_records`` reads ``path`` as a table (Parquet or CSV) rather than JSON."""
    return Path(path).suffix.lower() in (".parquet", ".csv")


def parquet_records(path: str | Path) -> Records:
    """(row number from 1, record) of each row of a Parquet file, read a batch at a time; a null cell is no value.
    Without pyarrow, or for a file that is not Parquet, raises InputError."""
    path = Path(path)
    require_file(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(f"reading Parquet needs pyarrow: {TABLES_EXTRA}", path=path) from None
    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=PARQUET_BATCH_ROWS)
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise InputError(f"unreadable Parquet ({error})", path=path) from None
    row = 0
    for batch in batches:
        for record in batch.to_pylist():
            row += 1
            yield row, {key: value for key, value in record.items() if value is not None}


def csv_records(path: str | Path) -> Records:
    """(line it starts on, record) of each row of a CSV file with a header row, read a row at a time; cells as
    the module's description says. A row with more cells than the header, or over ``max_record_bytes()``, is a
    located error, and so is a row the CSV reader cannot read (the reading goes on at the next line); bytes that
    are not UTF-8 raise InputError."""
    path = Path(path)
    require_file(path)
    limit = max_record_bytes()
    csv.field_size_limit(max(csv.field_size_limit(), limit))
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        start: int | None = 2
        rows = iter(reader)
        while True:
            try:
                row = next(rows)
            except StopIteration:
                return
            except UnicodeDecodeError as error:
                raise InputError(
                    f"not valid UTF-8 (byte 0x{error.object[error.start]:02x}); re-save the file as UTF-8", path=path
                ) from None
            except csv.Error as error:  # a cell over the limit, a NUL byte: the row is skipped, the next one read
                at = start if start is not None else reader.line_num + 1
                yield at, InputError(f"unreadable CSV row ({error})", path=path, line=at)
                start = None
                continue
            line = start if start is not None else reader.line_num
            start = reader.line_num + 1
            text = "".join(value for value in row.values() if isinstance(value, str))
            oversized = oversized_record(text, limit, path, line)
            if oversized is not None:
                yield line, oversized
                continue
            if None in row:
                columns = len(reader.fieldnames or ())
                yield line, InputError(
                    f"{columns + len(row[None])} cells, but the header names {columns} columns",
                    path=path,
                    line=line,
                )
                continue
            yield line, _csv_record(row)


def _csv_record(row: dict[str, str | None]) -> dict[str, Any]:
    """One CSV row as a record: empty cells left out, JSON lists and objects decoded."""
    return {key: _cell(value) for key, value in row.items() if key and value}


def _cell(text: str) -> Any:
    """A CSV cell's value: the list or object its text holds as JSON, else the text itself."""
    stripped = text.strip()
    if stripped[:1] in ("[", "{") and stripped[-1:] in ("]", "}"):
        try:
            value = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError):
            return text
        if isinstance(value, (list, dict)):
            return value
    return text


def is_table(value: object) -> bool:
    """Whether ``value`` is a pandas DataFrame or a Hugging Face ``datasets`` Dataset (told by their attributes,
    so neither library need be installed)."""
    is_frame = all(hasattr(value, name) for name in ("to_dict", "columns", "iloc"))
    is_dataset = all(hasattr(value, name) for name in ("column_names", "features")) and hasattr(value, "__iter__")
    return is_frame or is_dataset


def table_name(table: object) -> str:
    """How errors name an in-memory table: ``<DataFrame>``, ``<Dataset>``."""
    return f"<{type(table).__name__}>"


def table_records(table: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number from 1, record) of each row of a DataFrame or a Dataset, values as plain Python (see the
    module's description); missing values left out."""
    rows = table.to_dict(orient="records") if hasattr(table, "iloc") else table
    for number, row in enumerate(rows, start=1):
        record = {str(key): _plain(value) for key, value in row.items()}
        yield number, {key: value for key, value in record.items() if value is not None}


def _plain(value: Any) -> Any:
    """A table cell as plain Python: NumPy arrays and tuples as lists, NumPy scalars as numbers, a missing value
    (None, NaN, ``pd.NA``, ``pd.NaT``) as None."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "tolist"):  # a NumPy array or scalar
        return _plain(value.tolist())
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return value
