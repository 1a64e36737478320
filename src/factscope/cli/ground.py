"""`factscope ground`: grounding precision / recall / F1 of LLM responses (Truly Ground)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from factscope.claims.registry import EXTRACTOR_SPECS
from factscope.cli.display import ProgressDisplay, console, format_value, print_table, progress, summary_table
from factscope.cli.engine_options import EngineOptions, engine_options, run_sharded
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_ranges import (
    PRESENCE_THRESHOLD_RULE,
    SEED_MAX,
    presence_for_threshold,
    presence_threshold,
)
from factscope.cli.output_options import Overwrite, RetryFailed
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import ConfigError, InputError, RecordsFailed
from factscope.core.system import RunOutcome
from factscope.grounding.distractors import GoldPosition
from factscope.grounding.presence import DEFAULT_PRESENCE, PRESENCE_MODELS, PRESENCE_SPECS, make_presence
from factscope.metrics.grounding import AgreementStatistic
from factscope.metrics.ratios import EmptyPolicy
from factscope.retrieve.corpus import RetrieverName

if TYPE_CHECKING:
    from typer import _click  # typer vendors click: TyperGroup.parse_args takes typer's own Context

    from factscope.grounding.data import GroundExample
    from factscope.grounding.system import GroundSpec
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


class _ScoreByDefault(TyperGroup):
    """A group whose default command is `score`: `factscope ground INPUT` means `factscope ground score INPUT`."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in {"--help", "-h"}:
            args = ["score", *args]
        return super().parse_args(ctx, args)


def register(app: typer.Typer) -> None:
    """Add the `ground` command group."""
    ground_app = typer.Typer(cls=_ScoreByDefault, help=HELP, no_args_is_help=True)
    ground_app.command("score", help="Score responses (the default command). " + HELP.split("\n\n", 1)[1])(
        llm_options(engine_options(score_command))
    )
    ground_app.command("generate", help=GENERATE_HELP)(llm_options(generate_command))
    ground_app.command("calibrate", help=CALIBRATE_HELP)(llm_options(calibrate_command))
    app.add_typer(ground_app, name="ground")


def _load(input: Path, metadata: Path | None, responses: Path | None) -> Any:
    from factscope.grounding.data import attach_responses, load_dataset

    dataset = load_dataset(input, metadata)
    if responses is not None:
        attach_responses(dataset, responses)
    _print_problems(dataset.errors, dataset.warnings)
    return dataset


def score_command(
    input: Annotated[
        Path, typer.Argument(help="dataset: the Truly Ground JSON layout or generic JSONL", show_default=False)
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
    atomic_facts: Annotated[
        Path | None,
        typer.Option(
            help="atomic facts of the responses, instead of extracting them: JSONL {id, atomic_facts}, FActScore "
            "records with annotations, or a JSON object keyed by question id; ids without an entry use --extractor"
        ),
    ] = None,
    human_facts: Annotated[
        bool, typer.Option(help="read FActScore's human-atomic-facts from --atomic-facts, not model-atomic-facts")
    ] = False,
    paper_fact_rules: Annotated[
        bool,
        typer.Option(
            help="apply the Truly Ground scoring script's rules to --atomic-facts: drop one-word sentences, "
            "replace a fact longer than its sentence by the sentence, drop duplicates"
        ),
    ] = True,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="results JSONL (default: INPUT name + .ground.jsonl)"),
    ] = None,
    extractor: Annotated[str, typer.Option(help=EXTRACTOR_HELP)] = "facts",
    presence: Annotated[
        str, typer.Option(help=PRESENCE_HELP, callback=presence_for_threshold)
    ] = DEFAULT_PRESENCE,
    threshold: Annotated[
        float | None,
        typer.Option(
            callback=presence_threshold,
            help=f"presence threshold (default: the model's, see --presence): {PRESENCE_THRESHOLD_RULE}",
        ),
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(
            min=0,
            help="sentences per window of a long text; 0 = whole text (default 3; LLM judge: whole)"
        ),
    ] = None,
    stride: Annotated[int, typer.Option(min=1, help="sentences between window starts")] = 1,
    min_window: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="also score narrower windows, of every width from this to --window (default: --window only)"
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option(
            help="comma-separated metadata fields to break results down by; a field no record has is an error "
            "(default: those of pop, has_multi, has_answer that the records have)",
            show_default=False,
        ),
    ] = None,
    no_response_facts: Annotated[
        EmptyPolicy, typer.Option(help="precision of a response with no atomic facts")
    ] = "zero",
    no_gold_facts: Annotated[
        EmptyPolicy, typer.Option(help="recall / F1 of a record with no gold facts")
    ] = "skip",
    batch_size: Annotated[int, typer.Option(min=1, help="records per decomposition / presence batch")] = 16,
    summary: Annotated[Path | None, typer.Option(help="also write the summary figures as JSON here")] = None,
    overwrite: Overwrite = False,
    retry_failed: RetryFailed = False,
    *,
    endpoint: LLMOptions,
    engine: EngineOptions,
) -> None:
    from factscope.core.system import SystemBuild
    from factscope.engines.shards import readable_items
    from factscope.grounding.data import ScoredExamples
    from factscope.grounding.system import GROUND, GroundSpec

    wanted = [f.strip() for f in by.split(",") if f.strip()] if by else None
    spec = GroundSpec(
        extractor=extractor,
        presence=presence,
        threshold=threshold,
        window=window,
        stride=stride,
        min_window=min_window,
        factors=tuple(wanted) if wanted is not None else None,
        no_response_facts=no_response_facts,
        no_gold_facts=no_gold_facts,
    )
    if engine.on_ray:
        if metadata is not None or responses is not None or atomic_facts is not None:
            raise ConfigError(
                "--metadata, --responses and --atomic-facts are not taken with --engine ray: give generic JSONL "
                "records that carry their response and metadata"
            )
        output = output or Path(f"{input.stem}.ground")
        check_outputs(written={"--summary": summary})
        build = SystemBuild(GROUND, GROUND.prepare(spec, readable_items(input, GROUND.parse)), endpoint.build)
        sharded = run_sharded(engine, build, GROUND.parse, input, output, batch_size=batch_size, overwrite=overwrite,
                              retry_failed=retry_failed)
        if not (sharded.produced.new or sharded.produced.resumed):
            raise InputError("no record to score: see the messages above", path=input)
        run = GROUND.result(sharded.produced, sharded.totals, sharded.facts())
        _report_ground(run, len(sharded.problems), [], output, None, summary)
        return
    output = output or Path(f"{input.stem}.ground.jsonl")
    check_outputs(output, overwrite=overwrite, written={"--summary": summary})
    examples = ScoredExamples(input, metadata, responses)
    _print_problems(examples.problems, examples.warnings)
    without = examples.without_response
    if without:
        console.print(
            f"[yellow]skipped[/] {len(without)} record(s) without a response (e.g. {escape(repr(without[0]))}); "
            "pass --responses or run `factscope ground generate` first"
        )
    if not examples.examples:
        raise InputError(
            "no record to score: none has a response; pass --responses FILE or run `factscope ground generate`",
            path=input,
        )
    spec = GROUND.prepare(spec, examples)
    llm = endpoint.build_if(GROUND.needs_llm(spec))
    facts_row: list[tuple[str, object]] = []
    if atomic_facts is not None:
        spec, facts_row = _supplied_facts(atomic_facts, examples.examples, spec, llm, human_facts, paper_fact_rules)
    with ProgressDisplay() as shown:
        run = GROUND.run(
            spec,
            examples,
            llm=llm,
            output=output,
            batch_size=batch_size,
            progress=shown,
            overwrite=overwrite,
            retry_failed=retry_failed,
        )
    _report_ground(run, len(examples.problems) + len(without), facts_row, output, llm, summary)


def _print_problems(problems: list[InputError], warnings: list[str]) -> None:
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
    summary: Path | None,
) -> None:
    """Print a grounding run's tables, write ``--summary``, and raise RecordsFailed when decompositions failed."""
    report = run.summary
    print_table(_factor_table(report))
    from factscope.grounding.system import GROUND

    rows = GROUND.summary_rows(run, RunOutcome(skipped=skipped, output=output, rows=facts_row))
    rows.extend(usage_rows(llm))
    print_table(summary_table("run", rows))
    if summary is not None:
        summary.write_text(json.dumps(report.model_dump(mode="json"), indent=2), encoding="utf-8")
    if report.failed:
        raise RecordsFailed(report.failed, "records' fact decompositions", output)


def _supplied_facts(
    path: Path, examples: list[GroundExample], spec: GroundSpec, llm: LLMClient | None, human: bool,
    paper_rules: bool,
) -> tuple[GroundSpec, list[tuple[str, object]]]:
    """``spec`` serving the facts of an atomic-facts file (``supply_facts``), its skipped entries and unknown ids
    reported, and the run-table row counting records with supplied and with extracted facts."""
    from factscope.grounding.supplied_facts import supply_facts
    from factscope.grounding.system import make_fact_extractor

    supplied = supply_facts(
        path, examples, make_fact_extractor(spec.extractor, llm), human=human, paper_rules=paper_rules
    )
    for error in supplied.problems:
        console.print(f"[yellow]skipped[/] {escape(str(error))}")
    unknown = supplied.unknown
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        console.print(f"[yellow]warning[/] {escape(f'{path}: {len(unknown)} id(s) match no scored record: {shown}')}")
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


CALIBRATE_HELP = """Choose the presence threshold that agrees best with human presence labels.

LABELS is JSONL: {"fact": "...", "text": "..." (or "contexts": [...]), "present": true/false (or 1/0)}. Every midpoint between two adjacent model scores is tried; the best by --statistic wins (pearson: the correlation with the human labels, as the paper chose its thresholds; also accuracy, macro-f1, kappa).

Example:

  factscope ground calibrate labels.jsonl --presence bi --statistic pearson
"""


def calibrate_command(
    labels: Annotated[
        Path, typer.Argument(help="JSONL of {fact, text | contexts, present}", show_default=False)
    ],
    presence: Annotated[str, typer.Option(help=PRESENCE_HELP)] = DEFAULT_PRESENCE,
    statistic: Annotated[
        AgreementStatistic, typer.Option(help="what the threshold should maximise")
    ] = "pearson",
    window: Annotated[int | None, typer.Option(min=0, help="sentences per window; 0 = whole text")] = None,
    stride: Annotated[int, typer.Option(min=1, help="sentences between window starts")] = 1,
    min_window: Annotated[
        int | None, typer.Option(min=1, help="also score narrower windows, down to this width")
    ] = None,
    *,
    endpoint: LLMOptions,
) -> None:
    import math

    from factscope.metrics.grounding import agreement, calibrate_threshold

    facts, sources, human = _read_labels(labels)
    needs_llm = PRESENCE_MODELS.needs_llm(presence)
    llm = (
        endpoint.build()
        if needs_llm
        else None
    )
    model = make_presence(presence, window=window, stride=stride, min_window=min_window, llm=llm)
    with progress("scoring labelled pairs", len(facts)) as bar:
        scores = model.score(facts, sources).tolist()
        bar.advance(len(facts))
    judged = [(s, h) for s, h in zip(scores, human) if not math.isnan(s)]
    if not judged:
        raise InputError("the presence model could judge none of the labelled pairs", path=labels)
    try:
        result = calibrate_threshold([s for s, _ in judged], [h for _, h in judged], statistic)
    except ValueError as error:
        raise InputError(str(error), path=labels) from error
    at_default = agreement(statistic, [h for _, h in judged], [s >= model.threshold for s, _ in judged])
    print_table(
        summary_table(
            f"presence threshold for {model.name}",
            [
                ("labelled pairs (judged / unjudged)", f"{len(judged)} / {len(scores) - len(judged)}"),
                ("human: present", sum(h for _, h in judged)),
                (f"best threshold ({statistic})", round(result.threshold, 4)),
                (f"{statistic} at best threshold", result.value),
                (f"{statistic} at default threshold {model.threshold:g}", at_default),
                ("thresholds tried", result.candidates),
            ],
        )
    )
    typer.echo(json.dumps({"threshold": result.threshold, statistic: result.value, "model": model.name}))


def _read_labels(path: Path) -> tuple[list[str], list[list[str]], list[bool]]:
    """Facts, their source texts and human presence labels; bad lines are reported and skipped."""
    from factscope.grounding.data import PresenceLabelInput, read_presence_labels

    labels: list[PresenceLabelInput] = []
    for _line, item in read_presence_labels(path):
        if isinstance(item, InputError):
            console.print(f"[yellow]skipped[/] {escape(str(item))}")
        else:
            labels.append(item)
    if not labels:
        raise InputError("no usable labelled pairs", path=path)
    return [label.fact for label in labels], [label.text for label in labels], [label.present for label in labels]
