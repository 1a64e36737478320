"""`factscope eval-checker`: how well a checker decides labelled (premise, hypothesis) pairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from factscope.checkers.defaults import DEFAULT_CHECKER
from factscope.checkers.options import CheckerOptions
from factscope.checkers.registry import CHECKER_SPECS, CHECKERS
from factscope.cli.display import print_skipped, print_table
from factscope.cli.llm_options import LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import add_field_options
from factscope.cli.option_ranges import finite
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import RecordsFailed
from factscope.core.figure_table import summary_table
from factscope.core.progress_display import ProgressDisplay, console
from factscope.evaluation.pairs import PartChoice

SHOWN_SKIPPED = 20
"""How many skipped records of one file are printed one by one (a set with an extra label has many)."""

if TYPE_CHECKING:
    from factscope.evaluation.pairs import LabelledPair

HELP = """Measure how well a checker decides labelled (premise, hypothesis) pairs.

FILES hold one pair a record, in either shape: `premise`, `hypothesis`, `label` (entailment / neutral /
contradiction / not_entailment in any case, or 0 / 1 / 2), or LLM-AggreFact's `dataset`, `doc`, `claim`, `label`
(1 supported, 0 not), as JSONL, a JSON list, CSV or Parquet (LLM-AggreFact's published files; Parquet needs the
`parquet` extra). Optional fields: `id`, `dataset` (default: the file name
without extension) and `group`. Records with other labels (BEGIN's generic, say) are reported and skipped.

Each hypothesis is checked against its premise (long premises are cut into segments as --segment-tokens says).
Per dataset: balanced accuracy of entailment vs not (LLM-AggreFact's figure), AUROC of P(Entailment) (where the
checker gives one), the confusion matrix, and, where every gold label is 3-way, macro-F1 and per-class F1 of the
three labels; then the means over datasets and pairs per second (model loading left out). Repeat --checker to
compare several checkers on the same pairs in one table (each cell: balanced accuracy / AUROC); -o then writes
their reports as one JSON object. A pair is judged entailed when the checker says Entailment; with
--threshold, when P(Entailment) (the similarity checker: its cosine) is at least the threshold; --tune-on picks
the threshold that maximises balanced accuracy on dev files. --part keeps one part of the fixed split by group
(`group`, else `id`, else the line number; 75 / 10 / 15% train / validation / test), so that a checker trained
on the train part is measured on groups it never saw.

Examples:

  factscope eval-checker summedits.jsonl begin.jsonl --part validation

  factscope eval-checker llm_aggrefact_test.jsonl --checker path:my_checker --tune-on llm_aggrefact_dev.jsonl

  factscope eval-checker mnli.jsonl --checker similarity --threshold 0.6 --limit 500 -o similarity.json

  factscope eval-checker pairs.csv --checker llm --llm-model gpt-4o-mini

  factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker minicheck:lytang/MiniCheck-Flan-T5-Large \
    --checker hhem:vectara/hallucination_evaluation_model --device cuda -o compare.json
"""


def register(app: typer.Typer) -> None:
    """Add the `eval-checker` command."""
    command = add_field_options(
        eval_checker_command, CheckerOptions, "checking", names=EVAL_SETTINGS, defaults={"llm_mode": "single"}
    )
    app.command("eval-checker", help=HELP)(llm_options(command))


EVAL_SETTINGS = frozenset({
    "max_tokens", "window_sentences", "min_window_sentences", "similarity_threshold", "llm_mode", "device",
    "label_order",
})
"""The checker settings `eval-checker` offers (its LLM checker judges one pair a call by default)."""


def eval_checker_command(
    ctx: typer.Context,
    files: Annotated[
        list[Path], typer.Argument(help="labelled pair files (JSONL, JSON or CSV)", show_default=False)
    ],
    checker: Annotated[
        list[str] | None,
        typer.Option(
            help="the checker to measure; repeat to compare several on the same pairs (default: embedded). "
            + CHECKER_SPECS,
            show_default=False,
        ),
    ] = None,
    threshold: Annotated[
        float | None,
        typer.Option(
            callback=finite,
            help="judge a pair entailed when P(Entailment), or the similarity checker's cosine, is at least this "
            "(default: when the checker's label is Entailment)",
        ),
    ] = None,
    tune_on: Annotated[
        list[Path] | None,
        typer.Option(
            help="dev pair files: use the threshold that maximises balanced accuracy on their pairs, all datasets "
            "pooled (repeatable; not with --threshold)",
        ),
    ] = None,
    tune_part: Annotated[PartChoice, typer.Option(help="the part of the --tune-on files to tune on")] = "all",
    part: Annotated[
        PartChoice, typer.Option(help="evaluate only the pairs whose group falls in this part of the split")
    ] = "all",
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="at most N pairs per dataset (in FILES and in the --tune-on files): the same N every run, spread "
            "over the file",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="write the report (figures, confusion matrices) as JSON here"),
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="pairs per checking batch")] = 32,
    *,
    endpoint: LLMOptions,
    checking: CheckerOptions,
) -> None:
    from factscope.evaluation.checker_comparison import evaluate_checkers, shares_pairs
    from factscope.evaluation.checker_eval import CheckerComparison
    from factscope.evaluation.checker_tables import checker_rows, comparison_table, datasets_table

    if threshold is not None and tune_on:
        raise typer.BadParameter(
            "give either a threshold or dev files to tune one on, not both", param_hint="--tune-on"
        )
    check_outputs(written={"--output": output})
    pairs, skipped = _read(files, part, limit)
    dev = _read(tune_on, tune_part, limit)[0] if tune_on else []
    if tune_on and not dev:
        raise typer.BadParameter(
            f"the dev files hold no usable pair in part '{tune_part}'", param_hint="--tune-on"
        )
    if not pairs:
        console.print(f"[bold red]error[/] no usable pair in part '{part}' of the files")
        raise typer.Exit(code=2)
    if tune_on and shares_pairs(files, part, tune_on, tune_part):
        console.print(
            "[bold yellow]warning[/] the threshold is tuned on pairs that are also evaluated: the figures are "
            "optimistic; tune on another file or part (--tune-part validation --part test)"
        )
    specs = checker or [DEFAULT_CHECKER]
    client = endpoint.build_if(any(CHECKERS.needs_llm(spec) for spec in specs))
    settings = {**checking.settings(EVAL_SETTINGS), "batch_size": batch_size}
    with ProgressDisplay() as shown:
        evaluated = evaluate_checkers(specs, pairs, dev=dev, threshold=threshold, llm=client, settings=settings,
                                      batch_size=batch_size, progress=shown)
    inputs = {"tuned_on": [str(path) for path in tune_on] if tune_on else None,
              "inputs": [str(path) for path in files], "part": part, "limit": limit, "skipped": skipped}
    reports = [report.model_copy(update=inputs) for report in evaluated]
    print_table(datasets_table(reports[0]) if len(reports) == 1 else comparison_table(reports))
    rows = [row for report in reports for row in checker_rows(report)]
    rows += [("skipped input records", skipped), *usage_rows(client)]
    if output is not None:
        written = reports[0] if len(reports) == 1 else CheckerComparison(reports=reports)
        output.write_text(json.dumps(written.model_dump(mode="json"), indent=2), encoding="utf-8")
        rows.append(("report", str(output)))
    print_table(summary_table("eval-checker", rows))
    failed = sum(report.failed for report in reports)
    if failed:
        raise RecordsFailed(failed, "pair checks", output or "the report", kept=False)


def _read(paths: list[Path], part: PartChoice, limit: int | None) -> tuple[list[LabelledPair], int]:
    """The pairs of every file in ``part`` (at most ``limit`` per dataset) and how many records were skipped; the
    first skipped records of each file are printed, and how many more there are."""
    from factscope.evaluation.checker_comparison import read_pair_files

    pairs, skipped = read_pair_files(paths, part=part, limit=limit)
    for path, problems in skipped.items():
        print_skipped(*problems[:SHOWN_SKIPPED])
        if len(problems) > SHOWN_SKIPPED:
            console.print(f"[yellow]skipped[/] {len(problems) - SHOWN_SKIPPED} more records of {escape(str(path))}")
    return pairs, sum(len(problems) for problems in skipped.values())
