"""The sentence-granularity baseline of RefChecker: every statement of a response is one claim."""

from __future__ import annotations

from typing import Any

from factscope.claims.parsing import ParsedExtractor, is_statement, sentence_claim, sentences
from factscope.core.schema import Claim


class SentenceExtractor(ParsedExtractor):
    """Each sentence of a response as one claim (``kind="sentence"``), split by factscope's one splitter
    (:func:`factscope.core.text.sentence_spans`).

    Questions, refusals ("I don't know."), speaker talk ("I hope this helps.") and bare fragments ("Sure!")
    are not statements and give no claim (``keep_all=True`` keeps every sentence), so a refusal-only response
    is an abstention. Sentence ids and spans match those of every other extractor, offline or LLM, which
    split with the same splitter.

    Example::

        SentenceExtractor().extract(["Paris is in France. Berlin is in Germany."])[0].claims[1].text
        # "Berlin is in Germany."
    """

    name = "sentences"

    unused_components = ("lemmatizer", "ner")

    def __init__(self, nlp: Any = None, *, batch_size: int = 64, keep_all: bool = False) -> None:
        super().__init__(nlp, batch_size=batch_size)
        self.keep_all = keep_all

    def doc_claims(self, doc: Any) -> list[Claim]:
        """The sentence claims of one parsed text."""
        return [
            sentence_claim(sentence, "sentence")
            for sentence in sentences(doc)
            if self.keep_all or is_statement(sentence)
        ]
