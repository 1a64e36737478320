"""Named entities of a claim, and when evidence bears one (the entity check of
:func:`factscope.checkers.mismatch.find_mismatch`).

An entity is a spaCy named entity or a capitalised proper-noun span. It is borne when all its words occur in
the evidence or its context, ignoring case, punctuation, possessives and ``the`` (``Gosling`` is borne by
``James Gosling``, ``Canadian`` by ``Canada``, ``U.S.`` by ``United States``), or, for a name of two words or
more, when its last word does (``Barack Obama`` is borne by ``Obama``). One that is not borne is aligned with
an evidence entity of the same type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from factscope.checkers.mismatch_numbers import NOT_NAMES
from factscope.checkers.mismatch_slots import STOP, WORD, closest
from factscope.hf.embedded import load_spacy

ENTITY_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "NORP", "WORK_OF_ART", "EVENT", "FAC", "PRODUCT", "LANGUAGE"}
)
"""spaCy entity types checked as entities (dates and amounts are read by the value patterns instead)."""

_PLURAL_ACRONYM = re.compile(r"\b[A-Z]{2,}s\b")
_ACRONYM = re.compile(r"\b(?:[A-Za-z]\.){2,}")
_CAPITALISED_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|the\s+)?[A-Z][a-z]+)+")


def _normal(word: str) -> str:
    word = word.lower().replace("’", "'")
    return word.removesuffix("'s")


@lru_cache(maxsize=4096)
def _vocabulary(text: str) -> frozenset[str]:
    """Normalised words of a text, with acronyms of its dotted abbreviations and capitalised runs, and plural
    acronyms in the singular (CNNs)."""
    words = {_normal(w) for w in WORD.findall(text)}
    words |= {a.replace(".", "").lower() for a in _ACRONYM.findall(text)}
    words |= {plural[:-1].lower() for plural in _PLURAL_ACRONYM.findall(text)}
    for run in _CAPITALISED_RUN.findall(text):
        initials = "".join(w[0] for w in run.split() if w[0].isupper()).lower()
        words.update(initials[i:j] for i in range(len(initials)) for j in range(i + 2, len(initials) + 1))
    return frozenset(words)


def _entity_words(text: str) -> list[str]:
    dotted = _ACRONYM.sub(lambda m: m.group().replace(".", ""), text)
    return [w for w in (_normal(w) for w in WORD.findall(dotted)) if w not in STOP]


def _word_borne(word: str, vocabulary: frozenset[str]) -> bool:
    if word in vocabulary:
        return True
    if len(word) < 4:
        return False
    stem = word[: max(4, len(word) - 3)]
    return any(
        v.startswith(stem) or (len(v) >= 4 and word.startswith(v[: max(4, len(v) - 3)])) for v in vocabulary
    )


def _entity_borne(words: list[str], vocabulary: frozenset[str]) -> bool:
    if all(_word_borne(w, vocabulary) for w in words):
        return True
    names = [w for w in words if not w.isdigit()]
    if any(w.isdigit() and w not in vocabulary for w in words):
        return False
    return len(names) >= 2 and _word_borne(names[-1], vocabulary)


@dataclass(frozen=True)
class Entity:
    """One named entity or proper-noun span found in a text, with its character span there and its spaCy type
    ("" for a proper-noun span spaCy did not name)."""

    text: str
    start: int
    end: int
    label: str


_NAME_NUMBER = re.compile(r"[ -]\d+\b(?![.,]\d)")


def _named(text: str, start: int, end: int, label: str) -> Entity:
    """An entity, extended by a number that follows it as part of the name (Boeing 747, COVID-19)."""
    number = _NAME_NUMBER.match(text, end)
    if number and text[start:end].split()[-1].lower() not in NOT_NAMES:
        end = number.end()
    return Entity(text[start:end], start, end, label)


@lru_cache(maxsize=4096)
def _entities(text: str) -> tuple[Entity, ...]:
    """Named entities of the checked types and capitalised proper-noun spans of a text (cached; parsed inside
    spaCy's memory zone, so the vocabulary does not grow with every text). The pipeline is the rule extractors'
    (``ParsedExtractor.unused_components`` left out), so a run loads one; its parser is skipped for this call."""
    nlp = load_spacy(("lemmatizer",))
    with nlp.memory_zone():
        return _entities_of(nlp(text, disable=["parser"]), text)


def _entities_of(doc: Any, text: str) -> tuple[Entity, ...]:
    """The entities of ``_entities`` found in a parsed ``doc`` of ``text``."""
    found: list[Entity] = []
    covered: set[int] = set()
    for ent in doc.ents:
        if ent.label_ not in ENTITY_LABELS or not _looks_proper(ent, named=True):
            continue
        found.append(_named(text, ent.start_char, ent.end_char, ent.label_))
        covered.update(range(ent.start, ent.end))
    run: list[Any] = []
    for token in [*doc, None]:
        if token is not None and token.i not in covered and token.pos_ == "PROPN" and _name_cased(token.text):
            run.append(token)
            continue
        if run and _looks_proper(doc[run[0].i : run[-1].i + 1], named=False):
            found.append(_named(text, run[0].idx, run[-1].idx + len(run[-1]), ""))
        run = []
    return tuple(sorted(found, key=lambda e: e.start))


def _name_cased(word: str) -> bool:
    """Capitalised like a name (Gosling, NASA), not like a unit or a title (YoY, PhDs)."""
    return word[:1].isupper() and (word[1:].islower() or word.isupper() or not word[1:].isalpha())


def _starts_sentence(token: Any) -> bool:
    return token.i == 0 or token.nbor(-1).text in {".", "!", "?", '"', "“", ":", ";"}


def _looks_proper(span: Any, named: bool) -> bool:
    """A name, not a capitalised common word.

    Some capitalised token must be tagged as a proper noun or stand inside a sentence; a lone sentence-initial
    word that spaCy did not name (``named``) counts only as the subject of a verb ("Python was created").
    """
    tokens = [t for t in span if _name_cased(t.text) and t.is_alpha]
    if not tokens:
        return False
    if not named and len(span) == 1 and _starts_sentence(span[0]):
        following = span[0].nbor(1) if span[0].i + 1 < len(span.doc) else None
        return following is not None and following.pos_ in ("AUX", "VERB")
    return any(t.pos_ == "PROPN" or not _starts_sentence(t) for t in tokens)


_CAPITALISED = re.compile(r"\b[A-Z][\w'’.-]*(?:[ -]\d+\b)?")


def entity_mismatch(
    claim: str, evidence: str, context: str | None, before: int
) -> tuple[Entity, Entity | None] | None:
    """The first entity of ``claim`` starting before ``before`` that the evidence and context do not bear."""
    vocabulary = _vocabulary(evidence) | (_vocabulary(context) if context else frozenset())
    if all(_entity_borne(_entity_words(w), vocabulary) for w in _CAPITALISED.findall(claim[:before])):
        return None
    for entity in _entities(claim):
        if entity.start >= before:
            break
        if _entity_borne(_entity_words(entity.text), vocabulary):
            continue
        others = [e for e in _entities(evidence) if entity.label and e.label == entity.label]
        if not others:
            return entity, None
        return entity, closest(claim, (entity.start, entity.end, None), evidence, others)
    return None
