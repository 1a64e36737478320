"""Held-out figures of a checker: accuracy, macro-F1 and per-class F1, and the validation-tuned class biases."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from sklearn.metrics import accuracy_score, f1_score


@dataclass(frozen=True)
class CheckerReport:
    """Figures on one labelled part (the held-out test part in the shipped report)."""

    n: int
    accuracy: float
    macro_f1: float
    per_class_f1: dict[str, float]

    def as_dict(self) -> dict:
        """The report as JSON-ready data (for the checker manifest)."""
        return asdict(self)


def evaluate(labels: np.ndarray, probs: np.ndarray, classes: tuple[str, ...]) -> CheckerReport:
    """Score argmax predictions of ``probs`` (n, len(classes)) against gold label indices."""
    predicted = np.asarray(probs).argmax(axis=1)
    gold = np.asarray(labels)
    per_class = f1_score(gold, predicted, labels=list(range(len(classes))), average=None, zero_division=0)
    return CheckerReport(
        n=len(gold),
        accuracy=float(accuracy_score(gold, predicted)),
        macro_f1=float(np.mean(per_class)),
        per_class_f1={name: float(value) for name, value in zip(classes, per_class)},
    )


def apply_log_bias(probs: np.ndarray, log_bias: np.ndarray) -> np.ndarray:
    """Shift each class's log-probability by a bias and renormalise (a prior correction; rows sum to 1)."""
    logits = np.log(np.clip(probs, 1e-12, 1.0)) + np.asarray(log_bias)[None, :]
    logits -= logits.max(axis=1, keepdims=True)
    shifted = np.exp(logits)
    return shifted / shifted.sum(axis=1, keepdims=True)


def tune_log_bias(
    labels: np.ndarray, probs: np.ndarray, grid: np.ndarray | None = None, rounds: int = 3
) -> np.ndarray:
    """Class biases that maximise macro-F1 on a validation part, by coordinate search over a grid.

    The first class's bias stays 0 (only differences matter). With no gain the biases stay 0.
    """
    grid = np.linspace(-1.5, 1.5, 31) if grid is None else grid
    n_classes = probs.shape[1]
    bias = np.zeros(n_classes)
    best = _macro_f1(labels, apply_log_bias(probs, bias), n_classes)
    for _ in range(rounds):
        improved = False
        for k in range(1, n_classes):
            for value in grid:
                trial = bias.copy()
                trial[k] = value
                score = _macro_f1(labels, apply_log_bias(probs, trial), n_classes)
                if score > best + 1e-9:
                    best, bias, improved = score, trial, True
        if not improved:
            break
    return bias


def _macro_f1(labels: np.ndarray, probs: np.ndarray, n_classes: int) -> float:
    """Macro-F1 of argmax predictions over all classes."""
    predicted = probs.argmax(axis=1)
    return float(f1_score(labels, predicted, labels=list(range(n_classes)), average="macro", zero_division=0))
