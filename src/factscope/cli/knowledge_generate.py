"""`factscope knowledge generate | select`: knowledge (and answers) through an LLM, with chosen demonstrations
(``factscope.conner.demonstrations``) or the best of sampled candidates by Q_know."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import ProgressDisplay, console, print_skipped, print_table, summary_table
from factscope.cli.knowledge_options import SCORING, BatchSize, Output, Retriever, Task
from factscope.cli.knowledge_score import print_notes
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import Command, add_field_options
from factscope.cli.option_rules import FEW_SHOT_OPTIONS, refuse_ignored
from factscope.cli.output_options import OutputOptions, output_options
from factscope.cli.output_paths import check_outputs
from factscope.conner.demonstrations import Demonstrations, DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.spec import KnowledgeSpec
from factscope.core.errors import RecordsFailed

QueryFile = Annotated[Path, typer.Argument(
    help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).",
    show_default=False,
)]

GENERATE_HELP = """Generate knowledge for each query through an LLM, with the paper's prompts (Appendix F, Tables 11-12).

--mode few builds Appendix F.2's prompt from --shots examples of --train: random ones, or, with --select-from,
the best by Q_know (CONNER-guided demonstration selection; needs the scoring options). The output is a valid
input of `knowledge score`.

Examples:

  factscope knowledge generate queries.jsonl --llm-model gpt-4o-mini -o generated.jsonl --answer

  factscope knowledge generate queries.jsonl --mode few --train train.jsonl --shots 8 --select-from 30 \\
      --corpus wiki.jsonl --lm gpt2 --llm-model gpt-4o-mini
"""


SELECT_HELP = """Knowledge selection (CONNER section 5): sample r candidates (top-p) and keep argmax Q_know.

Q_know = gamma . \\[factuality, relevance, paragraph coherence, informativeness]; all four must be
computable, so pass --corpus, and --lm unless factscope\\[lm] is installed (its embedded LM is then the
default).

Example:

  factscope knowledge select queries.jsonl --candidates 5 --top-p 0.9 --corpus wiki.jsonl --lm gpt2 \\
      --llm-model gpt-4o-mini -o selected.jsonl --answer
"""


def generation_command(command: Command, *, select_from: bool, sampling: bool) -> Command:
    """``command`` with the options of a generation run: its prompts, demonstrations (--select-from only when
    ``select_from``), candidates (only when ``sampling``), results file, Q_know scoring and LLM endpoint."""
    shown = None if select_from else {"train", "shots", "answer"}
    command = add_field_options(command, DemonstrationSettings, "demonstrations", names=shown, after="task")
    command = add_field_options(command, GenerationSettings, "generation", after="task")
    if sampling:
        command = add_field_options(command, CandidateSampling, "sampling", after="task")
    command = add_field_options(
        output_options(command, summary=False), KnowledgeSpec, "scoring", names=SELECTION_FIELDS, panel=SCORING
    )
    return llm_options(command)


def generate_command(
    ctx: typer.Context,
    input: QueryFile,
    output: Output = None,
    task: Task = None,
    retriever: Retriever = "bm25",
    batch_size: BatchSize = 16,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    generation: GenerationSettings,
    demonstrations: DemonstrationSettings,
    scoring: KnowledgeSpec,
) -> None:
    refuse_ignored(ctx, FEW_SHOT_OPTIONS)
    from factscope.conner.generation_run import run_generation, selection_spec
    from factscope.conner.system import spec_missing_parts

    output = output or Path(f"{input.stem}.generated.jsonl")
    check_outputs(output, overwrite=outputs.overwrite)
    settings = replace(generation, seed=scoring.seed)
    selection = selection_spec(replace(scoring, retriever=retriever), settings, demonstrations)
    if selection is not None:
        print_notes(spec_missing_parts(selection), ctx)
    llm = endpoint.build()
    with ProgressDisplay() as shown:
        made = run_generation(
            input, llm, settings, demonstrations, scoring=selection, output=output, task=task,
            batch_size=batch_size, progress=shown, overwrite=outputs.overwrite, retry_failed=outputs.retry_failed,
            skipped=print_skipped, chosen=_print_choices,
        )
    print_table(summary_table(f"knowledge generation -> {output}", made.summary_rows() + usage_rows(llm)))
    if made.run.failed:
        raise RecordsFailed(made.run.failed, "knowledge generations", output)


def select_command(
    ctx: typer.Context,
    input: QueryFile,
    output: Output = None,
    task: Task = None,
    retriever: Retriever = "bm25",
    batch_size: BatchSize = 16,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    generation: GenerationSettings,
    sampling: CandidateSampling,
    demonstrations: DemonstrationSettings,
    scoring: KnowledgeSpec,
) -> None:
    generate_command(
        ctx, input, output, task, retriever, batch_size, endpoint=endpoint, outputs=outputs,
        generation=sampling.settings(generation), demonstrations=demonstrations, scoring=scoring,
    )


def _print_choices(chosen: Demonstrations) -> None:
    """The demonstrations of each task chosen by Q_know."""
    for name, choice in chosen.choices.items():
        selected = ", ".join(choice.selected) or "none"
        console.print(f"{name} demonstrations chosen by Q_know: {selected}", markup=False)


SELECTION_FIELDS = frozenset(
    {"corpus", "evidence_k", "checker", "relevance", "coherence", "lm", "weights", "seed"}
)
"""The scoring options of Q_know selection (`knowledge generate --select-from`, `knowledge select`)."""
