"""Options of the commands that check claims against references (`check`, `agree`): segmenting, how a model
checker's verdict is decided, the LLM checker's layout, and their rule for records without references."""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.markup import escape

from factscope.checkers.llm import LLMCheckMode, PassageMode
from factscope.checkers.registry import MismatchSetting
from factscope.checkers.relevance import DEFAULT_MIN_RELEVANCE, RelevanceMode
from factscope.checkers.segmented import CheckMode
from factscope.cli.display import console
from factscope.hf.device import Device
from factscope.refchecker.missing_references import (
    MissingReferences,
    MissingReferencesWarning,
    missing_references_problem,
)


def _segment_budget(value: int) -> int:
    if 0 < value < 8:
        raise typer.BadParameter("give 0 (each reference whole) or at least 8 tokens")
    return value


SegmentTokens = Annotated[
    int,
    typer.Option(
        min=0,
        callback=_segment_budget,
        help="model checkers cut each reference into segments of at most this many tokens: 0, or 8 or more; 0 "
        "checks each reference whole, as RefChecker does for NQ (Zero Context) and for its LLM checkers",
    ),
]

WindowSentences = Annotated[
    int | None,
    typer.Option(
        min=0,
        help="model checkers read each reference as windows of N consecutive sentences (stride one sentence, each "
        "within --segment-tokens) and take the best window; 0 reads --segment-tokens segments (RefChecker's "
        "layout); default: the checker's own (the shipped checker reads 1- and 2-sentence windows, other models 0)",
    ),
]

MinWindowSentences = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="with sentence windows, also read every narrower window down to N sentences (1 with "
        "--window-sentences 2: each sentence alone and each pair of neighbours); default: the checker's own "
        "(the shipped checker: 1, with its 2-sentence windows; other models read one width)",
    ),
]

RelevanceOption = Annotated[
    RelevanceMode,
    typer.Option(
        help="model checkers: lexical (a segment counts for the merge only when it shares at least --min-relevance "
        "of the claim's content words, so an unrelated passage cannot decide) or off (every segment counts)"
    ),
]

MinRelevance = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        max=1.0,
        show_default=False,
        help=f"0 to 1: the share of the claim's content words a segment must contain to count (with --relevance "
        f"lexical); default {DEFAULT_MIN_RELEVANCE:g}, calibrated on labelled entailed pairs",
    ),
]

MinConfidence = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="0 to 1: a model checker's Entailment or Contradiction whose probability is under this becomes Neutral "
        "(rule min-confidence); 0 keeps every label",
    ),
]

MismatchChecks = Annotated[
    MismatchSetting,
    typer.Option(
        "--mismatch-checks",
        help="model checkers: an Entailment whose evidence sentence bears another value than the claim becomes "
        "Contradiction (the evidence states another value) or Neutral (it states none); values = numbers, dates "
        "and quantities, all = also named entities, off",
    ),
]

CheckingModeOption = Annotated[
    CheckMode,
    typer.Option(
        "--mode",
        help="model checkers: exact (every segment of every reference is scored) or fast (each claim only against "
        "its most relevant segments, stopping at a confident entailment; a claim whose label pruning could change "
        "is scored exactly, and each verdict's fast_path says which)",
    ),
]

LabelOrderOption = Annotated[
    str | None,
    typer.Option(
        "--label-order",
        show_default=False,
        help="nli / path checkers: the label of each output column, comma-separated in column order (e.g. "
        "'not_entailment,entailment'), when the model's config names them generically (LABEL_0) or wrongly",
    ),
]

JudgeThreshold = Annotated[
    float | None,
    typer.Option(
        "--threshold",
        min=0.0,
        max=1.0,
        show_default=False,
        help="model checkers: a segment entails the claim when P(Entailment) is at least this (default: the "
        "argmax of the probabilities; 0.5 for minicheck, hhem and alignscore, their authors' threshold)",
    ),
]


def label_order(value: str | None) -> list[str] | None:
    """The names of --label-order as a list (None when not given)."""
    return [name.strip() for name in value.split(",") if name.strip()] if value else None


DeviceOption = Annotated[
    Device,
    typer.Option(
        help="where the embedded checker and the minicheck, hhem and alignscore judges run: auto (a CUDA GPU when "
        "present), cpu or cuda"
    ),
]

LLMCheckModeOption = Annotated[
    LLMCheckMode, typer.Option(help="llm checker: joint (all claims of a record in one call) or single")
]

LLMPassagesOption = Annotated[
    PassageMode,
    typer.Option(
        help="llm checker, records with several passages: each (one call per passage, labels merged), together "
        "(one call, passages numbered from 1) or refchecker (one call, RefChecker's exact text: 'Passage 0: ...' "
        "one line each, a single passage included)"
    ),
]

AllowMissingReferences = Annotated[
    bool,
    typer.Option(
        "--allow-missing-references",
        help="go on when some records have no references (their claims can only be Neutral); without it such a "
        "run stops with exit code 2",
    ),
]


def refuse_missing_references(keys: Sequence[str], *, allowed: bool, remedy: str) -> None:
    """Warn loudly about records without references, whose claims can only be Neutral; stop with exit code 2
    unless ``allowed``. ``remedy`` says what the user can do besides giving references."""
    if not keys:
        return
    problem = missing_references_problem(keys)
    if allowed:
        console.print(f"[bold yellow]warning[/] {escape(problem)} Going on (--allow-missing-references).")
        return
    console.print(
        f"[bold red]error[/] {escape(problem)} Give them references, {remedy}, or pass --allow-missing-references "
        "to go on anyway."
    )
    raise typer.Exit(code=2)


@contextmanager
def references_rule(remedy: str) -> Iterator[None]:
    """The check system's rule for records without references, told in the command's words: its
    ``MissingReferences`` stops the command with exit code 2 and its warning is printed (``remedy`` as in
    ``refuse_missing_references``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", MissingReferencesWarning)
        shown = warnings.showwarning

        def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
            if isinstance(message, MissingReferencesWarning):
                refuse_missing_references(message.keys, allowed=True, remedy=remedy)
            else:
                shown(message, category, *args, **kwargs)

        warnings.showwarning = show
        try:
            yield
        except MissingReferences as missing:
            refuse_missing_references(missing.keys, allowed=False, remedy=remedy)
