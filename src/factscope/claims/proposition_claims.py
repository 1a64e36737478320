"""The frame of the rule extractors whose claims are the propositions of each sentence (``RuleTripletExtractor``,
``ClauseFactExtractor``): pronoun subjects resolved, a statement that gives none kept whole, each claim once."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, Literal, TypedDict

from factscope.claims.dependency import PropositionReader
from factscope.claims.parsing import ParsedExtractor, Sentence, is_statement, sentence_claim, sentences
from factscope.core.schema import Claim


class PropositionReading(TypedDict, total=False):
    """The keyword arguments of ``PropositionExtractor`` that its subclasses pass on (their defaults are there)."""

    batch_size: int
    resolve_pronouns: bool
    sentence_fallback: bool


class PropositionExtractor(ParsedExtractor):
    """Claims from the propositions a ``PropositionReader`` reads in each sentence (``sentence_claims``), he /
    she / it / they subjects resolved to their antecedent with ``resolve_pronouns``; a statement that gives no
    claim becomes one whole-sentence claim of kind ``fallback_kind`` with ``sentence_fallback`` (questions and
    refusals give nothing); a claim already found in the text is not repeated."""

    fallback_kind: Literal["fact", "sentence"]

    def __init__(
        self, nlp: Any = None, *, batch_size: int = 32, resolve_pronouns: bool = True, sentence_fallback: bool = True
    ) -> None:
        super().__init__(nlp, batch_size=batch_size)
        self.resolve_pronouns = resolve_pronouns
        self.sentence_fallback = sentence_fallback

    def reader(self, doc: Any) -> PropositionReader:
        """The proposition reader of one parsed text."""
        return PropositionReader(doc, resolve_pronouns=self.resolve_pronouns)

    @abstractmethod
    def sentence_claims(self, reader: PropositionReader, sentence: Sentence) -> list[Claim]:
        """The claims of the propositions ``reader`` reads in one sentence."""

    def doc_claims(self, doc: Any) -> list[Claim]:
        """The claims of one parsed text, sentence by sentence, without duplicates (the same triplet, or the
        same text of a claim without one)."""
        reader = self.reader(doc)
        claims: list[Claim] = []
        seen: set[tuple[str, str, str] | str] = set()
        for sentence in sentences(doc):
            found = self.sentence_claims(reader, sentence)
            if not found:
                if self.sentence_fallback and is_statement(sentence):
                    claims.append(sentence_claim(sentence, self.fallback_kind))
                continue
            for claim in found:
                key = claim.triplet if claim.triplet is not None else claim.text
                if key not in seen:
                    seen.add(key)
                    claims.append(claim)
        return claims
