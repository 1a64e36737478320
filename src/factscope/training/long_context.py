"""Long-context augmentation: NLI premises placed inside segments of unrelated text.

MNLI premises are one or two sentences, but a checker reads 200-token reference segments. A copy of a pair whose
premise sits at a random position among other premises of the same split keeps its label (the other premises
rarely bear on the hypothesis) and teaches the model to find the relevant sentence inside a segment. A copy whose
premise is replaced by other premises only is labelled neutral: it teaches the model that a segment about other
things neither supports nor contradicts the claim (without such copies the previous shipped checker called 27.5%
of these segments a Contradiction; `benchmarks/bench_long_context.py`).
"""

from __future__ import annotations

import random
from dataclasses import replace

from factscope.training.nli_data import NLIExample


def in_context(premises: list[str], index: int, words: int, rng: random.Random) -> str:
    """Premise ``index`` among randomly drawn other premises, at a random position, about ``words`` words long."""
    others = len(premises) - 1
    if others < 1:
        return premises[index]
    context: list[str] = []
    size = len(premises[index].split())
    while size < words:
        pick = rng.randrange(others)
        other = premises[pick if pick < index else pick + 1]
        context.append(other)
        size += len(other.split())
    context.insert(rng.randint(0, len(context)), premises[index])
    return " ".join(context)


def context_copies(examples: list[NLIExample], share: float, words: int, seed: int) -> list[NLIExample]:
    """In-context copies of a seeded ``share`` of the examples (the other premises drawn from the same examples)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError("the long-context share must be between 0 and 1")
    rng = random.Random(seed)
    premises = [e.premise for e in examples]
    chosen = sorted(rng.sample(range(len(examples)), round(share * len(examples))))
    return [replace(examples[i], premise=in_context(premises, i, words, rng)) for i in chosen]


def augment(examples: list[NLIExample], share: float, words: int, seed: int) -> list[NLIExample]:
    """The examples followed by their in-context copies (:func:`context_copies`)."""
    return examples + context_copies(examples, share, words, seed)


def unrelated_context(
    premises: list[str], index: int, words: int, rng: random.Random, same: list[int] | None = None
) -> str:
    """About ``words`` words of randomly drawn premises that differ from premise ``index`` (it is left out).

    ``same``: the ascending positions of all premises equal to premise ``index`` (found here when not given;
    :func:`unrelated_copies` passes them so that a large file is not scanned once per copy).
    """
    if same is None:
        same = [i for i, premise in enumerate(premises) if premise == premises[index]]
    others = len(premises) - len(same)
    if others < 1:
        return ""
    context: list[str] = []
    size = 0
    while size < words:
        position = rng.randrange(others)
        for taken in same:
            position += taken <= position
        context.append(premises[position])
        size += len(context[-1].split())
    return " ".join(context)


def unrelated_copies(examples: list[NLIExample], share: float, words: int, seed: int, neutral: int) -> list[NLIExample]:
    """Copies of a seeded ``share`` of the examples whose premise is :func:`unrelated_context`, labelled ``neutral``."""
    if not 0.0 <= share <= 1.0:
        raise ValueError("the unrelated-context share must be between 0 and 1")
    rng = random.Random(seed)
    premises = [e.premise for e in examples]
    positions: dict[str, list[int]] = {}
    for i, premise in enumerate(premises):
        positions.setdefault(premise, []).append(i)
    chosen = sorted(rng.sample(range(len(examples)), round(share * len(examples))))
    copies = [
        replace(examples[i], premise=unrelated_context(premises, i, words, rng, positions[premises[i]]), label=neutral)
        for i in chosen
    ]
    return [copy for copy in copies if copy.premise]
