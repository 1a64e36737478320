"""A split by group that every tool agrees on: the same group always falls in the same part."""

from __future__ import annotations

import hashlib
from typing import Literal

Part = Literal["train", "validation", "test"]

TRAIN_FRACTION = 0.75
VALIDATION_FRACTION = 0.10
"""The rest (0.15) is the test part."""


def part_of(
    group: str,
    validation: float = VALIDATION_FRACTION,
    test: float = 1 - TRAIN_FRACTION - VALIDATION_FRACTION,
) -> Part:
    """The part a group belongs to, from a SHA-256 of its name (stable across runs, machines and tools).

    All pairs of one group (one claim with several evidence snippets, several edits of one summary) land in
    the same part, so no claim or document is both trained on and evaluated on.
    """
    if not 0 < validation < 1 or not 0 < test < 1 or validation + test >= 1:
        raise ValueError("validation and test fractions must be in (0, 1) and sum to less than 1")
    digest = hashlib.sha256(group.encode("utf-8")).digest()
    position = int.from_bytes(digest[:8], "big") / 2**64
    if position < 1 - validation - test:
        return "train"
    if position < 1 - test:
        return "validation"
    return "test"
