"""Which evidence value stands in the slot of a claim's value that the evidence does not bear.

Shared by the numbers-and-dates and the entity checks of :mod:`factscope.checkers.mismatch`: the candidate
that shares the claim value's following word (``3 children`` / ``2 children``), else the one with the most
context words in common. This alignment is a heuristic: it reads no syntax.
"""

from __future__ import annotations

import re
from typing import Any

WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
"""A word: letters and digits, with an apostrophe suffix (``Gosling's``)."""
STOP = frozenset(
    {
        "the",
        "a",
        "an",
        "of",
        "and",
        "in",
        "on",
        "at",
        "for",
        "to",
        "by",
        "with",
        "from",
        "de",
        "la",
        "le",
        "von",
        "van",
        "der",
        "del",
        "s",
    }
)
"""Words a comparison of names and of context leaves out."""
_CONTEXT_STOP = STOP | {
    "is",
    "was",
    "are",
    "were",
    "be",
    "been",
    "has",
    "had",
    "have",
    "it",
    "its",
    "that",
    "this",
    "which",
    "who",
    "as",
    "or",
    "but",
    "not",
    "he",
    "she",
    "they",
    "his",
    "her",
}


def _context_words(text: str, start: int, end: int, width: int = 40) -> set[str]:
    window = text[max(0, start - width) : start] + " " + text[end : end + width]
    return {w.lower() for w in WORD.findall(window)} - _CONTEXT_STOP


def closest(
    claim_text: str, claim: tuple[int, int, str | None], evidence: str, candidates: list[Any]
) -> Any:
    """The candidate sharing the claim value's following word, else the most context words with it."""
    start, end, cue = claim
    around = _context_words(claim_text, start, end)

    def score(candidate: Any) -> tuple[int, int, int]:
        same_cue = int(cue is not None and getattr(candidate, "cue", None) == cue)
        shared = len(around & _context_words(evidence, candidate.start, candidate.end))
        return (same_cue, shared, -candidate.start)

    return max(candidates, key=score)
