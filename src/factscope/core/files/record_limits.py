"""The limits every reader of user files applies: the file must exist, a record has a largest size, and a record
nested too deeply is refused; each as a located error. And the words for a record that is not JSON at all."""

from __future__ import annotations

import os
from pathlib import Path

from factscope.core.errors import ConfigError, InputError

TOO_DEEP = "nested too deeply to read (over about a thousand levels of lists or objects); flatten the record"
"""The error of a record whose lists or objects nest deeper than Python's JSON reader goes."""


def broken_json(message: str, column: int) -> str:
    """What is wrong with a record that is not JSON, from the JSON reader's ``message`` and the ``column`` it
    stopped at: 'broken JSON (Expecting value at column 3)'. The column is written once (the reader's message
    for an unterminated string ends in 'at', where it would name the place)."""
    return f"broken JSON ({message.removesuffix(' at')} at column {column})"


def require_file(path: Path) -> None:
    """Raise InputError naming ``path`` when it is missing or a folder."""
    if not path.exists():
        raise InputError("file not found; check the path", path=path)
    if path.is_dir():
        raise InputError("is a folder, expected a file", path=path)


MAX_RECORD_BYTES = 64 * 1024 * 1024
"""The default largest record (one JSONL line or JSON-list item), in UTF-8 bytes; FACTSCOPE_MAX_RECORD_BYTES sets
another."""


def max_record_bytes() -> int:
    """The largest record ``read_json_records`` reads: FACTSCOPE_MAX_RECORD_BYTES, or ``MAX_RECORD_BYTES``."""
    value = os.environ.get("FACTSCOPE_MAX_RECORD_BYTES", "").strip()
    if not value:
        return MAX_RECORD_BYTES
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit < 1:
        raise ConfigError(f"FACTSCOPE_MAX_RECORD_BYTES must be a whole number of bytes above 0, got {value!r}")
    return limit


def oversized_record(text: str, limit: int, path: Path, line: int) -> InputError | None:
    """The located error of a record whose UTF-8 text is over ``limit`` bytes (``max_record_bytes()``), else
    None."""
    if len(text) * 4 <= limit:
        return None
    size = len(text.encode("utf-8"))
    if size <= limit:
        return None
    return InputError(
        f"record of {size} bytes is over the limit of {limit} bytes; raise FACTSCOPE_MAX_RECORD_BYTES or split "
        "the record",
        path=path,
        line=line,
    )
