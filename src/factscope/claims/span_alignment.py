"""Claims an LLM wrote, located in the response by fuzzy word alignment (rapidfuzz).

An LLM extractor rewrites the response ("She won it in 1903." -> "Marie Curie won the Nobel Prize in 1903."), so
its claims carry no offsets. :func:`aligned_spans` finds the claim's words in the sentences it came from: a word of
the sentence is matched when a word of the claim is similar enough (``rapidfuzz.fuzz.ratio`` of at least
``min_word_similarity``; words of three letters or fewer, and numbers, must be equal), and each run of matched
words (function words the claim lacks may join two: "Paris [is] the capital") that holds a content word is one
span, without the function words that end it. A claim whose content words are found less than
``min_coverage`` of the time is not aligned: it keeps its sentences' spans and says so (``spans_cover="sentence"``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from factscope.claims.parsing import Located
from factscope.core.schema import Claim, ClaimSpan, Span
from factscope.core.stop_words import STOP_WORDS

MIN_WORD_SIMILARITY = 85.0
"""The least ``rapidfuzz.fuzz.ratio`` (0-100) of two words that match ("discovered" and "discover": 89)."""

MIN_COVERAGE = 0.5
"""The least share of a claim's content words found in its sentences for the claim to be aligned."""

SHORT_WORD = 3
"""Words of at most this many characters match only when equal (fuzzy matching of "won" and "own" says nothing)."""

_WORD = re.compile(r"\w+(?:[-'\u2019.]\w+)*")
_DIGIT = re.compile(r"\d")


def _words(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The words of ``text[start:end]``: their offsets in ``text`` and lower-cased form."""
    return [
        (start + match.start(), start + match.end(), match.group().lower())
        for match in _WORD.finditer(text[start:end])
    ]


def _trimmed(run: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A run of matched words without the function words that end it ("Curie was a" -> "Curie")."""
    while run[-1][2] in STOP_WORDS:
        run = run[:-1]
    return run


def _similar(first: str, second: str, min_similarity: float) -> bool:
    from rapidfuzz import fuzz

    if min(len(first), len(second)) <= SHORT_WORD or _DIGIT.search(first) or _DIGIT.search(second):
        return first == second
    return fuzz.ratio(first, second) >= min_similarity


def aligned_spans(
    response: str,
    claim: Claim,
    sentences: Sequence[Span],
    *,
    min_word_similarity: float = MIN_WORD_SIMILARITY,
    min_coverage: float = MIN_COVERAGE,
) -> Located:
    """The spans of ``claim``'s words in ``response``, searched in the sentences the claim names
    (``claim.sentence_ids`` index ``sentences``; all of them when it names none); the sentences' spans, marked
    ``spans_cover="sentence"``, when the claim cannot be aligned."""
    chosen = [sentences[i] for i in claim.sentence_ids if 0 <= i < len(sentences)] or list(sentences)
    fallback: Located = {
        "spans": [ClaimSpan.covering(response, span.start, span.end) for span in chosen],
        "spans_cover": "sentence",
    }
    rendered = claim.render()
    claim_words = [word for _, _, word in _words(rendered, 0, len(rendered))]
    content = {word for word in claim_words if word not in STOP_WORDS}
    found: set[str] = set()
    runs: list[list[tuple[int, int, str]]] = [[]]
    for sentence in chosen:
        for start, end, word in _words(response, sentence.start, sentence.end):
            hits = [other for other in claim_words if _similar(word, other, min_word_similarity)]
            if hits:
                found.update(hits)
                runs[-1].append((start, end, word))
            elif runs[-1] and word in STOP_WORDS:
                runs[-1].append((start, end, word))
            elif runs[-1]:
                runs.append([])
        if runs[-1]:
            runs.append([])
    kept = [_trimmed(run) for run in runs if any(word not in STOP_WORDS for _, _, word in run)]
    if not kept or len(found & content) < min_coverage * len(content):
        return fallback
    return {
        "spans": [ClaimSpan.covering(response, run[0][0], run[-1][1]) for run in kept],
        "spans_cover": "words",
    }
