"""`factscope package-checker`: a checker folder as a wheel that adds `--checker NAME` where it is installed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.core.progress_display import console

HELP = """Pack a checker folder into a wheel, so that `--checker NAME` uses it wherever the wheel is installed.

DIR is a folder `--checker path:DIR` reads: a checker `factscope train-checker --out DIR` wrote, or a Hugging Face
NLI model folder. The wheel (factscope_checker_NAME-VERSION-py3-none-any.whl in --out) holds the folder and
registers NAME in factscope's `factscope.checkers` plugins; the checker it builds is the one `path:DIR` builds,
with the folder's own layout and threshold. Share it on a package index or a file share; install it with pip.

Example:

  factscope train-checker --data pairs.jsonl --out my-checker
  factscope package-checker my-checker --name support-desk --version 1.0.0 -o dist
  pip install dist/factscope_checker_support_desk-1.0.0-py3-none-any.whl
  factscope check records.jsonl --checker support-desk

The package carries a model card, shown as its description on a package index: the Markdown file --card names,
or one written from the checker's manifest (what it is, each training set with its pairs, licence and digest, the
recipe, the held-out figures), saved beside the wheel so that you can complete it and pack again with --card. A
training set's licence is read from NAME.meta.json beside its file; a set without one is marked in the card.

The wheel is about the size of the folder (weights compress little); PyPI refuses files above 100 MB unless the
project asks for a larger limit.
"""


def register(app: typer.Typer) -> None:
    """Add the `package-checker` command."""
    app.command("package-checker", help=HELP)(package_checker_command)


def package_checker_command(
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="the checker folder", show_default=False)],
    name: Annotated[
        str, typer.Option("--name", help="the checker's name for --checker: lower-case letters, digits, hyphens")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="folder to write the wheel into")] = Path("dist"),
    version: Annotated[str, typer.Option(help="the package's release number")] = "1.0.0",
    description: Annotated[
        str | None, typer.Option(help="the one line `--help` shows for the checker (default: from its manifest)")
    ] = None,
    card: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="a Markdown model card for the package (default: one written from the checker's manifest)",
        ),
    ] = None,
) -> None:
    from factscope.checkers.wheel import distribution_name, package_checker

    packed = package_checker(folder, name, out, version=version, description=description, card=card)
    notes = []
    if packed.card_file is not None:
        notes.append(f"the model card it carries was written from the manifest; it is saved as {packed.card_file}: "
                     "complete it and pack again with --card")
    if not packed.card_names_every_licence:
        notes.append("note: the card does not name the licence of every training set; fill them in before you "
                     "publish")
    notes.append(f"wrote {packed.wheel} ({packed.wheel.stat().st_size / 1e6:.1f} MB), the distribution "
                 f"{distribution_name(name)}; after `pip install {packed.wheel}`, use --checker {name}")
    if packed.over_pypi_limit:
        notes.append("note: above PyPI's default limit of 100 MB a file; install it from a file share or ask PyPI "
                     "for a larger limit")
    for note in notes:
        console.print(note, markup=False, highlight=False)
