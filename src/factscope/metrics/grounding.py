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

EmptyPolicy = Literal["zero", "skip"]
"""What a ratio with an empty denominator becomes: 0.0 ("zero") or undefined and left out of averages ("skip")."""


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


def f1_score(precision: float | None, recall: float | None) -> float | None:
    """Harmonic mean of precision and recall; 0.0 when both are 0; None when either is undefined."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


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
    return GroundingScore(precision, recall, f1_score(precision, recall), response, gold)


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


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def average_scores(
    scores: Sequence[GroundingScore], answers: Sequence[bool | None] | None = None
) -> GroundingAverages:
    """Macro-average precision, recall, F1 (mean of per-record F1) and answer accuracy."""
    precisions = [s.precision for s in scores if s.precision is not None]
    recalls = [s.recall for s in scores if s.recall is not None]
    f1s = [s.f1 for s in scores if s.f1 is not None]
    judged = [float(a) for a in (answers or []) if a is not None]
    return GroundingAverages(
        records=len(scores),
        precision=_mean(precisions),
        recall=_mean(recalls),
        f1=_mean(f1s),
        answer_accuracy=_mean(judged),
        precision_n=len(precisions),
        recall_n=len(recalls),
        f1_n=len(f1s),
        answer_n=len(judged),
    )


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


def breakdown(
    items: Sequence[tuple[GroundingScore, bool | None, Mapping[str, Any]]],
    factor: str,
    name_of: Callable[[Mapping[str, Any], str], str | None] = factor_value,
) -> Breakdown:
    """Group (score, answer correct, metadata) items by ``factor`` and average each group."""
    grouped: dict[str, list[tuple[GroundingScore, bool | None]]] = {}
    missing = 0
    for score, answer, metadata in items:
        group = name_of(metadata, factor)
        if group is None:
            missing += 1
            continue
        grouped.setdefault(group, []).append((score, answer))
    result = Breakdown(factor=factor, missing=missing)
    for group in sorted(grouped):
        pairs = grouped[group]
        result.groups[group] = average_scores([p[0] for p in pairs], [p[1] for p in pairs])
    return result


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
