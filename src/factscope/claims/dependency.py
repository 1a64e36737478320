"""Walking a spaCy dependency parse: noun phrases, verb groups and the propositions a sentence states.

The offline extractors share this module (parsing and sentences are in :mod:`factscope.claims.parsing`). A :class:`Proposition` is one clause reduced to its subject, its
verb group (auxiliaries, negation and particles kept: "did not win", "gave up"), its object and its
prepositional attachments; the triplet extractor and the atomic-fact extractor format propositions in their
own way.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Any

from factscope.claims.parsing import (
    CONTENT_POS,
    QUOTES,
    SPEAKER_PRONOUNS,
    SUBJECT_DEPS,
    Sentence,
    is_question,
)

OBJECT_DEPS = frozenset({"dobj", "attr", "acomp", "oprd"})
CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "relcl", "acl", "parataxis", "xcomp"})
VERB_GROUP_DEPS = frozenset({"aux", "auxpass", "neg", "prt"})
FINITE_VERB_TAGS = frozenset({"VBD", "VBZ", "VBP"})
RELATIVE_TAGS = frozenset({"WDT", "WP"})
RESOLVED_PRONOUNS = frozenset({"he", "she", "it", "they"})
POSSESSIVE_PRONOUNS = {"he": "his", "she": "her", "it": "its", "they": "their"}
"""The possessive of each resolved pronoun: "Its mirror ... It" speaks of one entity twice."""
MAIN_CLAUSE_LINKS = frozenset({"conj", "parataxis"})
UNASSERTED_MARKS = frozenset({"if", "unless", "whether", "than", "lest"})
"""Subordinators whose clause the sentence does not assert ("if he won", "more than it saved")."""
CONTRACTIONS = {
    "'s": "is",
    "\u2019s": "is",
    "'re": "are",
    "\u2019re": "are",
    "'m": "am",
    "\u2019m": "am",
    "'ve": "have",
    "\u2019ve": "have",
    "'ll": "will",
    "\u2019ll": "will",
    "'d": "would",
    "\u2019d": "would",
}
"""Contracted auxiliaries written out when they open a predicate ("it's wise" -> (it, is, wise))."""
DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
BE_FORMS = frozenset({"be", "is", "are", "was", "were", "been", "being", "'s", "'re", "am", "'m"})
EDGE_PUNCTUATION = " \t\r\n,;:!?-\u2013\u2014/"
SENTENCE_PUNCTUATION = frozenset({".", ",", ";", ":", "!", "?", "-", "--", "...", "\u2013", "\u2014"})
BRACKET_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))


Words = tuple[int, ...]
"""Indices of a parsed text's tokens: the words a part of a proposition is written with."""


@dataclass(frozen=True)
class Proposition:
    """One clause: ``subject predicate object`` plus prepositional attachments ``(preposition, object)``.

    ``words`` are the tokens the subject, predicate and object are written with (a resolved pronoun's own token,
    not its antecedent's), ``attachment_words`` those of each attachment; neither takes part in equality."""

    subject: str
    predicate: str
    object: str = ""
    attachments: tuple[tuple[str, str], ...] = ()
    words: Words = field(default=(), compare=False)
    attachment_words: tuple[Words, ...] = field(default=(), compare=False)


def conjuncts(token: Any) -> list[Any]:
    """The token and the tokens coordinated with it ("Jobs and Wozniak" -> [Jobs, Wozniak])."""
    return [token, *token.conjuncts]


def _keeps_appositive(head: Any, appositive: Any) -> bool:
    """Appositives that belong to the phrase itself: dates ("March 14, 1879"), places ("Ulm, Germany"),
    units ("100 degrees Celsius") and bracketed aliases ("The Indian Cricket League (ICL)")."""
    if appositive.pos_ == "NUM" or (head.ent_type_ == "DATE" and appositive.ent_type_ == "DATE"):
        return True
    measured = any(c.dep_ == "nummod" for c in head.children)
    if measured and not any(c.dep_ in {"det", "amod", "compound", "nummod"} for c in appositive.children):
        return True
    before = appositive.left_edge.i - 1
    if appositive.left_edge.text == "(" or before >= 0 and appositive.doc[before].text == "(":
        return True
    return head.ent_type_ in {"GPE", "LOC"} and appositive.ent_type_ in {"GPE", "LOC"}


def is_detached_preposition(token: Any) -> bool:
    """A preposition the parser hung on a date that belongs to the verb ("born on May 1 in Ulm")."""
    return token.dep_ == "prep" and token.head.ent_type_ == "DATE" and token.ent_type_ != "DATE"


def is_infinitive(verb: Any) -> bool:
    """A to-infinitive ("the first woman to win a Nobel Prize"): it stays inside its noun phrase."""
    return verb.tag_ == "VB" and any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)


def _cut_subtree(token: Any) -> bool:
    """Whether a modifier is left out of its head's noun phrase (it is stated as a proposition of its own)."""
    if token.dep_ == "relcl" and not is_infinitive(token) or is_detached_preposition(token):
        return True
    if token.dep_ == "appos":
        return not _keeps_appositive(token.head, token)
    return token.dep_ == "acl" and token.tag_ in {"VBN", "VBG"}


def clean_phrase(text: str) -> str:
    """Trim punctuation from the ends of a phrase and drop brackets or quotes left empty or unbalanced.

    A full stop is not trimmed here (it ends abbreviations such as "U.S."); :func:`phrase_tokens` leaves out
    sentence punctuation as tokens.
    """
    text = re.sub(r"\s+", " ", text)
    text = re.sub(r"""(\(\s*\)|\[\s*\]|"\s*"|'\s*'|\u2018\s*\u2019|\u201c\s*\u201d)""", " ", text)
    text = re.sub(r"\s+", " ", text)
    while True:
        before = text
        text = text.strip(EDGE_PUNCTUATION)
        for opening, closing in BRACKET_PAIRS:
            if text.endswith(opening) or (
                text.endswith(closing) and text.count(closing) > text.count(opening)
            ):
                text = text[:-1]
            if text.startswith(closing) or (
                text.startswith(opening) and text.count(opening) > text.count(closing)
            ):
                text = text[1:]
        for quote in QUOTES:
            if text.count(quote) % 2 == 1:
                if text.startswith(quote):
                    text = text[1:]
                elif text.endswith(quote) and not (quote == "'" and text[-2:-1] == "s"):
                    text = text[:-1]
        if text == before:
            return text


def phrase(token: Any) -> str:
    """The full noun phrase a token heads, without its conjuncts, appositives and relative clauses."""
    return clean_phrase(join_tokens(phrase_tokens(token)))


def phrase_tokens(token: Any) -> list[Any]:
    """The tokens of :func:`phrase`, in text order."""
    excluded: set[int] = set()
    for child in token.children:
        if child.dep_ in {"conj", "cc", "preconj"} or _cut_subtree(child):
            excluded.update(t.i for t in child.subtree)
    for descendant in token.subtree:
        if descendant is not token and descendant.i not in excluded and _cut_subtree(descendant):
            excluded.update(t.i for t in descendant.subtree)
    kept = [t for t in token.subtree if t.i not in excluded]
    while kept and (kept[-1].text in SENTENCE_PUNCTUATION or kept[-1].dep_ == "cc"):
        kept.pop()
    while kept and (kept[0].text in SENTENCE_PUNCTUATION or kept[0].dep_ == "cc"):
        kept.pop(0)
    return kept


def verb_group(verb: Any) -> str:
    """The verb with its auxiliaries, negation, particles and the adverbs inside the group ("was originally
    performed", "did not win", "gave up", "to become"); a coordinated passive participle or bare infinitive
    borrows the auxiliaries of its head ("is held and contested by" -> "is contested", "will conduct workshops
    and issue manuals" -> "will issue")."""
    ordered = verb_group_tokens(verb)
    text = join_tokens(ordered)
    if ordered[0].lower_ in CONTRACTIONS:
        full = CONTRACTIONS[ordered[0].lower_]
        if ordered[0].lower_ in {"'s", "\u2019s"} and len(ordered) > 1 and ordered[1].tag_ == "VBN":
            full = "has"
        rest = join_tokens(ordered[1:]) if len(ordered) > 1 else ""
        text = full + rest if rest.startswith("n't") else f"{full} {rest}".strip()
    if ordered[0].is_sent_start and ordered[0].pos_ != "PROPN" and ordered[0].text != "I":
        text = text[:1].lower() + text[1:]
    return text


def verb_group_tokens(verb: Any) -> list[Any]:
    """The tokens of :func:`verb_group`, in text order (borrowed auxiliaries included)."""
    group = [c for c in verb.children if c.dep_ in VERB_GROUP_DEPS]
    if verb.dep_ == "conj" and not any(c.dep_ in {"aux", "auxpass"} for c in group):
        head = verb.head
        while head.dep_ == "conj" and not any(c.dep_ in {"aux", "auxpass"} for c in head.children):
            head = head.head
        borrowed = [c for c in head.children if c.dep_ in {"aux", "auxpass"}]
        passive = verb.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in borrowed)
        modal = verb.tag_ == "VB" and any(c.tag_ == "MD" for c in borrowed)
        if passive or modal:
            group += borrowed
    first = min([t.i for t in group if t.i < verb.i], default=verb.i)
    group += [c for c in verb.children if c.dep_ == "advmod" and first < c.i < verb.i and c.tag_ != "WRB"]
    group.append(verb)
    return sorted(group, key=lambda t: t.i)


def is_negated(predicate: str) -> bool:
    """Whether a verb group carries a negation ("did not win", "isn't", "never won")."""
    return re.search(r"\b(not|never|no)\b|n't\b", predicate, re.IGNORECASE) is not None


def is_open_complement(token: Any) -> bool:
    """A verb complement without its own subject ("to become" in "wanted to become")."""
    return (
        token.dep_ == "xcomp"
        and token.pos_ in {"VERB", "AUX"}
        and not any(c.dep_ in SUBJECT_DEPS for c in token.children)
    )


def is_participle_clause(verb: Any) -> bool:
    """A participle clause without its own subject ("a palace built in 1639 and named X", "Born in Ulm, ..."):
    it is stated with a form of "be" added before the participle."""
    if verb.tag_ not in {"VBN", "VBG"} or any(c.dep_ in SUBJECT_DEPS for c in verb.children):
        return False
    if verb.dep_ == "conj":
        return is_participle_clause(verb.head)
    return verb.dep_ in {"acl", "advcl", "relcl"}


def stray_passive_object(verb: Any) -> tuple[Any, Any] | None:
    """(agent, object) when the parser split a passive's agent in two, the name becoming a direct object:
    "performed by the new wave band A Flock of Seagulls" (a passive verb takes no direct object)."""
    if not any(c.dep_ == "auxpass" for c in verb.children):
        return None
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    agents = [g for c in verb.children if c.dep_ == "agent" for g in c.children if g.dep_ == "pobj"]
    if len(objects) == 1 and len(agents) == 1 and agents[0].right_edge.i + 1 == objects[0].left_edge.i:
        return agents[0], objects[0]
    return None


def first_verb_tag(verb: Any) -> str:
    """The tag of the first word of a verb group (the finite auxiliary, or the verb itself)."""
    group = [c for c in verb.children if c.dep_ in {"aux", "auxpass"} and c.i < verb.i]
    return min([*group, verb], key=lambda t: t.i).tag_


IRREGULAR_THIRD_PERSON = {"are": "is", "were": "was", "have": "has", "do": "does", "don't": "doesn't"}


def third_person(predicate: str) -> str:
    """A verb group agreed with a singular subject: "make" -> "makes", "have won" -> "has won"."""
    first, _, rest = predicate.partition(" ")
    lowered = first.lower()
    if lowered in IRREGULAR_THIRD_PERSON:
        agreed = IRREGULAR_THIRD_PERSON[lowered]
    elif re.search(r"(s|sh|ch|x|z|o)$", lowered):
        agreed = first + "es"
    elif re.search(r"[^aeiou]y$", lowered):
        agreed = first[:-1] + "ies"
    else:
        agreed = first + "s"
    return f"{agreed} {rest}".strip()


def join_tokens(tokens: list[Any]) -> str:
    """Tokens in text order joined with their own spacing, one space where tokens were skipped."""
    pieces: list[str] = []
    previous = None
    for t in tokens:
        if previous is not None and t.i != previous + 1 and pieces and not pieces[-1].endswith(" "):
            pieces.append(" ")
        pieces.append(t.text_with_ws)
        previous = t.i
    return "".join(pieces).strip()


def copula(subject: Any, sentence_root: Any, participle: Any = None) -> str:
    """The form of "be" that states an appositive or a participle: number of the subject, tense of the sentence.

    A past participle that reports a dated event is in the past whatever the sentence's tense ("The palace,
    built in 1639, is in Paris." -> "was built"): "born", or one with a date in its clause.
    """
    dated = (
        participle is not None
        and participle.tag_ == "VBN"
        and (
            participle.lower_ == "born"
            or any(t.ent_type_ == "DATE" for c in participle.children if c.dep_ != "conj" for t in c.subtree)
        )
    )
    if dated:
        tense_tokens = [participle]
    elif sentence_root.pos_ in {"VERB", "AUX"}:
        tense_tokens = [sentence_root, *(c for c in sentence_root.children if c.dep_ in {"aux", "auxpass"})]
    else:
        tense_tokens = list(sentence_root.subtree)
    past = dated or any(t.tag_ == "VBD" for t in tense_tokens)
    plural = subject.tag_ in {"NNS", "NNPS"} or bool(subject.conjuncts) or subject.lower_ == "they"
    if past:
        return "were" if plural else "was"
    return "are" if plural else "is"


def tree_root(token: Any) -> Any:
    """The root of the dependency tree a token belongs to (one per sentence as the parser split it)."""
    while token.head.i != token.i:
        token = token.head
    return token


def is_main_clause_subject(subject: Any) -> bool:
    """Whether a subject belongs to its sentence's main clause or a clause coordinated with it ("X won and Y
    lost", "X won; Y lost"), not to a subordinate one ("after Y lost", "stating that Y lost"). A complement
    clause before its verb is a main clause the parser hung on the next one ("X is a city; it is ...",
    "X is large, the guide said")."""
    verb = subject.head
    while verb.head.i != verb.i and (
        verb.dep_ in MAIN_CLAUSE_LINKS or verb.dep_ == "ccomp" and verb.i < verb.head.i
    ):
        verb = verb.head
    return verb.dep_ == "ROOT"


def owner(subject: Any) -> Any | None:
    """The possessor of a subject phrase: a third-person possessive ("Its primary mirror") or a noun with
    "'s" ("The telescope's mirror"); None for a title such as "My Fair Lady"."""
    for child in subject.children:
        if child.dep_ == "poss" and (
            child.lower_ in POSSESSIVE_PRONOUNS.values() or child.pos_ in {"NOUN", "PROPN"}
        ):
            return child
    return None


class PronounResolver:
    """Resolves he / she / it / they subjects to the entity the text before them is about.

    Candidates are the nominal subjects (nouns and names, never pronouns) that come earlier in the response,
    nearest first: those of the pronoun's own sentence, and those of the main clauses of the sentences before
    (a subject inside a subordinate clause there, "... stating that the book confuses ...", is not what the
    next sentence goes on about). The nearest one that fits wins: "he" and "she" take a PERSON entity or a
    proper noun the tagger left untyped; "it" a singular, uncoordinated subject that is not a PERSON; "they" a
    plural or coordinated subject ("Apple and Google ... They" -> both) or an organisation.

    A subject that is owned ("Its primary mirror", "The telescope's mirror") is never the answer: when its owner
    is the pronoun's own possessive ("Its mirror ... It", "His father ... He") the pronoun and the owner name the
    same entity, and the search goes on to it; any other owner ("His wife ... She", "The telescope's mirror ...
    It") leaves the pronoun as written, since no antecedent is safe. With no fitting candidate the pronoun stays
    too.
    """

    def __init__(self, doc: Any) -> None:
        self._subjects = [
            t
            for t in doc
            if t.dep_ in SUBJECT_DEPS and t.pos_ in {"NOUN", "PROPN"} and t.tag_ not in RELATIVE_TAGS
        ]
        self._positions = [t.i for t in self._subjects]

    def resolve(self, pronoun: Any) -> list[Any]:
        """The antecedent tokens for a pronoun subject, or [] when none is found or none is safe."""
        word = pronoun.lower_
        root = tree_root(pronoun).i
        for candidate in reversed(self._subjects[: bisect_left(self._positions, pronoun.i)]):
            if tree_root(candidate).i != root and not is_main_clause_subject(candidate):
                continue
            possessor = owner(candidate)
            if possessor is not None:
                if possessor.lower_ == POSSESSIVE_PRONOUNS[word]:
                    continue
                return []
            if self._fits(word, candidate):
                return conjuncts(candidate) if word == "they" else [candidate]
        return []

    @staticmethod
    def _fits(word: str, candidate: Any) -> bool:
        """Whether a subject agrees with the pronoun (person, number, entity type). A name with an article is not
        a person, whatever the tagger says ("The James Webb Space Telescope")."""
        plural = candidate.tag_ in {"NNS", "NNPS"} or bool(candidate.conjuncts)
        person = candidate.ent_type_ == "PERSON" and not any(c.dep_ == "det" for c in candidate.children)
        if word in {"he", "she"}:
            return person or (candidate.pos_ == "PROPN" and not candidate.ent_type_)
        if word == "it":
            return not person and not plural
        return plural or candidate.ent_type_ in {"ORG", "NORP"}


class PropositionReader:
    """Reads the propositions of each sentence of one parsed text.

    ``resolve_pronouns`` replaces he / she / it / they subjects by their antecedent (see PronounResolver);
    ``speaker_subjects`` keeps clauses whose subject is I, me, you or we (dropped by default: they are the
    assistant talking about itself or the user, not claims about the world); ``split_nationality`` states a
    nationality apart from the noun it qualifies ("X is a French general" -> X is French, X is a general).
    """

    def __init__(
        self,
        doc: Any,
        *,
        resolve_pronouns: bool = True,
        speaker_subjects: bool = False,
        split_nationality: bool = False,
    ) -> None:
        self.resolver = PronounResolver(doc) if resolve_pronouns else None
        self.speaker_subjects = speaker_subjects
        self.split_nationality = split_nationality

    def read(self, sentence: Sentence) -> list[Proposition]:
        """The propositions a sentence states, in reading order, without duplicates (none for a question).

        Refusals need no test here: "I don't know" and "As an AI, I cannot ..." have speaker subjects, and a
        mixed sentence ("I'm not sure, but Paris is the capital.") keeps its claim."""
        if is_question(sentence):
            return []
        found: list[Proposition] = []
        folded = {x.i for t in sentence.tokens for x in self._folded_complements(t)}
        for token in sentence.tokens:
            if self._is_clause_head(token) and token.i not in folded:
                found.extend(self._clause(token, sentence))
            for appositive in (c for c in token.children if c.dep_ == "appos"):
                if not _keeps_appositive(token, appositive) and token.pos_ in CONTENT_POS | {"PRON"}:
                    found.extend(self._appositive(token, appositive, sentence))
        return list(dict.fromkeys(found))

    def _is_clause_head(self, token: Any) -> bool:
        if (
            token.dep_ == "acl"
            and token.tag_ not in {"VBN", "VBG"}
            or token.dep_ == "relcl"
            and is_infinitive(token)
        ):
            return False
        if any(c.dep_ == "mark" and c.lower_ in UNASSERTED_MARKS for c in token.children):
            return False
        return token.pos_ in {"VERB", "AUX"} and token.dep_ in CLAUSE_DEPS

    @staticmethod
    def _folded_complements(verb: Any) -> list[Any]:
        """Open complements without their own subject that join the verb's predicate: "wanted to become",
        and an adjective with one after a copula, "was due to start", "is able to fly"."""
        if verb.pos_ not in {"VERB", "AUX"}:
            return []
        complements = [c for c in verb.children if c.dep_ in OBJECT_DEPS]
        if len(complements) == 1 and verb.pos_ == "AUX" and complements[0].pos_ == "ADJ":
            adjective = complements[0]
            inner = [c for c in adjective.children if is_open_complement(c)]
            return [adjective, inner[0]] if inner else []
        if complements:
            return []
        return [c for c in verb.children if is_open_complement(c)]

    def _arguments(self, token: Any) -> list[tuple[str, Words]]:
        """(phrase, words) for an argument and its conjuncts, with pronoun subjects resolved."""
        return [(text, words) for text, _, words in self._headed_arguments(token)]

    def _headed_arguments(self, token: Any) -> list[tuple[str, Any, Words]]:
        """(phrase, head token, words) for an argument and its conjuncts, with pronoun subjects resolved; the
        words are the argument as written (a resolved pronoun's own token)."""
        found: list[tuple[str, Any, Words]] = []
        for conjunct in conjuncts(token):
            words = tuple(t.i for t in phrase_tokens(conjunct))
            if (
                self.resolver is not None
                and conjunct.dep_ in SUBJECT_DEPS | {"conj"}
                and conjunct.lower_ in RESOLVED_PRONOUNS
            ):
                antecedents = self.resolver.resolve(conjunct)
                if antecedents:
                    found.extend((phrase(t), t, words) for t in antecedents)
                    continue
            found.append((phrase(conjunct), conjunct, words))
        return [(text, head, words) for text, head, words in found if text]

    def _subjects(self, verb: Any) -> tuple[list[tuple[str, Any, Words]], Any | None]:
        """(phrase, head, words) of each subject of a clause and the token the clause names as subject (or
        None)."""
        own = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
        if own:
            subject = own[0]
            if verb.dep_ == "relcl" and subject.tag_ in RELATIVE_TAGS:
                return self._described(verb.head)
            if subject.tag_ in RELATIVE_TAGS:
                relative = verb
                while relative.dep_ in {"ccomp", "xcomp", "conj"} and relative.head is not relative:
                    relative = relative.head
                return self._described(relative.head) if relative.dep_ == "relcl" else ([], None)
            if not self.speaker_subjects and subject.lower_ in SPEAKER_PRONOUNS:
                return [], None
            if subject.pos_ == "PRON" and subject.lower_ in DEMONSTRATIVES:
                return [], None
            return self._headed_arguments(subject), subject
        if verb.dep_ == "conj" and verb.head.pos_ in {"VERB", "AUX"}:
            return self._subjects(verb.head)
        if verb.dep_ == "acl" or verb.dep_ == "relcl":
            return self._described(verb.head)
        if verb.dep_ == "advcl" and verb.tag_ == "VBN" and verb.head.pos_ in {"VERB", "AUX"}:
            return self._subjects(verb.head)
        return [], None

    def _described(self, noun: Any) -> tuple[list[tuple[str, Any, Words]], Any]:
        """What a relative or participle clause on ``noun`` is about: the noun itself, or, when the noun is
        predicated of a subject ("Curie was a physicist who ...", "Paris, a city founded ..."), that subject."""
        while noun.dep_ in {"appos", "conj"} and noun.head.pos_ in CONTENT_POS | {"PRON"}:
            noun = noun.head
        if noun.dep_ == "attr" and noun.head.pos_ == "AUX":
            subjects, subject_token = self._subjects(noun.head)
            if subjects and subject_token is not None and subject_token.pos_ != "PRON":
                return subjects, subject_token
        return self._headed_arguments(noun), noun

    def _clause(self, verb: Any, sentence: Sentence) -> list[Proposition]:
        subjects, subject_token = self._subjects(verb)
        if not subjects:
            return []
        parts = [verb, *self._folded_complements(verb)]
        predicate = " ".join(verb_group(v) for v in parts)
        predicate_words = tuple(t.i for v in parts for t in verb_group_tokens(v))
        if is_participle_clause(verb) and subject_token is not None:
            predicate = f"{copula(subject_token, sentence.tokens.root, verb)} {predicate}"
        plural_verb = first_verb_tag(verb) == "VBP"
        objects: list[tuple[str, Words]] = []
        attachments: list[tuple[str, str, Words]] = []
        stray = stray_passive_object(verb)
        if stray is not None:
            agent, obj = stray
            written = phrase_tokens(agent) + phrase_tokens(obj)
            attachments.append(
                ("by", clean_phrase(join_tokens(written)), (agent.head.i, *(t.i for t in written)))
            )
        for part in parts:
            for child in part.children:
                if child in parts or (stray is not None and child.dep_ in {"agent", "dobj"}):
                    continue
                if child.dep_ in OBJECT_DEPS:
                    if child.tag_ in RELATIVE_TAGS and verb.dep_ == "relcl":
                        objects.extend(self._arguments(verb.head))
                    elif child.dep_ == "attr" and self.split_nationality:
                        objects.extend(
                            (p, tuple(t.i for t in phrase_tokens(c)))
                            for c in conjuncts(child)
                            for p in self._described_as(c)
                        )
                    else:
                        objects.extend(self._arguments(child))
                elif child.dep_ in {"prep", "agent"}:
                    attachments.extend(self._attachments(child))
                elif child.dep_ == "advmod" and child.lower_ == "where" and verb.dep_ == "relcl":
                    attachments.extend(("in", p, (child.i, *words)) for p, words in self._arguments(verb.head))
        if not objects:
            objects.extend(
                p
                for c in verb.children
                if c.dep_ == "npadvmod" and c.pos_ == "PROPN"
                for p in self._arguments(c)
            )
        gap_object = (
            verb.dep_ == "relcl"
            and subject_token is not verb.head
            and not objects
            and not attachments
            and not any(c.dep_ in {"ccomp", "xcomp"} for c in verb.children)
        )
        if gap_object:
            objects.extend(self._arguments(verb.head))
        if (
            not objects
            and not attachments
            and (verb.pos_ == "AUX" or any(c.dep_ in {"ccomp", "xcomp", "csubj"} for c in verb.children))
        ):
            return []
        return [
            Proposition(
                subject,
                third_person(predicate) if plural_verb and head.tag_ in {"NN", "NNP"} else predicate,
                obj,
                tuple((preposition, target) for preposition, target, _ in attachments),
                words=(*subject_words, *predicate_words, *object_words),
                attachment_words=tuple(words for _, _, words in attachments),
            )
            for subject, head, subject_words in subjects
            for obj, object_words in (objects or [("", ())])
            if subject != obj and not any(t.tag_ in RELATIVE_TAGS for t in phrase_tokens(head))
        ]

    def _attachments(self, preposition: Any) -> list[tuple[str, str, Words]]:
        """(preposition, object, words) for each object of a preposition and of its conjuncts."""
        found = []
        for prep in conjuncts(preposition):
            for child in prep.children:
                if child.dep_ == "pobj" and prep.lower_ == "between":
                    found.append(
                        (prep.lower_, clean_phrase(join_tokens(list(child.subtree))),
                         (prep.i, *(t.i for t in child.subtree)))
                    )
                elif child.dep_ == "pobj":
                    found.extend((prep.lower_, p, (prep.i, *words)) for p, words in self._arguments(child))
                    for inner in child.children:
                        if is_detached_preposition(inner):
                            found.extend(self._attachments(inner))
        return found

    def _appositive(self, head: Any, appositive: Any, sentence: Sentence) -> list[Proposition]:
        subjects = (
            self._arguments(head)
            if head.dep_ in SUBJECT_DEPS
            else [(phrase(head), tuple(t.i for t in phrase_tokens(head)))]
        )
        described_words = tuple(t.i for t in phrase_tokens(appositive))
        if any(t.pos_ == "VERB" or t.tag_ in FINITE_VERB_TAGS for t in phrase_tokens(appositive)):
            return []
        return [
            Proposition(
                subject, copula(head, sentence.tokens.root), described, words=(*subject_words, *described_words)
            )
            for subject, subject_words in subjects
            for described in self._described_as(appositive)
            if subject and described and subject != described
        ]

    def _described_as(self, noun: Any) -> list[str]:
        """What a predicate noun says of its subject: its phrase, or, with ``split_nationality``, the
        nationality and the noun phrase without it ("a French general" -> "French", "a general")."""
        adjectives = [c for c in noun.children if c.dep_ == "amod" and c.ent_type_ == "NORP"]
        if not self.split_nationality or noun.pos_ != "NOUN" or not adjectives:
            return [phrase(noun)]
        dropped = {t.i for a in adjectives for t in a.subtree}
        rest = clean_phrase(join_tokens([t for t in phrase_tokens(noun) if t.i not in dropped]))
        return [*(phrase(a) for a in adjectives), rest]
