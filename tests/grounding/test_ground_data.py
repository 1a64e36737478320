"""Loading grounding datasets: the paper's layout, metadata, responses and the generic JSONL."""


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
