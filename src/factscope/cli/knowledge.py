"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER); the commands, each with
its options, are in knowledge_score, knowledge_generate and knowledge_agree."""

from __future__ import annotations

import typer

from factscope.cli import knowledge_agree, knowledge_generate, knowledge_score

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge."""


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    for commands in (knowledge_score, knowledge_generate, knowledge_agree):
        commands.register(group)
    app.add_typer(group, name="knowledge")
