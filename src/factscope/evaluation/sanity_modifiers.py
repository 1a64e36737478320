"""One modifier dropped from a parsed sentence, for the sanity suite: an adjective, an adverb or a time or place
adjunct whose removal the sentence still entails ("the old unit was sold in March" -> "the unit was sold").

A sentence under a negation, a quantifier or a condition gives nothing (there dropping a modifier can lose the
entailment: "no red car was sold" does not entail "no car was sold"), and numbers and negations are never dropped.
"""

from __future__ import annotations

from typing import Any

from factscope.evaluation.sanity_rewrites import (
    as_sentence,
    contiguous,
    has_subject,
    is_number,
    sentence_root,
    tidy,
    tokens_text,
)

DOWNWARD = frozenset({
    "not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "every", "all", "each",
    "any", "few", "only", "if", "unless", "whether", "deny", "denied", "denies", "fail", "failed", "fails",
    "refuse", "refused", "lack", "lacked", "hardly", "barely", "rarely", "seldom",
})
"""Negations, quantifiers and conditions under which dropping a modifier can lose the entailment."""
KEPT_ADVERBS = frozenset({
    "almost", "nearly", "barely", "hardly", "scarcely", "allegedly", "reportedly", "supposedly", "apparently",
    "possibly", "probably", "perhaps", "maybe", "likely", "potentially", "seemingly", "rarely", "seldom", "so",
    "as", "then", "too", "partially", "partly", "largely", "mostly", "mainly", "half", "virtually", "practically",
    "effectively", "nominally", "theoretically", "hypothetically", "formerly", "once", "ever", "yet", "just",
    "else", "how", "why", "when", "where", "there", "here", "thus", "therefore", "hence", "instead", "otherwise",
    "again", "back", "away", "out", "up", "down", "off", "on", "in", "together", "alone", "first", "last",
})
"""Adverbs whose removal can change what a sentence claims ("almost died"), or that are particles or links."""
KEPT_ADJECTIVES = frozenset({
    "former", "fake", "false", "alleged", "fictional", "mock", "pseudo", "potential", "possible", "so-called",
    "supposed", "imaginary", "counterfeit", "would-be", "hypothetical", "proposed", "planned", "expected",
    "suspected", "apparent", "presumed", "purported", "fictitious", "artificial", "virtual", "other", "same",
    "different", "such", "own", "certain", "few", "many", "several", "much", "more", "less", "most", "least",
    "only", "sole", "main", "previous", "next", "last", "late", "ex", "non", "un", "pre", "anti", "wrong", "right",
    "correct", "incorrect", "true", "real", "actual", "positive", "negative", "opposite", "reverse", "inverse",
})
"""Adjectives that do not narrow their noun (a former president is no president) or that quantify it."""
ADJUNCT_PREPOSITIONS = frozenset({"in", "at", "during", "across", "throughout", "within", "near"})
"""Prepositions of a time or place adjunct, dropped only where the verb has its object elsewhere."""
NON_MONOTONE = frozenset({"first", "last", "next", "one", "ones", "same", "than"})
"""Words in whose scope a narrower noun is not a special case ("the first day of negative tests")."""
VOWELS = "aeiou"


def _separate(doc: Any, tokens: list[Any]) -> bool:
    """Whether the cut is whole words, not a piece of a hyphenated or slashed word ("real-time")."""
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    after = doc[tokens[-1].i + 1] if tokens[-1].i + 1 < len(doc) else None
    if before is not None and not before.whitespace_:
        return False
    return bool(tokens[-1].whitespace_) or after is None or after.is_punct and after.text not in {"-", "/"}


def _droppable(tokens: list[Any]) -> bool:
    """Whether a run of tokens holds no number, negation or guarded word and can be cut out whole."""
    return contiguous(tokens) and not any(
        is_number(token) or token.dep_ == "neg" or token.lower_ in DOWNWARD for token in tokens
    )


def _adjective(token: Any) -> list[Any] | None:
    """A plain adjective before a common noun, with any adverb on it ("very large")."""
    if token.dep_ != "amod" or token.pos_ != "ADJ" or token.tag_ != "JJ" or token.head.pos_ != "NOUN":
        return None
    tokens = list(token.subtree)
    if token.ent_type_ or not all(part.pos_ in {"ADJ", "ADV"} or part.text == "-" for part in tokens):
        return None
    if any(part.lower_ in KEPT_ADJECTIVES | KEPT_ADVERBS or part.text[:1].isupper() for part in tokens):
        return None  # a guarded word, or a part of a name ("Supreme Court")
    return tokens


def _adverb(token: Any) -> list[Any] | None:
    """A plain adverb on a verb or an adjective ("quickly sold", "widely known")."""
    if token.dep_ != "advmod" or token.pos_ != "ADV" or token.tag_ != "RB" or list(token.children):
        return None
    if token.lower_ in KEPT_ADVERBS:
        return None
    return [token] if token.head.pos_ in {"VERB", "ADJ"} else None


def _adjunct(token: Any) -> list[Any] | None:
    """A time or place phrase on a verb that has its object or passive subject elsewhere ("in Paris")."""
    if token.dep_ != "prep" or token.lower_ not in ADJUNCT_PREPOSITIONS or token.head.pos_ != "VERB":
        return None
    if not any(child.dep_ == "pobj" for child in token.children):
        return None
    if not any(child.dep_ in {"dobj", "nsubjpass"} for child in token.head.children):
        return None
    tokens = list(token.subtree)
    return tokens if token.i > token.head.i or token.i == 0 else None


def _article_fits(doc: Any, tokens: list[Any]) -> bool:
    """Whether an "a" / "an" before the cut still fits the word that follows it."""
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    after = doc[tokens[-1].i + 1] if tokens[-1].i + 1 < len(doc) else None
    if before is None or before.lower_ not in {"a", "an"} or after is None:
        return True
    return (tokens[0].lower_[:1] in VOWELS) == (after.lower_[:1] in VOWELS)


def _with_commas(doc: Any, tokens: list[Any]) -> list[Any] | None:
    """The cut with the commas that would be left hanging around it; None where it sits in a list."""
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    after = doc[tokens[-1].i + 1] if tokens[-1].i + 1 < len(doc) else None
    if after is not None and after.dep_ == "cc" or before is not None and before.dep_ == "cc":
        return None
    if after is not None and after.text == "," and before is None:
        return [*tokens, after]
    if after is not None and after.text == "," and before is not None and before.text == ",":
        return [before, *tokens, after]
    if after is not None and after.text == "," or before is not None and before.text == ",":
        return None
    return tokens


def _text_without(doc: Any, removed: set[int]) -> str:
    """The sentence without the tokens ``removed``; a word left touching the gap gets a space."""
    pieces = [
        token.text + (token.whitespace_ or (" " if token.i + 1 in removed else ""))
        for token in doc
        if token.i not in removed
    ]
    return tidy("".join(pieces))


def _guards(token: Any) -> bool:
    """Whether a token puts the sentence in a scope where a modifier may not be dropped."""
    return token.lower_ in DOWNWARD | NON_MONOTONE or token.dep_ == "neg" or token.tag_ in {"JJS", "RBS"}


def modifier_drops(doc: Any) -> list[tuple[str, str]]:
    """Each safe single-modifier cut of one sentence as (the shorter sentence, the words dropped)."""
    root = sentence_root(doc)
    if root is None or not has_subject(root.children) or doc.text.rstrip().endswith("?"):
        return []  # a fragment, a command or a question
    if any(_guards(token) for token in doc):
        return []
    drops: dict[str, str] = {}
    for token in doc:
        found = _adjective(token) or _adverb(token) or _adjunct(token)
        if found is None or not _droppable(found) or not _separate(doc, found) or not _article_fits(doc, found):
            continue
        cut = _with_commas(doc, found)
        if cut is None:
            continue
        shorter = as_sentence(_text_without(doc, {part.i for part in cut}))
        if len(shorter.split()) >= 4:
            drops.setdefault(shorter, tokens_text(found))
    return list(drops.items())
