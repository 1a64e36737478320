"""Lexical relevance of a reference segment to a claim: does the segment talk about what the claim talks about?

The score is the share of the claim's content words that occur in the segment. Words are lower-cased, stop words
and single letters are dropped, and a word is compared by its first ``STEM_CHARS`` characters (prefix stemming: "created",
"creation" and "creator" match), numbers as a whole. A claim without content words scores 1 against every
segment: nothing in it can tell a related segment from an unrelated one.
"""

from __future__ import annotations

import re
from typing import Literal

from factscope.core.stop_words import STOP_WORDS

RelevanceMode = Literal["lexical", "off"]
"""How segments are filtered before the merge: by lexical relevance, or not at all."""

STEM_CHARS = 5
"""Words are compared by this many leading characters."""

DEFAULT_MIN_RELEVANCE = 0.2
"""The default floor: the smallest of the 2nd percentiles of the relevance of entailed pairs of three labelled claim
sets (``benchmarks/relevance_floor.py``; the concepts page on checkers gives the figures)."""


_WORD = re.compile(r"\w+")


def content_stems(text: str, stem_chars: int = STEM_CHARS) -> frozenset[str]:
    """The topic-bearing words of ``text``: lower-cased, stop words dropped, cut to ``stem_chars`` characters
    (numbers kept whole)."""
    stems = set()
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or (len(word) == 1 and not word.isdigit()):
            continue
        stems.add(word if word.isdigit() else word[:stem_chars])
    return frozenset(stems)


def stem_overlap(claim_stems: frozenset[str], segment_stems: frozenset[str]) -> float:
    """The share of ``claim_stems`` found in ``segment_stems``; 1 when the claim has none."""
    if not claim_stems:
        return 1.0
    return len(claim_stems & segment_stems) / len(claim_stems)


def lexical_relevance(claim: str, segment: str, stem_chars: int = STEM_CHARS) -> float:
    """The share of the claim's content words (as stems) that occur in the segment, from 0 to 1."""
    return stem_overlap(content_stems(claim, stem_chars), content_stems(segment, stem_chars))
