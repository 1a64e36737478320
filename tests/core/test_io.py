"""Input reading with located errors and the resumable result writer."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from factscope.core.errors import InputError
from factscope.core.files.error_location import located_error, parse_located
from factscope.core.files.input_files import read_json_records
from factscope.core.files.results_file import ResultWriter
from factscope.core.runs.results import ResultRows, iter_json_rows


def test_json_list_items_carry_their_line_numbers(tmp_path):
    path = tmp_path / "list.json"
    path.write_text('[\n  {"a": 1},\n  "oops",\n\n  {"b": {"c": [1, 2]}}\n]\n', encoding="utf-8")
    items = list(read_json_records(path))
    assert items[0] == (2, {"a": 1})
    assert items[1][0] == 3 and isinstance(items[1][1], InputError) and "item 1 is a str" in str(items[1][1])
    assert items[2] == (5, {"b": {"c": [1, 2]}})


def test_a_broken_item_of_a_json_list_is_skipped_and_a_list_broken_between_items_names_the_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('[\n {"a": 1},\n {"b": },\n {"c": 3}\n]', encoding="utf-8")
    first, (line, error), last = read_json_records(path)
    assert first == (2, {"a": 1}) and last == (4, {"c": 3})
    assert line == 3 and isinstance(error, InputError) and str(error).startswith(f"{path}:3: item 1: broken JSON")
    path.write_text('[\n {"a": 1}\n {"b": 2}\n]', encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.json:3: not valid JSON \(expected ',' or ']' after item 0"):
        list(read_json_records(path))


def test_a_broken_line_names_its_place_once(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text('{"a": 1}\n{"response": "cut\n[1,\n', encoding="utf-8")
    _, cut, unfinished = (error for _, error in read_json_records(path))
    assert str(cut) == f"{path}:2: broken JSON (Unterminated string starting at column 14)"
    assert str(unfinished) == f"{path}:3: broken JSON (Expecting value at column 4)"
    listed = tmp_path / "cut.json"
    listed.write_text('[\n {"a": 1},\n {"b": "tab\tinside"},\n {"c": 3}\n]', encoding="utf-8")
    assert str(list(read_json_records(listed))[1][1]).endswith("item 1: broken JSON (Invalid control character at column 12)")


def test_writer_appends_skips_done_keys_and_drops_a_torn_tail(tmp_path):
    path = tmp_path / "out.jsonl"
    with ResultWriter(path) as writer:
        writer.write({"id": "a", "v": 1})
        writer.write({"id": "a", "v": 2})
        writer.write({"id": "b", "v": 3})
    path.write_text(path.read_text(encoding="utf-8") + '{"id": "c", "v"', encoding="utf-8")
    seen = []
    with ResultWriter(path, seen=seen.append) as writer:
        assert writer.done == {"a", "b"}
        assert writer.write({"id": "c", "v": 4}) and not writer.write({"id": "a", "v": 5})
    assert seen == [{"id": "a", "v": 1}, {"id": "b", "v": 3}]
    rows = list(iter_json_rows(path))
    assert [(r["id"], r["v"]) for r in rows] == [("a", 1), ("b", 3), ("c", 4)]
    assert all(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())


def test_jsonl_is_read_a_line_at_a_time_with_located_errors(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": 1}\n\n[1]\n{"id": 2}\r\n{"id": \n{"id": "caf\xe9"}\n')
    records = read_json_records(path)
    assert next(records) == (1, {"id": 1})
    assert "expected a JSON object" in str(next(records)[1])
    assert next(records) == (4, {"id": 2})
    assert "big.jsonl:5: broken JSON" in str(next(records)[1])
    with pytest.raises(InputError, match=r"big.jsonl:6: not valid UTF-8 \(byte 0xe9 at offset 48\)"):
        next(records)


def test_result_rows_read_the_file_lazily_and_index_by_scanning(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text('{"response": "a"}\nnot json\n{"response": "b"}\n{"response": "c', encoding="utf-8")
    rows = ResultRows(_Sample, path=path)
    assert [row.response for row in rows] == ["a", "b"]
    assert len(rows) == 2 and rows[-1].response == "b" and rows[0].response == "a"
    with pytest.raises(IndexError):
        rows[2]
    path.write_text('{"response": "z"}\n', encoding="utf-8")
    assert [row.response for row in rows] == ["z"]


class _Sample(BaseModel):
    model_config = ConfigDict(strict=True)

    response: str
    references: list[str] = []
    task: Literal["qa", "dialogue"] = "qa"
    labels: Annotated[list[str], Field(min_length=1)] = ["x"]
    count: int = 0

    @field_validator("response")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty; expected a non-empty string")
        return value


@pytest.mark.parametrize(
    "data, field, message",
    [
        ({}, "response", "missing"),
        ({"response": 3}, "response", "expected a string, got a number"),
        ({"response": {"text": "x"}}, "response", "expected a string, got an object"),
        ({"response": None}, "response", "expected a string, got null"),
        ({"response": "  "}, "response", "empty; expected a non-empty string"),
        ({"response": "r", "references": "x"}, "references", "expected a list, got a string"),
        ({"response": "r", "references": ["a", "b", True]}, "references.2", "expected a string, got true / false"),
        ({"response": "r", "task": "both"}, "task", "'both' is not one of 'qa' or 'dialogue'"),
        ({"response": "r", "count": 1.5}, "count", "expected a whole number, got a number"),
        ({"response": "r", "labels": []}, "labels", "list should have at least 1 item after validation, not 0"),
        (["not", "an", "object"], None, "expected an object, got a list"),
    ],
)
def test_located_error_names_file_line_and_field_in_plain_words(data, field, message):
    with pytest.raises(ValidationError) as info:
        _Sample.model_validate(data)
    error = located_error(info.value, path="answers.jsonl", line=3)
    assert (error.path, error.line, error.field, error.reason) == ("answers.jsonl", 3, field, message)
    where = f"field '{field}': " if field else ""
    assert str(error) == f"answers.jsonl:3: {where}{message}"


def test_located_error_reports_the_first_problem_and_names_a_record_without_a_line():
    with pytest.raises(ValidationError) as info:
        _Sample.model_validate({"references": [1], "task": "x"})
    error = located_error(info.value, path="data.json", line=None, where="question 'q7'")
    assert str(error) == "data.json: field 'response': question 'q7': missing"


def test_parse_located_returns_the_model_or_raises_the_located_error():
    assert parse_located(_Sample, {"response": "r"}, path="f.jsonl", line=1).response == "r"
    with pytest.raises(InputError, match=r"^f\.jsonl:4: field 'references\.0': expected a string, got an object$"):
        parse_located(_Sample, {"response": "r", "references": [{}]}, path="f.jsonl", line=4)


def test_a_record_nested_too_deeply_is_skipped_with_its_line_and_the_others_are_kept(tmp_path):
    from factscope.core.files.input_files import read_json_records

    deep = "[" * 10_000 + "]" * 10_000
    lines = tmp_path / "deep.jsonl"
    lines.write_text('{"id": "1"}\n{"id": "2", "x": ' + deep + '}\n{"id": "3"}\n', encoding="utf-8")
    listed = tmp_path / "deep.json"
    listed.write_text('[\n{"id": "1"},\n{"id": "2", "x": ' + deep + '},\n{"id": "3", "s": "a]\\"}"}\n]', encoding="utf-8")
    for path, bad_line in ((lines, 2), (listed, 3)):
        read = list(read_json_records(path))
        assert [item["id"] for _, item in read if isinstance(item, dict)] == ["1", "3"]
        [(line, error)] = [(line, item) for line, item in read if not isinstance(item, dict)]
        assert line == bad_line and "nested too deeply" in str(error) and f"{path.name}:{bad_line}" in str(error)
