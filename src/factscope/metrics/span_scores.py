"""Hallucinated spans scored against gold spans, as RAGTruth and the detectors measured on it (LettuceDetect) do.

Each example is a response with its predicted and its gold hallucinated spans, half-open character ranges
[start, end). Two views:

- **character level**: every character of a response is hallucinated or not, in the prediction and in the gold;
  true positives are the characters both mark, false positives those only the prediction marks, false negatives
  those only the gold marks, summed over all examples (micro-averaged); precision, recall and F1 of those sums.
  Overlapping spans count a character once.
- **example level**: a response is hallucinated when it has at least one span; precision, recall and F1 of the
  hallucinated class over the examples.

A precision or recall whose denominator is empty (no predicted, or no gold, hallucinated character or example) is
undefined (None), and so is its F1 (``factscope.metrics.ratios``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from factscope.metrics.ratios import f1

CharRange = tuple[int, int]
"""A half-open character range [start, end) in a response."""


def characters(spans: Iterable[CharRange]) -> set[int]:
    """The character positions a set of spans covers (each once)."""
    return {position for start, end in spans for position in range(start, end)}


@dataclass(frozen=True)
class Counts:
    """True positives, false positives and false negatives, with their precision, recall and F1."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        """tp / (tp + fp); None when nothing was predicted."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        """tp / (tp + fn); None when the gold holds nothing."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        """The harmonic mean of precision and recall."""
        return f1(self.precision, self.recall)

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)


def character_counts(predicted: Sequence[CharRange], gold: Sequence[CharRange]) -> Counts:
    """The character-level counts of one example."""
    marked, true = characters(predicted), characters(gold)
    return Counts(tp=len(marked & true), fp=len(marked - true), fn=len(true - marked))


def example_counts(predicted: Sequence[CharRange], gold: Sequence[CharRange]) -> Counts:
    """The example-level counts of one example: is it hallucinated by the prediction, by the gold?"""
    said, true = bool(characters(predicted)), bool(characters(gold))
    return Counts(tp=int(said and true), fp=int(said and not true), fn=int(true and not said))


@dataclass(frozen=True)
class SpanScores:
    """The character-level and example-level counts (and so P / R / F1) of a set of examples."""

    examples: int
    character: Counts
    example: Counts

    def figures(self) -> dict[str, float | int | None]:
        """The scores as a flat mapping: examples, then character- and example-level precision, recall, F1."""
        return {
            "examples": self.examples,
            **{f"character_{name}": getattr(self.character, name) for name in ("precision", "recall", "f1")},
            **{f"example_{name}": getattr(self.example, name) for name in ("precision", "recall", "f1")},
        }


def span_scores(pairs: Iterable[tuple[Sequence[CharRange], Sequence[CharRange]]]) -> SpanScores:
    """Score (predicted, gold) span lists, one pair per example."""
    examples, character, example = 0, Counts(), Counts()
    for predicted, gold in pairs:
        examples += 1
        character += character_counts(predicted, gold)
        example += example_counts(predicted, gold)
    return SpanScores(examples, character, example)
