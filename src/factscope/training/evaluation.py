"""Held-out figures of a checker: accuracy, macro-F1 and per-class F1, figures per set of a training mix, and the
validation-tuned class biases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from sklearn.metrics import accuracy_score, f1_score

from factscope.checkers.embedded import apply_log_bias
from factscope.metrics.classification import balanced_accuracy, macro_f1

Objective = Callable[[np.ndarray, np.ndarray, np.ndarray | None], float]
"""What class biases are tuned for: ``objective(labels, probs, sources)`` -> a figure to maximise."""


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
    """Score argmax predictions of ``probs`` (n, len(classes)) against gold label indices.

    Pairs whose label is outside ``classes`` (2-way ``not_entailment`` pairs of a 3-way mix) are left out:
    :func:`evaluate_by_source` reports them.
    """
    gold = np.asarray(labels)
    kept = gold < len(classes)
    gold = gold[kept]
    predicted = np.asarray(probs)[kept].argmax(axis=1)
    per_class = f1_score(gold, predicted, labels=list(range(len(classes))), average=None, zero_division=0)
    return CheckerReport(
        n=len(gold),
        accuracy=float(accuracy_score(gold, predicted)),
        macro_f1=float(np.mean(per_class)),
        per_class_f1={name: float(value) for name, value in zip(classes, per_class)},
    )


def source_figures(labels: np.ndarray, probs: np.ndarray) -> dict[str, float | int]:
    """One set's figures: n, balanced accuracy of Entailment vs not, and 3-way macro-F1 when its labels are 3-way.

    Entailment is class 0; any other label (neutral, contradiction, not_entailment) is "not".
    """
    gold = np.asarray(labels)
    predicted = np.asarray(probs).argmax(axis=1)
    figures: dict[str, float | int] = {
        "n": len(gold),
        "balanced_accuracy": balanced_accuracy(list(gold == 0), list(predicted == 0)),
    }
    if probs.shape[1] == 3 and bool((gold < 3).all()):
        names = [str(k) for k in range(3)]
        figures["macro_f1"] = macro_f1([str(g) for g in gold], [str(p) for p in predicted], names)
    return figures


def evaluate_by_source(
    labels: np.ndarray, probs: np.ndarray, sources: np.ndarray
) -> dict[str, dict[str, float | int]]:
    """:func:`source_figures` for each set of a mix, by name."""
    sources = np.asarray(sources)
    return {
        str(name): source_figures(np.asarray(labels)[sources == name], np.asarray(probs)[sources == name])
        for name in sorted(set(sources.tolist()))
    }


def macro_f1_objective(labels: np.ndarray, probs: np.ndarray, sources: np.ndarray | None) -> float:
    """Macro-F1 of argmax predictions over all classes (one set)."""
    return _macro_f1(labels, probs, probs.shape[1])


def mix_objective(labels: np.ndarray, probs: np.ndarray, sources: np.ndarray | None) -> float:
    """The mean over sets of 3-way macro-F1 (3-way sets) or balanced accuracy of Entailment vs not (2-way sets)."""
    if sources is None:
        raise ValueError("the mix objective needs each pair's set")
    figures = evaluate_by_source(labels, probs, sources).values()
    return float(np.mean([f.get("macro_f1", f["balanced_accuracy"]) for f in figures]))


def tune_log_bias(
    labels: np.ndarray,
    probs: np.ndarray,
    grid: np.ndarray | None = None,
    rounds: int = 3,
    *,
    objective: Objective = macro_f1_objective,
    sources: np.ndarray | None = None,
) -> np.ndarray:
    """Class biases that maximise ``objective`` (macro-F1 by default) on a validation part, by coordinate search.

    The first class's bias stays 0 (only differences matter). With no gain the biases stay 0.
    """
    grid = np.linspace(-1.5, 1.5, 31) if grid is None else grid
    n_classes = probs.shape[1]
    bias = np.zeros(n_classes)
    best = objective(labels, apply_log_bias(probs, bias), sources)
    for _ in range(rounds):
        improved = False
        for k in range(1, n_classes):
            for value in grid:
                trial = bias.copy()
                trial[k] = value
                score = objective(labels, apply_log_bias(probs, trial), sources)
                if score > best + 1e-9:
                    best, bias, improved = score, trial, True
        if not improved:
            break
    return bias


@dataclass(frozen=True)
class BiasCheck:
    """Whether tuning class biases on validation helps on validation pairs it was not tuned on.

    ``score_without`` and ``score_with`` are the tuning objective's figures (macro-F1, or for a mix of sets the
    mean over sets of 3-way macro-F1 or balanced accuracy).
    """

    folds: int
    score_without: float
    score_with: float

    @property
    def helps(self) -> bool:
        """True when the cross-validated objective with tuned biases is higher than without."""
        return self.score_with > self.score_without


def cross_validate_log_bias(
    labels: np.ndarray,
    probs: np.ndarray,
    folds: int = 5,
    seed: int = 13,
    *,
    objective: Objective = macro_f1_objective,
    sources: np.ndarray | None = None,
) -> BiasCheck:
    """The objective without and with class biases, each fold scored with biases tuned on the other folds.

    The predictions of all folds are pooled before the objective is taken (stratified folds, seeded). A 3-number
    decision rule tuned on one validation part can fit its noise; this tells whether it carries over.
    """
    from sklearn.model_selection import StratifiedKFold

    labels = np.asarray(labels)
    n_classes = probs.shape[1]
    smallest = int(np.bincount(labels, minlength=n_classes)[np.unique(labels)].min())
    folds = max(2, min(folds, smallest))
    shifted = np.empty_like(probs)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    for fit, held in splitter.split(np.zeros(len(labels)), labels):
        fit_sources = None if sources is None else np.asarray(sources)[fit]
        biases = tune_log_bias(labels[fit], probs[fit], objective=objective, sources=fit_sources)
        shifted[held] = apply_log_bias(probs[held], biases)
    return BiasCheck(
        folds=folds,
        score_without=objective(labels, probs, sources),
        score_with=objective(labels, shifted, sources),
    )


def _macro_f1(labels: np.ndarray, probs: np.ndarray, n_classes: int) -> float:
    """Macro-F1 of argmax predictions over all classes."""
    predicted = probs.argmax(axis=1)
    return float(f1_score(labels, predicted, labels=list(range(n_classes)), average="macro", zero_division=0))
