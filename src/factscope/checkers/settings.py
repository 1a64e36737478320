"""The settings a checker named by a spec is built with: ``make_checker``'s keyword arguments, typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from factscope.checkers.llm import LLMCheckMode, PassageMode
    from factscope.checkers.registry import MismatchSetting
    from factscope.checkers.relevance import RelevanceMode
    from factscope.checkers.segmented import CheckMode, ExactScoring
    from factscope.hf.device import Device

class CheckerSettings(TypedDict, total=False):
    """Any of ``make_checker``'s settings (see ``factscope.checkers.registry.make_checker``); a checker ignores
    the ones it has no use for, and the ones left out keep their defaults."""

    max_tokens: int
    """Tokens per reference segment of the model checkers (0: each reference whole)."""
    window_sentences: int | None
    """References read as windows of this many sentences instead of ``max_tokens`` segments."""
    min_window_sentences: int | None
    """With ``window_sentences``, windows of every width from this many sentences up (None: one width)."""
    exact_scoring: ExactScoring
    """Which segments exact mode scores: only those that can decide a label, or every one."""
    batch_size: int
    relevance: RelevanceMode
    min_relevance: float | None
    min_confidence: float
    mismatch: MismatchSetting
    mode: CheckMode
    device: Device
    threshold: float | None
    """P(Entailment) a supported claim needs (None: the checker's own rule)."""
    decision: str | None
    """The claim decision: a saved decision's path, or None (or 'off') for none."""
    label_order: list[str] | None
    similarity_threshold: float
    llm_mode: LLMCheckMode
    llm_passages: PassageMode
