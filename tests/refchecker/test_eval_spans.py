"""`factscope eval-spans`: a check's span view (or RAGTruth-shaped predictions) scored against gold spans."""

from __future__ import annotations

import json

import pytest

import factscope
from cli_entry import run_factscope
from containment import ContainsChecker
from factscope.core.errors import InputError
from factscope.refchecker.span_evaluation import evaluate_spans, read_spans
from repo_paths import EXAMPLES


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_ragtruth_shaped_predictions_scored_by_hand(tmp_path):
    gold = _jsonl(tmp_path / "gold.jsonl", [
        {"id": "a", "labels": [{"start": 5, "end": 15, "label_type": "Evident Conflict"}]},
        {"id": "b", "labels": []},
        {"id": "c", "labels": [{"start": 0, "end": 4}]},
    ])
    predicted = _jsonl(tmp_path / "predicted.jsonl", [
        {"id": "a", "labels": [{"start": 0, "end": 10}]},
        {"id": "b", "labels": [{"start": 2, "end": 6}]},
        {"id": "z", "labels": []},
    ])
    evaluation = evaluate_spans(predicted, gold)
    assert evaluation.missing_predictions == ["c"] and evaluation.extra_predictions == ["z"]
    figures = evaluation.scores.figures()
    assert figures["examples"] == 2
    assert (figures["character_precision"], figures["character_recall"]) == (5 / 14, 5 / 10)
    assert (figures["example_precision"], figures["example_recall"]) == (1 / 2, 1.0)


def test_a_check_results_file_is_read_through_its_span_view(tmp_path, monkeypatch, capsys):
    results = tmp_path / "checked.jsonl"
    run = factscope.check(EXAMPLES / "check.jsonl", extractor="rules", checker=ContainsChecker(), output=results)
    spans = read_spans(results)
    assert set(spans) == {row.id for row in run.results}
    for row in run.results:
        assert spans[row.id] == [(s.start, s.end) for s in row.hallucination_labels().labels]
    assert any(spans.values())
    gold = _jsonl(tmp_path / "gold.jsonl", [{"id": key, "labels": [{"start": s, "end": e} for s, e in found]}
                                            for key, found in spans.items()])
    out = tmp_path / "scores.json"
    ran = run_factscope(monkeypatch, capsys, "eval-spans", str(results), str(gold), "-o", str(out))
    assert ran.code == 0, ran.text
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["character_f1"] == 1.0 and written["example_f1"] == 1.0


def test_bad_gold_spans_are_located(tmp_path):
    gold = _jsonl(tmp_path / "gold.jsonl", [{"id": "a", "labels": [{"start": 9, "end": 2}]}])
    with pytest.raises(InputError, match=r"gold.jsonl:1: .*start"):
        read_spans(gold)
