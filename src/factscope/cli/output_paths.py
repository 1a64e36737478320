"""A command's output paths, checked before any work (``factscope.core.output_checks``), and the results file's
lock held until the command ends, so that a second run on that file is refused before any model loads."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from factscope.core import output_checks
from factscope.core.results_lock import acquire, release


def check_outputs(
    results: Path | None = None, *, overwrite: bool = False, written: Mapping[str, Path | None] | None = None
) -> None:
    """``factscope.core.output_checks.check_outputs`` (``written``: parameter -> path), with ``results``'s lock
    taken first (``ResultsLocked`` when another run holds it) and held until the running command ends."""
    context = running_command()
    if results is not None and context is not None:
        acquire(results)
        context.call_on_close(partial(release, results))
    output_checks.check_outputs(results, overwrite=overwrite, written=written)


CLICK_MODULES = ("typer._click.globals", "click")
"""Where the running command's context is kept: typer 0.29 and newer run on their own copy of click."""


def running_command() -> Any:
    """The click context of the command running in this thread, or None outside a command."""
    for name in CLICK_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        context = module.get_current_context(silent=True)
        if context is not None:
            return context
    return None
