"""CONNER's equations against hand-computed examples (CONNER, eq. 1-9)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from factscope.metrics import conner

# Two sentences, columns (E, N, C).
# s1: evidence rows e11 (0.7, 0.2, 0.1) and e12 (0.1, 0.1, 0.8) -> best entailment e11 -> (0.7, 0.2, 0.1)
# s2: evidence rows e21 (0.2, 0.7, 0.1) and e22 (0.3, 0.3, 0.4) -> best entailment e22 -> (0.3, 0.3, 0.4)
S1 = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
S2 = np.array([[0.2, 0.7, 0.1], [0.3, 0.3, 0.4]])


def test_sentence_factuality_keeps_best_entailing_evidence():
    assert conner.best_evidence(S1) == 0
    np.testing.assert_allclose(conner.sentence_factuality(S2), [0.3, 0.3, 0.4])


def test_factuality_min_mean_max():
    # min along entailment: s2 (0.3 < 0.7) -> (0.3, 0.3, 0.4)
    assert conner.factuality([S1, S2], "min").as_tuple() == pytest.approx((0.3, 0.3, 0.4))
    # max: s1 -> (0.7, 0.2, 0.1)
    assert conner.factuality([S1, S2], "max").as_tuple() == pytest.approx((0.7, 0.2, 0.1))
    # mean: ((0.7+0.3)/2, (0.2+0.3)/2, (0.1+0.4)/2) = (0.5, 0.25, 0.25)
    assert conner.factuality([S1, S2], "mean").as_tuple() == pytest.approx((0.5, 0.25, 0.25))


def test_factuality_hard_labels():
    # hard: s1 -> argmax E -> (1,0,0); s2 -> argmax C -> (0,0,1); mean -> (0.5, 0, 0.5); min -> s2 (0,0,1)
    assert conner.factuality([S1, S2], "mean", hard=True).as_tuple() == pytest.approx((0.5, 0.0, 0.5))
    assert conner.factuality([S1, S2], "min", hard=True).as_tuple() == pytest.approx((0.0, 0.0, 1.0))


def test_factuality_rejects_bad_input():
    with pytest.raises(ValueError):
        conner.factuality([])
    with pytest.raises(ValueError):
        conner.factuality([S1], "median")
    with pytest.raises(ValueError):
        conner.factuality([np.zeros((2, 2))])


def test_sentence_coherence_eq3():
    # s1 log-probs ln(0.5), ln(0.5): PPL = exp(-ln 0.5) = 2 -> 1/PPL = 0.5
    # s2 log-probs ln(0.25): PPL = 4 -> 0.25 ; mean = (0.5 + 0.25) / 2 = 0.375
    s1 = [math.log(0.5), math.log(0.5)]
    s2 = [math.log(0.25)]
    assert conner.perplexity(s1) == pytest.approx(2.0)
    assert conner.sentence_coherence([s1, s2]) == pytest.approx(0.375)


def test_informativeness_eq5():
    # mean ln P = (ln 0.5 + ln 0.125) / 2 = ln(0.25) -> exp = 0.25 -> 1 - 0.25 = 0.75
    assert conner.informativeness([math.log(0.5), math.log(0.125)]) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        conner.informativeness([])


def test_helpfulness_eq6():
    # L = -(ln 0.5 + ln 0.5)/2 = ln 2 = 0.6931 ; baselines 2 ln 2 and 4 ln 2 -> mean 3 ln 2
    # S_help = max(0, 1 - ln2 / (3 ln2)) = 2/3
    loss = conner.answer_loss([math.log(0.5), math.log(0.5)])
    assert loss == pytest.approx(math.log(2))
    assert conner.helpfulness(loss, [2 * math.log(2), 4 * math.log(2)]) == pytest.approx(2 / 3)
    # knowledge worse than the random baseline -> 0, not negative
    assert conner.helpfulness(3.0, [1.0, 2.0]) == 0.0
    with pytest.raises(ValueError):
        conner.helpfulness(1.0, [])


def test_validity_eq7_eq8():
    assert conner.span_validity([0.8, 0.15, 0.05]) == pytest.approx(0.8)
    # max entailment over three evidence passages: 0.6
    assert conner.open_validity(np.array([[0.2, 0.7, 0.1], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8]])) == pytest.approx(0.6)


def test_q_know_eq9():
    # 0.4*0.9 + 0.3*0.5 + 0.2*0.8 + 0.1*0.6 = 0.36 + 0.15 + 0.16 + 0.06 = 0.73
    assert conner.q_know([0.9, 0.5, 0.8, 0.6], [0.4, 0.3, 0.2, 0.1]) == pytest.approx(0.73)
    # default equal weights: (0.9 + 0.5 + 0.8 + 0.6) / 4 = 0.7
    assert conner.q_know([0.9, 0.5, 0.8, 0.6]) == pytest.approx(0.7)
    with pytest.raises(ValueError):
        conner.q_know([1.0, 2.0])
