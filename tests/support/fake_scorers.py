"""Transparent pair scorers and checkers for tests: their verdicts can be read off the text."""

from __future__ import annotations

import numpy as np

from factscope.core.schema import Label, Verdict


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


class ValueInSentence:
    """A test checker: the sentence entails 'relation: value' when it contains the value."""

    name = "value-in-sentence"

    def __init__(self, fail_on: str | None = None):
        self.fail_on = fail_on
        self.calls = 0

    def check(self, tasks):
        self.calls += 1
        out = []
        for task in tasks:
            value = task.claim.split(": ", 1)[1].lower()
            if self.fail_on and self.fail_on in value:
                out.append(Verdict(label=None, failed=True, error="scripted"))
            else:
                entailed = value in task.references[0].lower()
                out.append(Verdict(label=Label.ENTAILMENT if entailed else Label.NEUTRAL))
        return out
