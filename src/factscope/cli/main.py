"""The `factscope` typer application and its entry point."""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from factscope import __version__
from factscope.core.errors import FactscopeError

app = typer.Typer(
    name="factscope",
    help=(
        "Check what language models write against knowledge.\n\n"
        "check: claim-level hallucination checking (RefChecker). "
        "ground: grounding precision / recall (Truly Ground). "
        "attribute: knowledge-graph citations (KaLMA). "
        "knowledge: knowledge quality (CONNER). "
        "Run `factscope COMMAND --help` for each."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"factscope {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    """Check what language models write against knowledge."""


def _register() -> None:
    """Attach every command module's commands to the app."""
    from factscope.cli import commands

    for module in commands.MODULES:
        module.register(app)


def main() -> None:
    """Entry point: run the app, printing factscope's own errors without a traceback (exit code 2)."""
    _register()
    try:
        app()
    except FactscopeError as error:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(str(error))}", highlight=False)
        sys.exit(2)
