"""A checker and a presence model that judge by containment: fast, deterministic stand-ins for the models, for tests
of what a run does with its verdicts (tables, displays), not of how well a model judges."""

from __future__ import annotations

import re
from collections.abc import Sequence

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


VOCABULARY = ["alice", "bob", "won", "lost", "race", "2018", "2019", "oslo", "rain", "fell", "paris"]


class WordEncoder:
    """Bag-of-words vectors over a small vocabulary, L2-normalised."""

    name = "words"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            words = re.findall(r"\w+", text.lower())
            row = np.array([float(words.count(term)) for term in VOCABULARY]) + 1e-6
            rows.append(row / np.linalg.norm(row))
        return np.array(rows)


class ContainmentChecker:
    """Entailment (0.9) when every word of the claim is in the reference, else Neutral (0.1); records what it read."""

    name = "containment"

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]:
        verdicts = []
        for task in tasks:
            self.seen.append((task.claim, task.references[0]))
            if "broken" in task.references[0]:
                verdicts.append(Verdict(label=None, failed=True, error="scripted"))
                continue
            claim = set(re.findall(r"\w+", task.claim.lower()))
            inside = claim <= set(re.findall(r"\w+", task.references[0].lower()))
            probs = (0.9, 0.05, 0.05) if inside else (0.1, 0.8, 0.1)
            verdicts.append(Verdict(label=Label.ENTAILMENT if inside else Label.NEUTRAL, probs=probs))
        return verdicts
