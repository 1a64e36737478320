"""`factscope ground score` (the group's default command): grounding precision / recall / F1 of responses,
locally or on Ray, with its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.engine_options import CommandRun
from factscope.grounding.spec import GROUND_BATCH_SIZE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile

HELP = """Grounding evaluation: does a response use all the needed knowledge of its contexts, and only that?

precision = share of the response's atomic facts present in the input contexts; recall = share of the gold atomic facts present in the response; grounding score = F1 (per record, macro-averaged). Also answer accuracy and breakdowns by popularity, single / multi context and definite / free-form.

Commands: `factscope ground INPUT` scores (same as `ground score INPUT`); `ground generate` makes the responses with an LLM; `ground calibrate` picks a presence threshold from human labels.

Examples (offline: spaCy facts, the embedded checker as presence model; then the Dist setting with an LLM; then calibration):

  factscope ground examples/ground/original.json --metadata examples/ground/metadata.json --responses examples/ground/responses.jsonl

  factscope ground generate data.json -o responses.jsonl --llm-model gpt-4o-mini --corpus wiki.jsonl --gold-position end

  factscope ground calibrate examples/ground/labels.jsonl --presence bi --statistic pearson
"""


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
