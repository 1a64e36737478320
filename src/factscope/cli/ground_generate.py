"""`factscope ground generate`: a response per question with an LLM, with distractors from a corpus (Dist)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from factscope.cli.display import ProgressDisplay, console, print_skipped, print_table, print_warning, summary_table
from factscope.cli.llm_options import LLMOptions, usage_rows
from factscope.cli.output_options import OutputOptions
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import RecordsFailed
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
    from factscope.grounding.data import load_dataset
    from factscope.grounding.generation import generate

    check_outputs(output, overwrite=outputs.overwrite)
    dataset = load_dataset(input, metadata)
    print_skipped(*dataset.errors)
    for warning in dataset.warnings:
        print_warning(warning)
    llm = endpoint.build()
    examples = dataset.examples
    if corpus is not None:
        from factscope.grounding.distractors import add_corpus_distractors

        examples = add_corpus_distractors(examples, corpus, distractors)
    with ProgressDisplay() as shown:
        run = generate(
            examples, llm, output=output, max_tokens=calls.max_tokens, batch_size=calls.batch_size, progress=shown,
            overwrite=outputs.overwrite, retry_failed=outputs.retry_failed,
        )
    for failure in run.failed_calls:
        console.print(f"[yellow]failed[/] {escape(f'{failure.id}: {failure.error}')}")
    described = distractors.describe() if corpus else "none (gold only)"
    rows = run.summary_rows(skipped=len(dataset.errors), distractors=described, output=output)
    print_table(summary_table("generation", rows + usage_rows(llm)))
    if run.failed:
        raise RecordsFailed(run.failed, "generation calls", output, kept=False)
