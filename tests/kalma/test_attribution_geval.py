"""G-Eval reply parsing, probability-weighted score and aspect averages."""

import math

import pytest

from factscope.metrics.geval import aspect_scores, parse_score, weighted_score


@pytest.mark.parametrize("reply, expected", [
    ("4", 4), (" Score: 5\n", 5), ("3/5", 3), ("2 - the answer rambles", 2), ("1.", 1),
    ("4.5", None), ("7", None), ("excellent", None), ("", None), (None, None), ("0", None),
])
def test_parse_score(reply, expected):
    assert parse_score(reply) == expected


def test_weighted_score_renormalises_over_score_tokens():
    # p(4) = 0.6, p(5) = 0.2 -> (4*0.6 + 5*0.2) / 0.8 = 3.4 / 0.8 = 4.25
    assert weighted_score({4: math.log(0.6), 5: math.log(0.2)}) == pytest.approx(4.25)
    # p(1) = p(3) = 0.5 -> 2.0; a None log-prob and a non-score key are ignored
    assert weighted_score({1: math.log(0.5), 3: math.log(0.5), 2: None, 9: 0.0}) == pytest.approx(2.0)
    assert weighted_score({}) is None


def test_aspect_means_leave_out_failed_replies():
    rows = [
        {"coherence": {"score": 4, "weighted": 4.2}, "fluency": {"score": 5, "weighted": None}},
        {"coherence": {"score": None, "weighted": None}, "fluency": {"score": 3, "weighted": None}},
        {"coherence": {"score": 2, "weighted": 2.4}},
    ]
    coherence, fluency = aspect_scores(rows, ["coherence", "fluency"])
    # coherence: (4 + 2) / 2 = 3.0, one failure; weighted (4.2 + 2.4) / 2 = 3.3
    assert (coherence.mean, coherence.scored, coherence.failed) == (3.0, 2, 1)
    assert coherence.weighted_mean == pytest.approx(3.3)
    # fluency: (5 + 3) / 2 = 4.0; no weighted scores
    assert (fluency.mean, fluency.weighted_mean, fluency.failed) == (4.0, None, 0)
