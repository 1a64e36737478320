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


def test_evidence_aggregation_max_is_eq1_mean_averages_the_passages():
    # mean over evidence: s1 -> ((0.7+0.1)/2, (0.2+0.1)/2, (0.1+0.8)/2) = (0.4, 0.15, 0.45);
    # s2 -> ((0.2+0.3)/2, (0.7+0.3)/2, (0.1+0.4)/2) = (0.25, 0.5, 0.25)
    np.testing.assert_allclose(conner.sentence_factuality(S1, "mean"), [0.4, 0.15, 0.45])
    assert conner.factuality([S1, S2], "min", evidence="mean").as_tuple() == pytest.approx((0.25, 0.5, 0.25))
    assert conner.factuality([S1, S2], "max", evidence="mean").as_tuple() == pytest.approx((0.4, 0.15, 0.45))
    # max over evidence is the default, eq. 1
    assert conner.factuality([S1, S2]).as_tuple() == conner.factuality([S1, S2], evidence="max").as_tuple()
    with pytest.raises(ValueError):
        conner.sentence_factuality(S1, "min")  # type: ignore[arg-type]


# Five one-passage sentences (E, N, C) where ranking by entailment and ranking by label disagree:
# A (0.40, 0.55, 0.05) neutral; B (0.35, 0.05, 0.60) contradiction; C (0.30, 0.60, 0.10) neutral;
# D (0.50, 0.10, 0.40) entailment; F (0.70, 0.20, 0.10) entailment
RANKED = [np.array([v]) for v in ([0.40, 0.55, 0.05], [0.35, 0.05, 0.60], [0.30, 0.60, 0.10], [0.50, 0.10, 0.40],
                                  [0.70, 0.20, 0.10])]


def test_sentences_ranked_by_entailment_or_by_label():
    # by entailment: min -> C (0.30), max -> F (0.70)
    assert conner.factuality(RANKED, "min").as_tuple() == pytest.approx((0.30, 0.60, 0.10))
    assert conner.factuality(RANKED, "max").as_tuple() == pytest.approx((0.70, 0.20, 0.10))
    # by label (contradiction < neutral < entailment, first of equals): min -> B (the only contradiction),
    # max -> D (the first entailment), its probabilities kept
    assert conner.factuality(RANKED, "min", rank_by="label").as_tuple() == pytest.approx((0.35, 0.05, 0.60))
    assert conner.factuality(RANKED, "max", rank_by="label").as_tuple() == pytest.approx((0.50, 0.10, 0.40))
    # CONNER's released scripts: max over sentences by label, counted by label -> D is consistent
    assert conner.factuality(RANKED, "max", hard=True, rank_by="label").as_tuple() == (1.0, 0.0, 0.0)
    # mean does not rank
    assert conner.factuality(RANKED, "mean", rank_by="label").as_tuple() == conner.factuality(RANKED, "mean").as_tuple()
    with pytest.raises(ValueError):
        conner.factuality(RANKED, "min", rank_by="neutral")  # type: ignore[arg-type]


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
