"""`factscope package-checker`: a checker folder as a wheel that adds `--checker NAME` where installed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.wheel import CheckerPackage
from factscope.cli.option_groups import add_field_options
from factscope.cli.parameter_flags import in_context
from factscope.core.display.progress import console

HELP = """Pack a checker folder into a wheel, so that `--checker NAME` uses it wherever the wheel is installed.

DIR is a folder `--checker path:DIR` reads: a checker `factscope train-checker --out DIR` wrote, or a Hugging
Face NLI model folder. The wheel holds the folder, its model card, and registers NAME in factscope's checker
plugins.

Example:

  factscope train-checker --data pairs.jsonl --out my-checker
  factscope package-checker my-checker --name support-desk --version 1.0.0 -o dist
  pip install dist/factscope_checker_support_desk-1.0.0-py3-none-any.whl
  factscope check records.jsonl --checker support-desk
"""


def register(app: typer.Typer) -> None:
    """Add the `package-checker` command."""
    command = add_field_options(package_checker_command, CheckerPackage, "package")
    app.command("package-checker", help=HELP)(command)


def package_checker_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="the checker folder", show_default=False)],
    *,
    package: CheckerPackage,
) -> None:
    """Pack a checker folder into a wheel (see `factscope package-checker --help`)."""
    from factscope.checkers.wheel import package_checker

    for note in package_checker(folder, package).notes():
        console.print(in_context(note), markup=False, highlight=False)
