"""Every input reader, fed one bad record between two good ones: the bad one is reported with its file, line
and field, the good ones around it are kept."""

from __future__ import annotations

import json

import pytest

from factscope.grounding.data import load_dataset, read_presence_labels
from factscope.refchecker.data import load_check_records
from good_records import GOOD, good_record

BAD = [
    # reader, changes to the good record (None drops the field), field, message
    ("check", {"response": None}, "response", "missing"),
    ("check", {"response": 3}, "response", "expected a string, got a number"),
    ("check", {"question": {"text": "Q?"}}, "question", "expected a string, got an object"),
    ("check", {"references": ["x", 2]}, "references.1", "expected a string, got a number"),
    ("check", {"references": None, "reference": {"text": "x"}}, "reference",
     "expected a string or a list of strings, got an object"),
    ("check", {"id": ["bad"]}, "id", "expected a string or a number, got a list"),
    ("check", {"setting": "sometimes"}, "setting", "'sometimes' is not one of 'zero', 'noisy' or 'accurate'"),
    ("annotations", {"gpt4_response_kg": None}, "<model>_response_kg", "missing"),
    ("annotations", {"id": None}, "id", "missing"),
    ("annotations", {"gpt4_response_kg": "x"}, "<model>_response_kg", "expected a list, got a string"),
    ("annotations", {"response": {"text": "r"}}, "response", "expected a string, got an object"),
    ("generic", {"gold_facts": None}, "gold_facts", "missing"),
    ("generic", {"contexts": 5}, "contexts", "expected a string or a list of strings, got a number"),
    ("generic", {"question": "  "}, "question", "empty; expected a non-empty string"),
    ("generic", {"gold_facts": ["f", 3]}, "gold_facts.1", "expected a string, got a number"),
    ("generic", {"gold_facts": [" "]}, "gold_facts", "no gold atomic facts; recall needs at least one"),
    ("generic", {"response": {"text": "r"}}, "response", "expected a string, got an object"),
    ("generic", {"metadata": ["pop"]}, "metadata", "expected an object, got a list"),
    ("responses", {"response": None}, "response", "missing"),
    ("responses", {"id": None}, "id", "missing"),
    ("responses", {"response": 3}, "response", "expected a string, got a number"),
    ("responses", {"contexts": ["c", 4]}, "contexts.1", "expected a string, got a number"),
    ("responses", {"response": {"text": "r"}}, "response", "expected a string, got an object"),
    ("labels", {"present": None}, "present", "missing"),
    ("labels", {"text": None}, "text", "missing"),
    ("labels", {"present": "yes"}, "present", "expected true / false or 1 / 0, got 'yes'"),
    ("labels", {"fact": ""}, "fact", "empty; expected a non-empty string"),
    ("labels", {"text": None, "contexts": ["c", None]}, "contexts.1", "expected a string, got null"),
    ("labels", {"fact": {"text": "f"}}, "fact", "expected a string, got an object"),
    ("questions", {"question": None}, "question", "missing"),
    ("questions", {"minimum": "Q1"}, "minimum", "expected a list, got a string"),
    ("questions", {"question": " "}, "question", "empty; expected a non-empty string"),
    ("questions", {"minimum": [["Q1", "r", 3]]}, "minimum.0",
     "expected [qid, relation, value] with three non-empty strings, or an entity object"),
    ("questions", {"question": {"text": "Q?"}}, "question", "expected a string, got an object"),
    ("questions", {"graph": ["Q1"]}, "graph.0", "expected an object, got a string"),
    ("questions", {"graph": [{"name": "Ada"}]}, "graph.0", "entity has no 'qid'"),
    ("answers", {"answer": None}, "answer", "missing"),
    ("answers", {"graph": {"qid": "Q1"}}, "graph", "expected a list, got an object"),
    ("answers", {"minimum": [["Q1", "r"]]}, "minimum.0",
     "expected [qid, relation, value] with three non-empty strings, or an entity object"),
    ("answers", {"removed": [[" ", "r", "v"]]}, "removed.0",
     "expected [qid, relation, value] with three non-empty strings, or an entity object"),
    ("answers", {"answer": {"text": "A"}}, "answer", "expected a string, got an object"),
    ("seeds", {"paragraph": None}, "paragraph", "missing"),
    ("seeds", {"graph": "Q1"}, "graph", "expected a list, got a string"),
    ("seeds", {"paragraph": ""}, "paragraph", "empty; expected a non-empty string"),
    ("seeds", {"graph": None, "qids": ["Q1", {"qid": "Q2"}]}, "qids.1",
     "expected a string or a number, got an object"),
    ("seeds", {"paragraph": {"text": "P."}}, "paragraph", "expected a string, got an object"),
    ("seeds", {"graph": None}, "graph", "give 'qids' (with `graph`) or 'graph'"),
    ("knowledge", {"query": None}, "query", "missing"),
    ("knowledge", {"task": "both"}, "task", "'both' is not one of 'qa' or 'dialogue'"),
    ("knowledge", {"query": " "}, "query", "empty; expected a non-empty string"),
    ("knowledge", {"knowledge": ""}, "knowledge", "missing or empty; the knowledge text to evaluate"),
    ("knowledge", {"answer": {"text": "a"}}, "answer", "expected a string, got an object"),
    ("knowledge", {"id": 1.5}, "id", "expected a string or a number, got a number"),
]


@pytest.mark.parametrize("reader, changes, field, message", BAD, ids=[f"{r}-{f}" for r, _, f, _ in BAD])
def test_a_bad_record_is_located_and_the_good_ones_around_it_kept(tmp_path, reader, changes, field, message):
    path = tmp_path / "input.jsonl"
    rows = [good_record(reader, "g1"), good_record(reader, "bad", changes), good_record(reader, "g2")]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    kept, errors = GOOD[reader][0](path)
    assert kept == ["g1", "g2"]
    assert [(e.path, e.line, e.field, e.reason) for e in errors] == [(str(path), 2, field, message)]
    assert str(errors[0]) == f"{path}:2: field '{field}': {message}"


@pytest.mark.parametrize("reader", list(GOOD))
def test_a_record_that_is_not_an_object_is_located(tmp_path, reader):
    path = tmp_path / "input.json"
    path.write_text(json.dumps([good_record(reader, "g1"), "bad", good_record(reader, "g2")], indent=1), encoding="utf-8")
    kept, errors = GOOD[reader][0](path)
    assert kept == ["g1", "g2"] and len(errors) == 1
    assert errors[0].path == str(path) and errors[0].line is not None and "expected an object" in str(errors[0])


SEED_GOOD = {"qText": "Q?", "context_list": ["Title: A \n\n text"], "atomic_texts": ["A fact."], "answer": "x"}
SEED_BAD = [
    ({"qText": None}, "qText", "missing"),
    ({"context_list": 3}, "context_list", "expected a string or a list of strings, got a number"),
    ({"qText": " "}, "qText", "empty; expected a non-empty string"),
    ({"atomic_texts": ["A fact.", ["nested"]]}, "atomic_texts.1", "expected a string, got a list"),
    ({"context_list": [""]}, "context_list", "no input context"),
    ({"answer": {"text": "x"}}, "answer", "expected a string, got an object"),
    ({"qId": "other"}, "qId", "qId 'other' differs from its key"),
]


@pytest.mark.parametrize("changes, field, message", SEED_BAD, ids=[f for _, f, _ in SEED_BAD])
def test_a_bad_entry_of_the_keyed_layout_is_located_by_its_line_and_question_id(tmp_path, changes, field, message):
    path = tmp_path / "data.json"
    bad = {k: v for k, v in {**SEED_GOOD, **changes}.items() if v is not None}
    entries = {"g1": SEED_GOOD, "bad": bad, "g2": {**SEED_GOOD, "answer": 1994}}
    path.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in entries.items()) + "\n}",
                    encoding="utf-8")
    dataset = load_dataset(path)
    assert [e.id for e in dataset.examples] == ["g1", "g2"] and dataset.examples[1].answer == "1994"
    assert [(e.path, e.line, e.field, e.reason) for e in dataset.errors] == [
        (str(path), 3, field, f"question 'bad': {message}")
    ]


def test_a_metadata_entry_that_is_not_an_object_is_reported_and_the_others_attached(tmp_path):
    data, metadata = tmp_path / "data.json", tmp_path / "metadata.json"
    data.write_text(json.dumps({key: SEED_GOOD for key in ("g1", "bad", "g2")}), encoding="utf-8")
    metadata.write_text(json.dumps({"g1": {"pop": "low"}, "bad": ["pop"], "g2": {"has_answer": True}}))
    dataset = load_dataset(data, metadata)
    assert [e.metadata for e in dataset.examples] == [{"pop": "low"}, {}, {"has_answer": True}]
    assert [str(e) for e in dataset.errors] == [f"{metadata}:1: question 'bad': expected an object, got a list"]


def test_tolerant_spellings_read_as_before(tmp_path):
    labels = tmp_path / "labels.jsonl"
    rows = [{"fact": "f", "text": "t", "present": 1}, {"fact": "f", "contexts": ["a"], "text": 5, "present": 0}]
    labels.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    read = [item for _, item in read_presence_labels(labels)]
    assert [(i.text, i.present) for i in read] == [(["t"], True), (["a"], False)]
    check = tmp_path / "check.json"
    check.write_text(json.dumps([
        {"id": 7, "response": "r", "reference": "one text", "setting": " Zero ", "source": "wiki"},
        {"response": "r", "references": ["a", " "], "reference": 5},
    ]), encoding="utf-8")
    records, problems = load_check_records(check)
    assert not problems
    assert (records[0].id, records[0].references, records[0].setting, records[0].metadata) == (
        "7", ["one text"], "zero", {"source": "wiki"})
    assert records[1].references == ["a"] and records[1].metadata == {}
