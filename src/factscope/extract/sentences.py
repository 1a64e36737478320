"""The sentence-granularity baseline of seed 004: every statement of a response is one claim."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from factscope.extract.base import check_questions
from factscope.extract.dependency import is_statement, parse_batch, sentence_claim, sentences
from factscope.schema import Claim, Extraction


class SentenceExtractor:
    """Each sentence of a response as one claim (``kind="sentence"``), split by the spaCy parser.

    Questions, refusals ("I don't know."), speaker talk ("I hope this helps.") and bare fragments (list markers,
    "Sure!") are not statements and give no claim (``keep_all=True`` keeps every non-blank sentence), so a
    refusal-only response is an abstention. Sentence ids and spans match those of the other offline
    extractors, which split with the same parser.

    Example::

        SentenceExtractor().extract(["Paris is in France. Berlin is in Germany."])[0].claims[1].text
        # "Berlin is in Germany."
    """

    name = "sentences"

    def __init__(self, nlp: Any = None, *, batch_size: int = 64, keep_all: bool = False) -> None:
        self._nlp = nlp
        self.batch_size = batch_size
        self.keep_all = keep_all

    @property
    def nlp(self) -> Any:
        """The spaCy pipeline (the shared offline English model unless one was given)."""
        if self._nlp is None:
            from factscope.backends.embedded import load_spacy

            self._nlp = load_spacy(disable=("lemmatizer", "ner"))
        return self._nlp

    def extract(
        self, texts: Sequence[str], questions: Sequence[str | None] | None = None
    ) -> list[Extraction]:
        """One Extraction of sentence claims per text; ``questions`` are accepted for the protocol and unused."""
        check_questions(texts, questions)
        return [
            item if isinstance(item, Extraction) else Extraction(claims=self.doc_claims(item))
            for item in parse_batch(self.nlp, texts, self.batch_size)
        ]

    def doc_claims(self, doc: Any) -> list[Claim]:
        """The sentence claims of one parsed text."""
        return [
            sentence_claim(sentence, "sentence")
            for sentence in sentences(doc)
            if self.keep_all or is_statement(sentence)
        ]
