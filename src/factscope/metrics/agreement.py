"""Agreement between predictions and human labels: accuracy, F1, correlations, Somers' D."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np


def _check_lengths(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"length mismatch: {len(a)} vs {len(b)}")
    if not a:
        raise ValueError("no items to compare")


def accuracy(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> float:
    """Share of items whose prediction equals the gold label."""
    _check_lengths(gold, predicted)
    return sum(g == p for g, p in zip(gold, predicted)) / len(gold)


def per_class_f1(
    gold: Sequence[Hashable], predicted: Sequence[Hashable], classes: Sequence[Hashable] | None = None
) -> dict[Hashable, float]:
    """F1 of each class: 2PR / (P + R), with P or R taken as 0 when its denominator is 0."""
    _check_lengths(gold, predicted)
    classes = list(classes) if classes is not None else sorted(set(gold) | set(predicted), key=str)
    scores = {}
    for cls in classes:
        tp = sum(g == cls and p == cls for g, p in zip(gold, predicted))
        fp = sum(g != cls and p == cls for g, p in zip(gold, predicted))
        fn = sum(g == cls and p != cls for g, p in zip(gold, predicted))
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        scores[cls] = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return scores


def macro_f1(gold: Sequence[Hashable], predicted: Sequence[Hashable], classes: Sequence[Hashable] | None = None) -> float:
    """Unweighted mean of the per-class F1 scores (over ``classes``, default: every class seen)."""
    scores = per_class_f1(gold, predicted, classes)
    return sum(scores.values()) / len(scores)


def pearson(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Pearson's r and its two-sided p-value; undefined (constant input) raises ValueError."""
    _check_lengths(x, y)
    _require_variation(x, y)
    from scipy import stats  # on first use: the command line starts without scipy

    result = stats.pearsonr(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    return float(result.statistic), float(result.pvalue)


def spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Spearman's rho (Pearson on average ranks) and its two-sided p-value."""
    _check_lengths(x, y)
    _require_variation(x, y)
    from scipy import stats  # on first use: the command line starts without scipy

    result = stats.spearmanr(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    return float(result.statistic), float(result.pvalue)


def somers_d(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Somers' D of ``y`` given ``x`` (D(Y|X) = (concordant - discordant) / pairs not tied on X), with p-value.

    As in CONNER, x are human ratings (e.g. 0 / 1 / 2) and y a metric's scores.
    """
    _check_lengths(x, y)
    _require_variation(x, y)
    from scipy import stats  # on first use: the command line starts without scipy

    result = stats.somersd(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    return float(result.statistic), float(result.pvalue)


def _require_variation(x: Sequence[float], y: Sequence[float]) -> None:
    if len(set(x)) < 2 or len(set(y)) < 2:
        raise ValueError("a correlation needs at least two distinct values on each side")
