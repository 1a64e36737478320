"""Reading a JSON object keyed by id, or a JSON list, one entry at a time: the entries and their lines as json.loads
reads them at any chunk size, a broken entry skipped with its place, a broken document refused with its line, and
memory that holds one entry, not the file."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from factscope.core.errors import InputError
from factscope.core.files import json_entries as module
from factscope.core.files.json_entries import document_kind, json_entries

TRICKY = {
    "plain": {"qText": "Who?", "n": [1, 2.5, -3e2, True, False, None]},
    "quotes": {"text": 'a "quoted" } ] { [ word, and a \\ backslash\\'},
    "unicode é": ["Zürich", "東京", "emoji \U0001f600", "\u2028 separator"],
    "empty": {},
    "scalar": 7,
    "last": "text",
}


def _entries(path: Path) -> list[tuple[int, str | None, object]]:
    return [(entry.line, entry.key, entry.value) for entry in json_entries(path)]


@pytest.mark.parametrize("chunk", [1, 2, 5, 64 * 1024])
@pytest.mark.parametrize("indent", [None, 2])
def test_entries_are_those_json_loads_reads_at_any_chunk_size(tmp_path, monkeypatch, chunk, indent):
    monkeypatch.setattr(module, "CHUNK_CHARS", chunk)
    keyed, listed = tmp_path / "keyed.json", tmp_path / "listed.json"
    keyed.write_text("\ufeff\n" + json.dumps(TRICKY, indent=indent, ensure_ascii=False), encoding="utf-8")
    listed.write_text(json.dumps(list(TRICKY.values()), indent=indent), encoding="utf-8")
    read = _entries(keyed)
    assert [(key, value) for _, key, value in read] == list(TRICKY.items())
    assert [value for _, _, value in _entries(listed)] == list(TRICKY.values())
    lines = keyed.read_text(encoding="utf-8-sig").split("\n")
    for line, key, _ in read:
        assert json.dumps(key, ensure_ascii=False) in lines[line - 1]
    assert document_kind(keyed) == "object" and document_kind(listed) == "list"


def test_a_broken_entry_is_its_located_error_and_the_next_entries_are_read(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('{\n"a": {"x": 1},\n"b": {"x": 1 "y": 2},\n"c": {"x": [1}, "d": tru,\n"e": {"x": 5}\n}\n')
    read = list(json_entries(path))
    assert [entry.key for entry in read] == ["a", "b", "c", "d", "e"]
    assert read[0].value == {"x": 1} and read[4].value == {"x": 5}
    errors = [entry.value for entry in read[1:4]]
    assert all(isinstance(error, InputError) for error in errors)
    assert [(error.path, error.line) for error in errors] == [(str(path), 3), (str(path), 4), (str(path), 4)]
    assert errors[0].reason == "key 'b': broken JSON (Expecting ',' delimiter at column 14)"
    assert errors[2].reason.startswith("key 'd': broken JSON")


def test_an_entry_over_the_record_limit_is_its_error_and_the_next_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", "100")
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"text": "x" * 200}, {"text": "short"}], indent=1))
    big, small = json_entries(path)
    assert isinstance(big.value, InputError) and big.value.line == 2 and "item 0: record of" in big.value.reason
    assert small.value == {"text": "short"}


@pytest.mark.parametrize(
    "text, line, reason",
    [
        ('{"a": 1\n "b": 2}', 2, "expected ',' or '}' after key 'a', found '\"'"),
        ('{"a": 1,\n"b": {"x": "never closed', 2, "the file ends inside key 'b'"),
        ('[1, 2,\n]', 2, "expected a value for item 2"),
        ('{"a": 1}\n{"b": 2}', 2, "more text after the end of the document"),
        ('{"a" 1}', 1, "expected ':' after key 'a'"),
        ("{a: 1}", 1, "expected a quoted key"),
    ],
)
def test_a_document_broken_between_entries_is_refused_naming_the_line(tmp_path, text, line, reason):
    path = tmp_path / "data.json"
    path.write_text(text)
    with pytest.raises(InputError) as raised:
        list(json_entries(path))
    assert (raised.value.path, raised.value.line, raised.value.reason) == (str(path), line, f"not valid JSON ({reason})")


def test_a_file_that_is_not_an_object_or_a_list_or_not_utf8_is_refused(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('"just a string"')
    assert document_kind(path) is None
    with pytest.raises(InputError, match="expected a JSON object or list"):
        list(json_entries(path))
    path.write_bytes(b'{"a": 1,\n"b": "\xff"}')
    with pytest.raises(InputError, match=r"not valid UTF-8 \(byte 0xff at offset 15\)") as raised:
        list(json_entries(path))
    assert raised.value.line == 2


def test_reading_a_large_document_holds_one_entry_not_the_file(tmp_path):
    path = tmp_path / "large.json"
    entry = {"qText": "Which river?", "context_list": ["Title: T \n\n " + "A long context sentence. " * 40]}
    with path.open("w", encoding="utf-8") as handle:
        handle.write("{\n")
        handle.write(",\n".join(f'"q{n}": {json.dumps(entry)}' for n in range(4000)))
        handle.write("\n}\n")
    size = path.stat().st_size
    assert size > 4_000_000
    tracemalloc.start()
    try:
        count = sum(1 for _ in json_entries(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 4000
    assert peak < size / 10, f"reading held {peak} bytes of a {size}-byte file"
