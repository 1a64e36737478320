"""Offline atomic-fact decomposition (Truly Ground, appendix A.3): short standalone sentences, one fact each."""

from __future__ import annotations

from typing import Any, Unpack

from factscope.claims.dependency import BE_FORMS, Proposition, PropositionReader, Words, is_negated
from factscope.claims.parsing import Sentence, word_spans
from factscope.claims.proposition_claims import PropositionExtractor, PropositionReading
from factscope.core.schema import Claim


def as_sentence(*parts: str) -> str:
    """Join non-empty parts into a sentence: first letter upper-cased, ending with a full stop."""
    text = " ".join(part for part in parts if part)
    return text[:1].upper() + text[1:] + "."


def proposition_facts(proposition: Proposition, *, core_facts: bool = True) -> list[str]:
    """The atomic facts of one proposition.

    The core fact states the clause without its attachments ("The ICL was founded."); each prepositional
    attachment adds one fact that repeats the core with it ("The ICL was founded in 2007.", "The ICL was founded
    by Zee."), the policy of Truly Ground's examples. With ``core_facts=False`` the core is only kept when the clause
    has no attachment. A negated clause keeps its core only when it has no attachment, because the negation
    usually bears on the attachment: "Tesla was not founded by Musk." does not state "Tesla was not founded.";
    nor does a bare copula ("Paris is on the Seine." gives no "Paris is.").
    """
    return [fact for fact, _ in worded_facts(proposition, core_facts=core_facts)]


def worded_facts(proposition: Proposition, *, core_facts: bool = True) -> list[tuple[str, Words]]:
    """The atomic facts of :func:`proposition_facts`, each with the words of the text it is written with: the
    clause's subject, predicate and object, and an attachment's preposition and object too."""
    core = (proposition.subject, proposition.predicate, proposition.object)
    facts: list[tuple[str, Words]] = []
    bare_copula = not proposition.object and proposition.predicate.split()[-1].lower() in BE_FORMS
    keep_core = core_facts and not is_negated(proposition.predicate) and not bare_copula
    if not proposition.attachments or keep_core:
        facts.append((as_sentence(*core), proposition.words))
    attachment_words = proposition.attachment_words or ((),) * len(proposition.attachments)
    facts.extend(
        (as_sentence(*core, preposition, target), (*proposition.words, *words))
        for (preposition, target), words in zip(proposition.attachments, attachment_words, strict=True)
    )
    return facts


class ClauseFactExtractor(PropositionExtractor):
    """Atomic facts (``kind="fact"``) from the dependency parse, for the grounding task of Truly Ground.

    A sentence is split by clauses, coordinated subjects / verbs / objects, appositives ("Paris, the capital of
    France," -> "Paris is the capital of France."), relative and participle clauses ("Marie Curie, who
    discovered radium," -> "Marie Curie discovered radium.") and prepositional attachments (see
    :func:`proposition_facts`). A nationality is its own fact, as in Truly Ground ("Napoleon is a French general." ->
    "Napoleon is French.", "Napoleon is a general."; ``split_nationality``). He / she / it / they subjects are
    replaced by the entity the text before them is about (see ``PronounResolver``), so every fact stands alone. A statement with no clause the rules read
    is kept whole as one fact; questions and refusals give none.

    Example::

        ClauseFactExtractor().extract(["Apple was founded by Steve Jobs in 1976."])[0].claims
        # texts: "Apple was founded.", "Apple was founded by Steve Jobs.", "Apple was founded in 1976."
    """

    name = "facts"
    fallback_kind = "fact"

    def __init__(
        self,
        nlp: Any = None,
        *,
        core_facts: bool = True,
        split_nationality: bool = True,
        **reading: Unpack[PropositionReading],
    ) -> None:
        super().__init__(nlp, **reading)
        self.core_facts = core_facts
        self.split_nationality = split_nationality

    def reader(self, doc: Any) -> PropositionReader:
        """The proposition reader of one parsed text, nationalities split with ``split_nationality``."""
        return PropositionReader(
            doc, resolve_pronouns=self.resolve_pronouns, split_nationality=self.split_nationality
        )

    def sentence_claims(self, reader: PropositionReader, sentence: Sentence) -> list[Claim]:
        """The atomic facts of one sentence's propositions, as claims located by their words (by the sentence when
        the parse gives none)."""
        return [
            Claim(text=fact, kind="fact", sentence_ids=[sentence.index], **word_spans(sentence, words))
            for p in reader.read(sentence)
            for fact, words in worded_facts(p, core_facts=self.core_facts)
        ]
