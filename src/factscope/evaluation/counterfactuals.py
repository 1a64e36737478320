"""Counterfactual (premise, hypothesis) pairs: small edits of an entailed fact whose label the edit decides.

From a source (a premise and facts it entails; by default the premise's own sentences) the generator makes:

- ``faithful``: the fact as it is (entailment);
- ``number``: one count, quantity, amount or percentage changed to a clearly different value (contradiction);
- ``date``: one year shifted, or the month of a day-month date changed (contradiction);
- ``entity``: a name replaced by one of the same type from another source: a place or organisation in the slot
  of a one-valued relation (born in, died in, located in, developed at) or a person as the maker (created /
  written / designed / founded ... by) gives a contradiction; a person as the subject of a sentence that only
  describes them ("X was a Polish physicist") gives neutral (the premise says nothing of the newcomer);
  anywhere else no pair. The new name is in no source that holds the old one (no "Paris" for "France");
- ``negation``: "not" put on (or taken off) the main verb (contradiction);
- ``role``: the subject and the object of an asymmetric relation swapped (not_entailment: the premise never
  supports it, but whether it rules it out depends on the relation);
- ``unrelated``: the fact against the premise of a source that shares no name with it (neutral);
- ``long-premise``: for one fact of each source, the faithful fact and its first contradicting edit against the
  own premise placed among premises that share no name with it, until the whole is long (labels unchanged).

Every pair's ``group`` is its source's id, so a split by group never puts pairs of one source in two parts.
An edit that cannot be made safely is skipped: quality first, quantity second.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from factscope.core.text import split_sentences
from factscope.evaluation.pairs import PairFields, PairLabel
from factscope.hf.embedded import load_spacy

Kind = Literal["faithful", "number", "date", "entity", "negation", "role", "unrelated", "long-premise"]
KINDS: tuple[Kind, ...] = (
    "faithful",
    "number",
    "date",
    "entity",
    "negation",
    "role",
    "unrelated",
    "long-premise",
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _ordered(text: str) -> tuple[str, ...]:
    return tuple(text.split())


SWAPPABLE_ENTITIES = ("PERSON", "ORG", "GPE", "LOC", "FAC")
SUBJECT_ENTITIES = ("PERSON", "FAC")
"""Types whose names spaCy tags reliably enough to put one in another's place as the subject."""
NOT_PERSON_WORDS = _words(
    "lake mount river sea bridge street company corporation group holdings foods systems transport university "
    "symphony railway tramway station museum yards marine industries bank press records airlines motors"
)
"""Words that give away a name spaCy tagged PERSON but which is a place, a work or a company."""
NUMBER_ENTITIES = ("CARDINAL", "QUANTITY", "MONEY", "PERCENT")
ONE_VALUED_VERBS = _words(
    "bear die create write found design invent compose discover direct establish locate headquarter paint "
    "develop bury"
)
"""Verbs whose place or maker slot holds one value: another value there contradicts the premise."""
ONE_OFF_VERBS = ONE_VALUED_VERBS | _words(
    "open reopen close complete finish build release publish sign ratify launch land inaugurate demolish destroy "
    "abolish kill assassinate murder marry elect appoint start begin end merge acquire retire resign join become "
    "move withdraw convert electrify replace premiere lift describe name rename"
)
"""Verbs of events that happen once to their subject: the event at another time contradicts the premise."""
NOUN_ROLES = frozenset({"nsubj", "nsubjpass", "pobj", "dobj", "attr", "appos", "ROOT"})
"""Where a name stands as a noun; "the Chinese and Nepali authorities" gives no place name to the pool."""
IDENTIFYING = frozenset({"nummod", "compound", "amod", "poss", "nmod"})
"""Dependencies of a date that names a thing ("the 2011 census") rather than the time of an event."""
SYMMETRIC_VERBS = _words(
    "marry meet share join border play fight compete collaborate partner merge tie debate date divorce face "
    "work talk speak resemble equal neighbour accompany"
)
NUMBER_BOUNDS = _words(
    "more less fewer over under least most up nearly almost than below above exceed exceeds"
)
"""Words that make a number a bound: "more than 27" stays true for 12, so no swap."""
DATE_BOUNDS = _words("before after by since until till around circa between early late mid")
"""Words that make a date a bound or an approximate time: "by 1900" stays true for 1910."""
RANGE_MARKS = frozenset({"to", "-", "–", "—", "or", "and", "/"})
UNIQUE_WORDS = frozenset({"first", "last", "only", "sole", "single", "unique"})
PRONOUNS = _words("he she it they his her its their him them this these those")
WORD_NUMBERS = _ordered(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty"
)
MONTHS = _ordered("January February March April May June July August September October November December")
YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})$")
DIGITS = re.compile(r"^\d{1,3}(,\d{3})+$|^\d+(\.\d+)?$")
FACTORS = (0.5, 0.6, 1.5, 2.0)
LATEST_YEAR = 2025
YEAR_SHIFTS = (-12, -7, -5, -3, 3, 5, 7, 12)


@dataclass(frozen=True)
class Source:
    """A premise and facts it entails; with no facts, the premise's own sentences are the facts.

    ``group`` (default: the id) is what a split goes by: sources of one group (several evidence passages of one
    claim) give their pairs the same group.
    """

    id: str
    premise: str
    facts: tuple[str, ...] = ()
    group: str = ""


class GeneratedPair(PairFields):
    """One labelled pair in the shape the evaluation reader takes, with the edit that made it."""

    kind: Kind
    edit: str


@dataclass(frozen=True)
class _Edit:
    hypothesis: str
    label: PairLabel
    edit: str


@dataclass(frozen=True)
class _Name:
    text: str
    label: str
    the: bool
    words: int


class _Pool:
    """The names of all sources by type, and which sources hold each name (to keep related names apart)."""

    def __init__(self, docs: dict[str, Any]) -> None:
        self.where: dict[str, set[str]] = {}
        names: dict[tuple[str, bool], _Name] = {}
        for source_id, doc in docs.items():
            for ent in doc.ents:
                if ent.label_ not in SWAPPABLE_ENTITIES or ent.root.dep_ not in NOUN_ROLES:
                    continue
                name = _name(ent)
                self.where.setdefault(name.text.lower(), set()).add(source_id)
                names.setdefault((name.text, name.the), name)
        self.names = sorted(names.values(), key=lambda name: (name.label, name.text, name.the))

    def replacements(self, original: _Name, premise: str, rng: random.Random) -> list[_Name]:
        """Up to five names of the same type and article, in no source that holds the original nor in the premise."""
        near = self.where.get(original.text.lower(), set())
        lowered = premise.lower()
        words = set(original.text.lower().split())
        candidates = [
            name
            for name in self.names
            if name.label == original.label
            and not (name.label == "PERSON" and set(name.text.lower().split()) & NOT_PERSON_WORDS)
            and name.the == original.the
            and (name.words > 1) == (original.words > 1)
            and not self.where.get(name.text.lower(), set()) & near
            and name.text.lower() not in lowered
            and not words & set(name.text.lower().split())
        ]
        return rng.sample(candidates, min(5, len(candidates)))


def _name(ent: Any) -> _Name:
    tokens = [token for token in ent if not (token.i == ent.start and token.lower_ == "the")]
    the = len(tokens) < len(ent) or (ent.start > 0 and ent.doc[ent.start - 1].lower_ == "the")
    text = ent.doc[tokens[0].i : tokens[-1].i + 1].text if tokens else ent.text
    return _Name(text=text, label=ent.label_, the=the, words=len(tokens))


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _previous_words(token: Any, count: int = 2) -> set[str]:
    doc = token.doc
    return {doc[i].lower_ for i in range(max(0, token.i - count), token.i)}


def _in_range(token: Any) -> bool:
    doc = token.doc
    before = doc[token.i - 1].text if token.i > 0 else ""
    after = doc[token.i + 1].text if token.i + 1 < len(doc) else ""
    return before in RANGE_MARKS or after in RANGE_MARKS


def _new_number(text: str, rng: random.Random, cap: float | None = None) -> str | None:
    """A clearly different value written like ``text`` (commas, decimals, round zeros), or None."""
    lowered = text.lower()
    if lowered in WORD_NUMBERS:
        count = WORD_NUMBERS.index(lowered) + 2
        choices = [word for i, word in enumerate(WORD_NUMBERS) if abs(i + 2 - count) >= 2 and i + 2 <= 12]
        new = rng.choice(choices)
        return new.capitalize() if text[0].isupper() else new
    if not DIGITS.match(text):
        return None
    plain = text.replace(",", "")
    decimals = len(plain.partition(".")[2])
    value = float(plain)
    if value <= 1:
        return None
    zeros = 0 if decimals else len(plain) - len(plain.rstrip("0"))
    for factor in rng.sample(FACTORS, len(FACTORS)):
        new_value = value * factor
        if decimals:
            new = f"{new_value:.{decimals}f}"
        else:
            step = 10 ** min(zeros, max(len(plain) - 1, 0))
            rounded = int(round(new_value / step) * step)
            if rounded <= 1:
                continue
            new = f"{rounded:,}" if "," in text else str(rounded)
        changed = float(new.replace(",", ""))
        if new != plain and changed != value and (cap is None or changed <= cap):
            return new
    return None


def _number_edit(fact: Any, premise: str, rng: random.Random) -> _Edit | None:
    """Change one count, quantity, amount, percentage or age that the fact states once and the premise states."""
    text = fact.text
    for token in rng.sample(list(fact), len(fact)):
        counted = token.ent_type_ in NUMBER_ENTITIES or (token.pos_ == "NUM" and token.lower_ in WORD_NUMBERS)
        if not token.like_num or not counted or YEAR.match(token.text) or _in_name(token):
            continue
        if _previous_words(token) & NUMBER_BOUNDS or _in_range(token) or token.lower_ in ("one", "1"):
            continue
        if token.dep_ in ("nsubj", "nsubjpass", "dobj") and token.ent_type_ == "CARDINAL":
            continue
        if len(re.findall(rf"(?<![\w.,]){re.escape(token.text)}(?![\w]|[.,]\d)", text)) != 1:
            continue
        if not re.search(rf"(?<![\w.,]){re.escape(token.text)}(?![\w]|[.,]\d)", premise, re.IGNORECASE):
            continue
        new = _new_number(token.text, rng, 100.0 if token.ent_type_ == "PERCENT" else None)
        if new is None or re.search(rf"(?<![\w.,]){re.escape(new)}(?![\w]|[.,]\d)", premise, re.IGNORECASE):
            continue
        start = token.idx
        return _Edit(
            _replace(text, start, start + len(token.text), new), "contradiction", f"{token.text} -> {new}"
        )
    return None


def _event_time(token: Any) -> bool:
    """The date says when a one-off event happened ("opened in 1894", "first described in 1910", life dates),
    not which thing is meant ("the 2011 census", "sales in 2022 were higher")."""
    fact = token.doc
    date = next((ent for ent in fact.ents if ent.start <= token.i < ent.end), None)
    if date is None or date.root.dep_ in IDENTIFYING:
        return False
    if date.start > 0 and fact[date.start - 1].text == "(":
        return fact[date.start - 2].ent_type_ == "PERSON" if date.start > 1 else False
    head = date.root.head
    for _ in range(3):
        if head.pos_ in ("VERB", "AUX"):
            return head.lemma_ in ONE_OFF_VERBS or any(word.lower_ in UNIQUE_WORDS for word in fact)
        if head.dep_ in IDENTIFYING or head.head is head:
            return False
        head = head.head
    return False


def _date_edit(fact: Any, premise: str, rng: random.Random) -> _Edit | None:
    """Shift one year the fact states once (or change the month of a day-month date) to one the premise lacks."""
    text = fact.text
    for token in fact:
        if token.ent_type_ != "DATE" or _previous_words(token) & DATE_BOUNDS or not _event_time(token):
            continue
        start = token.idx
        if YEAR.match(token.text):
            if text.count(token.text) != 1 or token.text not in premise:
                continue
            for shift in rng.sample(YEAR_SHIFTS, len(YEAR_SHIFTS)):
                new = str(int(token.text) + shift)
                if new not in premise and int(new) <= LATEST_YEAR:
                    return _Edit(
                        _replace(text, start, start + len(token.text), new),
                        "contradiction",
                        f"{token.text} -> {new}",
                    )
        elif token.text in MONTHS and any(
            neighbour.like_num and not YEAR.match(neighbour.text)
            for neighbour in (fact[token.i - 1] if token.i else token, fact[min(token.i + 1, len(fact) - 1)])
        ):
            if text.count(token.text) != 1 or token.text not in premise:
                continue
            choices = [month for month in MONTHS if month != token.text and month not in premise]
            if choices:
                new = rng.choice(choices)
                return _Edit(
                    _replace(text, start, start + len(token.text), new),
                    "contradiction",
                    f"{token.text} -> {new}",
                )
    return None


def _in_list(span: Any) -> bool:
    return span.root.dep_ == "conj" or any(child.dep_ == "conj" for child in span.root.children)


def _in_name(token: Any) -> bool:
    """A number that is part of a name ("Apollo 11", "K2", "Route 66"), never a count."""
    doc = token.doc
    return (
        (token.i > 0 and doc[token.i - 1].pos_ == "PROPN")
        or not token.text.isalnum()
        and not DIGITS.match(token.text)
    )


def _qualified(span: Any) -> bool:
    """A name followed by a number or by ", <name of its type>" ("Apollo 11", "San Carlos, California")."""
    doc = span.doc
    after = doc[span.end] if span.end < len(doc) else None
    if after is not None and after.like_num:
        return True
    return (
        after is not None
        and after.text == ","
        and span.end + 1 < len(doc)
        and doc[span.end + 1].ent_type_ in SWAPPABLE_ENTITIES
    )


def _has_unique_role(fact: Any) -> bool:
    """A superlative, an ordinal, "only" or a definite "is the ..." makes the subject's role one-of-a-kind."""
    for token in fact:
        if token.tag_ in ("JJS", "RBS") or token.lower_ in UNIQUE_WORDS or token.ent_type_ == "ORDINAL":
            return True
        if token.dep_ == "attr" and any(child.lower_ == "the" for child in token.children):
            return True
    return False


def _one_valued_slot(span: Any) -> bool:
    """The name fills the place or the maker slot of a one-valued relation (born in, written by ...)."""
    root = span.root
    if root.dep_ != "pobj":
        return False
    preposition = root.head
    verb = preposition.head
    if preposition.dep_ == "agent":
        return span.label_ == "PERSON" and verb.lemma_ in ONE_VALUED_VERBS - {
            "bear",
            "die",
            "locate",
            "bury",
            "headquarter",
        }
    return preposition.lower_ in ("in", "at") and verb.pos_ == "VERB" and verb.lemma_ in ONE_VALUED_VERBS


def _entity_edit(fact: Any, premise: str, pool: _Pool, rng: random.Random) -> _Edit | None:
    """Swap one name for another of its type; contradiction in a one-valued slot, neutral as the subject."""
    text = fact.text
    for ent in rng.sample(list(fact.ents), len(fact.ents)):
        if (
            ent.label_ not in SWAPPABLE_ENTITIES
            or _in_list(ent)
            or _qualified(ent)
            or text.count(ent.text) != 1
        ):
            continue
        if ent.root.dep_ in ("nsubj", "nsubjpass") and ent.root.head.dep_ == "ROOT":
            if ent.label_ not in SUBJECT_ENTITIES or not _described(fact, ent):
                continue
            label: PairLabel = "neutral"
        elif _one_valued_slot(ent) and ent.text in premise:
            label = "contradiction"
        else:
            continue
        original = _name(ent)
        start = text.index(original.text)
        for new in pool.replacements(original, premise, rng):
            hypothesis = _replace(text, start, start + len(original.text), new.text)
            if _tagged(hypothesis, start, new):
                return _Edit(hypothesis, label, f"{original.text} -> {new.text}")
    return None


def _described(fact: Any, subject: Any) -> bool:
    """The sentence only describes its subject ("X was a Polish physicist"): copular, an indefinite attribute,
    no other person or organisation and no one-of-a-kind role; another subject is then neither here nor there."""
    root = subject.root.head
    attribute = next((child for child in root.children if child.dep_ == "attr"), None)
    others = [ent for ent in fact.ents if ent != subject and ent.label_ in ("PERSON", "ORG")]
    return (
        root.lemma_ == "be"
        and attribute is not None
        and any(child.lower_ in ("a", "an") for child in attribute.children)
        and not others
        and not _has_unique_role(fact)
    )


def _tagged(hypothesis: str, start: int, new: _Name) -> bool:
    """spaCy reads the new name in its new sentence as a name of the same type (no "designed by Lake Baikal")."""
    doc = load_spacy()(hypothesis)
    return any(ent.label_ == new.label and ent.start_char <= start < ent.end_char for ent in doc.ents)


def _negation_edit(fact: Any) -> _Edit | None:
    """Negate the main verb ("was" -> "was not", "made" -> "did not make") or drop its "not" / "never"."""
    text = fact.text
    root = next(iter(fact.sents)).root
    if root.pos_ not in ("VERB", "AUX") or any(
        token.lower_ in ("not", "never", "n't", "no") for token in fact
    ):
        return _removed_negation(fact, root)
    auxiliaries = [child for child in root.children if child.dep_ in ("aux", "auxpass") and child.i < root.i]
    if root.pos_ == "AUX" and root.lemma_ == "be":
        at = root.idx + len(root.text)
        return _Edit(text[:at] + " not" + text[at:], "contradiction", f"{root.text} -> {root.text} not")
    if auxiliaries:
        first = auxiliaries[0]
        if first.tag_ == "MD" or first.lemma_ not in ("be", "have"):
            return None
        at = first.idx + len(first.text)
        return _Edit(text[:at] + " not" + text[at:], "contradiction", f"{first.text} -> {first.text} not")
    support = {"VBD": "did", "VBZ": "does", "VBP": "do"}.get(root.tag_)
    if support is None or root.lemma_ == "be" or not root.lemma_.isalpha():
        return None
    start = root.idx
    new = f"{support} not {root.lemma_}"
    return _Edit(_replace(text, start, start + len(root.text), new), "contradiction", f"{root.text} -> {new}")


def _removed_negation(fact: Any, root: Any) -> _Edit | None:
    """Drop a "not" after an auxiliary or a "never" before the main verb (contradiction)."""
    for child in root.children:
        if child.dep_ != "neg" or child.i == 0:
            continue
        previous = fact[child.i - 1]
        if (
            child.lower_ == "not"
            and previous.pos_ == "AUX"
            and previous.lemma_ != "do"
            and previous.tag_ != "MD"
        ):
            start = previous.idx + len(previous.text)
            return _Edit(
                fact.text[:start] + fact.text[child.idx + len(child.text) :],
                "contradiction",
                f"{previous.text} not -> {previous.text}",
            )
        if child.lower_ == "never" and root.tag_ in ("VBD", "VBN", "VBZ", "VBP") and child.i + 1 <= root.i:
            start = child.idx
            return _Edit(
                fact.text[:start] + fact.text[child.idx + len(child.text) + 1 :],
                "contradiction",
                "never -> (none)",
            )
    return None


def _role_edit(fact: Any) -> _Edit | None:
    """Swap the subject and the object of the main verb when both are names of one type (not_entailment)."""
    root = next(iter(fact.sents)).root
    if root.lemma_ in SYMMETRIC_VERBS:
        return None
    subject = next(
        (e for e in fact.ents if e.root.dep_ in ("nsubj", "nsubjpass") and e.root.head == root), None
    )
    if subject is None or subject.label_ not in ("PERSON", "ORG", "GPE") or _in_list(subject):
        return None
    for ent in fact.ents:
        if ent.label_ != subject.label_ or ent == subject or _in_list(ent):
            continue
        head = ent.root.head
        direct = ent.root.dep_ == "dobj" and head == root
        through = (
            ent.root.dep_ == "pobj"
            and head.head == root
            and head.lower_
            not in ("with", "between", "against", "among", "alongside", "and", "in", "at", "near")
        )
        if not (direct or through):
            continue
        first, second = sorted((subject, ent), key=lambda span: span.start)
        a, b = _name(first), _name(second)
        if a.the != b.the or set(a.text.lower().split()) & set(b.text.lower().split()):
            continue
        text = fact.text
        a_start = first.start_char + first.text.index(a.text)
        b_start = second.start_char + second.text.index(b.text)
        swapped = (
            text[:a_start]
            + b.text
            + text[a_start + len(a.text) : b_start]
            + a.text
            + text[b_start + len(b.text) :]
        )
        return _Edit(swapped, "not_entailment", f"{a.text} <-> {b.text}")
    return None


def _names_of(doc: Any) -> set[str]:
    names = {ent.text.lower() for ent in doc.ents if ent.label_ not in ("CARDINAL", "ORDINAL")}
    names |= {token.lower_ for token in doc if token.pos_ == "PROPN"}
    return names


def _stands_alone(fact: Any) -> bool:
    """The fact names what it is about (no leading pronoun), so another premise cannot be read as about it."""
    return bool(fact.ents) and not any(token.lower_ in PRONOUNS and token.pos_ == "PRON" for token in fact)


def _facts(source: Source, max_facts: int | None, rng: random.Random) -> list[str]:
    facts = list(source.facts) or [
        sentence for sentence in split_sentences(source.premise) if 5 <= len(sentence.split()) <= 60
    ]
    if max_facts is not None and len(facts) > max_facts:
        facts = rng.sample(facts, max_facts)
    return facts


def counterfactual_pairs(
    sources: Sequence[Source],
    *,
    seed: int = 0,
    max_facts: int | None = None,
    long_premise_words: int = 200,
    kinds: Iterable[Kind] = KINDS,
) -> list[GeneratedPair]:
    """Every pair the generator can make safely from ``sources``, deterministic for a given ``seed``.

    Replacement names and unrelated premises come from the other sources given, never from outside them, so
    pairs generated from training sources hold no text of evaluation sources. Each source draws from its own
    random streams (seeded by ``seed`` and its id): adding a source leaves the others' faithful, number, date,
    negation and role pairs unchanged.
    """
    wanted = set(kinds)
    nlp = load_spacy()
    ids = [source.id for source in sources]
    if len(set(ids)) != len(ids):
        raise ValueError("source ids must be unique")
    premise_docs = dict(zip(ids, nlp.pipe(source.premise for source in sources), strict=True))
    pool = _Pool(premise_docs)
    names = {source_id: _names_of(doc) for source_id, doc in premise_docs.items()}
    pairs: list[GeneratedPair] = []
    for source in sources:
        rng = random.Random(f"{seed}:{source.id}")
        others = random.Random(f"{seed}:{source.id}:others")
        facts = _facts(source, max_facts, rng)
        long_done = False
        for index, fact in enumerate(nlp.pipe(facts)):
            edits = _edits(fact, source, pool, rng, wanted)
            known = _names_of(fact) | names[source.id]
            drawn = bool(wanted & {"unrelated", "long-premise"}) and _stands_alone(fact)
            strangers = _strangers(sources, names, known, source, others) if drawn else []
            if "unrelated" in wanted and strangers:
                other = strangers[0]
                edits.append(
                    ("unrelated", other.premise, _Edit(fact.text, "neutral", f"premise of {other.id}"))
                )
            if "long-premise" in wanted and strangers and not long_done:
                long_done = True
                premise = _long_premise(source.premise, strangers, long_premise_words, others)
                edits.append(("long-premise", premise, _Edit(fact.text, "entailment", "faithful")))
                contradiction = next((e for kind, _, e in edits if e.label == "contradiction"), None)
                if contradiction is not None:
                    edits.append(("long-premise", premise, contradiction))
            for number, (kind, premise, edit) in enumerate(edits):
                pairs.append(
                    GeneratedPair(
                        id=f"{source.id}:{index}:{kind}:{number}",
                        premise=premise,
                        hypothesis=edit.hypothesis,
                        label=edit.label,
                        dataset=f"counterfactual-{kind}",
                        group=source.group or source.id,
                        kind=kind,
                        edit=edit.edit,
                    )
                )
    return pairs


def _edits(
    fact: Any, source: Source, pool: _Pool, rng: random.Random, wanted: set[Kind]
) -> list[tuple[Kind, str, _Edit]]:
    premise = source.premise
    made: list[tuple[Kind, str, _Edit]] = []
    if "faithful" in wanted:
        made.append(("faithful", premise, _Edit(fact.text, "entailment", "none")))
    candidates: list[tuple[Kind, _Edit | None]] = [
        ("number", _number_edit(fact, premise, rng) if "number" in wanted else None),
        ("date", _date_edit(fact, premise, rng) if "date" in wanted else None),
        ("entity", _entity_edit(fact, premise, pool, rng) if "entity" in wanted else None),
        ("negation", _negation_edit(fact) if "negation" in wanted else None),
        ("role", _role_edit(fact) if "role" in wanted else None),
    ]
    made.extend(
        (kind, premise, edit)
        for kind, edit in candidates
        if edit is not None and edit.hypothesis != fact.text
    )
    return made


def _strangers(
    sources: Sequence[Source], names: dict[str, set[str]], known: set[str], source: Source, rng: random.Random
) -> list[Source]:
    """Up to 20 sources drawn at random (200 draws at most) that share no name with ``known``."""
    found: dict[str, Source] = {}
    for _ in range(min(200, 4 * len(sources))):
        other = sources[rng.randrange(len(sources))]
        if other.id != source.id and other.id not in found and not names[other.id] & known:
            found[other.id] = other
            if len(found) == 20:
                break
    return list(found.values())


def _long_premise(own: str, strangers: list[Source], words: int, rng: random.Random) -> str:
    """The own premise at a random place among unrelated premises, until the whole has ``words`` words."""
    chosen: list[str] = []
    count = len(own.split())
    for other in strangers:
        if count >= words:
            break
        chosen.append(other.premise)
        count += len(other.premise.split())
    chosen.insert(rng.randint(0, len(chosen)), own)
    return "\n\n".join(chosen)
