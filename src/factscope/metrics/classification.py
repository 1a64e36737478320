"""How well a classifier decides labelled pairs: confusion matrix, balanced accuracy, macro-F1, a tuned threshold."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.metrics import agreement


def _check_lengths(gold: Sequence[object], predicted: Sequence[object]) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"length mismatch: {len(gold)} gold labels vs {len(predicted)} predictions")
    if not gold:
        raise ValueError("no items to compare")


def confusion_matrix(
    gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
) -> list[list[int]]:
    """Counts of (gold, predicted) label pairs: row i is gold ``classes[i]``, column j is predicted ``classes[j]``.

    A label outside ``classes`` raises ValueError, so that no item is dropped silently.
    """
    if len(gold) != len(predicted):
        raise ValueError(f"length mismatch: {len(gold)} gold labels vs {len(predicted)} predictions")
    index = {cls: i for i, cls in enumerate(classes)}
    matrix = [[0] * len(classes) for _ in classes]
    for g, p in zip(gold, predicted):
        for label in (g, p):
            if label not in index:
                raise ValueError(f"label {label!r} is not one of the classes {list(classes)}")
        matrix[index[g]][index[p]] += 1
    return matrix


def balanced_accuracy(gold: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Mean of the recall on positives and the recall on negatives.

    The mean runs over the classes present in ``gold`` (scikit-learn's convention): where every gold label is
    the same, it is the recall of that one class. No items raise ValueError.
    """
    _check_lengths(gold, predicted)
    recalls = []
    for cls in (True, False):
        predictions = [p for g, p in zip(gold, predicted) if bool(g) is cls]
        if predictions:
            recalls.append(sum(bool(p) is cls for p in predictions) / len(predictions))
    return sum(recalls) / len(recalls)


def per_class_f1(gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]) -> dict[str, float]:
    """F1 of each of ``classes``: 2PR / (P + R), with P or R taken as 0 where its denominator is 0.

    A class with no gold item and no prediction therefore has F1 0 (scikit-learn's ``zero_division=0``).
    """
    scores = agreement.per_class_f1(gold, predicted, classes)
    return {cls: scores[cls] for cls in classes}


def macro_f1(gold: Sequence[str], predicted: Sequence[str], classes: Sequence[str]) -> float:
    """Unweighted mean of :func:`per_class_f1` over the given ``classes``."""
    if not classes:
        raise ValueError("no classes to average over")
    scores = per_class_f1(gold, predicted, classes)
    return sum(scores.values()) / len(scores)


def best_threshold(scores: Sequence[float], gold: Sequence[bool]) -> float:
    """The threshold on ``scores`` that maximises balanced accuracy, predicting positive where score >= threshold.

    Every cut between two adjacent distinct scores is tried, and so is predicting every item positive. The
    returned threshold sits half-way between the two scores of the best cut (the lowest score where every item
    is predicted positive), so that it decides the given items as the cut does while leaving a margin on new
    ones. Among cuts with equal balanced accuracy, the lowest threshold wins. Items of only one class raise
    ValueError: no cut is better than another there.
    """
    _check_lengths(scores, gold)
    if all(gold) or not any(gold):
        raise ValueError("a threshold is tuned on items of both classes; these are all of one class")
    ranked = sorted(zip(scores, gold), key=lambda item: item[0])
    positives = sum(bool(g) for g in gold)
    negatives = len(gold) - positives
    # Start with every item predicted positive, then move the cut up past each distinct score in turn.
    true_positives, true_negatives = positives, 0
    best_value = 0.5
    best = ranked[0][0]
    for i, (score, label) in enumerate(ranked[:-1]):
        if label:
            true_positives -= 1
        else:
            true_negatives += 1
        following = ranked[i + 1][0]
        if following == score:
            continue
        value = (true_positives / positives + true_negatives / negatives) / 2
        if value > best_value + 1e-12:  # equal up to rounding is a tie, which the lower threshold wins
            best_value, best = value, (score + following) / 2
    return float(best)


def auroc(gold: Sequence[bool], scores: Sequence[float]) -> float:
    """Area under the ROC curve of ``scores`` for the positives of ``gold``: the chance that a random positive
    scores above a random negative, ties counting one half (the Mann-Whitney U statistic over n+ * n-).

    Threshold-free, so it measures how well the scores separate the classes, apart from calibration. Gold labels
    of one class only raise ValueError (the area is undefined).
    """
    _check_lengths(gold, scores)
    positives = [float(s) for g, s in zip(gold, scores) if g]
    negatives = [float(s) for g, s in zip(gold, scores) if not g]
    if not positives or not negatives:
        raise ValueError("AUROC needs gold labels of both classes")
    ranked = sorted([(s, True) for s in positives] + [(s, False) for s in negatives])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2
        rank_sum += mean_rank * sum(1 for _, positive in ranked[i:j] if positive)
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
