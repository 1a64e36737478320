"""`factscope knowledge generate | select`: knowledge (and answers) through an LLM, with chosen demonstrations or
the best of sampled candidates by Q_know; `select` runs generate's body with its sampled candidates."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from factscope.cli.display import print_notes
from factscope.cli.llm_options import LLMOptions, llm_options, write_with_llm
from factscope.cli.option_groups import Command, add_field_options
from factscope.cli.output_options import OutputOptions, output_options
from factscope.conner.demonstrations import DemonstrationSettings
from factscope.conner.generation import CandidateSampling, GenerationSettings
from factscope.conner.generation_run import SELECTION_FIELDS, KnowledgeGenerationSettings
from factscope.conner.spec import KnowledgeSpec
from factscope.core.options.panels import SCORING

GENERATE_HELP = """Generate knowledge for each query through an LLM, with the paper's prompts (Appendix F, Tables 11-12).

--mode few builds Appendix F.2's prompt from --train examples: random ones, or the best by Q_know with --select-from
(CONNER-guided demonstration selection; needs the scoring options). The output is a valid input of `knowledge score`.

Examples:

  factscope knowledge generate queries.jsonl --llm-model gpt-4o-mini -o generated.jsonl --answer

  factscope knowledge generate queries.jsonl --mode few --train train.jsonl --shots 8 --select-from 30 \\
      --corpus wiki.jsonl --lm gpt2 --llm-model gpt-4o-mini
"""


SELECT_HELP = """Knowledge selection (CONNER section 5): sample r candidates (top-p) and keep argmax Q_know.

Q_know needs all four of its parts: pass --corpus, and --lm unless factscope\\[lm] is installed (its embedded LM is the default).

Example:

  factscope knowledge select queries.jsonl --candidates 5 --top-p 0.9 --corpus wiki.jsonl --lm gpt2 \\
      --llm-model gpt-4o-mini -o selected.jsonl --answer
"""


RUN_FIELDS = frozenset({"task", "batch_size"})
"""The options of a generation run besides its prompts and demonstrations (``KnowledgeGenerationSettings``')."""


def register(app: typer.Typer) -> None:
    """Add the `generate` and `select` commands to the `knowledge` group ``app``."""
    app.command("generate", help=GENERATE_HELP)(generation_command(generate_command, sampling=False))
    app.command("select", help=SELECT_HELP)(generation_command(select_command, sampling=True))


def generation_command(command: Command, *, sampling: bool) -> Command:
    """``command`` with the options of a generation run: its prompts, demonstrations, results file, Q_know
    scoring and LLM endpoint; with ``sampling`` (`select`), the candidates' options too, and no --select-from
    (the demonstrations are then random)."""
    shown = {"train", "shots", "answer"} if sampling else None
    command = add_field_options(command, KnowledgeGenerationSettings, "generation_run", names=RUN_FIELDS,
                                after="output")
    command = add_field_options(command, DemonstrationSettings, "demonstrations", names=shown, after="task")
    command = add_field_options(command, GenerationSettings, "generation", after="task")
    if sampling:
        command = add_field_options(command, CandidateSampling, "sampling", after="task")
    command = add_field_options(
        output_options(command, summary=False), KnowledgeSpec, "scoring", names=SELECTION_FIELDS, panel=SCORING
    )
    return llm_options(command)


def generate_command(
    input: Annotated[Path, typer.Argument(
        help="queries: JSON / JSONL records with `query` (and `topic`, `task`), or a CONNER query table (TSV).",
        show_default=False,
    )],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="results JSONL (resumable)")] = None,
    *,
    endpoint: LLMOptions,
    outputs: OutputOptions,
    generation: GenerationSettings,
    demonstrations: DemonstrationSettings,
    generation_run: KnowledgeGenerationSettings,
    scoring: KnowledgeSpec,
) -> None:
    from factscope.conner.generation_run import KnowledgeWriter, selection_spec
    from factscope.conner.system import spec_missing_parts

    settings = replace(generation_run, generation=replace(generation, seed=scoring.seed),
                       demonstrations=demonstrations)
    selection = selection_spec(scoring, settings.generation, demonstrations)
    if selection is not None:
        print_notes(spec_missing_parts(selection))
    output = output or Path(f"{input.stem}.generated.jsonl")
    write_with_llm(KnowledgeWriter(selection), settings, input, output, endpoint, outputs)


@functools.wraps(generate_command)
def select_command(*, generation: GenerationSettings, sampling: CandidateSampling, **options: Any) -> None:
    """`knowledge generate` with the candidates of ``sampling`` (its options added to the same parameters)."""
    generate_command(generation=sampling.settings(generation), **options)
