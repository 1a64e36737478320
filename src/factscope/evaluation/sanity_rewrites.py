"""Meaning-keeping rewrites of one parsed sentence for the sanity suite: its clauses, its passive voice, and the
sentence with one modifier dropped. Each rewrite the sentence entails, or none is made: a sentence the rules are
unsure of (a condition, a negation, a quantifier, an irregular construction) gives nothing.

Every function takes a spaCy ``Doc`` of one sentence (``en_core_web_sm``, as ``factscope.hf.embedded`` loads it).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from typing import Any

CLAUSE_JOINS = frozenset({"and", "but", "yet"})
"""Conjunctions whose clauses each hold on their own ("or" does not)."""
CONDITIONS = frozenset({"if", "unless", "whether", "provided", "suppose", "assuming"})
"""Words that make what follows hypothetical: a sentence holding one is never cut."""
NUMBER_ENTITIES = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME"})
PARTICIPLES = {
    "wrote": "written", "took": "taken", "gave": "given", "saw": "seen", "ate": "eaten", "drove": "driven",
    "chose": "chosen", "broke": "broken", "spoke": "spoken", "stole": "stolen", "froze": "frozen",
    "began": "begun", "drank": "drunk", "sang": "sung", "rang": "rung", "knew": "known", "grew": "grown",
    "threw": "thrown", "drew": "drawn", "flew": "flown", "showed": "shown", "forgot": "forgotten",
    "hid": "hidden", "bit": "bitten", "rode": "ridden", "shook": "shaken", "wore": "worn", "tore": "torn",
    "bore": "borne", "swore": "sworn", "did": "done", "overtook": "overtaken", "undertook": "undertaken",
    "mistook": "mistaken", "forgave": "forgiven", "forbade": "forbidden", "withdrew": "withdrawn",
    "overthrew": "overthrown", "beat": "beaten", "undid": "undone", "redid": "redone", "rewrote": "rewritten",
    "overrode": "overridden", "foresaw": "foreseen", "oversaw": "overseen", "blew": "blown", "wove": "woven",
    "retook": "retaken", "outgrew": "outgrown", "sewed": "sewn", "sowed": "sown", "mowed": "mown",
}
"""Past tenses whose past participle differs; every other past tense is its own participle."""
NO_PASSIVE_VERBS = frozenset({
    "have", "lack", "cost", "resemble", "weigh", "fit", "suit", "become", "get", "let", "mean", "total", "equal",
    "say", "tell", "ask", "want", "need", "like", "make", "do", "hold", "reach", "hit", "gain", "lose", "post",
    "score", "win", "rise", "fall", "see", "use",
})
"""Verbs whose passive is odd or idiomatic with their usual objects ("had a car", "made sense", "posted a loss")."""
OBJECT_CASE = {"he": "him", "she": "her", "they": "them", "we": "us", "i": "me", "it": "it", "you": "you"}
"""A pronoun subject as the object of "by"."""
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?%)\]}])")
_REPEATED_COMMA = re.compile(r",(\s*,)+")


def tidy(text: str) -> str:
    """``text`` with single spaces, no space before punctuation, no repeated or leading comma."""
    text = _REPEATED_COMMA.sub(",", _SPACE_BEFORE_PUNCT.sub(r"\1", text))
    return re.sub(r"\s{2,}", " ", text).strip().lstrip(",;: ").strip()


def tokens_text(tokens: Iterable[Any]) -> str:
    """The text of ``tokens`` in order, with their own spacing, tidied (:func:`tidy`)."""
    return tidy("".join(token.text_with_ws for token in tokens))


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def as_sentence(text: str) -> str:
    """``text`` capitalised and ending with a full stop (a trailing comma or semicolon replaced)."""
    text = text.strip().rstrip(",;:- ").strip()
    if not text:
        return text
    if text[-1] not in ".!?\"'\u201d)":
        text += "."
    return _capitalised(text)


def is_number(token: Any) -> bool:
    return bool(token.like_num or token.tag_ == "CD" or token.ent_type_ in NUMBER_ENTITIES)


def contiguous(tokens: list[Any]) -> bool:
    return bool(tokens) and tokens[-1].i - tokens[0].i + 1 == len(tokens)


def sentence_root(doc: Any) -> Any | None:
    """The root of a one-sentence Doc, or None where spaCy sees several sentences."""
    sentences = list(doc.sents)
    return sentences[0].root if len(sentences) == 1 else None


def has_subject(tokens: Iterable[Any]) -> bool:
    return any(token.dep_ in {"nsubj", "nsubjpass", "expl"} for token in tokens)


def _finite(tokens: Iterable[Any]) -> bool:
    return any(token.tag_ in {"VBD", "VBZ", "VBP", "MD"} for token in tokens)


def _lists_whole(tokens: list[Any]) -> bool:
    """Whether every list in ``tokens`` ("A, B and C") has its conjunction there: a clause cut out of a
    misparsed list ("hypertension, diabetes, heart disease") has lost it."""
    kept = {token.i for token in tokens}
    for token in tokens:
        if token.dep_ == "conj":
            continue
        chain = [token]
        for part in chain:
            chain += [child for child in part.children if child.dep_ == "conj" and child.i in kept]
        joins = [child for part in chain for child in part.children if child.dep_ in {"cc", "preconj"}]
        if len(chain) > 1 and not any(join.i in kept for join in joins):
            return False
    return True


def _coordinated_clauses(doc: Any, root: Any) -> list[str]:
    """The two clauses of "A, and B" / "A but B" where each has its own subject and a finite verb."""
    clauses: list[str] = []
    for conj in root.children:
        joins = [child for child in root.children if child.dep_ == "cc" and child.i < conj.i]
        if conj.dep_ != "conj" or conj.pos_ not in {"VERB", "AUX"} or not joins:
            continue
        if joins[-1].lower_ not in CLAUSE_JOINS:
            continue
        second = list(conj.subtree)
        if not contiguous(second) or not has_subject(conj.children) or not _finite(second):
            continue
        first = [token for token in doc if token.i < joins[-1].i and token not in second]
        if not has_subject(root.children) or not _finite(first) or not (_lists_whole(first) and _lists_whole(second)):
            continue
        if second[0].i != joins[-1].i + 1:
            continue
        clauses += [as_sentence(tokens_text(first)), as_sentence(tokens_text(second))]
    return clauses


def _semicolon_clauses(doc: Any) -> list[str]:
    """The parts of a sentence cut at its semicolons, where every part has a subject and a finite verb."""
    cuts = [token.i for token in doc if token.text == ";"]
    if not cuts:
        return []
    bounds = [-1, *cuts, len(doc)]
    parts = [doc[start + 1 : end] for start, end in itertools.pairwise(bounds)]
    if not all(has_subject(part) and _finite(part) for part in parts):
        return []
    return [as_sentence(tokens_text(part)) for part in parts]


def clauses(doc: Any) -> list[str]:
    """The independent clauses of one sentence, each as a sentence; none for a sentence of one clause or with a
    condition ("if", "unless"), which its clauses alone would not keep."""
    root = sentence_root(doc)
    if root is None or any(token.lower_ in CONDITIONS for token in doc):
        return []
    found = _coordinated_clauses(doc, root) or _semicolon_clauses(doc)
    return [clause for clause in dict.fromkeys(found) if len(clause.split()) >= 4]


def past_participle(past: str) -> str:
    """The past participle of an English past tense ("wrote" -> "written", "approved" -> "approved")."""
    participle = PARTICIPLES.get(past.lower(), past.lower())
    return _capitalised(participle) if past[:1].isupper() else participle


PASSIVE_ROOT_CHILDREN = frozenset({"nsubj", "dobj", "punct", "advmod", "prep", "npadvmod", "advcl"})
"""The only dependants a verb may have for the passive rewrite: no auxiliary, negation, particle or clause."""


def _noun_phrase(head: Any, pronoun: bool) -> list[Any] | None:
    """The tokens of the phrase under ``head`` if it is a contiguous noun phrase (a pronoun only if allowed)."""
    allowed = {"NOUN", "PROPN"} | ({"PRON"} if pronoun else set())
    tokens = list(head.subtree)
    if head.pos_ not in allowed or not contiguous(tokens) or is_number(head):
        return None
    if head.pos_ == "PRON" and head.lower_ not in OBJECT_CASE:
        return None
    return tokens


def _passive_parts(root: Any) -> tuple[list[Any], list[Any]] | None:
    """The subject and object phrases of a simple past-tense "X verbed Y", or None where the rewrite is unsafe."""
    if root.pos_ != "VERB" or root.tag_ != "VBD" or root.lemma_.lower() in NO_PASSIVE_VERBS:
        return None
    if any(child.dep_ not in PASSIVE_ROOT_CHILDREN for child in root.children):
        return None
    subjects = [child for child in root.children if child.dep_ == "nsubj"]
    objects = [child for child in root.children if child.dep_ == "dobj"]
    if len(subjects) != 1 or len(objects) != 1 or objects[0].lemma_.lower() in {"place", "part"}:
        return None
    subject = _noun_phrase(subjects[0], pronoun=True)
    obj = _noun_phrase(objects[0], pronoun=False)
    if subject is None or obj is None or not subject[-1].i < root.i < obj[0].i:
        return None
    between = root.doc[subject[-1].i + 1 : root.i]
    if any(token.dep_ != "advmod" for token in between):
        return None
    return subject, obj


def _by_phrase(subject: list[Any]) -> str:
    """The subject as the object of "by": a pronoun in its object case, a sentence-initial common word lowered."""
    if len(subject) == 1 and subject[0].pos_ == "PRON":
        return OBJECT_CASE[subject[0].lower_]
    text = tokens_text(subject)
    first = subject[0]
    if first.i == 0 and first.pos_ != "PROPN" and not first.ent_type_:
        text = text[:1].lower() + text[1:]
    return text


def passive(doc: Any) -> str | None:
    """"X verbed Y" as "Y was verbed by X" (were, for a plural Y); None where the sentence is not a simple
    past-tense transitive clause with noun-phrase subject and object."""
    root = sentence_root(doc)
    if root is None or any(token.lower_ in CONDITIONS for token in doc):
        return None
    parts = _passive_parts(root)
    if parts is None:
        return None
    subject, obj = parts
    head = next(token for token in obj if token.dep_ == "dobj")
    plural = head.tag_ in {"NNS", "NNPS"} and head.lemma_.lower() != head.lower_  # "species": was
    plural = plural or any(child.dep_ == "conj" for child in head.children)
    before = tokens_text(root.doc[: subject[0].i])
    between = tokens_text(root.doc[subject[-1].i + 1 : root.i])
    after = tokens_text(token for token in root.doc[root.i + 1 :] if token not in obj)
    object_text = tokens_text(obj)
    if not before:
        object_text = _capitalised(object_text)
    verb = past_participle(root.text).lower()
    pieces = [before, object_text, "were" if plural else "was", between, verb, "by", _by_phrase(subject), after]
    return as_sentence(tidy(" ".join(piece for piece in pieces if piece)))
