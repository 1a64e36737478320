"""Reading user input files: UTF-8 text a line at a time or whole, and the JSON records of a JSON list, a JSON
object or a JSONL file (a line or an item at a time); a record that cannot be read comes back as its located
``InputError`` so the caller reports it and goes on."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.files.record_limits import (
    TOO_DEEP,
    broken_json,
    max_record_bytes,
    oversized_record,
    require_file,
)


def read_text(path: str | Path) -> str:
    """Read a UTF-8 text file; a missing file or undecodable bytes raise InputError naming the place."""
    path = Path(path)
    require_file(path)
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}); "
            "re-save the file as UTF-8",
            path=path,
            line=line,
        ) from None


def read_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, text without its line end) of each line of a UTF-8 text file, read one line at a time,
    so a file of any length takes the memory of its longest line; a byte that is not UTF-8 raises InputError naming
    the line, as ``read_text`` does."""
    path = Path(path)
    require_file(path)
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as error:
                raise InputError(
                    f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {offset + error.start}); re-save the "
                    "file as UTF-8",
                    path=path,
                    line=number,
                ) from None
            offset += len(raw)
            yield number, text.removesuffix("\n").removesuffix("\r")


def parse_keyed_document(text: str) -> tuple[Any, list[str]]:
    """Parse one JSON document; when it is an object keyed by id, also the keys it repeats.

    ``json.loads`` keeps the last value of a repeated key without a word; here the top-level object keeps the
    first (the rule of ``factscope.core.files.record_ids``) and each later key is returned, to be reported.
    Raises ``json.JSONDecodeError`` or ``RecursionError`` as ``json.loads`` does.
    """
    last: list[list[tuple[str, Any]]] = []

    def keep_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        last[:] = [pairs]
        return dict(pairs)

    document = json.loads(text, object_pairs_hook=keep_pairs)
    if not isinstance(document, dict):
        return document, []
    first: dict[str, Any] = {}
    repeated: list[str] = []
    for key, value in last[0]:
        if key in first:
            repeated.append(key)
        else:
            first[key] = value
    return first, repeated


def read_json_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """Yield (line, record) for each object in a JSON list or JSONL file.

    A line that is not valid JSON, an item that is not an object or cannot be read, or a record over
    ``max_record_bytes()``, is yielded as an InputError in place of the record, so the caller can report it and go
    on. In a JSON list the line is where the item starts. Whole-file problems (missing, empty, undecodable, a list
    broken between its items) raise InputError.

    JSONL is read a line at a time and a JSON list an item at a time (``factscope.core.files.json_entries``), so a file
    of any length takes the memory of its longest record; one JSON object spread over several lines is one record,
    read whole.
    """
    from factscope.core.files.json_entries import document_kind, json_list_records

    path = Path(path)
    limit = max_record_bytes()
    require_file(path)
    if _starts_as_jsonl(path):
        yield from _jsonl_records(path, limit)
        return
    if document_kind(path) == "list":
        yield from json_list_records(path)
        return
    text = read_text(path)
    if not text.strip():
        raise InputError("file is empty; expected JSON or JSONL records", path=path)
    document = _single_object(text)
    if document is not None:
        yield 1, oversized_record(text.strip(), limit, path, 1) or document
        return
    for number, line in enumerate(text.splitlines(), start=1):
        yield from _jsonl_line(path, number, line, limit)


def _single_object(text: str) -> dict[str, Any] | None:
    """The one JSON object ``text`` holds, or None when it holds anything else."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def _starts_as_jsonl(path: Path) -> bool:
    """Whether the file's first non-blank line is a JSON object of its own: then the file is JSONL and is read a
    line at a time (an object spread over lines, a JSON list, or a broken first line need the whole text)."""
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                return isinstance(json.loads(raw.decode("utf-8-sig")), dict)
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                return False
    return False


def read_jsonl_range(
    path: str | Path, start: int, end: int, first_line: int
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """(line, record) for each line of a JSONL file that starts at a byte offset from ``start`` (the start of line
    ``first_line``) up to ``end``, as ``read_json_records`` reads them, without reading the rest of the file: what
    one work unit of a large file reads. Bytes that are not UTF-8 raise InputError."""
    path = Path(path)
    require_file(path)
    yield from _jsonl_records(path, max_record_bytes(), start=start, end=end, first_line=first_line)


def _jsonl_records(
    path: Path, limit: int, *, start: int = 0, end: int | None = None, first_line: int = 1
) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """The records of a JSONL file read a line at a time (from byte ``start``, line ``first_line``, to the lines
    that start before ``end``); bytes that are not UTF-8 raise InputError."""
    offset = start
    with path.open("rb") as handle:
        handle.seek(start)
        for number, raw in enumerate(handle, start=first_line):
            if end is not None and offset >= end:
                return
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").removesuffix("\n").removesuffix("\r")
            except UnicodeDecodeError as error:
                at = offset + error.start
                raise InputError(
                    f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at offset {at}); re-save the file as UTF-8",
                    path=path,
                    line=number,
                ) from None
            offset += len(raw)
            yield from _jsonl_line(path, number, line, limit)


def _jsonl_line(path: Path, number: int, line: str, limit: int) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """The record (or located error) of one JSONL line; nothing for a blank line."""
    if not line.strip():
        return
    oversized = oversized_record(line, limit, path, number)
    if oversized is not None:
        yield number, oversized
        return
    try:
        item = json.loads(line)
    except json.JSONDecodeError as error:
        yield number, InputError(broken_json(error.msg, error.colno), path=path, line=number)
        return
    except RecursionError:
        yield number, InputError(TOO_DEEP, path=path, line=number)
        return
    if not isinstance(item, dict):
        yield number, InputError(f"expected a JSON object, got {type(item).__name__}", path=path, line=number)
        return
    yield number, item
