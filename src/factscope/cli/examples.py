"""`factscope examples`: copy the shipped example files into a folder (``factscope.core.files.example_files``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.core.display.progress import console
from factscope.core.files.example_files import EXAMPLES_FOLDER, copy_examples

HELP = """Copy the example inputs that ship with factscope into DEST (default: ./examples), so that the quick starts run after a plain `pip install`.

Example:

  factscope examples && factscope check examples/check.jsonl
"""


def register(app: typer.Typer) -> None:
    """Add the `examples` command."""
    app.command("examples", help=HELP)(examples_command)


def examples_command(
    dest: Annotated[Path, typer.Argument(help="folder to copy the examples into")] = EXAMPLES_FOLDER,
) -> None:
    """Copy the shipped examples (see `factscope examples --help`)."""
    copied = copy_examples(dest)
    console.print(f"copied {len(copied)} example files to {dest}", markup=False, highlight=False)
