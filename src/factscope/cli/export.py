"""`factscope export`: a results file as a Parquet or CSV table (``factscope.reports.table_export``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_skipped, print_summary, print_warning
from factscope.cli.output_paths import check_outputs
from factscope.core.files.result_tables import RECORDS

HELP = """Convert a results file into a table for pandas, DuckDB, Spark or a spreadsheet.

RESULTS is the JSONL written by `factscope check`, `ground`, `attribute score` or `knowledge score`. The
output's suffix picks the format: .parquet (needs `pip install 'factscope\\[tables]'`) or .csv. The docs'
"Results as tables" lists each --level's columns.

Examples:

  factscope export checked.jsonl -o checked.parquet
  factscope export checked.jsonl -o claims.csv --level claims
  factscope export checked.jsonl -o spans.csv --level spans
  factscope export grounded.jsonl -o facts.parquet --level facts
"""


def register(app: typer.Typer) -> None:
    """Add the `export` command."""
    app.command("export", help=HELP)(export_command)


def export_command(
    results: Annotated[Path, typer.Argument(help="results JSONL of a factscope command", show_default=False)],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="table to write: FILE.parquet or FILE.csv", show_default=False)
    ],
    level: Annotated[
        str,
        typer.Option(
            help="a row per: records, the system's items (claims, facts, citations or sentences), or a check's "
            "labelled spans (spans)"
        ),
    ] = RECORDS,
) -> None:
    """Convert a results file into a table (see `factscope export --help`)."""
    from factscope.reports.table_export import export_results

    check_outputs(written={"output": output})
    exported = export_results(results, output, level)
    print_warning(*exported.repeated)
    print_skipped(*exported.problems)
    print_summary("export", exported.summary_rows())
