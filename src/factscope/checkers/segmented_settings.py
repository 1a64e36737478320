"""What a SegmentedChecker derives from its ``CheckerOptions``: the value check its ``mismatch`` names, the claim
decision its ``decision`` loads, the relevance floor, the refusal of a narrowest window without windows and the
warning of the deprecated mode 'fast'. The options validate their own ranges and choices (``CheckerOptions``)."""

from __future__ import annotations

import warnings
from functools import partial
from typing import TYPE_CHECKING, Protocol

from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE
from factscope.core.errors import ConfigError, FactscopeWarning

if TYPE_CHECKING:
    from factscope.checkers.claim_decision import ClaimDecision
    from factscope.checkers.mismatch import MismatchKind
    from factscope.checkers.options import CheckerOptions, MismatchSetting
    from factscope.core.schema import Mismatch

MISMATCH_KINDS: dict[str, tuple[MismatchKind, ...]] = {
    "values": ("number", "date", "quantity"),
    "all": ("number", "date", "quantity", "entity"),
    "off": (),
}
"""The kinds each setting checks. ``all`` is the default: with the shipped checker it raises balanced accuracy on
SummEdits' validation groups by 0.02 and on the hand-written hard pairs by 0.005, costs Factcheck-GPT 0.007, and
catches every changed number, date and name of the project's counterfactual pairs
(benchmarks/results/checker_variants.json)."""


class MismatchCheck(Protocol):
    """Finds a value of a claim (number, date, entity) that its evidence sentence does not bear; spans of the
    evidence value are offsets in ``evidence``."""

    def __call__(self, claim: str, evidence: str, *, context: str | None = None) -> Mismatch | None: ...


FAST_MODE_DEPRECATED = (
    "the checkers' mode 'fast' is deprecated and runs exact mode: exact mode gives the same labels and fast mode "
    "was not five times as fast on realistic long-page records; leave `mode` out"
)
"""The warning of a model checker built with ``mode`` 'fast'."""


def value_check_of(mismatch: MismatchSetting) -> MismatchCheck | None:
    """The value check of the setting ``mismatch`` (``find_mismatch`` over its kinds), None for 'off'."""
    kinds = MISMATCH_KINDS[mismatch]
    if not kinds:
        return None
    from factscope.checkers.mismatch import find_mismatch

    return partial(find_mismatch, kinds=kinds)


def claim_decision_at(decision: str | None) -> ClaimDecision | None:
    """The claim decision saved at ``decision`` (``factscope eval-checker --fit-decision``), none for None or
    'off'."""
    if decision in (None, "off"):
        return None
    from factscope.checkers.claim_decision import ClaimDecision

    return ClaimDecision.load(decision)


def relevance_floor(options: CheckerOptions) -> float:
    """The relevance floor of ``options``: its ``min_relevance``, else :data:`DEFAULT_MIN_RELEVANCE`."""
    return DEFAULT_MIN_RELEVANCE if options.min_relevance is None else options.min_relevance


def window_layout(options: CheckerOptions) -> tuple[int, int | None]:
    """``options``' sentence windows as a checker reads them: the widest (0: token segments) and the narrowest.
    A narrowest window without windows is refused (ConfigError): the options allow it alone because a checker's
    manifest may give the widest, so it is refused once the checker's own settings are in."""
    if options.min_window_sentences is not None and not options.window_sentences:
        raise ConfigError("`min_window_sentences` needs sentence windows: give `window_sentences` too")
    return options.window_sentences or 0, options.min_window_sentences


def warn_of_fast_mode(options: CheckerOptions) -> None:
    """Warn (:data:`FAST_MODE_DEPRECATED`) when ``options`` ask for the deprecated mode 'fast', which checks as
    exact mode; the warning points at the caller of the checker's constructor."""
    if options.mode == "fast":
        warnings.warn(FAST_MODE_DEPRECATED, FactscopeWarning, stacklevel=3)
