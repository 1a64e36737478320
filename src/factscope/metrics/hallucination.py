"""RefChecker's aggregation and rates (RefChecker sections 4.3, A.4 and the copy-rate analysis)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel

from factscope.core.schema import LABELS, SEVERITY, Label
from factscope.metrics.running import RunningMean

SCALAR: dict[Label, int] = {Label.ENTAILMENT: 1, Label.NEUTRAL: 0, Label.CONTRADICTION: -1}
"""The optional scalar form of a label: Entailment 1, Neutral 0, Contradiction -1."""

_WORD = re.compile(r"\w+")


class ResponseSummary(BaseModel):
    """The claims of one response, aggregated.

    ``labels`` are the successful verdicts only; ``failed`` counts claims whose check failed (they are left
    out of every ratio and reported, never counted as any label). A response with no claims abstains.
    """

    claims: int
    failed: int
    counts: dict[Label, int]
    ratios: dict[Label, float] | None
    abstain: bool
    strict: Label | None
    majority: Label | None
    soft_scalar: float | None
    hallucination_rate: float | None


def summarize_response(labels: Sequence[Label | None]) -> ResponseSummary:
    """Counts, ratios r_i^y = C_i^y / C_i, strict / majority labels and the response hallucination rate."""
    good = [label for label in labels if label is not None]
    failed = len(labels) - len(good)
    counts = {label: sum(1 for x in good if x == label) for label in LABELS}
    if not good:
        return ResponseSummary(
            claims=len(labels), failed=failed, counts=counts, ratios=None, abstain=len(labels) == 0,
            strict=None, majority=None, soft_scalar=None, hallucination_rate=None,
        )
    total = len(good)
    ratios = {label: counts[label] / total for label in LABELS}
    return ResponseSummary(
        claims=len(labels),
        failed=failed,
        counts=counts,
        ratios=ratios,
        abstain=False,
        strict=strict_label(good),
        majority=majority_label(good),
        soft_scalar=sum(SCALAR[label] for label in good) / total,
        hallucination_rate=ratios[Label.NEUTRAL] + ratios[Label.CONTRADICTION],
    )


def strict_label(labels: Iterable[Label]) -> Label:
    """Zero tolerance: max-pooling with Entailment < Neutral < Contradiction."""
    return max(labels, key=SEVERITY.__getitem__)


def majority_label(labels: Iterable[Label]) -> Label:
    """The most frequent label; a tie goes to the more severe label (Contradiction > Neutral > Entailment)."""
    counts = Counter(labels)
    return max(counts, key=lambda label: (counts[label], SEVERITY[label]))


class DatasetRates(BaseModel):
    """RefChecker eq. 1 over N responses: r^y averages r_i^y over responses with C_i > 0; abstain = share C_i = 0.

    ``abstained`` counts the responses with C_i = 0.
    """

    responses: int
    answered: int
    abstained: int
    abstain_rate: float | None
    rates: dict[Label, float] | None
    hallucination_rate: float | None


@dataclass
class RateTotals:
    """The running totals of RefChecker eq. 1: responses, abstentions, and the exact sum of each r_i^y over the
    responses with C_i > 0; ``add`` takes one response, ``merge`` another part of the dataset."""

    responses: int = 0
    abstained: int = 0
    sums: dict[Label, RunningMean] = field(default_factory=lambda: {label: RunningMean() for label in LABELS})

    def add(self, summary: ResponseSummary) -> None:
        """Count one response."""
        self.responses += 1
        self.abstained += summary.abstain
        if summary.ratios is not None:
            for label in LABELS:
                self.sums[label].add(summary.ratios[label])

    def merge(self, other: RateTotals) -> None:
        """Count every response ``other`` counted."""
        self.responses += other.responses
        self.abstained += other.abstained
        for label in LABELS:
            self.sums[label].merge(other.sums[label])

    def rates(self) -> DatasetRates:
        """r^y = sum_i r_i^y 1(C_i > 0) / sum_i 1(C_i > 0) and r^abstain = sum_i 1(C_i = 0) / N.

        Responses whose claims all failed to be checked have no r_i^y and are left out of r^y (and are not
        abstentions); the rates say so through ``answered``.
        """
        answered = self.sums[Label.ENTAILMENT].count
        rates = {label: mean for label in LABELS if (mean := self.sums[label].mean) is not None} or None
        return DatasetRates(
            responses=self.responses,
            answered=answered,
            abstained=self.abstained,
            abstain_rate=self.abstained / self.responses if self.responses else None,
            rates=rates,
            hallucination_rate=rates[Label.NEUTRAL] + rates[Label.CONTRADICTION] if rates else None,
        )


def dataset_rates(summaries: Iterable[ResponseSummary]) -> DatasetRates:
    """RefChecker eq. 1 over ``summaries`` (see ``RateTotals.rates``)."""
    totals = RateTotals()
    for summary in summaries:
        totals.add(summary)
    return totals.rates()


def _ngrams(words: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]


def copy_rate(claim: str, reference: str, max_n: int = 4) -> float | None:
    """Mean over n = 1..max_n of the share of the claim's n-grams found in the reference.

    Words are lower-cased ``\\w+`` tokens. An n larger than the claim's length has no n-grams and is left out
    of the mean; a claim with no words has no copy rate (None).
    """
    claim_words = [w.lower() for w in _WORD.findall(claim)]
    reference_words = [w.lower() for w in _WORD.findall(reference)]
    shares = []
    for n in range(1, max_n + 1):
        grams = _ngrams(claim_words, n)
        if not grams:
            continue
        present = set(_ngrams(reference_words, n))
        shares.append(sum(1 for gram in grams if gram in present) / len(grams))
    return sum(shares) / len(shares) if shares else None
