"""Transparent pair scorers for checker tests: their verdicts can be read off the text."""

from __future__ import annotations

import numpy as np


class KeywordScorer:
    """A transparent test model: 'not X' in the premise contradicts X; X contained entails; else neutral."""

    name = "keyword"

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def score(self, premises, hypotheses):
        self.calls.append(list(zip(premises, hypotheses)))
        rows = []
        for premise, hypothesis in zip(premises, hypotheses):
            key = hypothesis.lower().rstrip(".")
            if f"not {key}" in premise.lower():
                rows.append([0.1, 0.1, 0.8])
            elif key in premise.lower():
                rows.append([0.9, 0.05, 0.05])
            else:
                rows.append([0.1, 0.8, 0.1])
        return np.array(rows)
