"""Loading grounding datasets: the paper's layout, metadata, responses and the generic JSONL."""


import json

import pytest

import repo_paths
from factscope.core.errors import InputError
from factscope.grounding.data import attach_responses, context_title, load_dataset

DATA = repo_paths.DATA / "ground"


def test_seed_layout_with_metadata_and_responses():
    dataset = load_dataset(DATA / "original.json", DATA / "metadata.json")
    assert [e.id for e in dataset.examples] == ["q1", "q2", "q3"]
    assert not dataset.errors and not dataset.warnings
    q3 = dataset.examples[2]
    assert len(q3.contexts) == 2 and q3.gold_facts[1] == "The Lenne flows through Astry."
    assert q3.metadata == {"has_answer": True, "has_multi": True, "pop": "low"}
    assert context_title(q3.contexts[0]) == "Corvel"
    attach_responses(dataset, DATA / "responses.jsonl")
    assert dataset.examples[1].response == "The marsh owl feeds mainly on rodents."


def test_bad_seed_entries_are_reported_and_skipped():
    dataset = load_dataset(DATA / "broken.json", DATA / "metadata_mismatch.json")
    assert [e.id for e in dataset.examples] == ["c"]
    messages = [str(error) for error in dataset.errors]
    assert any("field 'atomic_texts'" in m and "'a'" in m and "missing" in m for m in messages)
    assert any("field 'atomic_texts'" in m and "'b'" in m and "no gold atomic facts" in m for m in messages)
    assert all("broken.json" in m for m in messages)
    assert any("match no question: zz" in w for w in dataset.warnings)
    assert any("no metadata for 2 question id(s): a, b" in w for w in dataset.warnings)


def test_generic_jsonl_reports_line_and_field():
    dataset = load_dataset(DATA / "generic.jsonl")
    assert [e.id for e in dataset.examples] == ["g1"]
    assert dataset.examples[0].metadata == {"pop": "high"}
    errors = {error.line: error for error in dataset.errors}
    assert errors[2].field == "gold_facts"
    assert 3 in errors
    assert errors[4].field == "contexts" and "missing" in str(errors[4])


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_dataset(tmp_path / "nope.json")


def test_a_generic_dataset_is_streamed_and_joined_to_its_responses_by_id(tmp_path):
    import json

    from factscope.grounding.data import ScoredExamples

    dataset, responses = tmp_path / "data.jsonl", tmp_path / "responses.jsonl"
    dataset.write_text("".join(
        json.dumps({"id": f"q{n}", "question": f"Question {n}?", "contexts": [f"Context {n}."],
                    "gold_facts": [f"Fact {n}."]}) + "\n" for n in range(6)
    ) + '{"id": "q9", "question": "Broken?"\n')
    rows = [{"id": f"q{n}", "response": f"Answer {n}."} for n in (4, 0, 2, 5)] + [
        {"id": "stray", "response": "No question."}, {"id": "q3", "response": "Ctx.", "contexts": ["Seen."]}]
    responses.write_text("".join(json.dumps(row) + "\n" for row in rows))
    examples = ScoredExamples(dataset, responses=responses)
    first = [(e.id, e.response, e.contexts) for e in examples]
    assert first == [(f"q{n}", "Ctx." if n == 3 else f"Answer {n}.", ["Seen."] if n == 3 else [f"Context {n}."])
                     for n in (0, 2, 3, 4, 5)]
    assert [(e.id, e.response) for e in examples] == [(i, r) for i, r, _ in first] and len(examples) == 5
    assert examples.without_response == ["q1"]
    assert [(p.line, p.field) for p in examples.problems] == [(7, None)]
    assert examples.warnings == [f"{responses}: no response for 1 question id(s): q1",
                                 f"{responses}: 1 response id(s) match no question: stray"]
    examples.close()


SEED_ENTRY = {"qText": "Which river?", "context_list": ["Title: Corvel \n\n The Lenne flows through Corvel."],
              "atomic_texts": ["The Lenne flows through Corvel."], "answer": "Lenne"}


def _keyed(path, entries):
    """``entries`` as the Truly Ground layout, one entry a line (entry n on line n + 2); a text value is written
    as it is (to break the JSON)."""
    written = [f"{json.dumps(key)}: {value if isinstance(value, str) else json.dumps(value)}" for key, value in entries]
    path.write_text("{\n" + ",\n".join(written) + "\n}\n", encoding="utf-8")
    return path


def test_the_keyed_layout_is_read_entry_by_entry(tmp_path):
    from factscope.grounding.data import seed_entries

    path = tmp_path / "data.json"
    path.write_text("{\n" + "".join(f'"q{n}": {json.dumps(SEED_ENTRY)},\n' for n in range(3))
                    + '"q3": {"qText": "the file ends inside this entry', encoding="utf-8")
    read = seed_entries(path)
    assert [next(read)[0] for _ in range(3)] == ["q0", "q1", "q2"], "entries come out before the end is read"
    with pytest.raises(InputError, match="the file ends inside key 'q3'") as raised:
        next(read)
    assert raised.value.line == 5


def test_a_bad_entry_of_the_keyed_layout_is_located_and_skipped_and_the_rest_scored(tmp_path):
    from factscope.grounding.data import ScoredExamples

    path = _keyed(tmp_path / "data.json", [
        ("q1", SEED_ENTRY),
        ("q2", '{"qText": "Broken?" "context_list": []}'),
        ("q3", {**SEED_ENTRY, "atomic_texts": "", "qId": "q3"}),
        ("q4", {**SEED_ENTRY, "qText": "Last?"}),
        ("q1", {**SEED_ENTRY, "qText": "Again?"}),
    ])
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"id": i, "response": "The Lenne."}) + "\n" for i in ("q4", "q1", "q3", "zz")))
    examples = ScoredExamples(path, responses=responses)
    try:
        assert [(e.id, e.question) for e in examples] == [("q1", "Which river?"), ("q4", "Last?")]
        assert len(examples) == 2
        assert [(p.path, p.line, p.field) for p in examples.problems] == [
            (str(path), 3, None), (str(path), 4, "atomic_texts"), (str(path), 6, None)]
        broken, empty, repeated = (p.reason for p in examples.problems)
        assert broken.startswith("key 'q2': broken JSON (Expecting ',' delimiter at column 27)")
        assert empty == "question 'q3': no gold atomic facts; recall needs at least one"
        assert repeated.startswith("question id 'q1' is already used by line 2")
        assert examples.warnings == [f"{responses}: 1 response id(s) match no question: zz"]
    finally:
        examples.close()


def test_metadata_is_joined_by_question_id_from_a_file_read_entry_by_entry(tmp_path):
    data = _keyed(tmp_path / "data.json", [(f"q{n}", SEED_ENTRY) for n in range(1, 5)])
    metadata = _keyed(tmp_path / "metadata.json", [
        ("q3", {"pop": "low"}), ("q1", {"pop": "high", "has_multi": False}), ("q3", {"pop": "high"}),
        ("zz", {"pop": "low"}), ("q2", ["not an object"]),
    ])
    dataset = load_dataset(data, metadata)
    assert [e.metadata for e in dataset.examples] == [{"pop": "high", "has_multi": False}, {}, {"pop": "low"}, {}]
    assert [(e.line, e.reason.split(";")[0]) for e in dataset.errors] == [
        (4, "question id 'q3' is already used by line 2"), (6, "question 'q2': expected an object, got a list")]
    assert dataset.warnings == [f"{metadata}: no metadata for 1 question id(s): q4",
                                f"{metadata}: 1 metadata id(s) match no question: zz"]


def test_a_large_keyed_dataset_is_scored_without_holding_its_records(tmp_path):
    import tracemalloc

    from factscope.grounding.data import ScoredExamples

    entry = {**SEED_ENTRY, "context_list": ["Title: T \n\n " + "A long context sentence. " * 200]}
    path = _keyed(tmp_path / "data.json", [(f"q{n}", entry) for n in range(1000)])
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"id": f"q{n}", "response": "The Lenne."}) + "\n" for n in range(1000)))
    size = path.stat().st_size
    assert size > 5_000_000
    tracemalloc.start()
    try:
        examples = ScoredExamples(path, responses=responses)
        scored = sum(1 for _ in examples)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        examples.close()
    assert scored == len(examples) == 1000
    assert peak < size / 5, f"reading held {peak} bytes of a {size}-byte dataset"
