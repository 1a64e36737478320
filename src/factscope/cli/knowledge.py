"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER); `score` is the command
its system declares (``factscope.conner.command_form``), the others, each with its options, are in
knowledge_generate and knowledge_agree."""

from __future__ import annotations

import typer

from factscope.cli import knowledge_agree, knowledge_generate
from factscope.cli.system_command import add_system_command
from factscope.conner.system import KNOWLEDGE

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge."""


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    add_system_command(group, KNOWLEDGE)
    for commands in (knowledge_generate, knowledge_agree):
        commands.register(group)
    app.add_typer(group, name="knowledge")
