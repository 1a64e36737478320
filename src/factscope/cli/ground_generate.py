"""`factscope ground generate`: a response per question with an LLM, with distractors from a corpus (Dist)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.llm_options import LLMOptions, llm_options, write_with_llm
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import ResponseGenerationSettings

HELP = """Produce a response per question with an LLM (prompt `ground_generate`), resumably.

Each output line is {id, question, response, contexts, model}; `contexts` are the input contexts the model saw, so `factscope ground DATA --responses OUT` judges precision against them; with --corpus they also hold retrieved distractor passages (the paper's Dist setting). Failed calls are reported and not written; rerun to retry them.

Examples:

  factscope ground generate data.json --metadata meta.json -o responses.jsonl --llm-model gpt-4o-mini

  factscope ground generate data.json -o responses.jsonl --llm-model gpt-4o-mini --corpus wiki.jsonl --gold-position end
"""


def register(app: typer.Typer) -> None:
    """Add the `generate` command to the `ground` group ``app``."""
    command = add_field_options(output_options(generate_command, summary=False), ResponseGenerationSettings,
                                "calls", after="metadata")
    command = add_field_options(command, DistractorSettings, "distractors", after="corpus")
    app.command("generate", help=HELP)(llm_options(command))


def generate_command(
    input: Annotated[
        Path, typer.Argument(help="dataset: the Truly Ground JSON layout or generic JSONL", show_default=False)
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="responses JSONL (appended to; resumes)")],
    metadata: Annotated[Path | None, typer.Option(help="metadata JSON keyed by question id")] = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    distractors: DistractorSettings,
    calls: ResponseGenerationSettings,
) -> None:
    from factscope.grounding.generation import ResponseWriter

    settings = replace(calls, distractors=distractors)
    write_with_llm(ResponseWriter(metadata), settings, input, output, endpoint, outputs)
