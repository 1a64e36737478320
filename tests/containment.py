"""A checker and a presence model that judge by containment: fast, deterministic stand-ins for the models, for tests
of what a run does with its verdicts (tables, displays), not of how well a model judges."""

from __future__ import annotations

import re

import numpy as np

from factscope.checkers.base import CheckTask
from factscope.core.schema import Label, Verdict
from factscope.grounding.presence import WindowedPresence

SUPPORTED = (0.8, 0.15, 0.05)
UNSUPPORTED = (0.1, 0.6, 0.3)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class ContainsChecker:
    """Entailment (probabilities ``SUPPORTED``) when a reference holds every word of the claim, else Neutral
    (``UNSUPPORTED``); the evidence is the first reference."""

    name = "contains"

    def check(self, tasks: list[CheckTask]) -> list[Verdict]:
        verdicts = []
        for task in tasks:
            found = any(_words(task.claim) <= _words(reference) for reference in task.references)
            verdicts.append(
                Verdict(
                    label=Label.ENTAILMENT if found else Label.NEUTRAL,
                    probs=SUPPORTED if found else UNSUPPORTED,
                    evidence=task.references[0] if task.references else None,
                )
            )
        return verdicts


class SubstringPresence(WindowedPresence):
    """A fact is present (score 1) when the text contains it, else absent (score 0)."""

    name = "substring"
    threshold = 0.5

    def __init__(self) -> None:
        super().__init__(window=None)

    def score_pairs(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        return np.array([1.0 if fact.rstrip(".").lower() in text.lower() else 0.0 for fact, text in pairs])
