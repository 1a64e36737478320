"""A 2-way judge's P(supported) as probabilities in factscope's 3-way order."""

from __future__ import annotations

import numpy as np


def two_way_probs(support: np.ndarray) -> np.ndarray:
    """(n, 3) probabilities in ``LABELS`` order (Entailment, Neutral, Contradiction) from P(supported): the rest is
    Neutral, since a 2-way judge does not tell a contradiction from missing support."""
    support = np.asarray(support, dtype=np.float64)
    return np.stack([support, 1.0 - support, np.zeros_like(support)], axis=1)
