"""File names and values that look like rich markup (``[/x]``, ``[v2]``) are printed as written, never read as
markup: no MarkupError, no traceback, no part of a name lost; and unreadable dataset files are located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_entry import run_factscope
from factscope.grounding.data import load_dataset

GRAPH = [{"qid": "Q1", "name": "Ada", "properties": {"occupation": ["mathematician"]}}]
COMMANDS = {
    "check": (["check", "--checker", "similarity"], {"id": "a", "response": "Ada wrote code.", "references": ["Ada wrote code."]}),
    "ground": (["ground", "--presence", "bi"], {"id": "a", "question": "Who wrote code?", "contexts": ["Ada wrote code."],
                                                "gold_facts": ["Ada wrote code."], "response": "Ada wrote code."}),
    "attribute score": (["attribute", "score", "--checker", "similarity"],
                        {"id": "a", "answer": "Ada was a mathematician [Q1, occupation: mathematician].", "graph": GRAPH}),
    "knowledge score": (["knowledge", "score", "--checker", "none", "--relevance-model", "none", "--coherence-model",
                         "none"], {"id": "a", "query": "who wrote code", "knowledge": "Ada wrote code."}),
}


def _odd_input(tmp_path: Path, rows: list[object]) -> tuple[str, str]:
    """An input in a folder ``data[`` named ``x] answers[v2].jsonl``, so that its path reads ``data[/x] ...``."""
    folder = tmp_path / "data["
    folder.mkdir()
    (folder / "x] answers[v2].jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return "data[/x] answers[v2].jsonl", "data[/x] out[v2].jsonl"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_odd_file_name_with_a_bad_record_is_printed_as_written(monkeypatch, capsys, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    argv, good = COMMANDS[command]
    name, output = _odd_input(tmp_path, [good, "not an object"])
    ran = run_factscope(monkeypatch, capsys, *argv, name, "-o", output)
    assert ran.code == 0, ran.text
    assert "Traceback" not in ran.text and "MarkupError" not in ran.text
    assert f"skipped {name}:2:" in ran.text and output in ran.text


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_odd_file_name_with_only_bad_records_exits_2(monkeypatch, capsys, tmp_path, command):
    monkeypatch.chdir(tmp_path)
    argv, _ = COMMANDS[command]
    name, output = _odd_input(tmp_path, ["not an object", 3])
    ran = run_factscope(monkeypatch, capsys, *argv, name, "-o", output)
    assert ran.code == 2, ran.text
    assert "Traceback" not in ran.text and "MarkupError" not in ran.text and name in ran.text


GROUND_RECORD = {"id": "a", "question": "Q?", "contexts": ["c"], "gold_facts": ["f"], "response": "r"}
SEED_LAYOUT = {"q1": {"qText": "Q?", "context_list": ["Title: A \n\n Ada wrote code."], "atomic_texts": ["Ada wrote code."]}}


def test_a_keyed_dataset_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(SEED_LAYOUT).encode())
    dataset = load_dataset(path)
    assert [e.id for e in dataset.examples] == ["q1"] and not dataset.errors


@pytest.mark.parametrize(
    "content, message",
    [
        (json.dumps(GROUND_RECORD).encode().replace(b'"r"', b'"caf\xe9"'), "data:1: not valid UTF-8 (byte 0xe9"),
        (b"", "data: file is empty"),
        (None, "data: is a folder, expected a file"),
    ],
    ids=["invalid-utf8", "empty", "folder"],
)
def test_an_unreadable_ground_dataset_is_a_located_error(monkeypatch, capsys, tmp_path, content, message):
    path = tmp_path / "data"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    ran = run_factscope(monkeypatch, capsys, "ground", str(path), "-o", str(tmp_path / "out.jsonl"))
    assert "Traceback" not in ran.text and "no record to score" not in ran.text
    assert ran.code == 2 and message in ran.text, ran.text
