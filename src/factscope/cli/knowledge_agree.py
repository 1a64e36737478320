"""`factscope knowledge agree`: `knowledge score` results against human ratings (CONNER Tables 9-10)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_notes, print_skipped, print_table
from factscope.cli.output_paths import check_outputs

HELP = """Correlate `knowledge score` results with human ratings (CONNER Tables 9-10).

HUMAN: JSON / JSONL rows with `id` and any of factuality, relevance, coherence, informativeness,
helpfulness, validity rated 0 (unacceptable), 1 (acceptable) or 2 (excellent). Prints Somers' D(metric |
human) with its p-value, Pearson and Spearman per dimension.

Example:

  factscope knowledge agree scored.jsonl human.jsonl -o agreement.json
"""


def register(app: typer.Typer) -> None:
    """Add the `agree` command to the `knowledge` group ``app``."""
    app.command("agree", help=HELP)(agree_command)


def agree_command(
    scores: Annotated[Path, typer.Argument(help="results of `factscope knowledge score`.", show_default=False)],
    human: Annotated[Path, typer.Argument(help="JSON / JSONL human ratings (0 / 1 / 2) with `id`.", show_default=False)],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="also write the figures as JSON here")] = None,
) -> None:
    from factscope.conner.agreement import file_agreement
    from factscope.reports.knowledge_tables import agreement_table

    check_outputs(written={"output": output})
    results = file_agreement(scores, human, skipped=print_skipped)
    print_table(agreement_table(results))
    print_notes(f"{r.dimension} / {r.metric}: {r.note}" for r in results if r.note)
    if output:
        output.write_text(json.dumps([r.model_dump() for r in results], indent=2), encoding="utf-8")
