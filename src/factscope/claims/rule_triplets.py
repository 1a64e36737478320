"""Offline claim-triplets (RefChecker, section 4.1) read from the spaCy dependency parse."""

from __future__ import annotations

from factscope.claims.dependency import Proposition, PropositionReader, Words, is_negated
from factscope.claims.parsing import Sentence, word_spans
from factscope.claims.proposition_claims import PropositionExtractor
from factscope.core.schema import Claim


def proposition_triplets(proposition: Proposition) -> list[tuple[str, str, str]]:
    """The claim-triplets of one proposition.

    A clause with an object gives (subject, verb group, object); each prepositional attachment gives one more
    triplet whose predicate carries the verb group, the object and the preposition:
    "Einstein won the Nobel Prize in 1921" -> (Einstein, won, the Nobel Prize),
    (Einstein, won the Nobel Prize in, 1921). A clause without an object gives one triplet per attachment,
    (Einstein, was born in, Ulm), or, with none, the bare (The company, collapsed, ""). A negated clause with
    attachments gives only the attachment triplets, because the negation usually bears on them: "Apple did not
    make phones until 2007" does not state (Apple, did not make, phones).
    """
    return [triplet for triplet, _ in worded_triplets(proposition)]


def worded_triplets(proposition: Proposition) -> list[tuple[tuple[str, str, str], Words]]:
    """The claim-triplets of :func:`proposition_triplets`, each with the words of the text it is written with: the
    clause's subject, predicate and object, and an attachment triplet's preposition and object too."""
    subject, predicate, obj = proposition.subject, proposition.predicate, proposition.object
    found: list[tuple[tuple[str, str, str], Words]] = []
    if not proposition.attachments or (obj and not is_negated(predicate)):
        found.append(((subject, predicate, obj), proposition.words))
    stem = f"{predicate} {obj}".strip()
    attachment_words = proposition.attachment_words or ((),) * len(proposition.attachments)
    found.extend(
        ((subject, f"{stem} {preposition}", target), (*proposition.words, *words))
        for (preposition, target), words in zip(proposition.attachments, attachment_words, strict=True)
    )
    return found


def triplet_text(triplet: tuple[str, str, str]) -> str:
    """A triplet read as a sentence: its non-empty parts joined, ending with a full stop."""
    return " ".join(part for part in triplet if part) + "."


class RuleTripletExtractor(PropositionExtractor):
    """Claim-triplets from dependency rules, with no model beyond spaCy.

    Covers subject-verb-object clauses (negation and particles kept in the predicate), passive voice kept as
    (patient, "was founded by", agent), copulas, appositives, prepositional attachments, relative and participle
    clauses, coordinated subjects / objects / verbs, and he / she / it / they subjects resolved to the entity the
    text before them is about, never to an owned subject such as "Its primary mirror" (see ``PronounResolver``). A statement that gives no triplet becomes one sentence-level claim (``sentence_fallback``);
    questions and refusals give nothing, so a refusal-only response has no claims: an abstention.

    Example::

        extractor = RuleTripletExtractor()
        [claim.triplet for claim in extractor.extract(["Einstein was born in Ulm."])[0].claims]
        # [("Einstein", "was born in", "Ulm")]
    """

    name = "rules"
    fallback_kind = "sentence"

    def sentence_claims(self, reader: PropositionReader, sentence: Sentence) -> list[Claim]:
        """The triplets of one sentence's propositions, as claims located by their words (by the sentence when
        the parse gives none)."""
        return [
            Claim(
                text=triplet_text(triplet),
                kind="triplet",
                triplet=triplet,
                sentence_ids=[sentence.index],
                **word_spans(sentence, words),
            )
            for p in reader.read(sentence)
            for triplet, words in worded_triplets(p)
        ]
