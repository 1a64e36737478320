"""The sanity suite: (reference, claim) pairs from any prose that every checker must label Entailment.

From each source text one sentence is taken per kind, at a seeded position, and made into a claim:

- ``verbatim``: the sentence as it is (a sentence of the reference copied);
- ``clause``: one independent clause of it ("A, and B" -> "B.");
- ``passive``: a simple past-tense "X verbed Y" as "Y was verbed by X";
- ``modifier_dropped``: the sentence without one adjective, adverb or time or place adjunct (never a number or a
  negation; never under a negation, quantifier or condition).

Each claim is paired with references of 1, 2, 5 and 20 sentences: runs of consecutive sentences of the source that
hold its sentence, at a seeded position (a source shorter than a length gives no pair of that length). A rewrite
the rules cannot make safely is skipped (see ``sanity_rewrites`` and ``sanity_modifiers``). Every pair's gold
label is entailment; it records its kind, its reference length and its source, and the JSONL written by
:func:`write_sanity_pairs` is read by ``factscope eval-checker`` (``evaluation.pairs``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from factscope.core.text import sentence_spans
from factscope.evaluation.pairs import PairFields, PairLabel
from factscope.evaluation.sanity_modifiers import modifier_drops
from factscope.evaluation.sanity_rewrites import clauses, passive

SanityKind = Literal["verbatim", "clause", "passive", "modifier_dropped"]
SANITY_KINDS: tuple[SanityKind, ...] = ("verbatim", "clause", "passive", "modifier_dropped")
REFERENCE_LENGTHS = (1, 2, 5, 20)
"""Reference lengths in sentences."""
CLAIM_WORDS = (5, 60)
"""A sentence of this many words (inclusive) may become a claim."""
MAX_PARSED = 30
"""Sentences of one source parsed at most while looking for the rewrites."""


@dataclass(frozen=True)
class SanitySource:
    """A text the suite is made from: any prose of at least one sentence."""

    id: str
    text: str


class SanityPair(PairFields):
    """One pair of the suite in the shape ``factscope eval-checker`` reads, with how it was made: its ``dataset``
    is ``sanity-<kind>-<length>`` (eval-checker reports each kind at each reference length apart) and its
    ``group`` the source's id (a split by group keeps a source's pairs together)."""

    label: PairLabel = "entailment"
    kind: SanityKind
    reference_sentences: int
    source: str
    sentence: int
    """The index of the claim's sentence among the source's sentences."""
    edit: str
    """What the rewrite changed ("" for verbatim): "clause 2 of 2" (the clause kept), "passive", or the words
    dropped."""


@dataclass(frozen=True)
class _Claim:
    sentence: int
    text: str
    edit: str


def _rewrites(doc: Any, rng: random.Random) -> dict[SanityKind, tuple[str, str]]:
    """Each rewrite of one parsed sentence as (claim, edit), one drawn by ``rng`` where a kind has several."""
    found: dict[SanityKind, tuple[str, str]] = {}
    parts = clauses(doc)
    if parts:
        index = rng.randrange(len(parts))
        found["clause"] = (parts[index], f"clause {index + 1} of {len(parts)}")
    voiced = passive(doc)
    if voiced is not None:
        found["passive"] = (voiced, "passive")
    drops = modifier_drops(doc)
    if drops:
        found["modifier_dropped"] = rng.choice(drops)
    return found


def _claims(
    sentences: list[str], kinds: Sequence[SanityKind], nlp: Any, rng: random.Random
) -> dict[SanityKind, _Claim]:
    """The claim of each kind: from the first sentence, in a seeded order, that gives it (questions are
    copied, never rewritten)."""
    low, high = CLAIM_WORDS
    order = [index for index, sentence in enumerate(sentences) if low <= len(sentence.split()) <= high]
    rng.shuffle(order)
    claims: dict[SanityKind, _Claim] = {}
    if order and "verbatim" in kinds:
        claims["verbatim"] = _Claim(order[0], sentences[order[0]], "")
    wanted = [kind for kind in kinds if kind != "verbatim"]
    statements = [index for index in order if not sentences[index].rstrip().endswith("?")]
    for index in statements[:MAX_PARSED]:
        if all(kind in claims for kind in wanted):
            break
        for kind, (text, edit) in _rewrites(nlp(sentences[index]), rng).items():
            if kind in wanted and kind not in claims and text != sentences[index]:
                claims[kind] = _Claim(index, text, edit)
    return claims


def _source_pairs(
    source: SanitySource, kinds: Sequence[SanityKind], lengths: Sequence[int], nlp: Any, seed: int
) -> list[SanityPair]:
    rng = random.Random(f"{seed}:{source.id}")
    spans = sentence_spans(source.text)
    sentences = [source.text[span.start : span.end] for span in spans]
    claims = _claims(sentences, kinds, nlp, rng)
    pairs: list[SanityPair] = []
    for kind in kinds:
        claim = claims.get(kind)
        if claim is None:
            continue
        for length in lengths:
            if length > len(spans):
                continue
            first = rng.randint(max(0, claim.sentence - length + 1), min(claim.sentence, len(spans) - length))
            premise = source.text[spans[first].start : spans[first + length - 1].end]
            pairs.append(
                SanityPair(
                    id=f"{source.id}/{kind}/{length}",
                    premise=premise,
                    hypothesis=claim.text,
                    dataset=f"sanity-{kind}-{length}",
                    group=source.id,
                    kind=kind,
                    reference_sentences=length,
                    source=source.id,
                    sentence=claim.sentence,
                    edit=claim.edit,
                )
            )
    return pairs


def sanity_pairs(
    sources: Iterable[SanitySource],
    *,
    seed: int = 0,
    kinds: Sequence[SanityKind] = SANITY_KINDS,
    lengths: Sequence[int] = REFERENCE_LENGTHS,
    nlp: Any = None,
) -> list[SanityPair]:
    """The suite's pairs from ``sources``, in source order; the same on every run for the same ``seed``.

    ``nlp`` is a spaCy English pipeline with a parser, tagger, lemmatizer and entity recogniser (default: the
    shared ``en_core_web_sm``, ``factscope.hf.embedded.load_spacy``).
    """
    if nlp is None:
        from factscope.hf.embedded import load_spacy

        nlp = load_spacy()
    pairs: list[SanityPair] = []
    for source in sources:
        with nlp.memory_zone():
            pairs.extend(_source_pairs(source, kinds, lengths, nlp, seed))
    return pairs


def write_sanity_pairs(path: str | Path, pairs: Iterable[SanityPair]) -> int:
    """Write ``pairs`` as JSONL to ``path``; return how many were written."""
    lines = [json.dumps(pair.model_dump(), ensure_ascii=False) + "\n" for pair in pairs]
    Path(path).write_text("".join(lines), encoding="utf-8")
    return len(lines)

