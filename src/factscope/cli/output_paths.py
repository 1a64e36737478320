"""A command's output paths, checked before any work (``factscope.core.files.output_checks``), and the results
file's lock held until the command ends, so that a second run on the file is refused before models load."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from factscope.core.files import output_checks
from factscope.core.files.results_lock import acquire, release

try:
    from typer._click.globals import get_current_context
except ImportError:  # typer before 0.29 runs on click itself
    from click import get_current_context  # type: ignore[no-redef]


def check_outputs(
    results: Path | None = None, *, overwrite: bool = False, written: Mapping[str, Path | None] | None = None
) -> None:
    """``factscope.core.files.output_checks.check_outputs`` (``written``: parameter -> path), with ``results``'s lock
    taken first (``ResultsLocked`` when another run holds it) and held until the running command ends."""
    context = running_command()
    if results is not None and context is not None:
        acquire(results)
        context.call_on_close(partial(release, results))
    output_checks.check_outputs(results, overwrite=overwrite, written=written)


def running_command() -> Any:
    """The click context of the command running in this thread, or None outside a command."""
    return get_current_context(silent=True)
