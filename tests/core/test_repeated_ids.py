"""One rule for a repeated id, in every reader: the first record keeps it, a later one is skipped with a located
error that names the line of the first (``factscope.core.files.record_ids``)."""

from __future__ import annotations

import json

import pytest

from cli_entry import run_factscope
from factscope.core.files.record_ids import RecordIds
from factscope.grounding.data import load_dataset
from factscope.grounding.responses import read_responses
from factscope.refchecker.data import load_check_records
from good_records import GOOD, good_record

READERS = [reader for reader in GOOD if reader != "labels"]
"""Every reader of records with ids (presence labels have none)."""


def _repeat_message(record_id: str, first: int) -> str:
    return (
        f"id {record_id!r} is already used by line {first}; only the first record with an id is read, so this one "
        "is skipped: give it an id of its own"
    )


@pytest.mark.parametrize("reader", READERS)
def test_a_repeated_id_is_skipped_naming_the_line_of_the_first(tmp_path, reader):
    path = tmp_path / "input.jsonl"
    rows = [good_record(reader, "g1"), good_record(reader, "g2"), good_record(reader, "g1"), good_record(reader, "g3")]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    kept, errors = GOOD[reader][0](path)
    # the responses harness has questions g1, bad and g2 only
    assert kept == (["g1", "g2"] if reader == "responses" else ["g1", "g2", "g3"])
    assert [(e.path, e.line, e.field) for e in errors] == [(str(path), 3, "id")]
    expected = _repeat_message("g1", 1)
    if reader == "annotations":
        expected = expected.replace("id 'g1'", "id 'g1' (model 'input', setting None)")
    assert errors[0].reason == expected


def test_a_record_without_id_identical_to_an_earlier_one_is_skipped(tmp_path):
    path = tmp_path / "input.jsonl"
    row = {"response": "r", "references": ["x"]}
    path.write_text("\n".join(json.dumps(item) for item in (row, {**row, "response": "s"}, row)), encoding="utf-8")
    records, problems = load_check_records(path)
    assert len(records) == 2 and [(p.line, p.field) for p in problems] == [(3, None)]
    assert problems[0].reason.startswith("its content (it has no id, so it is named ")
    assert "is already used by line 1" in problems[0].reason


def test_a_repeated_question_id_of_a_keyed_file_keeps_the_first_entry(tmp_path):
    entry = {"qText": "Q?", "context_list": ["Title: A \n\n text"], "atomic_texts": ["A fact."]}
    path = tmp_path / "data.json"
    later = json.dumps({**entry, "qText": "Later?"})
    path.write_text(f'{{\n"q1": {json.dumps(entry)},\n"q2": {json.dumps(entry)},\n"q1": {later}\n}}',
                    encoding="utf-8")
    dataset = load_dataset(path)
    assert [(e.id, e.question) for e in dataset.examples] == [("q1", "Q?"), ("q2", "Q?")]
    assert [str(e) for e in dataset.errors] == [
        (
            f"{path}:4: question id 'q1' is already used by line 2; only the first record with an id is read, so "
            "this one is skipped: give it an id of its own"
        )
    ]
    predictions = tmp_path / "predictions.json"
    predictions.write_text('{"q1": {"output": "first"}, "q1": {"output": "later"}}', encoding="utf-8")
    rows, errors = read_responses(predictions)
    assert [(row.id, row.text) for row in rows] == [("q1", "first")] and len(errors) == 1


def test_an_id_without_a_line_names_an_earlier_record():
    ids = RecordIds("keyed.json")
    assert ids.repeat("a", None) is None
    repeated = ids.repeat("a", None)
    assert repeated is not None and "already used by an earlier record" in str(repeated)


@pytest.mark.parametrize(
    "argv, reader, row",
    [
        (["check", "--checker", "similarity"], "check", "skipped input records 1"),
        (["knowledge", "score", "--checker", "none", "--relevance-model", "none", "--coherence-model", "none"],
         "knowledge", "records skipped (bad input) 1"),
    ],
)
def test_the_summary_counts_a_skipped_repeat(monkeypatch, capsys, tmp_path, argv, reader, row):
    path = tmp_path / "input.jsonl"
    rows = [good_record(reader, "g1"), good_record(reader, "g1")]
    path.write_text("\n".join(json.dumps(item) for item in rows) + "\n", encoding="utf-8")
    ran = run_factscope(monkeypatch, capsys, *argv, str(path), "-o", str(tmp_path / "out.jsonl"))
    assert ran.code == 0 and row in ran.text and "is already used by line 1" in ran.text
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 1
