"""How well a checker decides labelled pairs: balanced accuracy of entailment vs not and AUROC of P(Entailment) per
dataset, 3-way macro-F1 where the gold labels are 3-way, confusion matrices, and pairs per second."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from factscope.checkers.base import Checker, CheckTask
from factscope.core.errors import ConfigError
from factscope.core.runs.loop import ProgressCallback, StageProgress, stage
from factscope.core.schema import Label, Verdict
from factscope.evaluation.pairs import THREE_WAY, LabelledPair, PartChoice
from factscope.metrics.classification import (
    auroc,
    balanced_accuracy,
    best_threshold,
    confusion_matrix,
    macro_f1,
    per_class_f1,
)

BINARY = ("entailment", "not_entailment")
"""The classes of the binary decision, in the order of its confusion matrix."""

ScoreSource = Literal["probability", "score", "label"]
"""What a verdict's binary decision was read from: P(Entailment), the checker's score, or its label."""


class ConfusionMatrix(BaseModel):
    """Counts of (gold, predicted) labels: ``counts[i][j]`` is gold ``classes[i]`` predicted ``classes[j]``."""

    classes: list[str]
    counts: list[list[int]]


class DatasetFigures(BaseModel):
    """The figures of one dataset; pairs whose check failed are counted in ``failed`` and left out of the rest."""

    dataset: str
    n: int
    failed: int
    entailed: int
    balanced_accuracy: float | None
    confusion: ConfusionMatrix
    auroc: float | None = None
    """AUROC of the verdicts' P(Entailment) (the similarity checker: its cosine) against the gold decision; None
    when a verdict has no probability (the LLM checker) or the gold labels are of one class."""
    macro_f1_3way: float | None = None
    per_class_f1: dict[str, float] | None = None
    confusion_3way: ConfusionMatrix | None = None
    pairs_per_second: float | None = None
    """Pairs checked per second of ``checker.check`` on this dataset (failed ones included)."""


class EvalReport(BaseModel):
    """A checker's figures on labelled pairs, per dataset and as the mean over datasets."""

    checker: str
    threshold: float | None
    """None: a pair is judged entailed when the checker's label is Entailment."""
    decided_by: list[ScoreSource]
    """What the binary decisions were read from (several where verdicts differ)."""
    tuned_on: list[str] | None = None
    """The dev files the threshold was tuned on (all their datasets pooled), if it was."""
    claim_decision: str | None = None
    """The claim decision fitted for this evaluation and saved at this path (``fit_decision``), if one was."""
    datasets: list[DatasetFigures]
    mean_balanced_accuracy: float | None
    mean_macro_f1_3way: float | None
    mean_auroc: float | None = None
    """The mean AUROC over the datasets that have one."""
    pairs: int
    failed: int
    check_seconds: float
    pairs_per_second: float | None
    load_seconds: float | None = None
    """Time to build the checker (model loading), kept out of ``pairs_per_second``."""
    inputs: list[str] = []
    """The pair files, as given."""
    part: PartChoice = "all"
    """The part of the split by group that was evaluated."""
    limit: int | None = None
    """At most this many pairs per dataset were evaluated (``evaluation.pairs.sample_pairs``), if set."""
    skipped: int = 0
    """Records of the files that could not be read as pairs."""


class CheckerComparison(BaseModel):
    """Several checkers' reports on the same pairs, in the order they were given."""

    reports: list[EvalReport]


def decision_score(verdict: Verdict) -> tuple[float, ScoreSource] | None:
    """The number a threshold applies to: P(Entailment) where the checker gives probabilities, else its score
    (the similarity checker's cosine); None for checkers that give only a label (the LLM checker)."""
    if verdict.probs is not None:
        return verdict.probs[0], "probability"
    if verdict.score is not None:
        return verdict.score, "score"
    return None


def judged_entailed(verdict: Verdict, threshold: float | None) -> tuple[bool, ScoreSource]:
    """The binary decision on one verdict: score >= ``threshold`` where a threshold and a score are given, else
    whether the label is Entailment."""
    scored = decision_score(verdict) if threshold is not None else None
    if scored is not None and threshold is not None:
        return scored[0] >= threshold, scored[1]
    return verdict.label is Label.ENTAILMENT, "label"


def _check_batches(
    checker: Checker, pairs: Sequence[LabelledPair], batch_size: int, shown: StageProgress
) -> tuple[list[Verdict], float]:
    verdicts: list[Verdict] = []
    seconds = 0.0
    for start in range(0, len(pairs), batch_size):
        batch = pairs[start : start + batch_size]
        tasks = [CheckTask(claim=pair.hypothesis, references=(pair.premise,)) for pair in batch]
        began = time.perf_counter()
        verdicts.extend(checker.check(tasks))
        seconds += time.perf_counter() - began
        shown.advance(len(batch))
    return verdicts, seconds


def check_pairs(
    checker: Checker,
    pairs: Sequence[LabelledPair],
    *,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
    stage_name: str = "checking pairs",
) -> tuple[list[Verdict], float]:
    """One verdict per pair (the hypothesis checked against the premise as the only reference) and the seconds
    spent in ``checker.check``."""
    with stage(progress, stage_name, len(pairs)) as shown:
        return _check_batches(checker, pairs, batch_size, shown)


def _decided(verdict: Verdict) -> bool:
    return not verdict.failed and verdict.label is not None


def tune_threshold(
    checker: Checker,
    pairs: Sequence[LabelledPair],
    *,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
) -> float:
    """The threshold that maximises balanced accuracy on ``pairs`` (all datasets pooled; see
    ``metrics.classification.best_threshold``). A checker without probabilities or scores raises ConfigError."""
    verdicts, _ = check_pairs(
        checker, pairs, batch_size=batch_size, progress=progress, stage_name="tuning threshold"
    )
    scores: list[float] = []
    gold: list[bool] = []
    for pair, verdict in zip(pairs, verdicts):
        scored = decision_score(verdict) if _decided(verdict) else None
        if scored is not None:
            scores.append(scored[0])
            gold.append(pair.entailed)
    if not scores:
        raise ConfigError(
            f"checker {checker.name} gave no probability or score on the dev pairs, so no threshold can be tuned; "
            "judge by its labels (no threshold) instead"
        )
    if all(gold) or not any(gold):
        raise ConfigError("the dev pairs are all of one class (entailment or not); a threshold needs both")
    return best_threshold(scores, gold)


def _dataset_figures(
    dataset: str, pairs: list[LabelledPair], verdicts: list[Verdict], threshold: float | None
) -> tuple[DatasetFigures, set[ScoreSource]]:
    decided = [(pair, verdict) for pair, verdict in zip(pairs, verdicts) if _decided(verdict)]
    sources: set[ScoreSource] = set()
    gold_binary: list[bool] = []
    predicted_binary: list[bool] = []
    for pair, verdict in decided:
        entailed, source = judged_entailed(verdict, threshold)
        sources.add(source)
        gold_binary.append(pair.entailed)
        predicted_binary.append(entailed)
    figures = DatasetFigures(
        dataset=dataset,
        n=len(decided),
        failed=len(pairs) - len(decided),
        entailed=sum(gold_binary),
        balanced_accuracy=balanced_accuracy(gold_binary, predicted_binary) if decided else None,
        confusion=ConfusionMatrix(
            classes=list(BINARY),
            counts=confusion_matrix(
                [BINARY[not g] for g in gold_binary], [BINARY[not p] for p in predicted_binary], BINARY
            ),
        ),
    )
    figures.auroc = _auroc([pair.entailed for pair, _ in decided], [decision_score(v) for _, v in decided])
    if _three_way([pair.label for pair, _ in decided]):
        gold = [pair.label for pair, _ in decided]
        predicted = [verdict.label.value.lower() for _, verdict in decided if verdict.label is not None]
        figures.macro_f1_3way = macro_f1(gold, predicted, THREE_WAY)
        figures.per_class_f1 = per_class_f1(gold, predicted, THREE_WAY)
        figures.confusion_3way = ConfusionMatrix(
            classes=list(THREE_WAY), counts=confusion_matrix(gold, predicted, THREE_WAY)
        )
    return figures, sources


def _auroc(gold: Sequence[bool], scored: Sequence[tuple[float, ScoreSource] | None]) -> float | None:
    """AUROC of the scores when every verdict has one and both gold classes occur, else None."""
    if not scored or any(score is None for score in scored) or all(gold) or not any(gold):
        return None
    return auroc(gold, [score[0] for score in scored if score is not None])


def _three_way(gold: Sequence[str]) -> bool:
    """Whether gold labels are 3-way: all of entailment / neutral / contradiction, and not all entailment (a set
    whose every pair is entailed could as well be two-way)."""
    return (
        bool(gold)
        and all(label in THREE_WAY for label in gold)
        and any(label != "entailment" for label in gold)
    )


def _mean(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else None


def evaluate_checker(
    checker: Checker,
    pairs: Sequence[LabelledPair],
    *,
    threshold: float | None = None,
    batch_size: int = 32,
    progress: ProgressCallback | None = None,
) -> EvalReport:
    """Check every pair with ``checker`` and score its decisions per dataset (datasets in order of appearance).

    Without ``threshold`` a pair is judged entailed when the checker's label is Entailment; with one, when
    ``decision_score`` >= threshold (checkers that give only labels are still judged by label). The 3-way
    figures use the checker's label and are given for datasets whose gold labels are all 3-way (entailment,
    neutral, contradiction; not all entailment).
    """
    by_dataset: dict[str, list[LabelledPair]] = {}
    for pair in pairs:
        by_dataset.setdefault(pair.dataset, []).append(pair)
    datasets: list[DatasetFigures] = []
    sources: set[ScoreSource] = set()
    seconds = 0.0
    with stage(progress, "checking pairs", len(pairs)) as shown:
        for dataset, members in by_dataset.items():
            verdicts, spent = _check_batches(checker, members, batch_size, shown)
            figures, used = _dataset_figures(dataset, members, verdicts, threshold)
            figures.pairs_per_second = len(members) / spent if spent > 0 else None
            datasets.append(figures)
            sources |= used
            seconds += spent
    failed = sum(figures.failed for figures in datasets)
    return EvalReport(
        checker=checker.name,
        threshold=threshold,
        decided_by=sorted(sources),
        datasets=datasets,
        mean_balanced_accuracy=_mean([figures.balanced_accuracy for figures in datasets]),
        mean_macro_f1_3way=_mean([figures.macro_f1_3way for figures in datasets]),
        mean_auroc=_mean([figures.auroc for figures in datasets]),
        pairs=len(pairs),
        failed=failed,
        check_seconds=seconds,
        pairs_per_second=len(pairs) / seconds if seconds > 0 else None,
    )
