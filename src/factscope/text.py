"""Sentence splitting with character offsets, and token-aware segmentation of long references."""

from __future__ import annotations

import re
from collections.abc import Callable

from factscope.schema import Span

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


def segment_text(text: str, count_tokens: Callable[[str], int], max_tokens: int = 200) -> list[str]:
    """Pack consecutive sentences into segments of at most ``max_tokens`` tokens.

    A sentence longer than the budget is cut into word windows that fit. The reference is returned whole
    when it already fits, so short references cost one tokenizer call.
    """
    if max_tokens < 1:
        raise ValueError("max_tokens must be at least 1")
    if count_tokens(text) <= max_tokens:
        return [text] if text.strip() else []
    segments: list[str] = []
    current: list[str] = []
    current_tokens = 0
    for sentence in split_sentences(text):
        tokens = count_tokens(sentence)
        if tokens > max_tokens:
            if current:
                segments.append(" ".join(current))
                current, current_tokens = [], 0
            segments.extend(_cut_long_sentence(sentence, count_tokens, max_tokens))
            continue
        if current and current_tokens + tokens > max_tokens:
            segments.append(" ".join(current))
            current, current_tokens = [], 0
        current.append(sentence)
        current_tokens += tokens
    if current:
        segments.append(" ".join(current))
    return segments


def _cut_long_sentence(sentence: str, count_tokens: Callable[[str], int], max_tokens: int) -> list[str]:
    """Word windows of one over-long sentence, each within the token budget."""
    words = sentence.split()
    tokens_per_word = max(1.0, count_tokens(sentence) / max(1, len(words)))
    step = max(1, int(max_tokens / tokens_per_word))
    windows = []
    start = 0
    while start < len(words):
        width = step
        while width > 1 and count_tokens(" ".join(words[start : start + width])) > max_tokens:
            width = max(1, int(width * 0.8))
        windows.append(" ".join(words[start : start + width]))
        start += width
    return windows
