"""Reading user input files with located errors, and the append-only, resumable result writer."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from factscope.core.errors import InputError
from factscope.core.record_limits import TOO_DEEP, max_record_bytes, oversized_record, require_file
from factscope.core.storage_faults import StorageError, storage_fault

ModelT = TypeVar("ModelT", bound=BaseModel)


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
    first (the rule of ``factscope.core.record_ids``) and each later key is returned, to be reported.
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


def read_json_document(path: str | Path) -> tuple[Any, list[str]]:
    """The one JSON document of a file (read as ``read_text`` reads it) and the keys its top-level object repeats
    (see ``parse_keyed_document``); broken JSON raises an InputError naming the line."""
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise InputError("file is empty; expected JSON", path=path)
    try:
        return parse_keyed_document(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON ({error.msg} at column {error.colno})", path=path, line=error.lineno) from None
    except RecursionError:
        raise InputError(TOO_DEEP, path=path, line=1) from None


def read_json_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """Yield (line, record) for each object in a JSON list or JSONL file.

    A line that is not valid JSON, an item that is not an object or cannot be read, or a record over
    ``max_record_bytes()``, is yielded as an InputError in place of the record, so the caller can report it and go
    on. In a JSON list the line is where the item starts. Whole-file problems (missing, empty, undecodable, a list
    broken between its items) raise InputError.

    JSONL is read a line at a time and a JSON list an item at a time (``factscope.core.json_entries``), so a file
    of any length takes the memory of its longest record; one JSON object spread over several lines is one record,
    read whole.
    """
    from factscope.core.json_entries import document_kind, json_list_records

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
        yield number, InputError(f"broken JSON ({error.msg} at column {error.colno})", path=path, line=number)
        return
    except RecursionError:
        yield number, InputError(TOO_DEEP, path=path, line=number)
        return
    if not isinstance(item, dict):
        yield number, InputError(f"expected a JSON object, got {type(item).__name__}", path=path, line=number)
        return
    yield number, item


_JSON_KINDS: dict[type, str] = {
    str: "a string", bool: "true / false", int: "a number", float: "a number", list: "a list",
    dict: "an object", type(None): "null",
}
_EXPECTED: dict[str, str] = {
    "string_type": "expected a string", "list_type": "expected a list", "tuple_type": "expected a list",
    "dict_type": "expected an object", "model_type": "expected an object",
    "model_attributes_type": "expected an object", "bool_type": "expected true or false",
    "int_type": "expected a whole number", "float_type": "expected a number",
}


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in the words of the file's author: 'a string', 'an object', 'null'."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _plain_words(detail: ErrorDetails) -> str:
    """One pydantic error in the words of the input file's author."""
    kind = detail["type"]
    ctx = detail.get("ctx", {})
    if kind == "missing":
        return "missing"
    if kind in ("value_error", "assertion_error"):
        return str(ctx["error"])
    if kind == "literal_error":
        return f"{detail['input']!r} is not one of {ctx['expected']}"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, got {json_kind(detail['input'])}"
    message = detail["msg"]
    return message[:1].lower() + message[1:]


def located_error(
    error: ValidationError, *, path: str | Path | None, line: int | None, where: str | None = None
) -> InputError:
    """The first problem of a ValidationError as an InputError naming the file, the line and the field.

    The field is the path into the record joined with '.' (``references.2``); ``where`` names the record in
    the message when it has no line (``question 'q7'`` of a file keyed by question id).
    """
    detail = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in detail["loc"]) or None
    message = _plain_words(detail)
    return InputError(f"{where}: {message}" if where else message, path=path, line=line, field=field)


def parse_located(
    model_type: type[ModelT], data: Any, *, path: str | Path | None, line: int | None, where: str | None = None
) -> ModelT:
    """Validate one raw record into ``model_type``; a bad record raises the located InputError."""
    try:
        return model_type.model_validate(data)
    except ValidationError as error:
        raise located_error(error, path=path, line=line, where=where) from None


def drop_rows(path: str | Path, drop: Callable[[dict[str, Any]], bool]) -> int:
    """Rewrite the JSONL results file ``path`` without the rows ``drop`` picks; return how many were dropped.

    The file is read a line at a time into a temporary file beside ``path`` that then replaces it
    (``os.replace``), so a run killed meanwhile leaves either the old file or the new one, never a mix. A last line
    torn by a killed run is cut, as ``ResultWriter`` cuts it; a complete line that is not a JSON object is kept as
    it is.
    """
    path = Path(path)
    if not path.exists():
        return 0
    dropped = 0
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise storage_fault(error, path, "making a copy of the results file without its failed rows",
                            kept="The results file is unchanged") from error
    try:
        with os.fdopen(handle, "wb") as out, path.open("rb") as source:
            for raw in source:
                if not raw.endswith(b"\n"):
                    break
                try:
                    row = json.loads(raw) if raw.strip() else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    row = None
                if isinstance(row, dict) and drop(row):
                    dropped += 1
                else:
                    out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise storage_fault(error, path, "making a copy of the results file without its failed rows",
                            kept="The results file is unchanged") from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return dropped


class ResultWriter:
    """Append-only JSONL results keyed by record id: each result is written to the file as soon as it is made,
    and a rerun skips the keys already present, so an interrupted run resumes without duplicates.

    Opening reads the existing file a line at a time, keeping only the keys; ``seen`` (when given) receives each
    of its rows once, the first row of each key (the row every reader keeps, see ``factscope.core.results.FirstRows``),
    so a run can count them into its summary as it goes; ``repeated`` counts the later rows of a key already read.

    A write the disk refuses (full, read-only, over quota, not permitted) raises ``StorageError`` naming the file,
    the record and the rows that are intact; so does a results file removed while the run writes it (its folder
    deleted, say), checked before each row so that no row is written into a file no one can read.
    """

    def __init__(
        self, path: str | Path, key: str = "id", seen: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        self.path = Path(path)
        self.key = key
        self.done: set[str] = set()
        self.repeated = 0
        self.written = 0
        if self.path.is_file():
            self._load_done(seen)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("ab", buffering=0)
        except OSError as error:
            raise storage_fault(error, self.path, "opening the results file to write", kept=self._kept()) from error
        self._identity = _identity(os.fstat(self._handle.fileno()))

    def _load_done(self, seen: Callable[[dict[str, Any]], None] | None) -> None:
        complete = 0
        with self.path.open("rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break
                complete += len(raw)
                try:
                    row = json.loads(raw) if raw.strip() else None
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if not isinstance(row, dict) or self.key not in row:
                    continue
                key = str(row[self.key])
                if key in self.done:
                    self.repeated += 1
                    continue
                self.done.add(key)
                if seen is not None:
                    seen(row)
        if complete < self.path.stat().st_size:
            self._drop_torn_tail(complete)

    def _drop_torn_tail(self, keep_bytes: int) -> None:
        """Cut a last line left half-written by a killed run."""
        try:
            with self.path.open("r+b") as handle:
                handle.truncate(keep_bytes)
        except OSError as error:
            raise storage_fault(error, self.path, "cutting the torn last line a stopped run left",
                                kept=self._kept()) from error

    def write(self, result: BaseModel | dict[str, Any]) -> bool:
        """Append one result and hand it to the operating system; a key already written is ignored (False)."""
        row = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        key = str(row[self.key])
        if key in self.done:
            return False
        doing = f"writing the row of record {key!r}"
        self._require_file(doing)
        data = (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            while data:
                sent = self._handle.write(data)
                data = data[sent or 0:]
        except OSError as error:
            raise storage_fault(error, self.path, doing, kept=self._kept()) from error
        self.done.add(key)
        self.written += 1
        return True

    def _require_file(self, doing: str) -> None:
        """A StorageError when the results file is no longer at its path (removed, or its folder removed)."""
        try:
            present = _identity(os.stat(self.path)) == self._identity
        except OSError:
            present = False
        if not present:
            raise StorageError(
                self.path, errno.ENOENT, doing, detail="the results file was removed while this run wrote it",
                kept=f"Its {self.written} rows written by this run went with it; run the same command again to "
                     "write them again",
            )

    def _kept(self) -> str:
        """What the results file holds and how to go on, for a StorageError's message."""
        return (
            f"The file keeps its {len(self.done)} complete rows ({self.written} written by this run); a torn last "
            "line is cut when the run resumes. Run the same command again to resume after them"
        )

    def close(self) -> None:
        """Close the file."""
        self._handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _identity(status: os.stat_result) -> tuple[int, int]:
    """The device and inode of a file: whether a path still names the file that was opened."""
    return status.st_dev, status.st_ino
