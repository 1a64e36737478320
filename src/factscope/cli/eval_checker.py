"""`factscope eval-checker`: how well a checker decides labelled (premise, hypothesis) pairs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from factscope.checkers.options import CheckerOptions
from factscope.cli.display import print_skipped, print_table
from factscope.cli.llm_options import ClientOnce, LLMOptions, llm_options, usage_rows
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_paths import check_outputs, running_command
from factscope.cli.parameter_flags import in_context
from factscope.core.errors import InputError, RecordsFailed
from factscope.core.figure_table import summary_table
from factscope.core.progress_display import ProgressDisplay, console
from factscope.evaluation.checker_comparison import EvaluationSettings

SHOWN_SKIPPED = 20
"""How many skipped records of one file are printed one by one (a set with an extra label has many)."""

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
their reports as one JSON object. --part keeps one part of the fixed split by group (`group`, else `id`, else
the line number; 75 / 10 / 15% train / validation / test), so that a checker trained on the train part is
measured on groups it never saw.

Examples:

  factscope eval-checker summedits.jsonl begin.jsonl --part validation

  factscope eval-checker llm_aggrefact_test.jsonl --checker path:my_checker --tune-on llm_aggrefact_dev.jsonl

  factscope eval-checker mnli.jsonl --checker similarity --threshold 0.6 --limit 500 -o similarity.json

  factscope eval-checker pairs.csv --checker llm --llm-model gpt-4o-mini

  factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker minicheck:lytang/MiniCheck-Flan-T5-Large \
    --checker hhem:vectara/hallucination_evaluation_model --device cuda -o compare.json
"""

EVAL_SETTINGS = frozenset({
    "max_tokens", "window_sentences", "min_window_sentences", "similarity_threshold", "llm_mode", "device",
    "label_order",
})
"""The checker settings `eval-checker` offers (its LLM checker judges one pair a call by default)."""


def register(app: typer.Typer) -> None:
    """Add the `eval-checker` command."""
    command = add_field_options(eval_checker_command, EvaluationSettings, "evaluation")
    command = add_field_options(
        command, CheckerOptions, "checking", names=EVAL_SETTINGS, defaults={"llm_mode": "single"}
    )
    app.command("eval-checker", help=HELP)(llm_options(command))


def eval_checker_command(
    files: Annotated[
        list[Path], typer.Argument(help="labelled pair files (JSONL, JSON or CSV)", show_default=False)
    ],
    *,
    evaluation: EvaluationSettings,
    endpoint: LLMOptions,
    checking: CheckerOptions,
) -> None:
    from factscope.evaluation.checker_comparison import evaluate_pair_files, read_evaluation_pairs
    from factscope.evaluation.checker_tables import comparison_table, datasets_table, evaluation_rows

    check_outputs(written={"output": evaluation.output})
    read = read_evaluation_pairs(files, evaluation)
    for path, problems in [*read.skipped.items(), *read.dev_skipped.items()]:
        _print_skipped(path, problems)
    if read.warning is not None:
        console.print(f"[bold yellow]warning[/] {escape(in_context(read.warning, running_command()))}")
    client = ClientOnce(endpoint)
    with ProgressDisplay() as shown:
        reports = evaluate_pair_files(
            read, evaluation, checker_settings=checking.settings(EVAL_SETTINGS), llm=client, progress=shown
        )
    print_table(datasets_table(reports[0]) if len(reports) == 1 else comparison_table(reports))
    rows = [*evaluation_rows(reports), *usage_rows(client.client)]
    if evaluation.output is not None:
        rows.append(("report", str(evaluation.output)))
    print_table(summary_table("eval-checker", rows))
    failed = sum(report.failed for report in reports)
    if failed:
        raise RecordsFailed(failed, "pair checks", evaluation.output or "the report", kept=False)


def _print_skipped(path: Path, problems: list[InputError]) -> None:
    """The first skipped records of the file ``path``, and how many more there are."""
    print_skipped(*problems[:SHOWN_SKIPPED])
    if len(problems) > SHOWN_SKIPPED:
        console.print(f"[yellow]skipped[/] {len(problems) - SHOWN_SKIPPED} more records of {escape(str(path))}")
