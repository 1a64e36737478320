"""Grounding metrics of Truly Ground, checked against hand-computed examples."""

import pytest

from factscope.metrics.grounding import (
    FactShare,
    answer_alternatives,
    average_scores,
    breakdown,
    contains_answer,
    count_present,
    grounding_score,
    normalize_answer,
)
from factscope.metrics.ratios import f1


def test_precision_recall_f1_by_hand():
    # response facts: 3 of 4 present in the contexts -> precision 3/4 = 0.75
    # gold facts: 1 of 2 present in the response -> recall 1/2 = 0.5
    # F1 = 2 * 0.75 * 0.5 / (0.75 + 0.5) = 0.75 / 1.25 = 0.6
    score = grounding_score([True, True, False, True], [True, False])
    assert score.precision == pytest.approx(0.75)
    assert score.recall == pytest.approx(0.5)
    assert score.f1 == pytest.approx(0.6)
    assert score.response_facts == FactShare(total=4, present=3)


def test_unjudged_facts_are_left_out_not_counted_absent():
    # 2 present, 1 absent, 1 unjudged -> precision 2/3, unjudged counted
    counts = count_present([True, None, False, True])
    assert counts == FactShare(total=4, present=2, unjudged=1)
    score = grounding_score([True, None, False, True], [True])
    assert score.precision == pytest.approx(2 / 3)
    # F1 = 2 * (2/3) * 1 / (2/3 + 1) = (4/3) / (5/3) = 0.8
    assert score.f1 == pytest.approx(0.8)


def test_empty_policies():
    # no response facts: precision 0 by default, recall 0 (gold absent from empty response) -> F1 0
    score = grounding_score([], [False, False])
    assert score.precision == 0.0 and score.recall == 0.0 and score.f1 == 0.0
    skipped = grounding_score([], [True], no_response_facts="skip")
    assert skipped.precision is None and skipped.f1 is None and skipped.recall == 1.0
    # no gold facts: recall and F1 undefined by default; "zero" makes them 0
    assert grounding_score([True], []).recall is None
    assert grounding_score([True], [], no_gold_facts="zero").f1 == 0.0
    assert f1(0.0, 0.0) == 0.0
    assert f1(None, 1.0) is None


def test_answer_matching_normalises_and_takes_alternatives():
    assert normalize_answer("The  Lenne-River!") == "lenne river"
    assert contains_answer("It flows into the Lenne river.", "Lenne River|Lenne")
    assert contains_answer("Opened in 1894.", "eighteen ninety-four|1894")
    # whole words only: "18945" does not contain the answer "1894"
    assert not contains_answer("Number 18945.", "1894")
    assert contains_answer("anything", " | ") is None


def test_answer_grammar_and_binds_tighter_than_or_and_newline():
    # "ankle & foot": one alternative of two parts, both must appear
    assert answer_alternatives("ankle & foot") == [["ankle", "foot"]]
    assert contains_answer("He hurt his ankle and his foot.", "ankle & foot")
    assert not contains_answer("He hurt his ankle.", "ankle & foot")
    # "a | b & c" is a, or (b and c)
    assert answer_alternatives("Paris | Lyon & Marseille") == [["Paris"], ["Lyon", "Marseille"]]
    assert contains_answer("It is Paris.", "Paris | Lyon & Marseille")
    assert contains_answer("Marseille, then Lyon.", "Paris | Lyon & Marseille")
    assert not contains_answer("Only Lyon.", "Paris | Lyon & Marseille")
    # a newline separates alternatives like "|"
    assert answer_alternatives("1958\nnineteen fifty-eight | 58") == [["1958"], ["nineteen fifty-eight"], ["58"]]
    assert contains_answer("It closed in nineteen fifty eight.", "1958\nnineteen fifty-eight | 58")
    assert contains_answer("Rodents\nand insects", "mice & insects\nrodents")
    assert not contains_answer("mice", "mice & insects\nrodents")
    # empty parts and alternatives are dropped; parts are normalised like the response
    assert answer_alternatives("The Lenne & \n | ") == [["The Lenne"]]
    assert contains_answer("the lenne!", "The Lenne & \n | ")


def test_macro_average_and_breakdown_by_factor():
    a = grounding_score([True, False], [True])  # P 0.5, R 1, F1 = 2*0.5/(1.5) = 2/3
    b = grounding_score([True], [False, True])  # P 1, R 0.5, F1 2/3
    c = grounding_score([True], [])  # P 1, R None, F1 None
    averages = average_scores([a, b, c], [True, False, None])
    assert averages.precision == pytest.approx((0.5 + 1 + 1) / 3)
    assert averages.recall == pytest.approx(0.75)
    assert averages.f1 == pytest.approx(2 / 3)
    assert (averages.f1_n, averages.answer_n, averages.answer_accuracy) == (2, 2, 0.5)
    items = [(a, True, {"has_multi": True, "pop": "high"}), (b, False, {"has_multi": False}), (c, None, {})]
    by_multi = breakdown(items, "has_multi")
    assert set(by_multi.groups) == {"multi", "single"} and by_multi.missing == 1
    assert by_multi.groups["single"].recall == pytest.approx(0.5)
    by_pop = breakdown(items, "pop")
    assert list(by_pop.groups) == ["high"] and by_pop.missing == 2


def test_agreement_statistics_by_hand():
    from factscope.metrics.grounding import agreement

    human = [True, True, False, False]
    predicted = [True, False, False, False]
    # accuracy 3/4; kappa: p_o = 0.75, p_e = 0.5*0.25 + 0.5*0.75 = 0.5 -> (0.75 - 0.5) / 0.5 = 0.5
    assert agreement("accuracy", human, predicted) == pytest.approx(0.75)
    assert agreement("kappa", human, predicted) == pytest.approx(0.5)
    # phi = (TP*TN - FP*FN) / sqrt((TP+FP)(TN+FN)(TP+FN)(TN+FP)) = (1*2 - 0*1) / sqrt(1*3*2*2) = 2 / sqrt(12)
    assert agreement("pearson", human, predicted) == pytest.approx(2 / 12**0.5)
    assert agreement("pearson", human, [True] * 4) is None


def test_calibrate_threshold_picks_the_best_midpoint():
    from factscope.metrics.grounding import calibrate_threshold

    scores = [0.9, 0.7, 0.5, 0.3, 0.1]
    human = [True, True, False, True, False]
    # candidates: 0.1-1, 0.2, 0.4, 0.6, 0.8, 0.9+1. Accuracy at 0.2: 4/5 (0.1 absent ok, 0.5 wrongly present);
    # at 0.4: 4/5 as well (0.3 wrongly absent) -> tie, lowest wins; at 0.6: 3/5.
    result = calibrate_threshold(scores, human, "accuracy")
    assert result.threshold == pytest.approx(0.2) and result.value == pytest.approx(0.8)
    assert result.candidates == 6
    with pytest.raises(ValueError, match="undefined for every threshold"):
        calibrate_threshold([0.1, 0.2], [True, True], "pearson")
