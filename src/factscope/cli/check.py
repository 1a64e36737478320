"""`factscope check`: claim-level hallucination checking (RefChecker)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.options import CheckerOptions
from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.help_panels import CHECKING, CLAIMS, ENGINE, EVIDENCE, INPUT, LLM, OUTPUT
from factscope.cli.option_groups import add_field_options
from factscope.refchecker.data import MAX_REFERENCE_CHARS
from factscope.refchecker.spec import CHECK_BATCH_SIZE, CheckSpec
from factscope.retrieve.web_settings import WebSettings

HELP = """Claim checking (RefChecker): extract claims from LLM responses and check each against the references:
Entailment (supported), Neutral (not verifiable from them) or Contradiction.

Input: records with `response`, `references` (a list) or `reference`, and optional `id`, `question`, `setting`,
or RefChecker's files.

Examples:
  factscope check examples/check.jsonl            # offline: rules + embedded
  factscope check answers.jsonl -o checked.jsonl --extractor llm \\
      --checker nli:MODEL --llm-model gpt-4o-mini
  factscope check shards/ --engine ray --concurrency 4    # on a local Ray
  SERPER_API_KEY=... factscope check answers.jsonl --retriever web:serper
"""


def register(app: typer.Typer) -> None:
    """Add the `check` command."""
    command = add_field_options(check_command, CheckSpec, "chosen", panels=SPEC_PANELS)
    command = add_field_options(command, CheckerOptions, "checking", panel=CHECKING, panels=CHECKER_PANELS)
    command = add_field_options(command, WebSettings, "web", panel=EVIDENCE)
    app.command("check", help=HELP)(run_options(command, after="max_reference_chars"))


SPEC_PANELS = {
    "extractor": CLAIMS, "abstention_detection": CLAIMS, "checker": CHECKING, "allow_missing_references": INPUT,
    "corpus": EVIDENCE, "retriever": EVIDENCE, "retrieve_k": EVIDENCE, "retrieve_for": EVIDENCE,
}
"""The --help panel of each option of the check spec."""

CHECKER_PANELS = {"llm_mode": LLM, "llm_passages": LLM, "device": ENGINE, "decision": CHECKING}
"""The checker settings shown outside the checking panel: the LLM checker's, and where models run."""


def check_command(
    input: Annotated[
        Path, typer.Argument(help="JSON, JSONL, Parquet or CSV records (with --engine ray: or a folder of *.jsonl)",
                             show_default=False, rich_help_panel=INPUT)
    ],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="results JSONL (default: INPUT name + .checked.jsonl here); with --engine ray a results "
        "folder", rich_help_panel=OUTPUT,
    )] = None,
    batch_size: Annotated[int, typer.Option(
        min=1, help="records per batch", rich_help_panel=ENGINE)] = (
        CHECK_BATCH_SIZE
    ),
    max_reference_chars: Annotated[int, typer.Option(
        min=1, help="skip records whose references are longer", rich_help_panel=INPUT)] = (
        MAX_REFERENCE_CHARS
    ),
    *,
    run: CommandRun,
    web: WebSettings,
    checking: CheckerOptions,
    chosen: CheckSpec,
) -> None:
    from factscope.refchecker.system import CheckSystem
    from factscope.retrieve.web_retrievers import is_web_retriever

    web_search = isinstance(chosen.retriever, str) and is_web_retriever(chosen.retriever)
    spec = replace(
        chosen, checker_settings=checking, web=web, query_llm=web_search and run.endpoint.configured()
    )
    run(CheckSystem(max_reference_chars), spec, input, run.output(input, output, ".checked"), batch_size=batch_size)
