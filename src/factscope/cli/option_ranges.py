"""Checks of hand-written options' values that typer's ``min=`` / ``max=`` cannot express, run as option
callbacks. (An option built from a spec or settings field takes its range from the field's metadata, and
``factscope.cli.option_groups`` checks it; this module holds the rest.)

Each check runs while the command line is parsed, before any file is read or model loaded; a value outside its
range is a usage error (exit code 2) that names the option and the values it takes. typer's own range check lets
``inf`` through an option that has no maximum, so every float option without one also goes through ``finite``.
"""

from __future__ import annotations

import math

import typer

THRESHOLD_RANGES: dict[str, tuple[float, float, str]] = {
    "bi": (-1.0, 1.0, "a cosine similarity"),
    "nli": (0.0, 1.0, "an entailment probability"),
    "bi-nli": (0.0, 1.0, "an entailment probability"),
    "llm": (0.0, 1.0, "a judgement scored 0 or 1"),
}
"""The presence models (by registry name) whose scores have a fixed range, with what the score is; the scores
of the others (``cross``: a cross-encoder's raw relevance; plugins) are unbounded, so any finite threshold fits
them."""

PRESENCE_THRESHOLD_RULE = (
    "a finite number; -1 to 1 with --presence bi (cosine), 0 to 1 with nli, bi-nli and llm (probabilities), any with "
    "cross (raw relevance scores)"
)
"""The rule of ``ground --threshold``, for its help text."""

def finite(value: float | None) -> float | None:
    """Refuse ``nan`` and ``inf`` (None, an option left out, passes)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value} is not a finite number")
    return value


def above_zero(value: float) -> float:
    """Refuse a value that is not a finite number above 0."""
    if not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"{value} is not a finite number above 0")
    return value


def _threshold_range(presence: str, threshold: float) -> None:
    """Refuse a presence threshold outside the range of the scores of the presence model ``presence`` names."""
    name = presence.split(":", 1)[0]
    if name not in THRESHOLD_RANGES:
        return
    low, high, score = THRESHOLD_RANGES[name]
    if not low <= threshold <= high:
        raise typer.BadParameter(
            f"{threshold:g} is outside {low:g} to {high:g}, the range of --presence {name}'s scores ({score})",
            param_hint="'--threshold'",
        )


def presence_threshold(ctx: typer.Context, value: float | None) -> float | None:
    """``ground --threshold``: finite, and within the score range of --presence when that was parsed first."""
    finite(value)
    presence = ctx.params.get("presence")
    if value is not None and isinstance(presence, str):
        _threshold_range(presence, value)
    return value


def presence_for_threshold(ctx: typer.Context, value: str) -> str:
    """``ground --presence``: when --threshold was parsed first, check it against this model's score range."""
    threshold = ctx.params.get("threshold")
    if isinstance(threshold, float):
        _threshold_range(value, threshold)
    return value
