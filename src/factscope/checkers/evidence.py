"""Evidence localisation: the reference sentence that best matches a claim."""

from __future__ import annotations

import re

from factscope.core.schema import Span
from factscope.core.text import sentence_spans

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def overlap_f1(claim: str, sentence: str) -> float:
    """Word-overlap F1 between a claim and a sentence (bag of lower-cased words)."""
    a, b = _words(claim), _words(sentence)
    if not a or not b:
        return 0.0
    common = 0
    pool = list(b)
    for word in a:
        if word in pool:
            pool.remove(word)
            common += 1
    if common == 0:
        return 0.0
    precision, recall = common / len(b), common / len(a)
    return 2 * precision * recall / (precision + recall)


def best_sentence(claim: str, text: str, within: Span | None = None) -> Span | None:
    """Span in ``text`` of the sentence with the highest word overlap with ``claim`` (the first on a tie).

    With ``within`` only the part of ``text`` it spans is split into sentences, so the evidence never reaches
    outside it (a segment cut inside a long sentence gives the part of the sentence in the segment)."""
    start, end = (within.start, within.end) if within is not None else (0, len(text))
    best: tuple[float, Span] | None = None
    for span in sentence_spans(text[start:end]):
        score = overlap_f1(claim, text[start + span.start : start + span.end])
        if best is None or score > best[0]:
            best = (score, Span(start=start + span.start, end=start + span.end))
    return best[1] if best else None
