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
        "model checkers cut each reference into segments of at most this many tokens: 0, or 8 or more; 0 checks "
        "each reference whole, as RefChecker does for NQ (Zero Context) and for its LLM checkers",
        flag="--segment-tokens", min=0, check=check_segment_tokens,
    ))
    window_sentences: int | None = field(default=None, metadata=about(
        "model checkers read each reference as windows of N consecutive sentences (stride one sentence, each "
        "within `max_tokens`) and take the best window; 0 reads `max_tokens` segments (RefChecker's layout); "
        "default: the checker's own (the shipped checker reads 1- and 2-sentence windows, other models 0)",
        min=0, counts_when=WINDOWS_IN_SEGMENTS,
    ))
    min_window_sentences: int | None = field(default=None, metadata=about(
        "with sentence windows, also read every narrower window down to N sentences (1 with "
        "`window_sentences=2`: each sentence alone and each pair of neighbours); default: the checker's own "
        "(the shipped checker: 1, with its 2-sentence windows; other models read one width)",
        min=1, counts_when=NARROWER_WINDOWS,
    ))
    exact_scoring: ExactScoring = field(default="decisive", metadata=about(
        "model checkers in exact mode: decisive (only the segments that can decide a label, those over the "
        "relevance floor; the same verdicts) or every (every segment of every reference, so that a verdict can "
        "also say when a segment under the floor would have decided otherwise)"
    ))
    relevance: RelevanceMode = field(default=DEFAULT_RELEVANCE, metadata=about(
        "model checkers: lexical (a segment counts for the merge only when it shares at least `min_relevance` of "
        "the claim's content words, so an unrelated passage cannot decide) or off (every segment counts)"
    ))
    min_relevance: float | None = field(default=None, metadata=about(
        f"0 to 1: the share of the claim's content words a segment must contain to count (with "
        f"`relevance='lexical'`); default {DEFAULT_MIN_RELEVANCE:g}, calibrated on labelled entailed pairs",
        min=0.0, max=1.0, counts_when=LEXICAL_RELEVANCE,
    ))
    min_confidence: float = field(default=0.0, metadata=about(
        "0 to 1: a model checker's Entailment or Contradiction whose probability is under this becomes Neutral "
        "(rule min-confidence); 0 keeps every label",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    mismatch: MismatchSetting = field(default=DEFAULT_MISMATCH, metadata=about(
        "model checkers: an Entailment whose evidence sentence bears another value than the claim becomes "
        "Contradiction (the evidence states another value) or Neutral (it states none); values = numbers, dates "
        "and quantities, all = also named entities, off",
        flag="--mismatch-checks",
    ))
    mode: CheckMode = field(default="exact", metadata=about(
        "model checkers: exact (every segment that can decide a label is scored, see `exact_scoring`) or fast "
        "(each claim only against its most relevant segments, stopping at a confident entailment; a claim whose "
        "label pruning could change is scored exactly, and each verdict's fast_path says which)",
        counts_when=FAST_MODE,
    ))
    device: Device = field(default="auto", metadata=about(
        "where the embedded checker and the minicheck, hhem and alignscore judges run: auto (a CUDA GPU when "
        "present), cpu or cuda"
    ))
    threshold: float | None = field(default=None, metadata=about(
        "model checkers: a segment entails the claim when P(Entailment) is at least this (default: the argmax of "
        "the probabilities; 0.5 for minicheck, hhem and alignscore, their authors' threshold)",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    decision: str | None = field(default=None, metadata=about(
        "model checkers: a claim decision saved by `factscope eval-checker --fit-decision` (fitted on your own "
        "labelled pairs) decides whether each claim is supported (not with `threshold`); default: none, the "
        "checker's own labels",
        flag="--claim-decision", counts_when=MODEL_CHECKER,
    ))
    label_order: list[str] | None = field(default=None, metadata=about(
        "nli / path checkers: the label of each output column, comma-separated in column order (e.g. "
        "'not_entailment,entailment'), when the model's config names them generically (LABEL_0) or wrongly",
        option_type=str | None, parse=label_names,
    ))
    similarity_threshold: float = field(default=0.7, metadata=about(
        "cosine threshold of the similarity checker", min=-1.0, max=1.0, counts_when=SIMILARITY_CHECKER,
    ))
    llm_mode: LLMCheckMode = field(default="joint", metadata=about(
        "llm checker: joint (all claims of a record in one call) or single", flag="--llm-check-mode",
    ))
    llm_passages: PassageMode = field(default="each", metadata=about(
        "llm checker, records with several passages: each (one call per passage, labels merged), together (one "
        "call, passages numbered from 1) or refchecker (one call, RefChecker's exact text: 'Passage 0: ...' one "
        "line each, a single passage included)"
    ))

    def settings(self, names: Collection[str] | None = None) -> CheckerSettings:
        """These options as ``make_checker``'s keywords (only those of ``names`` when given)."""
        chosen = {item.name: getattr(self, item.name) for item in fields(self) if names is None or item.name in names}
        return CheckerSettings(**chosen)  # type: ignore[typeddict-item]
