"""`factscope eval-checker`: how well a checker decides labelled (premise, hypothesis) pairs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from factscope.checkers.options import CheckerOptions
from factscope.cli.display import SHOWN_SKIPPED, print_skipped, print_summary, print_table, print_warning
from factscope.cli.llm_options import LLMOptions, llm_options
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_paths import check_outputs
from factscope.cli.parameter_flags import in_context
from factscope.core.display.progress import ProgressDisplay
from factscope.core.errors import RecordsFailed
from factscope.evaluation.checker_comparison import EvaluationSettings
from factscope.hf.llm_endpoint import ClientOnce

HELP = """Measure how well a checker decides labelled (premise, hypothesis) pairs.

FILES hold one pair a record: `premise`, `hypothesis`, `label` (entailment / neutral / contradiction /
not_entailment, or 0 / 1 / 2), or LLM-AggreFact's `dataset`, `doc`, `claim`, `label` (1 supported, 0 not), as
JSONL, a JSON list, CSV or Parquet. Per dataset: balanced accuracy, AUROC of P(Entailment), the confusion
matrix and, on 3-way labels, macro-F1; repeat --checker to compare checkers in one table. The eval-checker
guide describes the figures and the split --part keeps.

Examples:

  factscope eval-checker summedits.jsonl begin.jsonl --part validation
  factscope eval-checker llm_aggrefact_test.jsonl --checker path:my_checker --tune-on llm_aggrefact_dev.jsonl
  factscope eval-checker mnli.jsonl --checker similarity --threshold 0.6 --limit 500 -o similarity.json
  factscope eval-checker my_test.jsonl --tune-on my_dev.jsonl --fit-decision my_decision.json
  factscope eval-checker pairs.csv --checker llm --llm-model gpt-4o-mini
  factscope eval-checker llm_aggrefact_test.parquet --checker embedded --checker minicheck:lytang/MiniCheck-Flan-T5-Large \
    --checker hhem:vectara/hallucination_evaluation_model --device cuda -o compare.json
"""

EVAL_SETTINGS = frozenset({"max_tokens", "window_sentences", "min_window_sentences", "similarity_threshold",
                           "llm_mode", "device", "precision", "label_order", "decision"})
"""The checker settings `eval-checker` offers (its LLM checker judges one pair a call by default)."""


def register(app: typer.Typer) -> None:
    """Add the `eval-checker` command."""
    command = add_field_options(eval_checker_command, EvaluationSettings, "evaluation")
    command = add_field_options(command, CheckerOptions, "checking", names=EVAL_SETTINGS,
                                defaults={"llm_mode": "single"})
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
    endpoint.refuse_if_unused(evaluation.unused_llm())
    read = read_evaluation_pairs(files, evaluation)
    for problems in [*read.skipped.values(), *read.dev_skipped.values()]:
        print_skipped(*problems, limit=SHOWN_SKIPPED)
    if read.warning is not None:
        print_warning(in_context(read.warning))
    checking = checking if evaluation.needs_llm() else replace(checking, llm_mode=CheckerOptions.llm_mode)
    client = ClientOnce(endpoint)
    with ProgressDisplay() as shown:
        reports = evaluate_pair_files(
            read, evaluation, checker_settings=checking, llm=client, progress=shown
        )
    print_table(datasets_table(reports[0]) if len(reports) == 1 else comparison_table(reports))
    rows = [*evaluation_rows(reports), *client.usage_rows()]
    if evaluation.output is not None:
        rows.append(("report", str(evaluation.output)))
    print_summary("eval-checker", rows)
    failed = sum(report.failed for report in reports)
    if failed:
        raise RecordsFailed(failed, "pair checks", evaluation.output or "the report", kept=False)

