"""`factscope check`: claim-level hallucination checking (RefChecker)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.options import CheckerOptions
from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.option_groups import add_field_options
from factscope.cli.web_options import web_options
from factscope.refchecker.data import MAX_REFERENCE_CHARS
from factscope.refchecker.spec import CHECK_BATCH_SIZE, CheckSpec
from factscope.retrieve.web_settings import WebSettings

HELP = """Extract claims from LLM responses and check each against the references.

Each claim gets Entailment (supported), Neutral (not verifiable from the references) or Contradiction.

Input: JSON, JSONL, Parquet or CSV records (a list as JSON in a CSV cell) with `response`, `references` (list) or `reference` (text), and optional
`id`, `question`, `setting` (zero / noisy / accurate); RefChecker's own JSON list works as is, and so do its
benchmark records (`context`: the references) once they carry a `response`.
Records without references stop the run (exit code 2) unless --corpus, or --retriever web:serper, web:brave or
wikipedia, retrieves passages for them (guide: Checking answers without references), or
--allow-missing-references is given: their claims could only be Neutral.

Examples:

  factscope check examples/check.jsonl                       # offline: spaCy triplets + embedded checker

  factscope check answers.jsonl -o checked.jsonl --extractor llm --checker nli:MODEL --llm-model gpt-4o-mini

  factscope check shards/ --engine ray --concurrency 4                 # a local Ray cluster, four actors

  SERPER_API_KEY=... factscope check answers.jsonl --retriever web:serper      # evidence from Google results
"""


def register(app: typer.Typer) -> None:
    """Add the `check` command."""
    command = add_field_options(check_command, CheckSpec, "chosen")
    command = add_field_options(command, CheckerOptions, "checking")
    app.command("check", help=HELP)(run_options(web_options(command), after="max_reference_chars"))


def check_command(
    input: Annotated[
        Path, typer.Argument(help="JSON, JSONL, Parquet or CSV records to check (with --engine ray: or a folder of *.jsonl).",
                             show_default=False)
    ],
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", help="results JSONL (default: INPUT name + .checked.jsonl here); with --engine ray a results "
        "folder",
    )] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="records per extraction / checking batch")] = (
        CHECK_BATCH_SIZE
    ),
    max_reference_chars: Annotated[int, typer.Option(min=1, help="skip records whose references are longer")] = (
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
