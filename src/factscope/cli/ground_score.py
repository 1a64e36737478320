"""`factscope ground score` (the group's default command): grounding precision / recall / F1 of responses,
locally or on Ray, with its tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from factscope.claims.registry import EXTRACTOR_SPECS
from factscope.cli.display import console, format_value, print_table, summary_table
from factscope.cli.engine_options import EngineOptions, check_output, output_path, run_system
from factscope.cli.llm_options import LLMOptions, usage_rows
from factscope.cli.option_ranges import presence_for_threshold, presence_threshold
from factscope.cli.output_options import OutputOptions
from factscope.cli.parameter_flags import with_flags
from factscope.core.errors import ConfigError, InputError, RecordsFailed
from factscope.core.system import RunOutcome
from factscope.grounding.presence import PRESENCE_SPECS, THRESHOLD_RULE
from factscope.grounding.spec import DEFAULT_FACT_EXTRACTOR, DEFAULT_PRESENCE, GroundSpec
from factscope.grounding.supplied_facts import AtomicFactsFile

if TYPE_CHECKING:
    from factscope.grounding.data import GroundExample
    from factscope.grounding.task import GroundRun
    from factscope.llm.client import LLMClient

HELP = """Grounding evaluation: does a response use all the needed knowledge of its contexts, and only that?

precision = share of the response's atomic facts present in the input contexts; recall = share of the gold atomic facts present in the response; grounding score = F1 (per record, macro-averaged). Also answer accuracy and breakdowns by popularity, single / multi context and definite / free-form.

Commands: `factscope ground INPUT` scores (same as `ground score INPUT`); `ground generate` makes the responses with an LLM; `ground calibrate` picks a presence threshold from human labels.

Examples (offline: spaCy facts, the embedded checker as presence model; then the Dist setting with an LLM; then calibration):

  factscope ground examples/ground/original.json --metadata examples/ground/metadata.json --responses examples/ground/responses.jsonl

  factscope ground generate data.json -o responses.jsonl --llm-model gpt-4o-mini --corpus wiki.jsonl --gold-position end

  factscope ground calibrate examples/ground/labels.jsonl --presence bi --statistic pearson
"""

PRESENCE_HELP = "presence model M: " + PRESENCE_SPECS
EXTRACTOR_HELP = (
    "atomic facts of the responses: facts (offline clause facts, the default; alias spacy), llm-facts (an LLM, "
    "Truly Ground style; alias llm), or any other extractor: " + EXTRACTOR_SPECS
)



def score_command(
    ctx: typer.Context,
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
    extractor: Annotated[str, typer.Option(help=EXTRACTOR_HELP)] = DEFAULT_FACT_EXTRACTOR,
    presence: Annotated[
        str, typer.Option(help=PRESENCE_HELP, callback=presence_for_threshold)
    ] = DEFAULT_PRESENCE,
    threshold: Annotated[
        float | None,
        typer.Option(
            callback=presence_threshold,
            help="presence threshold (default: the model's, see --presence): "
            + with_flags(THRESHOLD_RULE, {"presence": "--presence"}),
        ),
    ] = GroundSpec.threshold,
    batch_size: Annotated[int, typer.Option(min=1, help="records per decomposition / presence batch")] = 16,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
    outputs: OutputOptions,
    facts: AtomicFactsFile,
    chosen: GroundSpec,
) -> None:
    from factscope.cli.llm_options import ClientOnce
    from factscope.grounding.system import GroundSystem

    spec = replace(chosen, extractor=extractor, presence=presence, threshold=threshold)
    system = GroundSystem(metadata, responses)
    output = output_path(engine, input, output, ".ground")
    check_output(engine, output, outputs)
    client = ClientOnce(endpoint)
    inputs: Any = input
    facts_row: list[tuple[str, object]] = []
    if metadata is not None or responses is not None or facts.path is not None:
        if engine.on_ray:
            raise ConfigError(
                "--metadata, --responses and --atomic-facts are not taken with --engine ray: give generic JSONL "
                "records that carry their response and metadata"
            )
        inputs = system.read(input)
    if facts.path is not None:
        spec, facts_row = _supplied_facts(
            facts, inputs, system.prepare(spec, inputs), client if system.needs_llm(spec) else None
        )

    def loaded(count: int, problems: list[InputError]) -> None:
        print_problems(problems, getattr(inputs, "warnings", []))
        if not count:
            raise InputError(
                "no record to score: none has a response; pass --responses FILE or run `factscope ground generate`",
                path=input,
            )

    ran, used = run_system(system, spec, inputs, output, engine=engine, endpoint=endpoint, batch_size=batch_size,
                           outputs=outputs, loaded=loaded, client=client)
    _report_ground(ran.result, len(ran.problems), facts_row, output, used, outputs)


def print_problems(problems: list[InputError], warnings: list[str]) -> None:
    for error in problems:
        console.print(f"[yellow]skipped[/] {escape(str(error))}")
    for warning in warnings:
        console.print(f"[yellow]warning[/] {escape(warning)}")


def _report_ground(
    run: GroundRun,
    skipped: int,
    facts_row: list[tuple[str, object]],
    output: Path,
    llm: LLMClient | None,
    outputs: OutputOptions,
) -> None:
    """Print a grounding run's tables, write ``--summary``, and raise RecordsFailed when decompositions failed."""
    report = run.summary
    print_table(_factor_table(report))
    from factscope.grounding.system import GROUND

    rows = GROUND.summary_rows(run, RunOutcome(skipped=skipped, output=output, rows=facts_row))
    rows.extend(usage_rows(llm))
    print_table(summary_table("run", rows))
    outputs.write_summary(report.model_dump(mode="json"))
    if report.failed:
        raise RecordsFailed(report.failed, "records' fact decompositions", output)


def _supplied_facts(
    facts: AtomicFactsFile,
    examples: Iterable[GroundExample],
    spec: GroundSpec,
    llm: Callable[[], LLMClient] | None,
) -> tuple[GroundSpec, list[tuple[str, object]]]:
    """``spec`` serving the facts of the atomic-facts file ``facts``, its skipped entries and unknown ids
    reported, and the run-table row counting records with supplied and with extracted facts."""
    from factscope.grounding.system import make_fact_extractor

    supplied = facts.supply(examples, make_fact_extractor(spec.extractor, llm() if llm is not None else None))
    unknown = supplied.unknown
    shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
    print_problems(supplied.problems, [f"{facts.path}: {len(unknown)} id(s) match no scored record: {shown}"]
                   if unknown else [])
    spec = replace(spec, extractor=supplied.extractor, settings=supplied.settings)
    return spec, [("response facts: supplied / extracted", f"{supplied.supplied} / {supplied.extracted}")]


def _factor_table(report: Any) -> Table:
    """Precision, recall, F1 and answer accuracy overall and per factor group."""
    table = Table(title="grounding (macro average over records)", header_style="bold")
    for column in ("factor", "group", "records", "precision", "recall", "F1", "answer acc."):
        table.add_column(column, justify="left" if column in {"factor", "group"} else "right")

    def add(factor: str, group: str, averages: Any) -> None:
        table.add_row(
            Text(factor),
            Text(group),
            str(averages.records),
            format_value(averages.precision),
            format_value(averages.recall),
            format_value(averages.f1),
            format_value(averages.answer_accuracy),
        )

    add("all", "", report.overall)
    for item in report.by_factor:
        for group, averages in item.groups.items():
            add(item.factor, group, averages)
        if item.missing:
            table.add_row(Text(item.factor), "(no value)", str(item.missing), "", "", "", "")
    return table
