"""`eval-checker` beside balanced accuracy: AUROC of P(Entailment) per set and its mean, several checkers compared in
one call, LLM-AggreFact's Parquet files, and the published judges end to end."""

import json
from collections.abc import Sequence

import pytest

from cli_entry import run_factscope
from factscope.checkers.base import CheckTask
from factscope.core.schema import Label, Verdict
from factscope.evaluation.checker_eval import evaluate_checker
from factscope.evaluation.pairs import LabelledPair, read_pairs
from tiny_judges import build_hhem, build_minicheck_roberta


class ByClaim:
    """Answers each claim with a scripted P(Entailment) and the label of the 0.5 threshold."""

    def __init__(self, name: str, entailment: dict[str, float | None]) -> None:
        self.name = name
        self.entailment = entailment

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        verdicts = []
        for task in tasks:
            p = self.entailment[task.claim]
            label = Label.ENTAILMENT if p is not None and p >= 0.5 else Label.NEUTRAL
            verdicts.append(Verdict(label=label, probs=(p, 1 - p, 0.0) if p is not None else None))
        return verdicts


def pairs_of(dataset: str, labels: list[str]) -> list[LabelledPair]:
    return [
        LabelledPair(id=f"{dataset}{i}", premise="P", hypothesis=f"{dataset} {i}", label=label, dataset=dataset,
                     group=str(i), line=i)
        for i, label in enumerate(labels)
    ]


def test_auroc_per_dataset_and_its_mean():
    a = pairs_of("a", ["entailment", "not_entailment", "entailment", "not_entailment"])
    b = pairs_of("b", ["entailment", "not_entailment"])
    c = pairs_of("c", ["entailment", "entailment"])
    scores = {"a 0": 0.9, "a 1": 0.6, "a 2": 0.4, "a 3": 0.1, "b 0": 0.3, "b 1": 0.3, "c 0": 0.8, "c 1": 0.2}
    report = evaluate_checker(ByClaim("scored", scores), a + b + c)
    figures = {f.dataset: f for f in report.datasets}
    # a: positives 0.9, 0.4; negatives 0.6, 0.1 -> pairs won 0.9>0.6, 0.9>0.1, 0.4>0.1, lost 0.4<0.6: 3/4
    assert figures["a"].auroc == pytest.approx(3 / 4)
    assert figures["b"].auroc == pytest.approx(1 / 2)  # a tie counts one half
    assert figures["c"].auroc is None  # one class only
    assert report.mean_auroc == pytest.approx((3 / 4 + 1 / 2) / 2)
    labels_only = evaluate_checker(ByClaim("labels", dict.fromkeys(scores)), a)
    assert labels_only.datasets[0].auroc is None and labels_only.mean_auroc is None


def test_reads_llm_aggrefact_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "llm_aggrefact_test.parquet"
    pq.write_table(pa.table({
        "dataset": ["ExpertQA", "Lfqa", "Lfqa"],
        "doc": ["The sky is blue.", "Water boils.", "Ice is cold."],
        "claim": ["The sky is blue.", "Ice is hot.", "Ice is cold."],
        "label": [1, 0, None],
        "contamination_identifier": ["x", "y", "z"],
    }), path)
    pairs, skipped = read_pairs(path)
    assert [(p.dataset, p.label, p.hypothesis, p.line, p.id) for p in pairs] == [
        ("ExpertQA", "entailment", "The sky is blue.", 1, "llm_aggrefact_test:1"),
        ("Lfqa", "not_entailment", "Ice is hot.", 2, "llm_aggrefact_test:2"),
    ]
    assert len(skipped) == 1 and skipped[0].line == 3  # a null label is no label


def test_several_checkers_in_one_call(tmp_path, monkeypatch, capsys):
    path = tmp_path / "aggrefact.jsonl"
    rows = [{"dataset": "Lfqa", "doc": "D", "claim": f"c{i}", "label": i % 2} for i in range(4)]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    made = {
        "embedded": ByClaim("first", {"c0": 0.1, "c1": 0.9, "c2": 0.2, "c3": 0.8}),
        "similarity": ByClaim("second", {"c0": 0.7, "c1": 0.6, "c2": 0.2, "c3": 0.4}),
    }
    monkeypatch.setattr("factscope.evaluation.checker_comparison.make_checker", lambda spec, **options: made[spec])
    out = tmp_path / "compare.json"
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), "--checker", "embedded", "--checker", "similarity",
                        "-o", str(out))
    assert ran.code == 0, ran.text
    assert "checkers compared" in ran.text and "first" in ran.text and "second" in ran.text
    first, second = json.loads(out.read_text())["reports"]
    assert (first["checker"], second["checker"]) == ("first", "second")
    assert first["mean_balanced_accuracy"] == 1.0 and first["mean_auroc"] == 1.0
    # second: positives c1 0.6, c3 0.4; negatives c0 0.7, c2 0.2 -> wins 0.6>0.2, 0.4>0.2: 2/4
    assert second["datasets"][0]["auroc"] == pytest.approx(1 / 2)
    assert second["pairs_per_second"] is not None and second["load_seconds"] is not None


def test_published_judges_compared_end_to_end(tmp_path, monkeypatch, capsys):
    minicheck = build_minicheck_roberta(tmp_path / "minicheck")
    hhem = build_hhem(tmp_path / "hhem")
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"dataset": "tiny", "doc": "The cat sat on the mat.", "claim": "The cat sat.", "label": 1},
        {"dataset": "tiny", "doc": "The dog ran in paris.", "claim": "The cat sat.", "label": 0},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    out = tmp_path / "compare.json"
    ran = run_factscope(monkeypatch, capsys, "eval-checker", str(path), "--checker", f"minicheck:{minicheck}",
                        "--checker", f"hhem:{hhem}", "--device", "cpu", "-o", str(out))
    assert ran.code == 0, ran.text
    reports = json.loads(out.read_text())["reports"]
    assert [r["checker"] for r in reports] == [f"minicheck:{minicheck}", f"hhem:{hhem}"]
    assert all(r["datasets"][0]["auroc"] is not None and r["failed"] == 0 for r in reports)
