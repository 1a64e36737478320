"""Lexical relevance of a reference segment to a claim: does the segment talk about what the claim talks about?

The score is the share of the claim's content words that occur in the segment. Words are lower-cased, stop words
and single letters are dropped, and a word is compared by its first ``STEM_CHARS`` characters (prefix stemming: "created",
"creation" and "creator" match), numbers as a whole. A claim without content words scores 1 against every
segment: nothing in it can tell a related segment from an unrelated one.
"""

from __future__ import annotations

import re
from typing import Literal

RelevanceMode = Literal["lexical", "off"]
"""How segments are filtered before the merge: by lexical relevance, or not at all."""

STEM_CHARS = 5
"""Words are compared by this many leading characters."""

DEFAULT_MIN_RELEVANCE = 0.2
"""The default floor: the smallest of the 2nd percentiles of the relevance of entailed pairs of three labelled claim
sets (``benchmarks/relevance_floor.py``; the concepts page on checkers gives the figures)."""

_STOP_WORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being below between
    both but by can could did do does doing down during each either few for from further had has have having he
    her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up us very was we
    were what when where which while who whom why will with would you your yours yourself yourselves
    s t d ll m re ve don didn doesn isn wasn aren weren won wouldn couldn shouldn hasn haven hadn
"""

STOP_WORDS = frozenset(_STOP_WORD_TEXT.split())
"""Function words that say nothing about a claim's topic (negations included: relevance is about topic, not
stance)."""

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
