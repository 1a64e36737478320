"""Offline atomic-fact decomposition (Truly Ground, appendix A.3): short standalone sentences, one fact each."""

from __future__ import annotations

from typing import Any

from factscope.claims.dependency import BE_FORMS, Proposition, PropositionReader, is_negated
from factscope.claims.parsing import ParsedExtractor, is_statement, sentence_claim, sentences
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
    core = (proposition.subject, proposition.predicate, proposition.object)
    facts = []
    bare_copula = not proposition.object and proposition.predicate.split()[-1].lower() in BE_FORMS
    keep_core = core_facts and not is_negated(proposition.predicate) and not bare_copula
    if not proposition.attachments or keep_core:
        facts.append(as_sentence(*core))
    facts.extend(as_sentence(*core, preposition, target) for preposition, target in proposition.attachments)
    return facts


class ClauseFactExtractor(ParsedExtractor):
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

    def __init__(
        self,
        nlp: Any = None,
        *,
        batch_size: int = 32,
        core_facts: bool = True,
        split_nationality: bool = True,
        resolve_pronouns: bool = True,
        sentence_fallback: bool = True,
    ) -> None:
        super().__init__(nlp, batch_size=batch_size)
        self.core_facts = core_facts
        self.split_nationality = split_nationality
        self.resolve_pronouns = resolve_pronouns
        self.sentence_fallback = sentence_fallback

    def doc_claims(self, doc: Any) -> list[Claim]:
        """The atomic facts of one parsed text, sentence by sentence, without duplicates."""
        reader = PropositionReader(
            doc, resolve_pronouns=self.resolve_pronouns, split_nationality=self.split_nationality
        )
        claims: list[Claim] = []
        seen: set[str] = set()
        for sentence in sentences(doc):
            facts = [
                f for p in reader.read(sentence) for f in proposition_facts(p, core_facts=self.core_facts)
            ]
            if not facts:
                if self.sentence_fallback and is_statement(sentence):
                    claims.append(sentence_claim(sentence, "fact"))
                continue
            for fact in facts:
                if fact in seen:
                    continue
                seen.add(fact)
                claims.append(
                    Claim(text=fact, kind="fact", sentence_ids=[sentence.index], spans=[sentence.span])
                )
        return claims
