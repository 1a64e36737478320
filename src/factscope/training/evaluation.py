"""Held-out figures of a checker: accuracy, macro-F1 and per-class F1, and the validation-tuned class biases."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

from factscope.checkers.embedded import apply_log_bias


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


@dataclass(frozen=True)
class BiasCheck:
    """Whether tuning class biases on validation helps on validation pairs it was not tuned on."""

    folds: int
    macro_f1_without: float
    macro_f1_with: float

    @property
    def helps(self) -> bool:
        """True when the cross-validated macro-F1 with tuned biases is higher than without."""
        return self.macro_f1_with > self.macro_f1_without


def cross_validate_log_bias(labels: np.ndarray, probs: np.ndarray, folds: int = 5, seed: int = 13) -> BiasCheck:
    """Macro-F1 without and with class biases, each fold scored with biases tuned on the other folds.

    The predictions of all folds are pooled before macro-F1 is taken (stratified folds, seeded). A 3-number
    decision rule tuned for macro-F1 can fit the noise of one validation part; this tells whether it carries over.
    """
    from sklearn.model_selection import StratifiedKFold

    labels = np.asarray(labels)
    n_classes = probs.shape[1]
    smallest = int(np.bincount(labels, minlength=n_classes)[np.unique(labels)].min())
    folds = max(2, min(folds, smallest))
    shifted = np.empty_like(probs)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for fit, held in splitter.split(np.zeros(len(labels)), labels):
        shifted[held] = apply_log_bias(probs[held], tune_log_bias(labels[fit], probs[fit]))
    return BiasCheck(
        folds=folds,
        macro_f1_without=_macro_f1(labels, probs, n_classes),
        macro_f1_with=_macro_f1(labels, shifted, n_classes),
    )


def _macro_f1(labels: np.ndarray, probs: np.ndarray, n_classes: int) -> float:
    """Macro-F1 of argmax predictions over all classes."""
    predicted = probs.argmax(axis=1)
    return float(f1_score(labels, predicted, labels=list(range(n_classes)), average="macro", zero_division=0))
