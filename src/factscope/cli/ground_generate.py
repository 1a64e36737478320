"""`factscope ground generate`: a response per question with an LLM, with distractors from a corpus (Dist)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.llm_options import LLMOptions, write_with_llm
from factscope.cli.output_options import OutputOptions
from factscope.grounding.distractors import DistractorSettings
from factscope.grounding.generation import ResponseGenerationSettings

GENERATE_HELP = """Produce a response per question with an LLM (prompt `ground_generate`), resumably.

Each output line is {id, question, response, contexts, model}; `contexts` are the input contexts the model saw, so `factscope ground DATA --responses OUT` judges precision against them. With --corpus, retrieved distractor passages (not the gold documents) are added up to --budget words, and the gold contexts are put at --gold-position: the paper's Dist setting. Failed calls are reported and not written; rerun to retry them.

Example:

  factscope ground generate data.json --metadata meta.json -o responses.jsonl --llm-model gpt-4o-mini
"""


def generate_command(
    input: Annotated[
        Path, typer.Argument(help="dataset: the Truly Ground JSON layout or generic JSONL", show_default=False)
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="responses JSONL (appended to; resumes)")],
    metadata: Annotated[Path | None, typer.Option(help="metadata JSON keyed by question id")] = None,
    corpus: Annotated[
        Path | None, typer.Option(help="JSONL {id, title, text} or folder of .txt to draw distractors from")
    ] = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    distractors: DistractorSettings,
    calls: ResponseGenerationSettings,
) -> None:
    from factscope.grounding.generation import ResponseWriter

    settings = replace(calls, corpus=corpus, distractors=distractors)
    write_with_llm(partial(ResponseWriter(metadata).write, settings, input), "ground generate", output, endpoint,
                   outputs)
