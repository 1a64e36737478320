"""`factscope export`: a results file as a Parquet or CSV table, one row per record or per claim / fact /
citation / sentence."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_skipped, print_table, print_warning
from factscope.cli.output_paths import check_outputs
from factscope.core.figure_table import summary_table

HELP = """Convert a results file into a table for pandas, DuckDB, Spark or a spreadsheet.

RESULTS is the JSONL written by `factscope check`, `ground`, `attribute score` or `knowledge score` (its
OUT.manifest.json says which; without one, the fields of its first record). The output's suffix picks the
format: .parquet (needs `pip install 'factscope\\[tables]'`) or .csv (UTF-8 with a header row; a list or an
object in a cell is written as JSON, the way factscope reads CSV input).

--level picks what a row is:

- records (the default): one row per record, nested figures as dotted columns (summary.hallucination_rate,
  counts.correct, metadata.pop), the per-item lists left out.

- claims (check): one row per claim with the record's id, the claim's number and text, the verdict's label,
  p_entailment / p_neutral / p_contradiction, the evidence and the rule that decided it.

- facts (ground): one row per fact, side 'response' (judged against the contexts: precision) or 'gold'
  (judged against the response: recall), with its presence score and decision.

- citations (attribute score): one row per citation with its sentence, the cited triple and whether it is
  correct, precise and entailed.

- sentences (knowledge score): one row per knowledge sentence with its label, probabilities and evidence.

Rows of RESULTS that cannot be read are skipped and reported.

Examples:

  factscope export checked.jsonl -o checked.parquet

  factscope export checked.jsonl -o claims.csv --level claims

  factscope export grounded.jsonl -o facts.parquet --level facts
"""


def register(app: typer.Typer) -> None:
    """Add the `export` command."""
    app.command("export", help=HELP)(export_command)


def export_command(
    results: Annotated[
        Path,
        typer.Argument(
            help="results JSONL written by `factscope check`, `ground`, `attribute score` or `knowledge score`",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="table to write: FILE.parquet or FILE.csv", show_default=False)
    ],
    level: Annotated[
        str,
        typer.Option(help="a row per: records, or the system's items (claims, facts, citations or sentences)"),
    ] = "records",
) -> None:
    from factscope.core.result_tables import table_rows, write_table
    from factscope.core.results import repeated_message
    from factscope.reports.dispatch import read_rows, system_of

    check_outputs(written={"-o": output})
    system = system_of(results)
    rows, problems, repeated = read_rows(results, system)
    if repeated:
        print_warning(repeated_message(results, repeated))
    print_skipped(*problems)
    written = write_table(table_rows(rows, system.row_type, level), output)
    print_table(
        summary_table(
            "export",
            [
                ("results of", system.command),
                ("records read", len(rows)),
                ("skipped rows", len(problems)),
                (f"rows written ({level})", written),
                ("table", str(output)),
            ],
        )
    )
