"""The one rule from probabilities to a label: argmax, or P(Entailment) against a threshold."""

import numpy as np
import pytest

from factscope.checkers.decision import LabelDecision
from factscope.core.schema import Label
from factscope.hf.two_way import two_way_probs


def test_argmax_without_threshold():
    assert LabelDecision()(np.array([0.3, 0.3, 0.4])) is Label.CONTRADICTION


def test_threshold_on_entailment_then_neutral_or_contradiction():
    decide = LabelDecision(0.3)
    assert decide(np.array([0.3, 0.6, 0.1])) is Label.ENTAILMENT  # at the threshold counts
    assert decide(np.array([0.29, 0.3, 0.41])) is Label.CONTRADICTION
    assert decide(np.array([0.29, 0.41, 0.3])) is Label.NEUTRAL
    with pytest.raises(ValueError):
        LabelDecision(1.5)


def test_two_way_support_is_entailment_and_the_rest_neutral():
    assert two_way_probs(np.array([0.8, 0.1])).tolist() == [[0.8, pytest.approx(0.2), 0.0], [0.1, 0.9, 0.0]]
    assert LabelDecision(0.5)(two_way_probs(np.array([0.4]))[0]) is Label.NEUTRAL


def test_margin_is_the_probability_a_row_lacks_to_be_decided_a_label():
    argmax = LabelDecision()
    row = np.array([0.3, 0.5, 0.2])
    assert argmax.margin(row, Label.ENTAILMENT) == pytest.approx(0.2)  # 0.5 - 0.3
    assert argmax.margin(row, Label.CONTRADICTION) == pytest.approx(0.3)  # 0.5 - 0.2
    assert argmax.margin(row, Label.NEUTRAL) == 0.0
    threshold = LabelDecision(0.4)
    assert threshold.margin(row, Label.ENTAILMENT) == pytest.approx(0.1)  # 0.4 - 0.3
    assert threshold.margin(np.array([0.6, 0.3, 0.1]), Label.ENTAILMENT) == 0.0
    # Contradiction needs P(E) under the threshold and P(C) over P(N): the larger gap counts
    assert threshold.margin(row, Label.CONTRADICTION) == pytest.approx(0.3)  # 0.5 - 0.2
    assert threshold.margin(np.array([0.5, 0.2, 0.3]), Label.CONTRADICTION) == pytest.approx(0.1)  # 0.5 - 0.4
    assert threshold.margin(np.array([0.1, 0.2, 0.7]), Label.NEUTRAL) == pytest.approx(0.5)
