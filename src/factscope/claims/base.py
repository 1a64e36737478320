"""The Extractor protocol: a batch of texts in, one Extraction (claims or a recorded failure) per text out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from factscope.core.schema import Extraction


class Extractor(Protocol):
    """Splits each text (usually an LLM response) into checkable claims.

    ``extract`` returns one Extraction per text, in order. ``questions`` (the prompts that produced the
    texts) may help an extractor resolve references; it is None or has one entry per text. An extractor
    never raises for one bad text: it returns an Extraction with ``failed=True``, the raw output and the
    error. A text with no claims (for example a refusal) gives an Extraction with no claims and
    ``failed=False``: an abstention.
    """

    name: str

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]: ...


def check_questions(texts: Sequence[str], questions: Sequence[str | None] | None) -> list[str | None]:
    """The questions aligned with ``texts`` (all None when not given); raises ValueError on a length mismatch."""
    if questions is None:
        return [None] * len(texts)
    if len(questions) != len(texts):
        raise ValueError(f"got {len(texts)} texts but {len(questions)} questions; give one question per text")
    return list(questions)
