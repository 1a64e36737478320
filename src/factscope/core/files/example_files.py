"""The example inputs that ship with factscope (``factscope/examples``), copied into a folder so that the quick
starts run after a plain ``pip install`` (`factscope examples`)."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

from factscope.core.errors import InputError

EXAMPLES_FOLDER = Path("examples")
"""Where the examples are copied by default: ./examples."""


def copy_examples(dest: str | Path = EXAMPLES_FOLDER) -> list[Path]:
    """Copy the shipped example files into the folder ``dest`` (made when missing, kept when there); return the
    copies. Raises InputError, copying nothing, when ``dest`` is a file or a copy would overwrite a file."""
    dest = Path(dest)
    if dest.exists() and not dest.is_dir():
        raise InputError("exists and is not a folder; name a new or existing folder", path=dest)
    with resources.as_file(resources.files("factscope") / "examples") as folder:
        copies = [dest / path.relative_to(folder) for path in Path(folder).rglob("*") if path.is_file()]
        clashes = [path for path in copies if path.exists()]
        if clashes:
            raise InputError(
                f"{len(clashes)} file(s) would be overwritten, e.g. {clashes[0]}; remove them or name another folder",
                path=dest,
            )
        shutil.copytree(folder, dest, dirs_exist_ok=True)
    return copies
