"""Labelled claim / evidence pairs (the JSONL of ``{"premise", "hypothesis", "label", "group"?}``), read for the
checker benchmarks, with the part of the stable group split (``factscope.evaluation.splits``) each falls in.

A pair's ``supported`` is True for ``entailment`` and False for every other label (``neutral``,
``contradiction``, ``not_entailment``); pairs labelled otherwise (BEGIN's ``generic``) are left out. A set without
a ``group`` field is grouped by premise, so that one text is never in two parts.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from factscope.evaluation.splits import Part, part_of

NOT_SUPPORTED = frozenset({"neutral", "contradiction", "not_entailment"})


@dataclass(frozen=True)
class ClaimPair:
    """One labelled pair: the evidence (premise), the claim (hypothesis), whether it is supported, its group."""

    premise: str
    claim: str
    label: str
    group: str

    @property
    def supported(self) -> bool:
        return self.label == "entailment"


def read_pairs(path: Path, part: Part | None = None) -> list[ClaimPair]:
    """The pairs of one file, in file order; only those of ``part`` when given."""
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["label"] != "entailment" and row["label"] not in NOT_SUPPORTED:
            continue
        pair = ClaimPair(row["premise"], row["hypothesis"], row["label"], str(row.get("group") or row["premise"]))
        if part is None or part_of(pair.group) == part:
            pairs.append(pair)
    return pairs


def sample(pairs: list[ClaimPair], n: int, seed: int) -> list[ClaimPair]:
    """``n`` pairs drawn without replacement by a seeded generator (all of them when there are fewer)."""
    if n >= len(pairs):
        return list(pairs)
    return random.Random(seed).sample(pairs, n)


def unrelated_premises(pairs: list[ClaimPair], index: int, count: int, rng: random.Random) -> list[str]:
    """``count`` premises of other groups than pair ``index``'s (distinct texts, drawn by ``rng``)."""
    own = pairs[index].group
    chosen: list[str] = []
    while len(chosen) < count:
        other = pairs[rng.randrange(len(pairs))]
        if other.group != own and other.premise != pairs[index].premise and other.premise not in chosen:
            chosen.append(other.premise)
    return chosen
