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
    """Span of the sentence of ``text`` (optionally inside ``within``) with the highest word overlap."""
    best: tuple[float, Span] | None = None
    for span in sentence_spans(text):
        if within is not None and (span.end <= within.start or span.start >= within.end):
            continue
        score = overlap_f1(claim, text[span.start : span.end])
        if best is None or score > best[0]:
            best = (score, span)
    return best[1] if best else None
