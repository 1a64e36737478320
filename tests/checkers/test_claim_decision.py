"""The claim decision: its features and logistic probability against hand-computed values, fitting, saving, and
how a segmented checker applies it."""

import json
import math

import numpy as np
import pytest

from factscope.checkers.base import CheckTask
from factscope.checkers.claim_decision import FEATURES, ClaimDecision, feature_row
from factscope.checkers.segmented import SegmentedChecker, claim_measurements
from factscope.core.errors import ConfigError
from factscope.core.schema import Label
from fake_scorers import KeywordScorer, plain_options

MEASURED = {
    "entailed": 1,
    "contradicted": 0,
    "entailment": 0.8,
    "contradiction": 0.1,
    "entailing_share": 0.5,
    "reference_words": 99,
    "claim_words": 9,
    "relevance": 0.75,
    "mismatch": 0,
}


def test_features_by_hand():
    row = dict(zip(FEATURES, feature_row(MEASURED)))
    assert row["entailment"] == pytest.approx(1.386294, abs=1e-6)  # ln(0.8 / 0.2)
    assert row["contradiction"] == pytest.approx(-2.197225, abs=1e-6)  # ln(0.1 / 0.9)
    assert row["entailing_share"] == 0.5
    assert row["reference_words"] == pytest.approx(4.605170, abs=1e-6)  # ln(1 + 99)
    assert row["claim_words"] == pytest.approx(2.302585, abs=1e-6)  # ln(1 + 9)
    assert row["relevance"] == 0.75 and row["mismatch"] == 0.0
    assert row["entailed"] == 1.0 and row["contradicted"] == 0.0
    assert row["entailment_by_length"] == pytest.approx(1.386294 * 4.605170, abs=1e-5)


def test_probabilities_are_clipped_before_the_logit():
    assert feature_row({**MEASURED, "entailment": 1.0}, ("entailment",))[0] == pytest.approx(math.log(0.9999 / 0.0001))


def test_probability_by_hand():
    # z = 2 * (ln 4 - 0) / 1 - 1 = 1.772589; P = 1 / (1 + e^-z) = 0.854779
    decision = ClaimDecision(("entailment",), (0.0,), (1.0,), (2.0,), -1.0)
    assert decision.probability(MEASURED) == pytest.approx(0.854779, abs=1e-6)
    assert decision.supported(MEASURED)
    standardised = ClaimDecision(("entailment", "relevance"), (1.0, 0.5), (2.0, 0.25), (1.0, -1.0), 0.0, 0.9)
    # z = (1.386294 - 1) / 2 - (0.75 - 0.5) / 0.25 = -0.806853; P = 0.308562, under 0.9
    assert standardised.probability(MEASURED) == pytest.approx(0.308562, abs=1e-6)
    assert not standardised.supported(MEASURED)


def test_fit_learns_the_separating_direction():
    rng = np.random.default_rng(0)
    measured, gold = [], []
    for _ in range(200):
        p = float(rng.uniform(0.01, 0.99))
        measured.append({**MEASURED, "entailment": p, "reference_words": float(rng.integers(5, 2000))})
        gold.append(p > 0.6)
    decision = ClaimDecision.fit(measured, gold, features=("entailment", "reference_words"), fitted_on="synthetic")
    assert decision.supported({**MEASURED, "entailment": 0.95}) and not decision.supported({**MEASURED, "entailment": 0.2})
    assert decision.weights[0] > 0 and decision.fitted_on == "synthetic"
    with pytest.raises(ConfigError, match="both supported and unsupported"):
        ClaimDecision.fit(measured[:3], [True] * 3)


def test_save_load_and_refusals(tmp_path):
    decision = ClaimDecision(("entailment",), (0.0,), (1.0,), (2.0,), -1.0, fitted_on="by hand")
    decision.save(tmp_path / "d.json")
    assert ClaimDecision.load(tmp_path / "d.json") == decision
    with pytest.raises(ConfigError, match="unknown claim-decision feature 'entailmnet'"):
        ClaimDecision(("entailmnet",), (0.0,), (1.0,), (2.0,), -1.0)
    with pytest.raises(ConfigError, match="one mean, scale and weight per feature"):
        ClaimDecision(("entailment",), (0.0, 1.0), (1.0,), (2.0,), -1.0)
    (tmp_path / "bad.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(ConfigError, match="not a claim decision of format 1"):
        ClaimDecision.load(tmp_path / "bad.json")
    with pytest.raises(ConfigError, match="cannot read the claim decision"):
        ClaimDecision.load(tmp_path / "missing.json")


def test_measurements_of_a_claim():
    checker = SegmentedChecker(KeywordScorer(), plain_options(max_tokens=50, window_sentences=1, relevance="off"))
    task = CheckTask("the sky is blue", ("The sky is blue. Grass is green.",))
    judged = checker.judgements([task])[0]
    measured = claim_measurements(task, judged, checker.decide_without_claim_decision(task, judged))
    assert measured["entailment"] == 0.9 and measured["contradiction"] == 0.1
    assert measured["entailing_share"] == 0.5  # one of the two sentence windows
    assert measured["reference_words"] == 7 and measured["claim_words"] == 4
    assert measured["relevance"] == 1.0 and measured["mismatch"] == 0.0
    assert measured["entailed"] == 1.0 and measured["contradicted"] == 0.0


def test_checker_applies_the_decision_both_ways(tmp_path):
    refuse = ClaimDecision(("entailment",), (0.0,), (1.0,), (1.0,), -10.0)  # P(E)=0.9 gives P(supported) 0.0003
    accept = ClaimDecision(("entailment",), (0.0,), (1.0,), (1.0,), 10.0)  # P(E)=0.1 gives P(supported) 0.9997
    refuse.save(tmp_path / "refuse.json")
    accept.save(tmp_path / "accept.json")

    def deciding(name: str) -> SegmentedChecker:
        return SegmentedChecker(KeywordScorer(), plain_options(relevance="off", decision=str(tmp_path / name)))

    task_entailed = CheckTask("the sky is blue", ("The sky is blue.",))
    task_neutral = CheckTask("the sky is red", ("The sky is blue.",))
    refusing = deciding("refuse.json")
    verdict = refusing.check([task_entailed])[0]
    assert verdict.label is Label.NEUTRAL and verdict.rule == "decision"
    assert verdict.support == pytest.approx(1 / (1 + math.exp(10 - math.log(9))))
    assert "P(supported) 0.00 < 0.50" in verdict.reason
    accepting = deciding("accept.json")
    verdict = accepting.check([task_neutral])[0]
    assert verdict.label is Label.ENTAILMENT and verdict.rule == "decision" and verdict.evidence == "The sky is blue."
    kept = accepting.check([task_entailed])[0]
    assert kept.label is Label.ENTAILMENT and kept.rule == "model" and kept.support > 0.99
    plain = SegmentedChecker(KeywordScorer(), plain_options(relevance="off")).check([task_entailed])[0]
    assert plain.support is None and plain.label is Label.ENTAILMENT
