"""The `factscope` typer application and its entry point."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from factscope.errors import FactscopeError

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


def _register() -> None:
    """Attach every command module's commands to the app."""
    from factscope.cli import commands

    for module in commands.MODULES:
        module.register(app)


def main() -> None:
    """Entry point: run the app, printing factscope's own errors without a traceback."""
    _register()
    try:
        app(standalone_mode=False)
    except FactscopeError as error:
        Console(stderr=True).print(f"[bold red]error:[/] {error}")
        sys.exit(2)
    except typer.Abort:
        Console(stderr=True).print("aborted")
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as error:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(error, click.ClickException):
            error.show()
            sys.exit(error.exit_code)
        raise
