"""Long premises cut to the window that bears on the hypothesis, so that training pairs fit the encoder.

A summary checked against a 1,500-word document cannot be read whole by a 320-token encoder: truncation would
keep the document's start, which often says nothing about the summary, and the pair's label would be noise. The
window is the run of consecutive sentences, at most ``words`` words long, that covers most of the hypothesis's
content words; at inference the checker sees segments of about that size and merges them.
"""

from __future__ import annotations

from dataclasses import replace

from factscope.checkers.relevance import content_stems
from factscope.core.text import sentence_spans
from factscope.training.nli_data import NLIExample


def focus_window(premise: str, hypothesis: str, words: int) -> str:
    """The premise itself when it has at most ``words`` words, else its best window of whole sentences.

    Windows are scored by the number of the hypothesis's content words (the relevance filter's stems) they
    contain; ties go to the earliest.
    A single sentence longer than ``words`` is a window of its own.
    """
    if len(premise.split()) <= words:
        return premise
    spans = sentence_spans(premise)
    if not spans:
        return premise
    sentences = [premise[span.start : span.end] for span in spans]
    lengths = [len(sentence.split()) for sentence in sentences]
    wanted = content_stems(hypothesis)
    found = [content_stems(sentence) & wanted for sentence in sentences]
    best: tuple[int, int, int] = (-1, 0, 1)
    for start in range(len(sentences)):
        covered: frozenset[str] = frozenset()
        size = 0
        end = start
        while end < len(sentences) and (end == start or size + lengths[end] <= words):
            covered |= found[end]
            size += lengths[end]
            end += 1
        if len(covered) > best[0]:
            best = (len(covered), start, end)
    _, start, end = best
    return premise[spans[start].start : spans[end - 1].end]


def focus_examples(examples: list[NLIExample], words: int) -> list[NLIExample]:
    """Every example with its premise cut to :func:`focus_window` (short premises are kept as they are)."""
    return [
        replace(e, premise=focus_window(e.premise, e.hypothesis, words)) if len(e.premise.split()) > words else e
        for e in examples
    ]
