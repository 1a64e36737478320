"""HHEM-2.1-open built natively: its published layout loads exactly, the model gets the authors' prompt, the score
is the head's first-token column 1, and `factscope check` runs with it."""

import json

import pytest

from cli_entry import run_factscope
from factscope.checkers.base import CheckTask
from factscope.checkers.registry import make_checker
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from factscope.hf.hhem import HHEMScorer
from tiny_judges import build_hhem

DOC = "The cat sat on the mat."
CLAIM = "A cat sat."


@pytest.fixture(scope="module")
def hhem(tmp_path_factory):
    return build_hhem(tmp_path_factory.mktemp("hhem"))


def test_the_prompt_is_the_authors_template(hhem):
    scorer = HHEMScorer(str(hhem))
    assert scorer.model_input(DOC, CLAIM) == (
        "<pad> Determine if the hypothesis is true given the premise?\n\n"
        "Premise: The cat sat on the mat.\n\nHypothesis: A cat sat."
    )
    ids = scorer.tokenizer(scorer.model_input(DOC, CLAIM))["input_ids"]
    assert ids[0] == scorer.tokenizer.pad_token_id and ids[-1] == scorer.tokenizer.eos_token_id


def test_score_is_the_first_token_column_one(hhem):
    import torch
    from scipy.special import softmax

    scorer = HHEMScorer(str(hhem))
    encoded = scorer.tokenizer([scorer.model_input(DOC, CLAIM)], return_tensors="pt")
    with torch.inference_mode():
        logits = scorer.model(**encoded).logits[0, 0].double().numpy()
    expected = softmax(logits)[1]
    probs = scorer.score([DOC, "the dog ran ."], [CLAIM, CLAIM])
    assert probs[0] == pytest.approx([expected, 1 - expected, 0.0], abs=1e-6)
    assert scorer.support([DOC], [CLAIM])[0] == pytest.approx(probs[0, 0])


def test_weights_under_another_prefix_are_refused(tmp_path):
    folder = build_hhem(tmp_path, prefix="model.")
    with pytest.raises(ConfigError, match="missing"):
        HHEMScorer(str(folder))


def test_a_config_without_foundation_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "t5"}))
    with pytest.raises(ConfigError, match="foundation"):
        HHEMScorer(str(tmp_path))


def test_checker_takes_each_reference_whole_with_threshold_half(hhem):
    checker = make_checker(f"hhem:{hhem}", mismatch="off")
    assert checker.max_tokens == 0 and checker.decision.threshold == 0.5
    verdict = checker.check([CheckTask(CLAIM, (DOC,))])[0]
    support = HHEMScorer(str(hhem)).support([DOC], [CLAIM])[0]
    assert verdict.label is (Label.ENTAILMENT if support >= 0.5 else Label.NEUTRAL)
    assert verdict.probs is not None and verdict.probs[0] == pytest.approx(support)


def test_factscope_check_runs_with_hhem(hhem, tmp_path, monkeypatch, capsys):
    records = tmp_path / "answers.jsonl"
    records.write_text(json.dumps({"id": "r1", "response": "The cat sat on the mat.", "references": [DOC]}) + "\n")
    output = tmp_path / "checked.jsonl"
    ran = run_factscope(monkeypatch, capsys, "check", str(records), "-o", str(output), "--checker", f"hhem:{hhem}",
                        "--device", "cpu")
    assert ran.code == 0, ran.text
    assert "claims" in output.read_text()
