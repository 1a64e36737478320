"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER); the commands are in
knowledge_score, knowledge_generate and knowledge_agree."""

from __future__ import annotations

import typer

from factscope.cli.engine_options import engine_options
from factscope.cli.knowledge_agree import AGREE_HELP, agree_command
from factscope.cli.knowledge_generate import (
    GENERATE_HELP,
    SELECT_HELP,
    generate_command,
    generation_command,
    select_command,
)
from factscope.cli.knowledge_options import SCORING
from factscope.cli.knowledge_score import SCORE_HELP, score_command
from factscope.cli.llm_options import llm_options
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import output_options
from factscope.cli.web_options import web_options
from factscope.conner.spec import KnowledgeSpec

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge."""


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    score = add_field_options(output_options(score_command, summary=False), KnowledgeSpec, "chosen", panel=SCORING)
    group.command("score", help=SCORE_HELP)(llm_options(engine_options(web_options(score))))
    generate = generation_command(generate_command, select_from=True, sampling=False)
    group.command("generate", help=GENERATE_HELP)(generate)
    group.command("select", help=SELECT_HELP)(generation_command(select_command, select_from=False, sampling=True))
    group.command("agree", help=AGREE_HELP)(agree_command)
    app.add_typer(group, name="knowledge")
