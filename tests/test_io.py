"""Input reading with located errors and the resumable result writer."""

from __future__ import annotations

import json

import pytest

from factscope.core.errors import InputError
from factscope.core.io import ResultWriter, read_json_records


def test_json_list_items_carry_their_line_numbers(tmp_path):
    path = tmp_path / "list.json"
    path.write_text('[\n  {"a": 1},\n  "oops",\n\n  {"b": {"c": [1, 2]}}\n]\n', encoding="utf-8")
    items = list(read_json_records(path))
    assert items[0] == (2, {"a": 1})
    assert items[1][0] == 3 and isinstance(items[1][1], InputError) and "item 1 is a str" in str(items[1][1])
    assert items[2] == (5, {"b": {"c": [1, 2]}})


def test_broken_json_document_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[\n {"a": 1},\n {"b": }\n]', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.json:3: broken JSON"):
        list(read_json_records(path))


def test_writer_appends_skips_done_keys_and_drops_a_torn_tail(tmp_path):
    path = tmp_path / "out.jsonl"
    with ResultWriter(path) as writer:
        writer.write({"id": "a", "v": 1})
        writer.write({"id": "a", "v": 2})
        writer.write({"id": "b", "v": 3})
    path.write_text(path.read_text(encoding="utf-8") + '{"id": "c", "v"', encoding="utf-8")
    with ResultWriter(path) as writer:
        assert writer.done == {"a", "b"}
        writer.write({"id": "c", "v": 4})
        rows = writer.rows()
    assert [(r["id"], r["v"]) for r in rows] == [("a", 1), ("b", 3), ("c", 4)]
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
