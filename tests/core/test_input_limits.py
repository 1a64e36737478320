"""Limits on input files: a record over FACTSCOPE_MAX_RECORD_BYTES is skipped with a located error, a JSON object
keyed by id reports its repeated keys, and `train-checker --layers` outside the encoder is a usage error."""

from __future__ import annotations

import json

import pytest

from factscope.core.errors import ConfigError, InputError
from factscope.core.files.input_files import read_json_records
from factscope.core.files.record_limits import MAX_RECORD_BYTES


def _records(path):
    return [(line, item if isinstance(item, InputError) else item["id"]) for line, item in read_json_records(path)]


def _big(record_id: str) -> dict:
    return {"id": record_id, "response": "é" * 200}


@pytest.mark.parametrize("layout", ["jsonl", "json list"])
def test_a_record_over_the_limit_is_a_located_error_and_its_neighbours_are_kept(layout, tmp_path, monkeypatch):
    monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", "300")
    rows = [{"id": "a"}, _big("big"), {"id": "b"}]
    path = tmp_path / "in.json"
    if layout == "jsonl":
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    else:
        path.write_text("[\n" + ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows) + "\n]\n",
                        encoding="utf-8")
    found = _records(path)
    assert [item for _, item in found if isinstance(item, str)] == ["a", "b"]
    (line, error), = [(line, item) for line, item in found if isinstance(item, InputError)]
    size = len(json.dumps(rows[1], ensure_ascii=False).encode("utf-8"))
    expected = 2 if layout == "jsonl" else 3  # a JSON list's item is located where it starts, below the "["
    assert line == expected and error.line == expected and str(path) in str(error)
    assert f"record of {size} bytes is over the limit of 300 bytes" in str(error)
    assert "FACTSCOPE_MAX_RECORD_BYTES" in str(error) and "split the record" in str(error)


def test_the_limit_counts_utf8_bytes_and_a_record_at_the_limit_is_read(tmp_path, monkeypatch):
    line = json.dumps(_big("x"), ensure_ascii=False)
    path = tmp_path / "in.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    size = len(line.encode("utf-8"))
    assert size > len(line), "the record has characters of more than one byte"
    monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", str(size))
    assert _records(path) == [(1, "x")]
    monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", str(size - 1))
    assert isinstance(_records(path)[0][1], InputError)


def test_the_default_limit_is_generous_and_a_bad_setting_is_a_config_error(tmp_path, monkeypatch):
    assert MAX_RECORD_BYTES >= 64 * 1024 * 1024
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_big("x")) + "\n", encoding="utf-8")
    monkeypatch.delenv("FACTSCOPE_MAX_RECORD_BYTES", raising=False)
    assert _records(path) == [(1, "x")]
    for bad in ("lots", "0", "-5"):
        monkeypatch.setenv("FACTSCOPE_MAX_RECORD_BYTES", bad)
        with pytest.raises(ConfigError, match="FACTSCOPE_MAX_RECORD_BYTES"):
            _records(path)


def test_an_atomic_facts_file_keyed_by_id_reports_a_repeated_key_and_keeps_its_first_entry(tmp_path):
    from factscope.grounding.atomic_facts import load_atomic_facts

    path = tmp_path / "facts.json"
    path.write_text('{"q1": ["First fact."], "q2": ["Other fact."], "q1": ["Second fact."]}', encoding="utf-8")
    found = load_atomic_facts(path, paper_rules=False)
    assert found.facts == {"q1": ["First fact."], "q2": ["Other fact."]}
    (error,) = found.errors
    assert "'q1'" in str(error) and str(path) in str(error) and "first" in str(error)


def test_a_metadata_file_reports_a_repeated_key_and_keeps_its_first_entry(tmp_path):
    from factscope.grounding.data import load_seed_dataset

    data = tmp_path / "data.json"
    data.write_text(json.dumps({key: {"qId": key, "qText": f"Question {key}?", "answer": "",
                                      "atomic_texts": ["A fact."], "context_list": ["A context."]}
                                for key in ("ex1", "ex2")}), encoding="utf-8")
    metadata = tmp_path / "metadata.json"
    metadata.write_text('{"ex1": {"pop": "low"}, "ex2": {"pop": "high"}, "ex1": {"pop": "high"}}', encoding="utf-8")
    dataset = load_seed_dataset(data, metadata)
    assert {e.id: e.metadata.get("pop") for e in dataset.examples} == {"ex1": "low", "ex2": "high"}
    (error,) = dataset.errors
    assert "'ex1'" in str(error) and str(metadata) in str(error)


def test_parse_layers_outside_the_encoder_or_not_a_number_is_a_config_error_naming_the_range():
    from factscope.checkers.repc import parse_layers

    assert parse_layers("1,-1", 3) == [1, 2]
    for bad in ("3", "-4", "two", "1,"):
        with pytest.raises(ConfigError, match=r"`layers`.*layers 0\.\.2") as caught:
            parse_layers(bad, 3)
        assert isinstance(caught.value, ValueError), "callers that caught ValueError still do"


@pytest.mark.parametrize("layers", ["9", "-9"])
def test_train_checker_with_a_layer_outside_the_encoder_exits_2(layers, monkeypatch, capsys, tmp_path):
    from cli_entry import run_factscope
    from nli_pairs import write_pairs
    from tiny_models import build_nli_classifier

    encoder = build_nli_classifier(tmp_path / "encoder", {0: "entailment", 1: "neutral", 2: "contradiction"})
    data = write_pairs(tmp_path / "pairs.jsonl", n=12)
    result = run_factscope(monkeypatch, capsys, "train-checker", "--data", str(data), "--out", str(tmp_path / "out"),
                           "--method", "repc", "--encoder", str(encoder), "--layers", layers)
    assert result.code == 2, result.err
    assert "--layers" in result.err and "0..2" in result.err and "Traceback" not in result.err
