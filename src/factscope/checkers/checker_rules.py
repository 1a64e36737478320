"""Which checkers use each checker setting, as the settings' rules (``factscope.core.options.rules.CountsWhen``):
a setting given where the run's `checker` has no use for it is refused, never dropped in silence. Model checkers
cut references into segments and decide labels themselves (embedded, mpnet, nli, path, minicheck, hhem,
alignscore, and plugins); the similarity and llm checkers read each reference whole; a ready checker is built
already and takes no setting. A cascade uses a setting when one of its two checkers does. Light to import, so
that every spec can declare them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.core.options.rules import CountsWhen

READS_WHOLE = frozenset({"similarity", "llm"})
"""Checkers that read each reference whole, with no segments, relevance floor or label decision of their own."""

PUBLISHED_JUDGES = frozenset({"minicheck", "hhem", "alignscore"})
"""Model checkers that cut references as their authors do, not as `max_tokens` and the windows say."""

UNPLACED = frozenset({"nli"})
"""Model checkers whose model is not placed on the chosen `device`."""


def checker_specs(values: Mapping[str, Any]) -> list[str] | None:
    """The component specs of the run's `checker` (a cascade's two checkers; each of an evaluation's list of
    checkers; the default checker when none is named), or None for a ready checker."""
    checker = values["checker"]
    if checker is None or (isinstance(checker, list | tuple) and not checker):
        return [DEFAULT_CHECKER]
    if isinstance(checker, list | tuple):
        found = [checker_specs({"checker": one}) for one in checker]
        return None if any(one is None for one in found) else [spec for one in found if one for spec in one]
    if not isinstance(checker, str):
        return None
    if checker.startswith("cascade:"):
        parts = checker.removeprefix("cascade:").split(",")
        return [part for part in parts[:2] if part]
    return [checker]


def checker_name(values: Mapping[str, Any]) -> str:
    """The name of the run's `checker` spec ('nli' of 'nli:MODEL'); '' for a ready checker."""
    checker = values["checker"]
    return checker.split(":", 1)[0] if isinstance(checker, str) else ""


def _names(values: Mapping[str, Any]) -> set[str]:
    """The names of the checkers the run's `checker` builds (none for a ready checker)."""
    return {spec.split(":", 1)[0] for spec in checker_specs(values) or ()}


def model_checker(values: Mapping[str, Any]) -> bool:
    """Whether the run's `checker` is, or holds, a model checker named by a spec."""
    return bool(_names(values) - READS_WHOLE)


def _segments_as_told(values: Mapping[str, Any]) -> bool:
    """Whether the run's `checker` is, or holds, a model checker that cuts references as `max_tokens` says."""
    return bool(_names(values) - READS_WHOLE - PUBLISHED_JUDGES)


MODEL_CHECKER = CountsWhen(
    model_checker,
    "with a model checker named by `checker` (embedded, mpnet, nli, path, minicheck, hhem, alignscore), not "
    "similarity, llm or a ready checker",
)
"""A setting of the model checkers' label decision (`min_confidence`, `threshold`, `relevance`, ...)."""

SEGMENTING_CHECKER = CountsWhen(
    _segments_as_told,
    "with a checker that cuts references as told (embedded, mpnet, nli, path), not the published judges "
    "(minicheck, hhem, alignscore: their authors' chunks), similarity, llm or a ready checker",
)
"""A setting of how references are cut (`max_tokens`, the sentence windows)."""

FAST_MODE = CountsWhen(
    lambda values: values["mode"] != "fast" or model_checker(values),
    "with a model checker (embedded, mpnet, nli, path, minicheck, hhem, alignscore), not similarity, llm or "
    "a ready checker",
)
"""The checking mode: fast scores only a model checker's most relevant segments."""

SIMILARITY_CHECKER = CountsWhen(lambda values: "similarity" in _names(values), "with `checker='similarity'`")
"""A setting of the similarity checker."""

LLM_CHECKER = CountsWhen(
    lambda values: "llm" in (checker_specs(values) or ()), "with `checker='llm'` (RefChecker's prompt)"
)
"""A setting of the llm checker with RefChecker's prompt (`llm:minicheck` asks one passage at a time)."""

LABELLED_COLUMNS = CountsWhen(
    lambda values: bool(_names(values) & {"nli", "path"}), "with `checker` nli:MODEL or path:DIR"
)
"""The label of each output column of a Hugging Face classifier."""

FACTSCOPE_CHECKER = CountsWhen(
    lambda values: bool(_names(values) & {"embedded", "mpnet", "accurate", "path"}),
    "with a checker factscope trained (embedded, mpnet, or path: to a folder of `train-checker`), not nli, "
    "minicheck, hhem, alignscore, similarity, llm or a ready checker",
)
"""A setting of the checkers that `factscope train-checker` makes."""

ON_THE_CPU = CountsWhen(lambda values: values["device"] != "cuda", "on the CPU (`device` cpu or auto)")
"""A setting that only the CPU runs."""

ON_A_DEVICE = CountsWhen(
    lambda values: bool(_names(values) - READS_WHOLE - UNPLACED),
    "with a checker placed on a device (embedded, mpnet, path, minicheck, hhem, alignscore), not nli, "
    "similarity, llm or a ready checker",
)
"""Where a checker's model runs."""
