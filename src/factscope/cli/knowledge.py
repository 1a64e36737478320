"""`factscope knowledge score | generate | select | agree`: knowledge quality (CONNER); the commands are in
knowledge_score, knowledge_generate and knowledge_agree, and get their options here."""

from __future__ import annotations

import typer

from factscope.cli.engine_options import run_options
from factscope.cli.help_panels import EVIDENCE, SCORING
from factscope.cli.knowledge_agree import AGREE_HELP, agree_command
from factscope.cli.knowledge_generate import GENERATE_HELP, SELECT_HELP, generate_command, select_command
from factscope.cli.knowledge_score import SCORE_HELP, score_command
from factscope.cli.llm_options import llm_options
from factscope.cli.option_groups import Command, add_field_options
from factscope.cli.output_options import output_options
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import SELECTION_FIELDS, KnowledgeGenerationSettings
from factscope.conner.spec import KnowledgeSpec
from factscope.retrieve.web_settings import WebSettings

RUN_FIELDS = frozenset({"task", "batch_size"})
"""The options of a generation run besides its prompts and demonstrations (``KnowledgeGenerationSettings``')."""

HELP = """Evaluate knowledge for a query on CONNER's six dimensions, and use the scores to pick better knowledge."""


def register(app: typer.Typer) -> None:
    """Add the `knowledge` command group."""
    group = typer.Typer(help=HELP, no_args_is_help=True)
    score = add_field_options(score_command, KnowledgeSpec, "chosen", panel=SCORING)
    score = add_field_options(score, KnowledgeGenerationSettings, "reading", names={"task"}, after="queries")
    score = add_field_options(score, WebSettings, "web", panel=EVIDENCE)
    group.command("score", help=SCORE_HELP)(run_options(score, after="batch_size"))
    group.command("generate", help=GENERATE_HELP)(generation_command(generate_command, sampling=False))
    group.command("select", help=SELECT_HELP)(generation_command(select_command, sampling=True))
    group.command("agree", help=AGREE_HELP)(agree_command)
    app.add_typer(group, name="knowledge")


def generation_command(command: Command, *, sampling: bool) -> Command:
    """``command`` with the options of a generation run: its prompts, demonstrations, results file, Q_know
    scoring and LLM endpoint; with ``sampling`` (`select`), the candidates' options too, and no --select-from
    (the demonstrations are then random)."""
    shown = {"train", "shots", "answer"} if sampling else None
    command = add_field_options(command, KnowledgeGenerationSettings, "run", names=RUN_FIELDS, after="output")
    command = add_field_options(command, DemonstrationSettings, "demonstrations", names=shown, after="task")
    command = add_field_options(command, GenerationSettings, "generation", after="task")
    if sampling:
        command = add_field_options(command, CandidateSampling, "sampling", after="task")
    command = add_field_options(
        output_options(command, summary=False), KnowledgeSpec, "scoring", names=SELECTION_FIELDS, panel=SCORING
    )
    return llm_options(command)
