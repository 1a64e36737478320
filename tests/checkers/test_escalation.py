"""The rule that sends a fast-mode claim to exact scoring: margin to a deciding label, and the relevance bound."""

import numpy as np

from factscope.checkers.decision import LabelDecision
from factscope.checkers.escalation import ScoredWindow, escalation
from factscope.core.schema import Label

ARGMAX = LabelDecision()


def window(probs, relevance=0.5):
    return ScoredWindow(np.array(probs), relevance)


def test_an_entailed_claim_is_never_escalated():
    scored = [window([0.6, 0.3, 0.1])]
    assert escalation(Label.ENTAILMENT, scored, [0.9, 0.9], ARGMAX, 1.0) is None


def test_a_claim_with_nothing_left_unscored_is_never_escalated():
    assert escalation(Label.NEUTRAL, [window([0.45, 0.5, 0.05])], [], ARGMAX, 0.3) is None


def test_a_window_within_the_margin_of_entailment_escalates():
    near = [window([0.35, 0.55, 0.1])]  # 0.55 - 0.35 = 0.2 from Entailment
    assert escalation(Label.NEUTRAL, near, [0.1], ARGMAX, 0.3) == "margin"
    assert escalation(Label.NEUTRAL, near, [0.1], ARGMAX, 0.15) is None
    assert escalation(Label.NEUTRAL, [window([0.0, 1.0, 0.0])], [0.1], ARGMAX, 1.0) == "margin"  # 1: always
    far = [window([0.05, 0.9, 0.05])]
    assert escalation(Label.NEUTRAL, far, [0.1], ARGMAX, 0.3) is None


def test_a_neutral_claim_near_contradiction_escalates_but_a_contradicted_one_only_near_entailment():
    near_contradiction = [window([0.05, 0.5, 0.45])]  # 0.05 from Contradiction, 0.45 from Entailment
    assert escalation(Label.NEUTRAL, near_contradiction, [0.1], ARGMAX, 0.3) == "margin"
    contradicted = [window([0.05, 0.3, 0.65]), window([0.05, 0.5, 0.45])]
    assert escalation(Label.CONTRADICTION, contradicted, [0.1], ARGMAX, 0.3) is None


def test_an_unscored_window_more_relevant_than_every_scored_one_escalates():
    scored = [window([0.05, 0.9, 0.05], 0.5), window([0.05, 0.9, 0.05], 0.6)]
    assert escalation(Label.NEUTRAL, scored, [0.7, 0.2], ARGMAX, 0.3) == "relevance"
    assert escalation(Label.NEUTRAL, scored, [0.6, 0.2], ARGMAX, 0.3) is None  # a tie is not more relevant
    unfiltered = [window([0.05, 0.9, 0.05], None)]
    assert escalation(Label.NEUTRAL, unfiltered, [None, None], ARGMAX, 0.3) is None


def test_the_margin_follows_the_checkers_threshold():
    scored = [window([0.45, 0.5, 0.05])]
    assert escalation(Label.NEUTRAL, scored, [0.1], LabelDecision(0.5), 0.1) == "margin"  # 0.5 - 0.45
    assert escalation(Label.NEUTRAL, scored, [0.1], LabelDecision(0.9), 0.1) is None


def test_an_entailment_overruled_by_the_value_check_escalates_unless_nothing_is_left():
    scored = [window([0.95, 0.04, 0.01])]
    assert escalation(Label.ENTAILMENT, scored, [0.3], ARGMAX, 0.0, overruled=True) == "overruled"
    assert escalation(Label.ENTAILMENT, scored, [], ARGMAX, 0.0, overruled=True) is None
