"""Sentence splitting with character offsets, and token-aware segmentation of long references."""

from __future__ import annotations

import re
from collections.abc import Callable

from factscope.core.schema import Span

_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "inc", "ltd", "co", "corp", "no", "fig",
    "e.g", "i.e", "u.s", "u.k", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov",
    "dec", "approx", "est", "gen", "col", "lt", "sgt", "mt", "ft", "vol", "pp", "al",
}
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s+|$)|\n\s*\n")


def _is_abbreviation(text: str, end: int) -> bool:
    """True when the full stop ending at ``end`` closes an abbreviation or an initial."""
    start = end - 1
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:end].rstrip(".").lower().lstrip("(\"'")
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text`` (whitespace trimmed; empty text gives none).

    A rule-based splitter: a sentence ends at '.', '!' or '?' followed by whitespace (not after a
    common abbreviation, an initial, or inside a decimal number) or at a blank line.
    """
    spans: list[Span] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if match.group().startswith(".") and _is_abbreviation(text, match.start() + 1):
            continue
        _append_trimmed(text, start, end, spans)
        start = end
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[Span]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append(Span(start=start, end=end))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` as strings."""
    return [text[span.start : span.end] for span in sentence_spans(text)]


def segment_spans(text: str, count_tokens: Callable[[str], int], max_tokens: int = 200) -> list[Span]:
    """Spans of ``text``, each a run of consecutive sentences of at most ``max_tokens`` tokens.

    A sentence longer than the budget is cut into word windows that fit. The whole (trimmed) text is one span
    when it already fits, so short references cost one tokenizer call. Spans index the original text, so a
    segment is ``text[span.start:span.end]`` with its own whitespace.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if not text.strip():
        return []
    if count_tokens(text) <= max_tokens:
        start = len(text) - len(text.lstrip())
        return [Span(start=start, end=len(text.rstrip()))]
    segments: list[Span] = []
    current: list[Span] = []
    current_tokens = 0
    for sentence in sentence_spans(text):
        tokens = count_tokens(text[sentence.start : sentence.end])
        if current and (tokens > max_tokens or current_tokens + tokens > max_tokens):
            segments.append(Span(start=current[0].start, end=current[-1].end))
            current, current_tokens = [], 0
        if tokens > max_tokens:
            segments.extend(_word_windows(text, sentence, count_tokens, max_tokens))
            continue
        current.append(sentence)
        current_tokens += tokens
    if current:
        segments.append(Span(start=current[0].start, end=current[-1].end))
    return segments


def _word_windows(text: str, sentence: Span, count_tokens: Callable[[str], int], max_tokens: int) -> list[Span]:
    """Spans of word windows of one over-long sentence, each within the token budget."""
    words = [
        Span(start=sentence.start + m.start(), end=sentence.start + m.end())
        for m in re.finditer(r"\S+", text[sentence.start : sentence.end])
    ]
    tokens_per_word = max(1.0, count_tokens(text[sentence.start : sentence.end]) / max(1, len(words)))
    step = max(1, int(max_tokens / tokens_per_word))
    windows = []
    first = 0
    while first < len(words):
        width = step
        window = _window(words, first, width)
        while width > 1 and count_tokens(text[window.start : window.end]) > max_tokens:
            width = max(1, int(width * 0.8))
            window = _window(words, first, width)
        windows.append(window)
        first += width
    return windows


def _window(words: list[Span], first: int, width: int) -> Span:
    """The span from word ``first`` through the next ``width`` words (fewer at the end)."""
    return Span(start=words[first].start, end=words[min(first + width, len(words)) - 1].end)
