"""`factscope check`: claim-level hallucination checking (RefChecker), the command its system declares
(``factscope.refchecker.command_form``)."""

from __future__ import annotations

import typer

from factscope.cli.form_commands import add_system_command
from factscope.refchecker.system import CHECK


def register(app: typer.Typer) -> None:
    """Add the `check` command."""
    add_system_command(app, CHECK)
