"""`factscope eval-spans`: predicted hallucinated spans scored against gold spans
(``factscope.refchecker.span_evaluation``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_summary, print_warning
from factscope.cli.output_paths import check_outputs
from factscope.refchecker.span_view import OverlapRule

HELP = """Score predicted hallucinated spans against gold spans, as RAGTruth does.

PREDICTIONS is a results file of `factscope check` (each response's spans are its span view: the text its Neutral
or Contradiction claims cover, --overlap deciding text that several claims cover) or a JSONL file in RAGTruth's
response-level shape: `id` and `labels`, a list of {"start", "end"} character ranges. GOLD has that shape.
Responses are paired by id. Shown: character-level precision, recall and F1 (micro-averaged over the characters
of all responses) and example-level ones (a response is hallucinated when it has a span).

Examples:

  factscope eval-spans checked.jsonl gold_spans.jsonl
  factscope eval-spans checked.jsonl gold_spans.jsonl --overlap best -o span_scores.json
"""


def register(app: typer.Typer) -> None:
    """Add the `eval-spans` command."""
    app.command("eval-spans", help=HELP)(eval_spans_command)


def eval_spans_command(
    predictions: Annotated[Path, typer.Argument(help="check results or predicted spans (JSONL)", show_default=False)],
    gold: Annotated[Path, typer.Argument(help="gold spans (JSONL: id, labels)", show_default=False)],
    overlap: Annotated[
        OverlapRule, typer.Option(help="label of text several claims cover: the worst of theirs, or the best")
    ] = "worst",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="write the figures to this JSON file", show_default=False)
    ] = None,
) -> None:
    """Score predicted spans against gold spans (see `factscope eval-spans --help`)."""
    from factscope.refchecker.span_evaluation import evaluate_spans

    check_outputs(written={"output": output})
    evaluation = evaluate_spans(predictions, gold, overlap=overlap)
    if evaluation.missing_predictions:
        print_warning(f"{len(evaluation.missing_predictions)} gold responses have no prediction and are left out")
    print_summary("span scores", evaluation.summary_rows())
    if output is not None:
        output.write_text(json.dumps(dict(evaluation.summary_rows()), indent=2) + "\n", encoding="utf-8")
