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

from factscope.core.errors import ConfigError


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


def _threshold_range(ctx: typer.Context, presence: str, threshold: float) -> None:
    """Refuse a presence threshold outside the range of the scores of the presence model ``presence`` names."""
    from factscope.cli.parameter_flags import in_context
    from factscope.grounding.presence import check_threshold

    try:
        check_threshold(presence, threshold)
    except ConfigError as error:
        raise typer.BadParameter(in_context(str(error), ctx), param_hint="'--threshold'") from None


def presence_threshold(ctx: typer.Context, value: float | None) -> float | None:
    """``ground --threshold``: finite, and within the score range of --presence when that was parsed first."""
    finite(value)
    presence = ctx.params.get("presence")
    if value is not None and isinstance(presence, str):
        _threshold_range(ctx, presence, value)
    return value


def presence_for_threshold(ctx: typer.Context, value: str) -> str:
    """``ground --presence``: when --threshold was parsed first, check it against this model's score range."""
    threshold = ctx.params.get("threshold")
    if isinstance(threshold, float):
        _threshold_range(ctx, value, threshold)
    return value
