"""The checker settings a run chooses (``CheckerOptions``), each declared once with its default, range, help and
the checkers that use it; ``make_checker`` takes them whole. The commands that check claims build their options
from these fields, and the Python API takes the object or a mapping of its fields (``checker_options``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Literal

from factscope.checkers.checker_rules import (
    FACTSCOPE_CHECKER,
    FAST_MODE,
    LABELLED_COLUMNS,
    LLM_CHECKER,
    MODEL_CHECKER,
    ON_A_DEVICE,
    ON_THE_CPU,
    SEGMENTING_CHECKER,
    SIMILARITY_CHECKER,
)
from factscope.checkers.defaults import (
    DEFAULT_LLM_PASSAGES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MISMATCH,
    DEFAULT_MODE,
    DEFAULT_RELEVANCE,
    DEFAULT_SIMILARITY_THRESHOLD,
)
from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE
from factscope.core.options.metadata import about
from factscope.core.options.rules import CountsWhen
from factscope.core.options.validation import ValidatedOptions, options_from

if TYPE_CHECKING:
    from factscope.checkers.relevance import RelevanceMode
    from factscope.hf.device import Device
    from factscope.hf.onnx_classifier import OnnxPrecision

CheckMode = Literal["exact", "fast"]
"""exact: every segment that can decide is scored; fast: deprecated for the checkers (it checks as exact; a
``SegmentedChecker`` given ``FastSettings`` prunes, see checkers.pruning), the presence models' pruning mode."""

LLMCheckMode = Literal["joint", "single"]
"""How the LLM checker batches claims: one call per claim, or the claims of a record together."""

PassageMode = Literal["each", "together", "refchecker"]
"""How the LLM checker is shown a record's passages (see ``factscope.checkers.llm``)."""

ExactScoring = Literal["decisive", "every"]
"""Which segments exact mode scores: decisive, only those that can decide a label, the ones over the relevance
floor (the same verdicts as every but for the relevance rule's note, see ``SegmentedChecker``); every, every
segment of every reference."""

MismatchSetting = Literal["values", "all", "off"]
"""Which values of a claim the value check compares with its evidence: ``values`` (numbers, dates, quantities),
``all`` (also named entities) or ``off``."""

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
class CheckerOptions(ValidatedOptions):
    """How the checker named by a spec checks claims. Each setting says which checkers use it (its rule); a run
    whose checker does not use a setting set away from its default is refused (``make_checker``, the specs)."""

    max_tokens: int = field(default=DEFAULT_MAX_TOKENS, metadata=about(
        "most tokens per reference segment (8 or more); 0: each reference whole",
        flag="--segment-tokens", min=0, check=check_segment_tokens, counts_when=SEGMENTING_CHECKER,
    ))
    window_sentences: int | None = field(default=None, metadata=about(
        "read references in windows of N sentences; 0: in segments (default: the checker's own)",
        min=0, counts_when=(SEGMENTING_CHECKER, WINDOWS_IN_SEGMENTS),
    ))
    min_window_sentences: int | None = field(default=None, metadata=about(
        "also read narrower windows, down to N sentences (default: the checker's own)",
        min=1, counts_when=(SEGMENTING_CHECKER, *NARROWER_WINDOWS),
    ))
    exact_scoring: ExactScoring = field(default="decisive", metadata=about(
        "exact mode: decisive (score the segments that can decide) or every",
        counts_when=MODEL_CHECKER,
    ))
    relevance: RelevanceMode = field(default=DEFAULT_RELEVANCE, metadata=about(
        "count only the segments that share the claim's words (lexical), or all (off)",
        counts_when=MODEL_CHECKER,
    ))
    min_relevance: float | None = field(default=None, metadata=about(
        f"the share of the claim's content words a segment must hold (default {DEFAULT_MIN_RELEVANCE:g})",
        min=0.0, max=1.0, counts_when=(MODEL_CHECKER, LEXICAL_RELEVANCE),
    ))
    min_confidence: float = field(default=0.0, metadata=about(
        "a model checker's label of a lower probability becomes Neutral",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    mismatch: MismatchSetting = field(default=DEFAULT_MISMATCH, metadata=about(
        "Entailment becomes Contradiction when the evidence bears another value: values (numbers, dates), all "
        "(and names) or off",
        flag="--mismatch-checks", counts_when=MODEL_CHECKER,
    ))
    mode: CheckMode = field(default=DEFAULT_MODE, metadata=about(
        "deprecated: fast checks as exact",
        counts_when=FAST_MODE,
    ))
    device: Device = field(default="auto", metadata=about(
        "auto (a GPU if present), cpu or cuda",
        counts_when=ON_A_DEVICE,
    ))
    precision: OnnxPrecision = field(default="fp32", metadata=about(
        "fp32, or int8 (ONNX Runtime's dynamic int8 on a CPU: faster, some labels differ)",
        counts_when=(FACTSCOPE_CHECKER, ON_THE_CPU),
    ))
    threshold: float | None = field(default=None, metadata=about(
        "P(Entailment) from which a segment entails (default: argmax; judges 0.5)",
        min=0.0, max=1.0, counts_when=MODEL_CHECKER,
    ))
    decision: str | None = field(default=None, metadata=about(
        "a claim decision saved by `factscope eval-checker --fit-decision` (default: none)",
        flag="--claim-decision", counts_when=MODEL_CHECKER,
    ))
    label_order: list[str] | None = field(default=None, metadata=about(
        "nli / path checkers: each output column's label, in order (e.g. not_entailment,entailment)",
        option_type=str | None, parse=label_names, counts_when=LABELLED_COLUMNS,
    ))
    similarity_threshold: float = field(default=DEFAULT_SIMILARITY_THRESHOLD, metadata=about(
        "cosine threshold of the similarity checker", min=-1.0, max=1.0, counts_when=SIMILARITY_CHECKER,
    ))
    llm_mode: LLMCheckMode = field(default="joint", metadata=about(
        "llm checker: one call per record (joint) or per claim (single)",
        flag="--llm-check-mode", counts_when=LLM_CHECKER,
    ))
    llm_passages: PassageMode = field(default=DEFAULT_LLM_PASSAGES, metadata=about(
        "llm checker: one call per passage (each), for all (together), or in RefChecker's text (refchecker)",
        counts_when=LLM_CHECKER,
    ))
    batch_size: int | None = field(default=None, metadata={"min": 1})
    """Pairs per model call (None: the model's own, 32 for nli and path models, 16 for the published judges)."""


def checker_options(options: CheckerOptions | Mapping[str, Any] | None = None, **settings: Any) -> CheckerOptions:
    """``options`` as a CheckerOptions (a mapping of its fields by name, validated; None: the defaults), with the
    ``settings`` given by name on top. An unknown name is refused (ConfigError) with the valid names and the
    nearest one."""
    if isinstance(options, CheckerOptions):
        return options if not settings else options_from(CheckerOptions, settings, "checker setting", options)
    return options_from(CheckerOptions, {**(options or {}), **settings}, "checker setting")


def used_options(options: CheckerOptions, checker: str) -> CheckerOptions:
    """``options`` with each setting that the checker ``checker`` (a spec) does not use back at its default: the
    share of settings given for several checkers that one of them takes."""
    from factscope.core.options.rules import broken_rule, field_rules
    from factscope.core.options.validation import default_of, parameter_values

    values = {**parameter_values(options), "checker": checker}
    unused = {
        item.name: default_of(item)
        for item in fields(options)
        if broken_rule([rule for rule in field_rules(item) if not rule.warn], values) is not None
    }
    return replace(options, **unused)


class CheckedWithOptions(ValidatedOptions):
    """A base of the specs whose ``checker_settings`` may be given as a mapping of CheckerOptions' fields: it
    becomes a CheckerOptions on construction (``checker_options``), before the spec is validated."""

    def __post_init__(self) -> None:
        settings = getattr(self, "checker_settings")  # noqa: B009 (a field of the dataclass subclass)
        if not isinstance(settings, CheckerOptions):
            object.__setattr__(self, "checker_settings", checker_options(settings))
        super().__post_init__()
