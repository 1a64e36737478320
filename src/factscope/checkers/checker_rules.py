"""The rules of the checker settings that count only with a model checker, one that cuts references into
segments and decides labels itself (embedded, nli, path, minicheck, hhem, alignscore): the similarity and llm
checkers read each reference whole. Light to import, so that every spec can declare them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from factscope.core.option_rules import CountsWhen

READS_WHOLE = frozenset({"similarity", "llm"})
"""Checkers that read each reference whole, with no segments, relevance floor or label decision of their own."""


def checker_name(values: Mapping[str, Any]) -> str:
    """The name of the run's `checker` spec ('nli' of 'nli:MODEL'); '' for a ready checker."""
    checker = values["checker"]
    return checker.split(":", 1)[0] if isinstance(checker, str) else ""


def model_checker(values: Mapping[str, Any]) -> bool:
    """Whether the run's `checker` is a model checker (a ready checker counts as one)."""
    return checker_name(values) not in READS_WHOLE


MODEL_CHECKER = CountsWhen(model_checker, "with a model checker, not similarity or llm")
"""A setting of the model checkers' label decision (`min_confidence`, `threshold`)."""

FAST_MODE = CountsWhen(
    lambda values: values["mode"] != "fast" or model_checker(values),
    "with a model checker (embedded, nli, path, minicheck, hhem, alignscore), not similarity or llm",
)
"""The checking mode: fast scores only a model checker's most relevant segments."""

SIMILARITY_CHECKER = CountsWhen(
    lambda values: checker_name(values) == "similarity", "with `checker='similarity'`"
)
"""A setting of the similarity checker."""
