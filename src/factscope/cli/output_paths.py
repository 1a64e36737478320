"""The output paths of a command, checked before any work: the first thing every command that writes files does.

The checks are the library's (``factscope.core.output_checks``, which also guards a run started from Python);
what is the command's own is the results file's lock (``factscope.core.results_lock``), taken here and held until
the command ends, so that a second run on a file another run is writing is refused before any model loads.
"""

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
    taken first (``ResultsLocked`` when another run holds it) and held until the command ends."""
    if results is not None:
        hold_lock(results)
    output_checks.check_outputs(results, overwrite=overwrite, written=written)


def hold_lock(results: Path) -> None:
    """Take the lock of the results file ``results`` and hold it until the running command ends (not at all
    outside a command)."""
    context = running_command()
    if context is None:
        return
    acquire(results)
    context.call_on_close(partial(release, results))


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
