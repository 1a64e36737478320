"""Rows of a Parquet file (LLM-AggreFact's published format) as records, read in batches through pyarrow."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.io import require_file

BATCH_ROWS = 1_024
"""Rows read from the file at a time."""


def parquet_records(path: Path) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """(row number from 1, record) of each row; a null cell is no value. Without pyarrow, or for a file that is not
    Parquet, raises InputError."""
    require_file(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("reading Parquet needs pyarrow: pip install 'factscope[parquet]'", path=path) from None
    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS)
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise InputError(f"unreadable Parquet ({error})", path=path) from None
    row = 0
    for batch in batches:
        for record in batch.to_pylist():
            row += 1
            yield row, {key: value for key, value in record.items() if value is not None}
