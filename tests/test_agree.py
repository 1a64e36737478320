"""Agreement with human labels: the RefChecker annotation loader and the figures, hand-computed."""

from __future__ import annotations

import json

import pytest

from factscope.core.schema import Label
from factscope.refchecker.agree import agree, load_human_annotations
from factscope.refchecker.data import load_check_records


class LookupChecker:
    """Answers from a fixed table keyed by claim text (a transparent stand-in for a model)."""

    name = "lookup"

    def __init__(self, table):
        self.table = table

    def check(self, tasks):
        from factscope.core.schema import Verdict

        return [Verdict(label=self.table[task.claim]) for task in tasks]


def test_checker_mode_figures(tmp_path):
    human = [
        {"id": "a", "response": "r", "claude2_response_kg": [
            {"triplet": ["x", "is", "1"], "human_label": "Entailment"},
            {"triplet": ["x", "is", "2"], "human_label": "Contradiction"},
            {"triplet": ["x", "is", "bad"], "human_label": "bad triplet"},
        ]},
        {"id": "b", "response": "r", "claude2_response_kg": [
            {"triplet": ["y", "is", "1"], "human_label": "Neutral"},
            {"triplet": ["y", "is", "2"], "human_label": "Entailment"},
        ]},
        {"id": "c", "response": "r", "claude2_response_kg": [{"triplet": ["z", "is", "1"], "human_label": "Neutral"}]},
        {"id": "missing", "response": "r", "claude2_response_kg": []},
    ]
    (tmp_path / "gpt.json").write_text(json.dumps(human), encoding="utf-8")
    (tmp_path / "in.jsonl").write_text(
        "\n".join(json.dumps({"id": i, "response": "r", "reference": "ref"}) for i in "abc"), encoding="utf-8"
    )
    responses, problems = load_human_annotations(tmp_path / "gpt.json")
    assert not problems and responses[0].excluded == 1 and responses[0].model == "gpt"
    records, _ = load_check_records(tmp_path / "in.jsonl")
    E, N, C = Label.ENTAILMENT, Label.NEUTRAL, Label.CONTRADICTION
    checker = LookupChecker({"x is 1": E, "x is 2": N, "y is 1": N, "y is 2": E, "z is 1": C})
    report = agree(responses, records, checker=checker, mode="checker")
    # gold E C N E N ; predicted E N N E C -> 3 of 5 right
    assert report.claims == 5 and report.accuracy == pytest.approx(3 / 5)
    # E: tp 2 fp 0 fn 0 -> 1.0 ; N: tp 1, fp 1, fn 1 -> P .5 R .5 F .5 ; C: tp 0 -> 0
    assert report.per_class_f1 == {E: pytest.approx(1.0), N: pytest.approx(0.5), C: 0.0}
    assert report.macro_f1 == pytest.approx(0.5)
    # response rates: human a .5 b .5 c 1 ; ours a .5 b .5 c 1 -> perfect correlation
    assert report.pearson[0] == pytest.approx(1.0)
    assert report.unmatched_ids == ["missing"]
