"""A run's output paths, judged before any work: a bad one (a folder, a read-only file, a missing folder, a
file that is not a factscope results file) is one clear error naming the path and the parameter that gave it,
raised before any input is scored or any model loads, so a long run never ends in an error at its last step and
results are never appended to a foreign file.

A results file is judged by the rules ``prepare_results`` applies when the run starts
(``factscope.core.files.manifest.check_results_path``); a file that a run writes whole at its end (a summary, a
report) by ``check_written_file``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from factscope.core.errors import InputError
from factscope.core.files.manifest import check_results_path


def check_outputs(
    output: str | Path | None = None,
    *,
    overwrite: bool = False,
    written: Mapping[str, str | Path | None] | None = None,
) -> None:
    """Refuse, with an InputError naming the path and what to do, a bad results file ``output`` (resumed into
    unless ``overwrite``) or a bad file that a parameter writes whole at the end (``written``: parameter ->
    path, such as ``{"report": report}``; None where it was not given)."""
    if output is not None:
        check_results_path(output, overwrite=overwrite)
    for parameter, path in (written or {}).items():
        if path is not None:
            check_written_file(path, parameter)


def check_written_file(path: str | Path, parameter: str) -> None:
    """Refuse a file that the parameter ``parameter`` would have written whole: a folder, one in a folder that
    does not exist, or one that cannot be written."""
    path = Path(path)
    if path.is_dir():
        raise InputError(f"is a folder; give `{parameter}` a file name (one inside this folder, say)", path=path)
    folder = path.absolute().parent
    if not folder.exists():
        raise InputError(
            f"the folder {folder} does not exist; create it first, or give `{parameter}` a file in an existing "
            "folder",
            path=path,
        )
    if not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder; give `{parameter}` another path", path=path)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"is read-only; make it writable (chmod u+w) or give `{parameter}` another file", path=path)
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(
            f"cannot be written: the folder {folder} is read-only; give `{parameter}` another file", path=path
        )
