"""Several checkers on the same pairs, in Python: the pairs of several files, a dev file that shares pairs with
the evaluated ones, each checker built, tuned and timed, the evaluation as its settings declare it (read, refused
when it has no usable pair, reported), and the rows and cells the tables show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.options import CheckerOptions
from factscope.core.errors import ConfigError, InputError
from factscope.core.schema import Label, Verdict
from factscope.evaluation.checker_comparison import (
    EvaluationSettings,
    evaluate_checkers,
    evaluate_pair_files,
    read_evaluation_pairs,
    read_pair_files,
    shares_pairs,
)
from factscope.evaluation.checker_eval import EvalReport
from factscope.evaluation.checker_tables import checker_rows, decision, evaluation_rows, speed


def _write(path, labels, extra=()):
    rows = [json.dumps({"id": f"{path.stem}{i}", "premise": "P", "hypothesis": f"h{i}", "label": label})
            for i, label in enumerate(labels)]
    path.write_text("\n".join([*rows, *extra]) + "\n", encoding="utf-8")
    return path


def test_the_pairs_of_several_files_with_each_files_skipped_records(tmp_path):
    first = _write(tmp_path / "first.jsonl", ["entailment", "neutral", "contradiction"], ['{"premise": "P"}'])
    second = _write(tmp_path / "second.jsonl", ["entailment"] * 5, ["{broken"])
    pairs, skipped = read_pair_files([first, second])
    assert [p.dataset for p in pairs] == ["first"] * 3 + ["second"] * 5
    assert {path.name: [p.line for p in problems] for path, problems in skipped.items()} == {
        "first.jsonl": [4], "second.jsonl": [6]}
    limited, _ = read_pair_files([first, second], limit=2)
    assert [p.dataset for p in limited] == ["first", "first", "second", "second"]


def test_a_dev_file_shares_pairs_only_in_overlapping_parts_of_the_same_file(tmp_path):
    data, other = tmp_path / "data.jsonl", tmp_path / "other.jsonl"
    assert shares_pairs([data], "test", [tmp_path / "." / "data.jsonl"], "test")
    assert shares_pairs([data], "all", [data], "validation")
    assert not shares_pairs([data], "test", [data], "validation")
    assert not shares_pairs([data], "all", [other], "all")


class Scripted:
    """P(Entailment) 0.9 for hypotheses h0 and h1, 0.2 for the rest."""

    name = "scripted"

    def check(self, tasks: list[CheckTask]) -> list[Verdict]:
        verdicts = []
        for task in tasks:
            p = 0.9 if task.claim in ("h0", "h1") else 0.2
            verdicts.append(Verdict(label=Label.ENTAILMENT if p > 0.5 else Label.NEUTRAL, probs=(p, 1 - p, 0.0)))
        return verdicts


def test_each_checker_is_built_with_the_settings_tuned_and_evaluated(tmp_path, monkeypatch):
    built = []

    def make(spec, **options):
        built.append((spec, options))
        return Scripted()

    monkeypatch.setattr("factscope.evaluation.checker_comparison.make_checker", make)
    pairs, _ = read_pair_files([_write(tmp_path / "set.jsonl", ["entailment", "entailment", "neutral", "neutral"])])
    reports = evaluate_checkers(["a", "b"], pairs, settings={"max_tokens": 64}, batch_size=2)
    options = CheckerOptions(max_tokens=64)
    assert built == [("a", {"llm": None, "options": options}), ("b", {"llm": None, "options": options})]
    assert [r.checker for r in reports] == ["scripted", "scripted"] and reports[0].threshold is None
    assert reports[0].mean_balanced_accuracy == 1.0 and reports[0].load_seconds is not None
    # dev: h0 (P 0.9) entailed, h1 (0.9) and h2 (0.2) not. Cutting between 0.2 and 0.9 gives balanced accuracy
    # (1 + 1/2) / 2 = 0.75, every other cut 0.5: the threshold is half-way, 0.55, and replaces the one given
    dev, _ = read_pair_files([_write(tmp_path / "dev.jsonl", ["entailment", "neutral", "neutral"])])
    tuned = evaluate_checkers(["a"], pairs, dev=dev, threshold=0.05)[0]
    assert tuned.threshold == pytest.approx(0.55) and tuned.mean_balanced_accuracy == 1.0


def _report(**fields):
    given = {"checker": "embedded", "threshold": None, "decided_by": [], "datasets": [], "pairs": 10, "failed": 1,
             "mean_balanced_accuracy": None, "mean_macro_f1_3way": None, "check_seconds": 2.0,
             "pairs_per_second": 5.0}
    return EvalReport(**{**given, **fields})


def test_the_summary_rows_say_when_a_pair_was_judged_entailed():
    assert decision(_report()) == "the label is Entailment"
    tuned = _report(threshold=0.61234, decided_by=["probability", "score"], tuned_on=["dev.jsonl"])
    assert decision(tuned) == "probability / score >= 0.6123 (tuned on dev.jsonl)"
    assert speed(None) == "n/a" and speed(12.345) == "12.3"
    assert checker_rows(_report(load_seconds=1.26)) == [
        ("checker", "embedded"),
        ("entailed when", "the label is Entailment"),
        ("pairs (failed)", "10 (1)"),
        ("pairs / second (model loading left out)", "5.0"),
        ("model loading seconds", "1.3"),
    ]



def test_evaluation_rows_are_each_checkers_then_the_skipped_records():
    first, second = _report(skipped=3), _report(checker="similarity", skipped=3)
    rows = evaluation_rows([first, second])
    assert rows == [*checker_rows(first), *checker_rows(second), ("skipped input records", 3)]


def test_settings_refuse_a_threshold_together_with_dev_files():
    with pytest.raises(ConfigError, match="`threshold` or dev files to tune one on .`tune_on`., not both"):
        EvaluationSettings(threshold=0.5, tune_on=[Path("dev.jsonl")])
    assert EvaluationSettings().specs == ["embedded"] and not EvaluationSettings().needs_llm()
    assert EvaluationSettings(checker=["similarity", "llm"]).needs_llm()


def test_the_pairs_read_keep_each_files_skipped_records_and_warn_when_dev_pairs_are_evaluated(tmp_path):
    data = _write(tmp_path / "data.jsonl", ["entailment", "neutral"] * 40, ["{broken"])
    dev = _write(tmp_path / "dev.jsonl", ["entailment", "neutral"], ['{"premise": "P"}', "{broken"])
    read = read_evaluation_pairs([data], EvaluationSettings(tune_on=[dev]))
    assert (len(read.pairs), len(read.dev), read.warning, read.files) == (80, 2, None, [data])
    assert [p.line for p in read.skipped[data]] == [81] and [p.line for p in read.dev_skipped[dev]] == [3, 4]
    shared = read_evaluation_pairs([data], EvaluationSettings(tune_on=[data], tune_part="validation"))
    assert shared.warning is not None and "`tune_part='validation'` `part='test'`" in shared.warning
    apart = read_evaluation_pairs([data], EvaluationSettings(tune_on=[data], tune_part="validation", part="test"))
    assert apart.warning is None and apart.pairs and apart.dev
    assert read_evaluation_pairs([data], EvaluationSettings()).dev_skipped == {}


def test_an_evaluation_is_reported_with_its_inputs_and_written(tmp_path, monkeypatch):
    built = []

    def make(spec, **options):
        built.append((spec, options))
        return Scripted()

    monkeypatch.setattr("factscope.evaluation.checker_comparison.make_checker", make)
    data = _write(tmp_path / "set.jsonl", ["entailment", "entailment", "neutral", "neutral"], ["{broken"])
    asked = []

    def client():
        asked.append(True)
        return "client"

    out = tmp_path / "report.json"
    settings = EvaluationSettings(checker=["embedded"], limit=3, output=out, batch_size=2)
    reports = evaluate_pair_files(read_evaluation_pairs([data], settings), settings,
                                  checker_settings={"max_tokens": 64}, llm=client)
    assert built == [("embedded", {"llm": None, "options": CheckerOptions(max_tokens=64, batch_size=2)})]
    assert asked == []
    (report,) = reports
    assert (report.inputs, report.part, report.limit, report.skipped, report.tuned_on) == ([str(data)], "all", 3, 1, None)
    assert report.pairs == 3 and json.loads(out.read_text())["inputs"] == [str(data)]
    # two checkers, one of them the LLM's: the client is made once it is needed, and both reports are written
    settings = EvaluationSettings(checker=["embedded", "llm"], output=out)
    reports = evaluate_pair_files(read_evaluation_pairs([data], settings), settings, llm=client)
    assert asked == [True] and [spec for spec, _ in built[1:]] == ["embedded", "llm"]
    assert built[-1][1]["llm"] == "client"
    assert [r["pairs"] for r in json.loads(out.read_text())["reports"]] == [4, 4]


def test_an_evaluation_without_usable_pairs_is_refused_before_any_checker_is_built(tmp_path, monkeypatch):
    monkeypatch.setattr("factscope.evaluation.checker_comparison.make_checker", lambda spec, **options: 1 / 0)
    data = _write(tmp_path / "set.jsonl", ["entailment", "neutral"])  # groups set0, set1: train and test
    settings = EvaluationSettings(tune_on=[data], tune_part="validation")
    with pytest.raises(InputError, match="the `tune_on` files hold no usable pair in part 'validation'"):
        evaluate_pair_files(read_evaluation_pairs([data], settings), settings)
    settings = EvaluationSettings(part="validation")
    with pytest.raises(InputError, match="no usable pair in part 'validation' of the files"):
        evaluate_pair_files(read_evaluation_pairs([data], settings), settings)
