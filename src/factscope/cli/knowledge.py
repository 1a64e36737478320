"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER); ``factscope.conner``
declares `score` (``command_form``), `generate`, `select` (``writer_forms``); `agree` is knowledge_agree's."""

from __future__ import annotations

import typer

from factscope.cli import knowledge_agree
from factscope.cli.form_commands import add_system_command, add_writer_command
from factscope.conner.system import KNOWLEDGE
from factscope.conner.writer_forms import GENERATE_COMMAND, SELECT_COMMAND

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge."""


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    add_system_command(group, KNOWLEDGE)
    for form in (GENERATE_COMMAND, SELECT_COMMAND):
        add_writer_command(group, form)
    knowledge_agree.register(group)
    app.add_typer(group, name="knowledge")
