"""`factscope attribute`: knowledge-graph attributed answers and their evaluation (KaLMA), the commands that
``factscope.kalma`` declares: `score` (``command_form``), `generate`, `make-questions` (``writer_forms``)."""

from __future__ import annotations

import typer

from factscope.cli.form_commands import add_system_command, add_writer_command
from factscope.kalma.system import ATTRIBUTE
from factscope.kalma.writer_forms import ANSWER_COMMAND, QUESTION_COMMAND

HELP = """Knowledge-graph attribution (KaLMA / BioKaLMA): answers that cite triples of a knowledge graph as \\[Q212657, place of birth: Rome], mark what the graph lacks with \\[NA], and are scored with no reference answers."""


def register(app: typer.Typer) -> None:
    """Add the `attribute` command group."""
    attribute_app = typer.Typer(help=HELP, no_args_is_help=True)
    add_writer_command(attribute_app, ANSWER_COMMAND)
    add_system_command(attribute_app, ATTRIBUTE)
    add_writer_command(attribute_app, QUESTION_COMMAND)
    app.add_typer(attribute_app, name="attribute")
