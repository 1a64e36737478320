"""How a ratio with an empty denominator counts, one policy for every metric that has such ratios, and the F1 of two
such ratios."""

from __future__ import annotations

from typing import Literal

EmptyPolicy = Literal["skip", "zero"]
"""What a ratio with an empty denominator becomes: undefined and left out of averages ("skip"), or 0.0 ("zero")."""


def f1(precision: float | None, recall: float | None) -> float | None:
    """The harmonic mean of precision and recall; 0.0 when both are 0; None when either is undefined."""
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)
