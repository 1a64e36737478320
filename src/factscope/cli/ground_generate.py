"""`factscope ground generate`: a response per question with an LLM, with distractors from a corpus (Dist)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from factscope.cli.display import ProgressDisplay, console, print_table, summary_table
from factscope.cli.ground_score import print_problems
from factscope.cli.llm_options import LLMOptions, usage_rows
from factscope.cli.output_options import Overwrite, RetryFailed
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import RecordsFailed
from factscope.core.seeds import SEED_MAX
from factscope.grounding.distractors import GoldPosition
from factscope.retrieve.corpus import RetrieverName

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
    retriever: Annotated[RetrieverName, typer.Option(help="distractor retriever")] = "dense",
    budget: Annotated[int, typer.Option(min=0, help="distractor budget in whitespace tokens")] = 1000,
    gold_position: Annotated[GoldPosition, typer.Option(help="where the gold contexts go")] = "end",
    depth: Annotated[
        int, typer.Option(min=1, help="passages retrieved per question before filtering (the paper: 40)")
    ] = 40,
    seed: Annotated[int, typer.Option(min=0, max=SEED_MAX, help="seed of the random gold position")] = 0,
    max_tokens: Annotated[int, typer.Option(min=1, help="response length limit")] = 512,
    batch_size: Annotated[
        int, typer.Option(min=1, help="questions sent (in parallel) before results are written")
    ] = 32,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
) -> None:
    from factscope.grounding.generation import generate

    check_outputs(output, overwrite=overwrite)
    dataset = _load(input, metadata, None)
    llm = endpoint.build()
    examples = dataset.examples
    if corpus is not None:
        from factscope.grounding.distractors import add_distractors
        from factscope.retrieve.corpus import Corpus, make_retriever

        found = make_retriever(retriever, Corpus.from_path(corpus))
        examples = add_distractors(
            examples,
            found,
            budget=budget,
            gold_position=gold_position,
            depth=depth,
            seed=seed,
        )
    with ProgressDisplay() as shown:
        run = generate(
            examples, llm, output=output, max_tokens=max_tokens, batch_size=batch_size, progress=shown,
            overwrite=overwrite, retry_failed=retry_failed,
        )
    for failure in run.failed_calls:
        console.print(f"[yellow]failed[/] {escape(f'{failure.id}: {failure.error}')}")
    rows: list[tuple[str, object]] = [
        ("responses written (new)", run.new_records),
        ("skipped input records", len(dataset.errors)),
        ("already there (resumed)", run.resumed_records),
        ("failed calls (rerun to retry)", run.failed),
        (
            "distractors",
            f"{retriever}, {budget} tokens, gold at {gold_position}" if corpus else "none (gold only)",
        ),
        ("responses", str(output)),
    ]
    rows.extend(usage_rows(llm))
    print_table(summary_table("generation", rows))
    if run.failed:
        raise RecordsFailed(run.failed, "generation calls", output, kept=False)


def _load(input: Path, metadata: Path | None, responses: Path | None) -> Any:
    from factscope.grounding.data import attach_responses, load_dataset

    dataset = load_dataset(input, metadata)
    if responses is not None:
        attach_responses(dataset, responses)
    print_problems(dataset.errors, dataset.warnings)
    return dataset
