"""The output paths of a command, checked before any work: the first thing every command that writes files does.

A bad output path (a folder, a read-only file, a missing folder, a file that is not a factscope results file)
is found before any input is scored or any model loads, so a long run never ends in an error at its last step,
and results are never appended to a foreign file. Results files are judged by the rules ``prepare_results``
applies when the run starts (``factscope.core.manifest.check_results_path``), and the results file's lock is taken
here and held until the command ends (``factscope.core.results_lock``), so a second run on a file that another
run is writing is refused before any model loads.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from factscope.core.errors import InputError
from factscope.core.manifest import check_results_path
from factscope.core.results_lock import acquire, release


def check_outputs(
    results: Path | None = None, *, overwrite: bool = False, written: Mapping[str, Path | None] | None = None
) -> None:
    """Refuse, with an InputError naming the path and what to do, a bad results file (``results``, resumed into
    unless ``overwrite``) or a bad file that an option writes whole at the end (``written``: option -> path,
    such as ``{"--summary": summary}``; None where the option was not given). Inside a command, ``results``'s
    lock is taken (``ResultsLocked`` when another run holds it) and held until the command ends."""
    if results is not None:
        hold_lock(results)
        check_results_path(results, overwrite=overwrite)
    for option, path in (written or {}).items():
        if path is not None:
            check_written_file(path, option)


def check_written_file(path: Path, option: str) -> None:
    """Refuse a file that ``option`` would write whole: a folder, one in a folder that does not exist, or one
    that cannot be written."""
    if path.is_dir():
        raise InputError(f"is a folder; give {option} a file name (one inside this folder, say)", path=path)
    folder = path.absolute().parent
    if not folder.exists():
        raise InputError(
            f"the folder {folder} does not exist; create it first, or give {option} a file in an existing folder",
            path=path,
        )
    if not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder; give {option} another path", path=path)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"is read-only; make it writable (chmod u+w) or give {option} another file", path=path)
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot be written: the folder {folder} is read-only; give {option} another file", path=path)


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
