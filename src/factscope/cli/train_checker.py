"""`factscope train-checker`: train an offline 3-way (or 2-way) checker directory from labelled NLI pairs."""

from __future__ import annotations

import typer

from factscope.cli.option_groups import add_field_options
from factscope.training.options import TrainOptions

HELP = """Train an offline checker from {premise, hypothesis, label} pairs and write it to a directory.

Labels are entailment / neutral / contradiction (or 0 / 1 / 2), or entailment / not_entailment for a 2-way
checker; repeat --data to train on a mix. Pairs are split by group into train, validation and a held-out test
part, the parts of `factscope eval-checker --part`. Use the result with `--checker path:DIR`; the
train-checker guide gives each recipe's time and held-out figures.

Examples:

  # one member of the default recipe (3 epochs at lr 1e-4, bf16 where the CPU has it)
  factscope train-checker --data mnli_dev_matched.jsonl --out my_checker

  # the shipped checker's recipe: two members (seeds 13, 14), int8 weights
  factscope train-checker --data mnli_dev_matched.jsonl --members 2 --weights int8 --out my_checker

  # RepC: logistic regression on frozen MiniLM layers 3-6, 2,000 pairs
  factscope train-checker --data pairs.jsonl --method repc --layers 3,4,5,6 --limit 2000 --out repc_dir
"""


def train_checker(options: TrainOptions) -> None:
    """Train an offline checker (see `factscope train-checker --help`)."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from factscope.cli.display import SHOWN_SKIPPED, print_skipped, print_summary
    from factscope.core.display.progress import progress
    from factscope.training.summary import summary_rows
    from factscope.training.train import train_checker as run

    result = run(options, progress)
    print_skipped(*result.skipped, limit=SHOWN_SKIPPED)
    print_summary(f"checker written to {options.out}", summary_rows(result))


def register(app: typer.Typer) -> None:
    """Add `train-checker` to the app."""
    app.command("train-checker", help=HELP)(add_field_options(train_checker, TrainOptions, "options"))
