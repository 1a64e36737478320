"""Every input reader, fed one bad record between two good ones: the bad one is reported with its file, line
and field, the good ones around it are kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from factscope.conner.data import read_knowledge_records
from factscope.core.errors import InputError
from factscope.grounding.data import (
    GroundDataset,
    GroundExample,
    attach_responses,
    load_dataset,
    load_generic_dataset,
    read_presence_labels,
)
from factscope.kalma.answers import load_answers
from factscope.kalma.data import read_questions
from factscope.kalma.question_evolution import read_seeds
from factscope.refchecker.annotations import load_human_annotations
from factscope.refchecker.data import load_check_records

Kept = list[str]
Reader = Callable[[Path], tuple[Kept, list[InputError]]]


def _check(path: Path) -> tuple[Kept, list[InputError]]:
    records, problems = load_check_records(path)
    return [r.id for r in records], problems


def _annotations(path: Path) -> tuple[Kept, list[InputError]]:
    responses, problems = load_human_annotations(path)
    return [r.id for r in responses], problems


def _generic(path: Path) -> tuple[Kept, list[InputError]]:
    dataset = load_generic_dataset(path)
    return [e.id for e in dataset.examples], dataset.errors


def _responses(path: Path) -> tuple[Kept, list[InputError]]:
    dataset = GroundDataset(examples=[GroundExample(i, "Q?", ["c"], ["f"]) for i in ("g1", "bad", "g2")])
    attach_responses(dataset, path)
    return [e.id for e in dataset.examples if e.response is not None], dataset.errors


def _labels(path: Path) -> tuple[Kept, list[InputError]]:
    items = [item for _, item in read_presence_labels(path)]
    return [i.fact for i in items if not isinstance(i, InputError)], [i for i in items if isinstance(i, InputError)]


def _split(items: list[Any]) -> tuple[Kept, list[InputError]]:
    return [i.id for i in items if not isinstance(i, InputError)], [i for i in items if isinstance(i, InputError)]


def _questions(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_questions(path)])


def _answers(path: Path) -> tuple[Kept, list[InputError]]:
    loaded = load_answers(path)
    return [r.id for r in loaded.records], loaded.problems


def _seeds(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_seeds(path, None)])


def _knowledge(path: Path) -> tuple[Kept, list[InputError]]:
    return _split([item for _, item in read_knowledge_records(path)])


GRAPH = [{"qid": "Q1", "name": "Ada"}]
GOOD: dict[str, tuple[Reader, dict[str, Any]]] = {
    "check": (_check, {"response": "r", "references": ["x"]}),
    "annotations": (_annotations, {"response": "r", "gpt4_response_kg": []}),
    "generic": (_generic, {"question": "Q?", "contexts": ["c"], "gold_facts": ["f"]}),
    "responses": (_responses, {"response": "r"}),
    "labels": (_labels, {"text": "t", "present": True}),
    "questions": (_questions, {"question": "Q?", "minimum": [["Q1", "r", "v"]]}),
    "answers": (_answers, {"answer": "A", "graph": GRAPH}),
    "seeds": (_seeds, {"paragraph": "P.", "graph": GRAPH}),
    "knowledge": (_knowledge, {"query": "q", "knowledge": "k"}),
}
"""Each reader and a good record of its format (the harness adds the id; labels have none, so the fact)."""

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
    ("seeds", {"graph": None}, "graph", "give 'qids' (with --graph) or 'graph'"),
    ("knowledge", {"query": None}, "query", "missing"),
    ("knowledge", {"task": "both"}, "task", "'both' is not one of 'qa' or 'dialogue'"),
    ("knowledge", {"query": " "}, "query", "empty; expected a non-empty string"),
    ("knowledge", {"knowledge": ""}, "knowledge", "missing or empty; the knowledge text to evaluate"),
    ("knowledge", {"answer": {"text": "a"}}, "answer", "expected a string, got an object"),
    ("knowledge", {"id": 1.5}, "id", "expected a string or a number, got a number"),
]


def _record(reader: str, name: str, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    key = "fact" if reader == "labels" else "id"
    record = {key: name, **GOOD[reader][1], **(changes or {})}
    return {k: v for k, v in record.items() if v is not None}


@pytest.mark.parametrize("reader, changes, field, message", BAD, ids=[f"{r}-{f}" for r, _, f, _ in BAD])
def test_a_bad_record_is_located_and_the_good_ones_around_it_kept(tmp_path, reader, changes, field, message):
    path = tmp_path / "input.jsonl"
    rows = [_record(reader, "g1"), _record(reader, "bad", changes), _record(reader, "g2")]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    kept, errors = GOOD[reader][0](path)
    assert kept == ["g1", "g2"]
    assert [(e.path, e.line, e.field, e.reason) for e in errors] == [(str(path), 2, field, message)]
    assert str(errors[0]) == f"{path}:2: field '{field}': {message}"


@pytest.mark.parametrize("reader", list(GOOD))
def test_a_record_that_is_not_an_object_is_located(tmp_path, reader):
    path = tmp_path / "input.json"
    path.write_text(json.dumps([_record(reader, "g1"), "bad", _record(reader, "g2")], indent=1), encoding="utf-8")
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
def test_a_bad_entry_of_the_keyed_layout_is_located_by_its_question_id(tmp_path, changes, field, message):
    path = tmp_path / "data.json"
    bad = {k: v for k, v in {**SEED_GOOD, **changes}.items() if v is not None}
    path.write_text(json.dumps({"g1": SEED_GOOD, "bad": bad, "g2": {**SEED_GOOD, "answer": 1994}}), encoding="utf-8")
    dataset = load_dataset(path)
    assert [e.id for e in dataset.examples] == ["g1", "g2"] and dataset.examples[1].answer == "1994"
    assert [(e.path, e.line, e.field, e.reason) for e in dataset.errors] == [
        (str(path), None, field, f"question 'bad': {message}")
    ]


def test_a_metadata_entry_that_is_not_an_object_is_reported_and_the_others_attached(tmp_path):
    data, metadata = tmp_path / "data.json", tmp_path / "metadata.json"
    data.write_text(json.dumps({key: SEED_GOOD for key in ("g1", "bad", "g2")}), encoding="utf-8")
    metadata.write_text(json.dumps({"g1": {"pop": "low"}, "bad": ["pop"], "g2": {"has_answer": True}}))
    dataset = load_dataset(data, metadata)
    assert [e.metadata for e in dataset.examples] == [{"pop": "low"}, {}, {"has_answer": True}]
    assert [str(e) for e in dataset.errors] == [f"{metadata}: question 'bad': expected an object, got a list"]


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
