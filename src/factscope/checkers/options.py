"""The checker settings a run chooses (``CheckerOptions``), each declared once with its default, range and help;
``settings()`` gives them as ``make_checker``'s keywords (``CheckerSettings``). The commands that check claims
build their options from these fields."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, fields

from factscope.checkers.checker_rules import FAST_MODE, MODEL_CHECKER, SIMILARITY_CHECKER
from factscope.checkers.defaults import DEFAULT_MAX_TOKENS, DEFAULT_MISMATCH, DEFAULT_RELEVANCE
from factscope.checkers.llm import LLMCheckMode, PassageMode
from factscope.checkers.registry import MismatchSetting
from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE, RelevanceMode
from factscope.checkers.segmented import CheckMode, ExactScoring
from factscope.checkers.settings import CheckerSettings
from factscope.core.option_metadata import about
from factscope.core.option_rules import CountsWhen
from factscope.hf.device import Device

MIN_SEGMENT_TOKENS = 8
"""The fewest tokens of a reference segment (0 aside: each reference whole)."""


def check_segment_tokens(value: int) -> None:
    """Refuse a segment budget of 1 to 7 tokens."""
    if 0 < value < MIN_SEGMENT_TOKENS:
        raise ValueError(f"give 0 (each reference whole) or at least {MIN_SEGMENT_TOKENS} tokens")


def label_names(value: str | None) -> list[str] | None:
    """The comma-separated label names ``value`` as a list (None when not given)."""
    return [name.strip() for name in value.split(",") if name.strip()] if value else None


WINDOWS_IN_SEGMENTS = CountsWhen(
    lambda values: not values["window_sentences"] or values["max_tokens"] != 0,
    "with segments (`max_tokens` above 0): windows are cut within `max_tokens`",
)
"""Sentence windows are cut within segments."""

NARROWER_WINDOWS = (
    CountsWhen(
        lambda values: values["max_tokens"] != 0 and values["window_sentences"] != 0,
        "with sentence windows (`max_tokens` above 0, `window_sentences` not 0)",
    ),
    CountsWhen(
        lambda values: values["min_window_sentences"] is None
        or not values["window_sentences"]
        or values["min_window_sentences"] <= values["window_sentences"],
        "up to `window_sentences` (the widest window)",
    ),
)
"""The narrowest sentence window: with windows, and not wider than the widest."""

LEXICAL_RELEVANCE = CountsWhen(lambda values: values["relevance"] == "lexical", "with `relevance='lexical'`")
"""The lexical relevance floor."""


@dataclass(frozen=True)
class CheckerOptions:
    """How the checker named by a spec checks claims; a checker ignores the settings it has no use for."""

    max_tokens: int = field(default=DEFAULT_MAX_TOKENS, metadata=about(
        "most tokens per reference segment (8 or more); 0: each reference whole",
        flag="--segment-tokens", min=0, check=check_segment_tokens,
    ))
    window_sentences: int | None = field(default=None, metadata=about(
        "read references in windows of N sentences; 0: in segments (default: the checker's own)",
        min=0, counts_when=WINDOWS_IN_SEGMENTS,
    ))
    min_window_sentences: int | None = field(default=None, metadata=about(
        "also read narrower windows, down to N sentences (default: the checker's own)",
        min=1, counts_when=NARROWER_WINDOWS,
    ))
    exact_scoring: ExactScoring = field(default="decisive", metadata=about(
        "exact mode: decisive (score the segments that can decide) or every"
    ))
    relevance: RelevanceMode = field(default=DEFAULT_RELEVANCE, metadata=about(
        "count only the segments that share the claim's words (lexical), or all (off)"
    ))
    min_relevance: float | None = field(default=None, metadata=about(
        f"the share of the claim's content words a segment must hold (default {DEFAULT_MIN_RELEVANCE:g})",
        min=0.0, max=1.0, counts_when=LEXICAL_RELEVANCE,
    ))
    min_confidence: float = field(default=0.0, metadata=about(
        "a model checker's label of a lower probability becomes Neutral",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    mismatch: MismatchSetting = field(default=DEFAULT_MISMATCH, metadata=about(
        "an Entailment whose evidence bears another value becomes Contradiction: values (numbers, dates, "
        "quantities), all (and named entities) or off",
        flag="--mismatch-checks",
    ))
    mode: CheckMode = field(default="exact", metadata=about(
        "exact (every segment that can decide) or fast (the most relevant first)",
        counts_when=FAST_MODE,
    ))
    device: Device = field(default="auto", metadata=about(
        "where local checkers run: auto (a GPU when present), cpu or cuda"
    ))
    threshold: float | None = field(default=None, metadata=about(
        "the P(Entailment) from which a segment entails (default: the argmax; minicheck, hhem, alignscore: 0.5)",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    decision: str | None = field(default=None, metadata=about(
        "a decision saved by `factscope eval-checker --fit-decision`, or off (default: the checker's own; none "
        "with `threshold`)",
        flag="--claim-decision", counts_when=MODEL_CHECKER,
    ))
    label_order: list[str] | None = field(default=None, metadata=about(
        "nli / path checkers: each output column's label, in order (e.g. not_entailment,entailment)",
        option_type=str | None, parse=label_names,
    ))
    similarity_threshold: float = field(default=0.7, metadata=about(
        "cosine threshold of the similarity checker", min=-1.0, max=1.0, counts_when=SIMILARITY_CHECKER,
    ))
    llm_mode: LLMCheckMode = field(default="joint", metadata=about(
        "llm checker: one call per record (joint) or per claim (single)",
        flag="--llm-check-mode",
    ))
    llm_passages: PassageMode = field(default="each", metadata=about(
        "llm checker: one call per passage (each), for all (together), or in RefChecker's text (refchecker)"
    ))

    def settings(self, names: Collection[str] | None = None) -> CheckerSettings:
        """These options as ``make_checker``'s keywords (only those of ``names`` when given)."""
        chosen = {item.name: getattr(self, item.name) for item in fields(self) if names is None or item.name in names}
        return CheckerSettings(**chosen)  # type: ignore[typeddict-item]
