"""Fast presence: each fact is scored against its most relevant windows only, in rounds, and stops being scored
once a window reaches the presence threshold.

Exact presence scores every (fact, window) pair and keeps each fact's best score; the fact is present when that
score reaches the threshold. Fast presence

1. ranks each fact's windows by BM25 relevance to the fact (``rank_windows``: over the windows of the fact's
   sources; windows that share no word with the fact are left out, the ``top_k`` best kept). A fact that shares
   no word with any window (a generic fact such as "The group talked.") keeps all its windows, in source order.
   The bi-encoder shortlist (``bi-nli``) ranks by its own cosine instead and keeps its shortlist whole;
2. scores them in rounds, every round one call of the model over all facts of the batch: round 1 the
   ``first_round`` most relevant windows of every fact, each later round the next ``round_size`` of each fact
   still open; a fact closes once a window's score reaches the threshold, or when its windows are all scored.

Since a fact is present as soon as one window reaches the threshold, an early stop never changes a decision: the
decision differs from exact presence's only where a window left out by the BM25 ranking (of a fact that shares a
word with some window) would have reached the threshold, and never with ``bi-nli``, whose fast mode only reads its
shortlist in order. The score recorded is the best of the windows scored, so a present fact's score can be lower
than exact presence's (still at least the threshold); an absent fact's is the best of the windows scored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from factscope.checkers.options import CheckMode

PresenceMode = CheckMode
"""The modes of check's checkers: exact, every window of every source is scored; fast, the most relevant windows,
in rounds (this module)."""


@dataclass(frozen=True)
class PresenceRounds:
    """How fast presence ranks and stops (see the module docstring)."""

    top_k: int = 8
    first_round: int = 1
    round_size: int = 2

    def __post_init__(self) -> None:
        if self.top_k < 1 or self.first_round < 1 or self.round_size < 1:
            raise ValueError("top_k, first_round and round_size must be at least 1")


def rank_windows(facts: Sequence[str], windows: Sequence[Sequence[str]], top_k: int) -> list[list[str]]:
    """Each fact's windows by BM25 relevance to the fact, most relevant first, those sharing no word with it left
    out, at most ``top_k``; ties go to the earlier window."""
    from factscope.checkers.pruning import FastSettings, SegmentRanker

    ranker = SegmentRanker(FastSettings(top_k=top_k))
    kept = ranker.keep(facts, windows)
    return [[texts[index] for index in indices] for texts, indices in zip(windows, kept)]


def best_in_rounds(
    score_pairs: Callable[[Sequence[tuple[str, str]]], np.ndarray],
    facts: Sequence[str],
    ranked: Sequence[Sequence[str]],
    threshold: float,
    rounds: PresenceRounds,
) -> np.ndarray:
    """The best score of each fact over the windows scored for it, ``ranked[i]`` most relevant first.

    ``score_pairs`` scores unique (fact, window) pairs (NaN: unjudged); pairs are deduplicated and sorted by length
    within a round. A fact with no ranked window scores -inf (absent); one whose scored windows are all unjudged,
    NaN.
    """
    known: dict[tuple[str, str], float] = {}
    taken = [0] * len(facts)
    best = np.full(len(facts), -np.inf)
    judged = [False] * len(facts)
    open_facts = [i for i in range(len(facts)) if ranked[i]]
    step = rounds.first_round
    while open_facts:
        wanted = {i: [(facts[i], window) for window in ranked[i][taken[i] : taken[i] + step]] for i in open_facts}
        new = list(dict.fromkeys(pair for pairs in wanted.values() for pair in pairs if pair not in known))
        new.sort(key=lambda pair: len(pair[0]) + len(pair[1]))
        if new:
            known.update(zip(new, (float(value) for value in score_pairs(new))))
        for i, pairs in wanted.items():
            taken[i] += step
            for pair in pairs:
                value = known[pair]
                if not np.isnan(value):
                    judged[i] = True
                    best[i] = max(best[i], value)
        open_facts = [i for i in open_facts if taken[i] < len(ranked[i]) and not best[i] >= threshold]
        step = rounds.round_size
    for i in range(len(facts)):
        if ranked[i] and not judged[i]:
            best[i] = np.nan
    return best
