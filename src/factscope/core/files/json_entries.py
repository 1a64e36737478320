"""The entries of a JSON document, read one at a time: a JSON object keyed by id, or a JSON list, of any size.

``json.loads`` needs the whole text of a file and builds the whole document, so a file of a million records is
held twice over. ``json_entries`` reads the file in chunks instead: it finds where each top-level value ends (by
its brackets and quotes, with regular expressions, so the scan runs at C speed), decodes that value alone with
``json.loads``, yields it with its key, index and line, and drops the text before it. Memory holds one record and
one chunk, whatever the size of the file.

A record whose own text is not valid JSON, is nested too deeply or is over ``max_record_bytes()`` is yielded as its
InputError, located by line and named by key or index (``key 'q7': broken JSON ...``), so the caller reports it
and goes on, as for a broken JSONL line. What breaks the document itself (a missing comma or colon between
entries, a file that ends inside a record, bytes that are not UTF-8) raises an InputError naming the file and
line, as ``json.loads`` would have refused the whole file.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from factscope.core.errors import InputError
from factscope.core.files.record_limits import (
    TOO_DEEP,
    broken_json,
    max_record_bytes,
    oversized_record,
    require_file,
)

CHUNK_CHARS = 64 * 1024
"""Text read from the file at a time (more while one record is longer than the text held)."""

DocumentKind = Literal["object", "list"]

_NOT_SPACE = re.compile(r"[^ \t\n\r]")
_STRUCTURE = re.compile(r'["\[\]{}]')
_STRING_STOP = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[ \t\n\r,\]}]")
_CLOSERS = {"{": "}", "[": "]"}


@dataclass(frozen=True)
class JsonEntry:
    """One top-level entry: its index from 0, the line its value starts on, its key (None in a list), and its
    value, or the located InputError of a value that cannot be read."""

    index: int
    line: int
    key: str | None
    value: Any

    def where(self) -> str:
        """How messages name the entry: ``key 'q7'`` or ``item 3``."""
        return _place(self.index, self.key)


def _place(index: int, key: str | None) -> str:
    return f"key {key!r}" if key is not None else f"item {index}"


class _Text:
    """The part of the file read and not yet consumed, with the line and column of its positions."""

    def __init__(self, handle: IO[bytes], path: Path) -> None:
        self._handle = handle
        self.path = path
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")()
        self._bytes_read = 0
        self._ended = False
        self.text = ""
        self.pos = 0
        self._line = 1
        self._counted = 0
        self._column_at_start = 0

    def fill(self) -> bool:
        """Read more of the file (at least as much as is held, so a long record is read in doubling steps);
        False at its end."""
        if self._ended:
            return False
        raw = self._handle.read(max(CHUNK_CHARS, len(self.text)))
        pending = len(self._decoder.getstate()[0])
        try:
            more = self._decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as error:
            offset = self._bytes_read - pending + error.start
            line = self.line_at(len(self.text)) + error.object[: error.start].count(b"\n")
            raise InputError(
                f"not valid UTF-8 (byte 0x{error.object[error.start]:02x} at offset {offset}); re-save the file "
                "as UTF-8",
                path=self.path,
                line=line,
            ) from None
        self._bytes_read += len(raw)
        self._ended = not raw
        self.text += more
        return bool(raw)

    def next_char(self) -> str:
        """Move past whitespace to the next character and return it ('' at the end of the file)."""
        while True:
            found = _NOT_SPACE.search(self.text, self.pos)
            if found is not None:
                self.pos = found.start()
                return found.group()
            self.pos = len(self.text)
            if not self.fill():
                return ""

    def line_at(self, position: int) -> int:
        """The line of ``position`` (positions asked for never go back)."""
        self._line += self.text.count("\n", self._counted, position)
        self._counted = position
        return self._line

    def column_at(self, position: int) -> int:
        """The column (from 1) of ``position``."""
        newline = self.text.rfind("\n", 0, position)
        return position - newline if newline >= 0 else self._column_at_start + position + 1

    def drop_consumed(self) -> None:
        """Forget the text before ``pos`` once it is a chunk long."""
        if self.pos < CHUNK_CHARS:
            return
        dropped = self.text[: self.pos]
        self.line_at(self.pos)
        newline = dropped.rfind("\n")
        self._column_at_start = len(dropped) - newline - 1 if newline >= 0 else self._column_at_start + len(dropped)
        self.text = self.text[self.pos :]
        self._counted -= self.pos
        self.pos = 0

    def value_end(self, start: int) -> int | None:
        """The position just past the JSON value that starts at ``start``, found by its brackets and quotes (the
        value is not checked); None when the file ends first."""
        first = self.text[start]
        if first == '"':
            return self.string_end(start + 1)
        if first not in _CLOSERS:
            return self._scalar_end(start)
        expected = [_CLOSERS[first]]
        at = start + 1
        while True:
            found = self.search(_STRUCTURE, at)
            if found is None:
                return None
            char, at = found.group(), found.end()
            if char == '"':
                end = self.string_end(at)
                if end is None:
                    return None
                at = end
            elif char in _CLOSERS:
                expected.append(_CLOSERS[char])
            elif char != expected.pop() or not expected:
                return at  # the value ends here (mismatched brackets end it too: decoding it then says why)

    def string_end(self, at: int) -> int | None:
        """The position just past the closing quote of the string whose text starts at ``at``."""
        while True:
            found = self.search(_STRING_STOP, at)
            if found is None:
                return None
            if found.group() == '"':
                return found.end()
            if found.end() >= len(self.text):  # a backslash whose escaped character is not read yet
                if not self.fill():
                    return None
                continue
            at = found.end() + 1

    def search(self, pattern: re.Pattern[str], at: int) -> re.Match[str] | None:
        """The first match of ``pattern`` from ``at``, more of the file read until there is one; None when the
        file ends first."""
        while (found := pattern.search(self.text, at)) is None:
            at = len(self.text)
            if not self.fill():
                return None
        return found

    def _scalar_end(self, start: int) -> int:
        """The end of a number, ``true``, ``false`` or ``null`` (or of whatever else stands there)."""
        at = start
        while True:
            found = _SCALAR_END.search(self.text, at)
            if found is not None:
                return found.start()
            at = len(self.text)
            if not self.fill():
                return at

    def broken(self, reason: str, position: int) -> InputError:
        """The error of a document broken at ``position``."""
        return InputError(f"not valid JSON ({reason})", path=self.path, line=self.line_at(position))


def document_kind(path: str | Path) -> DocumentKind | None:
    """Whether a JSON file holds an object or a list, told from its first character that is not whitespace; None
    for anything else (an empty file, JSON of another kind, not JSON)."""
    path = Path(path)
    require_file(path)
    with path.open("rb") as handle:
        text = _Text(handle, path)
        try:
            first = text.next_char()
        except InputError:
            return None
    return "object" if first == "{" else "list" if first == "[" else None


def json_entries(path: str | Path) -> Generator[JsonEntry, None, None]:
    """The entries of the JSON object or list in ``path``, one at a time, in file order (see the module's
    description); a file that holds neither, or whose document is broken between entries, raises InputError."""
    path = Path(path)
    require_file(path)
    limit = max_record_bytes()
    with path.open("rb") as handle:
        text = _Text(handle, path)
        opener = text.next_char()
        if opener not in _CLOSERS:
            shown = "nothing" if not opener else f"{opener!r}"
            raise InputError(f"expected a JSON object or list, but the file starts with {shown}", path=path, line=1)
        closer = _CLOSERS[opener]
        text.pos += 1
        index = 0
        while True:
            char = text.next_char()
            if char == closer and index == 0:
                text.pos += 1
                break
            key = _key(text) if opener == "{" else None
            entry = _entry(text, index, key, limit)
            yield entry
            text.drop_consumed()
            char = text.next_char()
            text.pos += 1
            if char == closer:
                break
            if char != ",":
                found = "the end of the file" if not char else repr(char)
                raise text.broken(f"expected ',' or '{closer}' after {entry.where()}, found {found}", text.pos - 1)
            index += 1
        if text.next_char():
            raise text.broken("more text after the end of the document", text.pos)


def json_list_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any] | InputError]]:
    """(line, record) for each item of a JSON list, read an item at a time, as ``read_json_records`` yields them:
    an item that is not an object, or cannot be read, as its located InputError."""
    path = Path(path)
    for entry in json_entries(path):
        value = entry.value
        if isinstance(value, (dict, InputError)):
            yield entry.line, value
        else:
            yield entry.line, InputError(
                f"item {entry.index} is a {type(value).__name__}, expected an object", path=path, line=entry.line
            )


def _key(text: _Text) -> str:
    """Read an object key and the colon after it."""
    if text.next_char() != '"':
        raise text.broken("expected a quoted key", text.pos)
    start = text.pos
    end = text.string_end(start + 1)
    if end is None:
        raise text.broken("the file ends inside a key", start)
    try:
        key = json.loads(text.text[start:end])
    except json.JSONDecodeError as error:
        raise text.broken(f"a key that cannot be read: {error.msg}", start) from None
    text.pos = end
    if text.next_char() != ":":
        raise text.broken(f"expected ':' after key {key!r}", text.pos)
    text.pos += 1
    return str(key)


def _entry(text: _Text, index: int, key: str | None, limit: int) -> JsonEntry:
    """The value that starts at the next character, decoded (or its located error)."""
    place = _place(index, key)
    if text.next_char() in ("", "}", "]", ","):
        raise text.broken(f"expected a value for {place}", text.pos)
    start = text.pos
    line = text.line_at(start)
    end = text.value_end(start)
    if end is None:
        raise text.broken(f"the file ends inside {place}", start)
    text.pos = end
    return JsonEntry(index, line, key, _decoded(text, start, end, line, limit, place))


def _decoded(text: _Text, start: int, end: int, line: int, limit: int, place: str) -> Any:
    """The value of ``text.text[start:end]``, or the located error (naming ``place``) of one that cannot be read."""
    value_text = text.text[start:end]
    oversized = oversized_record(value_text, limit, text.path, line)
    if oversized is not None:
        return InputError(f"{place}: {oversized.reason}", path=text.path, line=line)
    try:
        return json.loads(value_text)
    except json.JSONDecodeError as error:
        column = error.colno if error.lineno > 1 else text.column_at(start) + error.colno - 1
        return InputError(f"{place}: {broken_json(error.msg, column)}", path=text.path, line=line + error.lineno - 1)
    except RecursionError:
        return InputError(f"{place}: {TOO_DEEP}", path=text.path, line=line)
