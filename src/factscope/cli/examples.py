"""`factscope examples`: copy the shipped example files into a folder, for the quick starts."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from factscope.core.errors import InputError
from factscope.core.progress_display import console

HELP = """Copy the example inputs that ship with factscope into DEST (default: ./examples), so that the quick starts run after a plain `pip install`.

Example:

  factscope examples && factscope check examples/check.jsonl
"""


def register(app: typer.Typer) -> None:
    """Add the `examples` command."""
    app.command("examples", help=HELP)(examples_command)


def examples_command(
    dest: Annotated[Path, typer.Argument(help="folder to copy the examples into")] = Path("examples"),
) -> None:
    source = resources.files("factscope") / "examples"
    if dest.exists() and not dest.is_dir():
        raise InputError("exists and is not a folder; name a new or existing folder", path=dest)
    with resources.as_file(source) as folder:
        copied = [path for path in Path(folder).rglob("*") if path.is_file()]
        clashes = [path for path in copied if (dest / path.relative_to(folder)).exists()]
        if clashes:
            raise InputError(
                f"{len(clashes)} file(s) would be overwritten, e.g. {dest / clashes[0].relative_to(folder)}; "
                "remove them or name another folder",
                path=dest,
            )
        shutil.copytree(folder, dest, dirs_exist_ok=True)
    console.print(f"copied {len(copied)} example files to {dest}", markup=False, highlight=False)
