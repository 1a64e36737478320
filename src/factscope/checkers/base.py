"""The checker protocols: a PairScorer scores (premise, hypothesis) pairs; a Checker decides claims."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from factscope.core.schema import Verdict


@dataclass(frozen=True)
class CheckTask:
    """One claim to check against the passages of one record.

    ``claim`` is the plain text that NLI checkers score; ``triplet`` keeps a claim-triplet's parts so that the
    LLM checker can show it in the paper's ("subject", "predicate", "object") form.
    """

    claim: str
    references: tuple[str, ...]
    question: str | None = None
    triplet: tuple[str, str, str] | None = None


class PairScorer(Protocol):
    """A model that gives 3-way probabilities for (premise, hypothesis) pairs.

    ``score`` returns an array of shape (n, 3) whose columns follow ``schema.LABELS``
    (Entailment, Neutral, Contradiction) and whose rows sum to 1.
    """

    name: str

    def score(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray: ...

    def count_tokens(self, text: str) -> int: ...


class Checker(Protocol):
    """Decides each task's label; one Verdict per task, in order."""

    name: str

    def check(self, tasks: Sequence[CheckTask]) -> list[Verdict]: ...
