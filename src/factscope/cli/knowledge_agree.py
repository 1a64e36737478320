"""`factscope knowledge agree`: `knowledge score` results against human ratings (CONNER Tables 9-10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from factscope.cli.display import console, print_skipped, print_table
from factscope.cli.output_paths import check_outputs
from factscope.core.errors import InputError

AGREE_HELP = """Correlate `knowledge score` results with human ratings (CONNER Tables 9-10).

HUMAN: JSON / JSONL rows with `id` and any of factuality, relevance, coherence, informativeness,
helpfulness, validity rated 0 (unacceptable), 1 (acceptable) or 2 (excellent). Prints Somers' D(metric |
human) with its p-value, Pearson and Spearman per dimension.

Example:

  factscope knowledge agree scored.jsonl human.jsonl -o agreement.json
"""


def agree_command(
    scores: Annotated[Path, typer.Argument(help="results of `factscope knowledge score`.", show_default=False)],
    human: Annotated[Path, typer.Argument(help="JSON / JSONL human ratings (0 / 1 / 2) with `id`.", show_default=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="also write the figures as JSON here")] = None,
) -> None:
    from rich.table import Table

    from factscope.conner.agreement import agreement, read_human_ratings
    from factscope.core.input_files import read_json_records

    check_outputs(written={"-o": output})
    rows: dict[str, dict[str, Any]] = {}
    for _, item in read_json_records(scores):
        if isinstance(item, InputError):
            print_skipped(item)
        elif "id" in item:
            rows[str(item["id"])] = item
    ratings, problems = read_human_ratings(human)
    for problem in problems:
        print_skipped(problem)
    results = agreement(rows, ratings)
    if not results:
        raise InputError("no record has both a human rating and a computed score; check that the ids match", path=human)
    table = Table(title="Agreement with human ratings (Somers' D of metric given rating)")
    for column in ("dimension", "metric", "n", "Somers' D", "p", "Pearson", "Spearman"):
        table.add_column(column, justify="left" if column in ("dimension", "metric") else "right")
    for r in results:
        mark = "" if r.somers_p is None or r.somers_p >= 0.05 else " †"
        cells = [r.somers_d, r.somers_p, r.pearson, r.spearman]
        shown = ["n/a" if v is None else f"{v:.2f}" for v in cells]
        table.add_row(r.dimension, r.metric, str(r.n), shown[0] + mark, shown[1], shown[2], shown[3])
    print_table(table)
    console.print("† p < 0.05, as in the paper's Table 9")
    for r in results:
        if r.note:
            console.print(f"[yellow]note[/] {escape(f'{r.dimension} / {r.metric}: {r.note}')}")
    if output:
        output.write_text(json.dumps([r.model_dump() for r in results], indent=2), encoding="utf-8")
