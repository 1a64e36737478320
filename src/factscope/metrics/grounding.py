"""Grounding metrics of Truly Ground ("How Well Do LLMs Truly Ground?"), as pure functions.

precision = share of the response's atomic facts that the presence model finds in the input contexts;
recall    = share of the gold atomic facts that it finds in the response;
grounding score = F1 of the two. (The paper's naming; the paper's public script swaps precision and recall.)

A fact whose presence could not be judged (a failed LLM judgement) is passed as ``None``: it is left out of the
ratio and counted in ``unjudged``, never read as absent.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from factscope.metrics.ratios import EmptyPolicy, f1
from factscope.metrics.running import RunningMean


@dataclass(frozen=True)
class FactShare:
    """How many of a set of facts were judged present."""

    total: int
    present: int
    unjudged: int = 0

    @property
    def judged(self) -> int:
        return self.total - self.unjudged


@dataclass(frozen=True)
class GroundingScore:
    """One record's grounding precision, recall and F1 (None where undefined under the chosen policy)."""

    precision: float | None
    recall: float | None
    f1: float | None
    response_facts: FactShare
    gold_facts: FactShare


def count_present(present: Iterable[bool | None]) -> FactShare:
    """Count facts judged present; ``None`` entries are unjudged."""
    values = list(present)
    return FactShare(
        total=len(values),
        present=sum(1 for value in values if value is True),
        unjudged=sum(1 for value in values if value is None),
    )


def share(counts: FactShare, empty: EmptyPolicy) -> float | None:
    """present / judged; with no judged fact: 0.0 under ``empty="zero"``, None under ``"skip"``."""
    if counts.judged == 0:
        return 0.0 if empty == "zero" else None
    return counts.present / counts.judged


def grounding_score(
    response_present: Sequence[bool | None],
    gold_present: Sequence[bool | None],
    *,
    no_response_facts: EmptyPolicy = "zero",
    no_gold_facts: EmptyPolicy = "skip",
) -> GroundingScore:
    """Grounding precision, recall and F1 of one record.

    ``response_present[i]``: is response fact i in the input contexts; ``gold_present[j]``: is gold fact j in
    the response. Defaults: a response with no atomic facts (empty, or an abstention) gets precision 0 (it
    used none of the context), and a record with no gold facts has undefined recall and F1 (left out of the
    averages), since nothing was required of it.
    """
    response = count_present(response_present)
    gold = count_present(gold_present)
    precision = share(response, no_response_facts)
    recall = share(gold, no_gold_facts)
    return GroundingScore(precision, recall, f1(precision, recall), response, gold)


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans({char: " " for char in string.punctuation})


def normalize_answer(text: str) -> str:
    """Lower-case, replace punctuation by spaces, drop the articles a / an / the, collapse whitespace."""
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION))
    return " ".join(text.split())


def answer_alternatives(answer: str) -> list[list[str]]:
    """The accepted forms of an answer in the dataset's grammar, each a list of parts that must all appear.

    A newline or ``|`` separates alternatives (any one suffices); ``&`` joins the parts of one alternative (all
    must appear) and binds tighter: ``"a | b & c"`` is ``a`` or (``b`` and ``c``). Parts that normalise to
    nothing are dropped, and so are alternatives left without a part.
    """
    alternatives = []
    for alternative in re.split(r"[|\n]", answer):
        parts = [part.strip() for part in alternative.split("&") if normalize_answer(part)]
        if parts:
            alternatives.append(parts)
    return alternatives


def contains_answer(response: str, answer: str) -> bool | None:
    """True when, for some alternative, the normalised response contains every normalised part of it as a
    whole-word sequence (see :func:`answer_alternatives` for the grammar).

    None when the answer has no usable alternative (a free-form question without a short answer).
    """
    alternatives = answer_alternatives(answer)
    if not alternatives:
        return None
    padded = f" {normalize_answer(response)} "
    return any(all(f" {normalize_answer(part)} " in padded for part in parts) for parts in alternatives)


@dataclass(frozen=True)
class GroundingAverages:
    """Macro averages over records: each record weighs the same; undefined values are left out and counted."""

    records: int
    precision: float | None
    recall: float | None
    f1: float | None
    answer_accuracy: float | None
    precision_n: int = 0
    recall_n: int = 0
    f1_n: int = 0
    answer_n: int = 0


@dataclass
class AverageTotals:
    """The running totals behind ``GroundingAverages``: a record count and an exact mean per measure, fed one
    record at a time and merged across parts of a dataset (the same averages whatever the order or split)."""

    records: int = 0
    precision: RunningMean = field(default_factory=RunningMean)
    recall: RunningMean = field(default_factory=RunningMean)
    f1: RunningMean = field(default_factory=RunningMean)
    answers: RunningMean = field(default_factory=RunningMean)

    def add(self, score: GroundingScore, answer: bool | None = None) -> None:
        """Count one record's score and whether its response holds the answer (None: not judged)."""
        self.records += 1
        for mean, value in ((self.precision, score.precision), (self.recall, score.recall), (self.f1, score.f1)):
            if value is not None:
                mean.add(value)
        if answer is not None:
            self.answers.add(float(answer))

    def merge(self, other: AverageTotals) -> None:
        """Count every record ``other`` counted."""
        self.records += other.records
        self.precision.merge(other.precision)
        self.recall.merge(other.recall)
        self.f1.merge(other.f1)
        self.answers.merge(other.answers)

    def averages(self) -> GroundingAverages:
        """The macro averages of the records counted."""
        return GroundingAverages(
            records=self.records,
            precision=self.precision.mean,
            recall=self.recall.mean,
            f1=self.f1.mean,
            answer_accuracy=self.answers.mean,
            precision_n=self.precision.count,
            recall_n=self.recall.count,
            f1_n=self.f1.count,
            answer_n=self.answers.count,
        )


def average_scores(
    scores: Sequence[GroundingScore], answers: Sequence[bool | None] | None = None
) -> GroundingAverages:
    """Macro-average precision, recall, F1 (mean of per-record F1) and answer accuracy; ``answers[i]`` (when
    given) is whether record i's response holds the answer."""
    if answers is not None and len(answers) != len(scores):
        raise ValueError(f"{len(scores)} scores but {len(answers)} answer judgements")
    totals = AverageTotals()
    for index, score in enumerate(scores):
        totals.add(score, answers[index] if answers is not None else None)
    return totals.averages()


FACTOR_NAMES: dict[str, dict[Any, str]] = {
    "has_answer": {True: "definite", False: "free-form"},
    "has_multi": {True: "multi", False: "single"},
}
"""Display names of the paper's boolean factors; other fields are shown by their value."""


def factor_value(metadata: Mapping[str, Any], name: str) -> str | None:
    """The group a record falls in for one factor (None when the record lacks the field)."""
    if name not in metadata or metadata[name] is None:
        return None
    value = metadata[name]
    names = FACTOR_NAMES.get(name, {})
    if isinstance(value, bool) and value in names:
        return names[value]
    return str(value)


@dataclass
class Breakdown:
    """Averages per group of one metadata field."""

    factor: str
    groups: dict[str, GroundingAverages] = field(default_factory=dict)
    missing: int = 0


@dataclass
class BreakdownTotals:
    """The running totals behind a ``Breakdown``: one ``AverageTotals`` per group of ``factor`` and the records
    without the field; mergeable like them."""

    factor: str
    groups: dict[str, AverageTotals] = field(default_factory=dict)
    missing: int = 0

    def add(
        self,
        score: GroundingScore,
        answer: bool | None,
        metadata: Mapping[str, Any],
        name_of: Callable[[Mapping[str, Any], str], str | None] = factor_value,
    ) -> None:
        """Count one record in the group its metadata puts it in (``name_of``), or as missing."""
        group = name_of(metadata, self.factor)
        if group is None:
            self.missing += 1
            return
        self.groups.setdefault(group, AverageTotals()).add(score, answer)

    def merge(self, other: BreakdownTotals) -> None:
        """Count every record ``other`` counted (the same factor)."""
        if other.factor != self.factor:
            raise ValueError(f"cannot merge the breakdown by {other.factor!r} into the one by {self.factor!r}")
        self.missing += other.missing
        for group, totals in other.groups.items():
            self.groups.setdefault(group, AverageTotals()).merge(totals)

    def breakdown(self) -> Breakdown:
        """The averages of each group, groups in sorted order."""
        return Breakdown(
            factor=self.factor,
            groups={group: self.groups[group].averages() for group in sorted(self.groups)},
            missing=self.missing,
        )


def breakdown(
    items: Iterable[tuple[GroundingScore, bool | None, Mapping[str, Any]]],
    factor: str,
    name_of: Callable[[Mapping[str, Any], str], str | None] = factor_value,
) -> Breakdown:
    """Group (score, answer correct, metadata) items by ``factor`` and average each group."""
    totals = BreakdownTotals(factor)
    for score, answer, metadata in items:
        totals.add(score, answer, metadata, name_of)
    return totals.breakdown()


AgreementStatistic = Literal["pearson", "accuracy", "macro-f1", "kappa"]


def agreement(
    statistic: AgreementStatistic, human: Sequence[bool], predicted: Sequence[bool]
) -> float | None:
    """Agreement of binary presence decisions with human labels; None where undefined (a constant side).

    ``pearson`` on 0/1 values is the phi coefficient (the paper picks thresholds by correlation with humans);
    ``kappa`` is Cohen's kappa = (p_o - p_e) / (1 - p_e).
    """
    from factscope.metrics.agreement import accuracy, macro_f1, pearson

    if len(human) != len(predicted) or not human:
        raise ValueError("agreement needs two non-empty label lists of the same length")
    if statistic == "accuracy":
        return accuracy(list(human), list(predicted))
    if statistic == "macro-f1":
        return macro_f1(list(human), list(predicted), classes=[True, False])
    if statistic == "pearson":
        try:
            return pearson([float(h) for h in human], [float(p) for p in predicted])[0]
        except ValueError:
            return None
    if statistic == "kappa":
        n = len(human)
        observed = sum(h == p for h, p in zip(human, predicted)) / n
        yes_h, yes_p = sum(human) / n, sum(predicted) / n
        expected = yes_h * yes_p + (1 - yes_h) * (1 - yes_p)
        return None if expected == 1 else (observed - expected) / (1 - expected)
    raise ValueError(f"unknown agreement statistic {statistic!r}; use pearson, accuracy, macro-f1 or kappa")


@dataclass(frozen=True)
class Calibration:
    """The threshold that agrees best with human presence labels, and the agreement it reaches."""

    threshold: float
    value: float
    statistic: str
    candidates: int


def calibrate_threshold(
    scores: Sequence[float], human: Sequence[bool], statistic: AgreementStatistic = "pearson"
) -> Calibration:
    """Try a threshold between every two adjacent distinct scores (and beyond both ends); keep the best.

    A fact is present when score >= threshold. Ties go to the lowest threshold. Raises ValueError when no
    threshold gives a defined statistic (e.g. all human labels are equal under ``pearson``).
    """
    if len(scores) != len(human) or not scores:
        raise ValueError("calibration needs one human label per score, and at least one")
    distinct = sorted({float(s) for s in scores})
    candidates = [distinct[0] - 1.0] + [(a + b) / 2 for a, b in pairwise(distinct)] + [distinct[-1] + 1.0]
    best: tuple[float, float] | None = None
    for threshold in candidates:
        value = agreement(statistic, list(human), [s >= threshold for s in scores])
        if value is not None and (best is None or value > best[1]):
            best = (threshold, value)
    if best is None:
        raise ValueError(f"{statistic} is undefined for every threshold (are all human labels the same?)")
    return Calibration(threshold=best[0], value=best[1], statistic=statistic, candidates=len(candidates))
