"""`factscope ground score` (the group's default command): grounding precision / recall / F1 of responses,
locally or on Ray, with its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.engine_options import CommandRun, run_options
from factscope.cli.option_groups import add_field_options
from factscope.grounding.spec import GROUND_BATCH_SIZE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile

HELP = """Score the grounding of responses (the group's default command).

precision = share of the response's atomic facts present in the input contexts; recall = share of the gold atomic facts present in the response; grounding score = F1 (per record, macro-averaged). Also answer accuracy and breakdowns by popularity, single / multi context and definite / free-form.

Example (offline: spaCy facts, the embedded checker as presence model):

  factscope ground examples/ground/original.json --metadata examples/ground/metadata.json --responses examples/ground/responses.jsonl
"""


def register(app: typer.Typer) -> None:
    """Add the `score` command to the `ground` group ``app``."""
    command = add_field_options(score_command, GroundSpec, "spec", after="output")
    command = add_field_options(command, AtomicFactsFile, "facts", after="responses")
    app.command("score", help=HELP)(run_options(command, after="batch_size"))


def score_command(
    input: Annotated[
        Path, typer.Argument(help="dataset: the Truly Ground JSON layout, or generic JSONL, Parquet or CSV records", show_default=False)
    ],
    metadata: Annotated[
        Path | None, typer.Option(help="metadata JSON keyed by question id (has_answer, has_multi, pop)")
    ] = None,
    responses: Annotated[
        Path | None,
        typer.Option(
            help="JSONL of {id, response, contexts?} (e.g. from `ground generate`), or a Truly Ground prediction "
            "file {qId: {input, output}}"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="results JSONL (default: INPUT name + .ground.jsonl)"),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="records per decomposition / presence batch")] = (
        GROUND_BATCH_SIZE
    ),
    *,
    run: CommandRun,
    facts: AtomicFactsFile,
    spec: GroundSpec,
) -> None:
    from factscope.grounding.system import GroundSystem

    system = GroundSystem(metadata, responses, facts, run.notes)
    run(system, spec, input, run.output(input, output, ".ground"), batch_size=batch_size)
