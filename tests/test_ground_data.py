"""Loading grounding datasets: the paper's layout, metadata, responses and the generic JSONL."""

from pathlib import Path

import pytest

from factscope.core.errors import InputError
from factscope.grounding.data import attach_responses, context_title, load_dataset

DATA = Path(__file__).parent / "data" / "ground"


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
