"""Classification metrics against small hand-computed examples."""

import pytest

from factscope.metrics.classification import (
    auroc,
    balanced_accuracy,
    best_threshold,
    confusion_matrix,
    macro_f1,
    per_class_f1,
)

E, N, C = "entailment", "neutral", "contradiction"


def test_confusion_matrix_rows_are_gold_and_columns_predicted():
    gold = [E, E, N, C, C, C]
    predicted = [E, N, N, C, E, C]
    assert confusion_matrix(gold, predicted, [E, N, C]) == [
        [1, 1, 0],
        [0, 1, 0],
        [1, 0, 2],
    ]


def test_confusion_matrix_rejects_a_label_outside_the_classes():
    with pytest.raises(ValueError, match="generic"):
        confusion_matrix([E, "generic"], [E, E], [E, N])


def test_balanced_accuracy_is_the_mean_of_both_recalls():
    # 3 positives, 2 recalled; 4 negatives, 3 recalled.
    gold = [True, True, True, False, False, False, False]
    predicted = [True, True, False, False, False, False, True]
    assert balanced_accuracy(gold, predicted) == pytest.approx((2 / 3 + 3 / 4) / 2)


def test_balanced_accuracy_with_one_class_is_the_recall_of_that_class():
    assert balanced_accuracy([False, False, False, False], [False, True, False, False]) == pytest.approx(
        3 / 4
    )
    assert balanced_accuracy([True, True], [True, False]) == pytest.approx(1 / 2)


def test_balanced_accuracy_needs_items_of_equal_length():
    with pytest.raises(ValueError):
        balanced_accuracy([], [])
    with pytest.raises(ValueError):
        balanced_accuracy([True], [True, False])


def test_per_class_and_macro_f1():
    gold = [E, E, N, C, C, C]
    predicted = [E, N, N, C, E, C]
    # E: P = 1/2, R = 1/2; N: P = 1/2, R = 1; C: P = 1, R = 2/3.
    f1_e = 2 * (1 / 2) * (1 / 2) / (1 / 2 + 1 / 2)
    f1_n = 2 * (1 / 2) * 1 / (1 / 2 + 1)
    f1_c = 2 * 1 * (2 / 3) / (1 + 2 / 3)
    assert per_class_f1(gold, predicted, [E, N, C]) == pytest.approx({E: f1_e, N: f1_n, C: f1_c})
    assert macro_f1(gold, predicted, [E, N, C]) == pytest.approx((f1_e + f1_n + f1_c) / 3)


def test_a_class_with_no_gold_and_no_prediction_counts_as_f1_zero():
    gold = [E, E, N]
    predicted = [E, N, N]
    f1_e = 2 * 1 * (1 / 2) / (1 + 1 / 2)
    f1_n = 2 * (1 / 2) * 1 / (1 / 2 + 1)
    assert per_class_f1(gold, predicted, [E, N, C])[C] == 0.0
    assert macro_f1(gold, predicted, [E, N, C]) == pytest.approx((f1_e + f1_n + 0.0) / 3)


def test_best_threshold_sits_half_way_across_the_best_cut():
    scores = [0.1, 0.3, 0.4, 0.7, 0.8, 0.9]
    gold = [False, False, True, False, True, True]
    # Cut between 0.3 and 0.4: recall on positives 3/3, on negatives 2/3 -> (1 + 2/3) / 2, the best.
    threshold = best_threshold(scores, gold)
    assert threshold == pytest.approx((0.3 + 0.4) / 2)
    predicted = [s >= threshold for s in scores]
    assert balanced_accuracy(gold, predicted) == pytest.approx((1 + 2 / 3) / 2)


def test_best_threshold_ties_go_to_the_lowest_threshold():
    scores = [0.2, 0.4, 0.6, 0.8]
    gold = [False, True, False, True]
    # Cut 0.2|0.4 gives (2/2 + 1/2) / 2 = 0.75; cut 0.6|0.8 gives (1/2 + 2/2) / 2 = 0.75: a tie.
    assert best_threshold(scores, gold) == pytest.approx((0.2 + 0.4) / 2)


def test_best_threshold_never_splits_equal_scores():
    scores = [0.5, 0.5, 0.5, 0.9]
    gold = [True, False, False, True]
    # Only two cuts exist: all positive (0.5) or only 0.9 positive: (1/2 + 2/2) / 2 = 0.75.
    assert best_threshold(scores, gold) == pytest.approx((0.5 + 0.9) / 2)


def test_best_threshold_with_useless_scores_predicts_everything_positive():
    assert best_threshold([0.3, 0.3, 0.3], [True, False, True]) == pytest.approx(0.3)


def test_best_threshold_needs_both_classes():
    with pytest.raises(ValueError, match="both classes"):
        best_threshold([0.1, 0.2], [True, True])


def test_auroc_is_the_share_of_positive_negative_pairs_ranked_right_ties_half():
    # positives 0.9, 0.4, 0.4; negatives 0.4, 0.1: of the 6 pairs, (0.9, 0.4), (0.9, 0.1), (0.4, 0.1) twice are
    # ranked right (4), the two (0.4, 0.4) ties count one half each: (4 + 1) / 6
    assert auroc([True, True, True, False, False], [0.9, 0.4, 0.4, 0.4, 0.1]) == pytest.approx(5 / 6)
    assert auroc([True, False], [0.2, 0.8]) == 0.0
    assert auroc([False, True], [0.2, 0.8]) == 1.0


def test_auroc_needs_both_classes():
    with pytest.raises(ValueError, match="both classes"):
        auroc([True, True], [0.1, 0.2])
