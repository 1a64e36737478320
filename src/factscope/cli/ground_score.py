"""`factscope ground score` (the group's default command): grounding precision / recall / F1 of responses,
locally or on Ray, with its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from factscope.cli.display import console, print_skipped
from factscope.cli.engine_options import EngineOptions, check_output, output_path, report_run, run_system
from factscope.cli.llm_options import LLMOptions
from factscope.cli.output_options import OutputOptions
from factscope.cli.output_paths import running_command
from factscope.cli.parameter_flags import in_context
from factscope.core.errors import ConfigError, InputError
from factscope.engines.ray import RayOptions
from factscope.grounding.spec import GroundSpec
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
    batch_size: Annotated[int, typer.Option(min=1, help="records per decomposition / presence batch")] = 16,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
    ray: RayOptions,
    outputs: OutputOptions,
    facts: AtomicFactsFile,
    spec: GroundSpec,
) -> None:
    from factscope.cli.llm_options import ClientOnce
    from factscope.grounding.presence import check_threshold
    from factscope.grounding.system import GroundSystem

    if isinstance(spec.presence, str) and spec.threshold is not None:
        try:
            check_threshold(spec.presence, spec.threshold)
        except ConfigError as error:
            message = in_context(str(error), running_command())
            raise typer.BadParameter(message, param_hint="'--threshold'") from None
    system = GroundSystem(metadata, responses)
    output = output_path(engine, input, output, ".ground")
    check_output(engine, output, outputs)
    client = ClientOnce(endpoint)
    inputs: Any = input
    rows: list[tuple[str, object]] = []
    if metadata is not None or responses is not None or facts.path is not None:
        if engine.on_ray:
            raise ConfigError(
                "--metadata, --responses and --atomic-facts are not taken with --engine ray: give generic JSONL "
                "records that carry their response and metadata"
            )
        inputs = system.read(input)
    if facts.path is not None:
        llm = client() if system.needs_llm(spec) else None
        spec, supplied = facts.serve(system.prepare(spec, inputs), inputs, llm)
        print_problems(supplied.problems, supplied.warnings)
        rows = supplied.summary_rows()

    def loaded(count: int, problems: list[InputError]) -> None:
        print_problems(problems, getattr(inputs, "warnings", []))
        if not count:
            raise InputError(
                "no record to score: none has a response; pass --responses FILE or run `factscope ground generate`",
                path=input,
            )

    ran, used = run_system(system, spec, inputs, output, engine=engine, endpoint=endpoint, batch_size=batch_size,
                           ray=ray, outputs=outputs, loaded=loaded, client=client)
    report_run(system, ran, output, used, outputs, rows=rows)


def print_problems(problems: list[InputError], warnings: list[str]) -> None:
    """Report each skipped input record, then each warning about the input."""
    print_skipped(*problems)
    for warning in warnings:
        console.print(f"[yellow]warning[/] {escape(warning)}")
