"""A long response cut into pieces for the LLM extractors' prompts, so that a response of any length is extracted.

A response of at most ``piece_chars`` characters is one piece holding all its sentences, so its prompt is the one
it always was. A longer one is cut at sentence starts into pieces of at most ``piece_chars`` characters
(:func:`factscope.core.text.piece_ranges`, the cut the spaCy parse uses); a sentence longer than that is cut
after a space into windows. Each piece remembers which of the response's sentences every part of it is, so claims
from any piece get the sentence ids and spans of the whole response.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from factscope.core.schema import Span
from factscope.core.text import piece_ranges

PROMPT_PIECE_CHARS = 4_000
"""The most characters of a response one extraction prompt shows (about 1,000 tokens of English): with the
prompt's examples and a reply of ``max_tokens=1024``, a prompt fits a 4,096-token context, and a reply of one
piece's claims rarely reaches its token limit. A longer response is sent in pieces."""

MIN_PIECE_CHARS = 100
"""The smallest piece budget accepted: a piece must hold a sentence of a few words."""

REPLY_SEPARATOR = "\n---\n"
"""Joins the raw replies of a text sent in several prompts, in order, in an Extraction's ``raw``."""


@dataclass(frozen=True)
class PromptPiece:
    """The part of a response one prompt shows: ``parts`` are character spans in the response, in order, each a
    whole sentence or a window of a sentence longer than the budget; ``sentence_ids`` holds the (0-based) id of
    the response's sentence each part is of."""

    parts: tuple[Span, ...]
    sentence_ids: tuple[int, ...]

    def describe(self) -> str:
        """The sentences the piece covers, as an error message names them ("sentences 120-160")."""
        first, last = self.sentence_ids[0], self.sentence_ids[-1]
        return f"sentence {first}" if first == last else f"sentences {first}-{last}"


def checked_piece_chars(piece_chars: int) -> int:
    """``piece_chars`` when it is a whole number of at least :data:`MIN_PIECE_CHARS`; else ValueError."""
    if isinstance(piece_chars, bool) or not isinstance(piece_chars, int) or piece_chars < MIN_PIECE_CHARS:
        raise ValueError(
            f"piece_chars must be a whole number of at least {MIN_PIECE_CHARS}, got {piece_chars!r}"
        )
    return piece_chars


def prompt_pieces(text: str, sentences: Sequence[Span], piece_chars: int) -> list[PromptPiece]:
    """The pieces of ``text`` to send in one prompt each, in order; ``sentences`` are its sentence spans
    (:func:`factscope.core.text.sentence_spans`).

    Each piece's text, ``text[parts[0].start:parts[-1].end]``, has at most ``piece_chars`` characters; a text that
    fits is one piece of all its sentences, and a text with no sentence gives none.
    """
    if not sentences:
        return []
    if len(text) <= piece_chars:
        return [PromptPiece(tuple(sentences), tuple(range(len(sentences))))]
    pieces = []
    following = 0
    for begin, end in piece_ranges(text, [(span.start, span.end) for span in sentences], piece_chars):
        parts: list[Span] = []
        ids: list[int] = []
        while following < len(sentences) and sentences[following].start < end:
            sentence = sentences[following]
            part = _trimmed(text, max(sentence.start, begin), min(sentence.end, end))
            if part is not None:
                parts.append(part)
                ids.append(following)
            if sentence.end > end:
                break
            following += 1
        if parts:
            pieces.append(PromptPiece(tuple(parts), tuple(ids)))
    return pieces


def sentence_windows(text: str, sentence: Span, piece_chars: int) -> list[Span]:
    """The sentence itself when it has at most ``piece_chars`` characters, else its windows of at most that many,
    cut after a space (within a word only when the word alone is longer)."""
    if sentence.end - sentence.start <= piece_chars:
        return [sentence]
    ranges = piece_ranges(text[sentence.start : sentence.end], [], piece_chars)
    windows = (_trimmed(text, sentence.start + begin, sentence.start + end) for begin, end in ranges)
    return [window for window in windows if window is not None]


def _trimmed(text: str, start: int, end: int) -> Span | None:
    """The span of ``text[start:end]`` without surrounding whitespace; None when nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start=start, end=end) if start < end else None
