"""`factscope report`: a self-contained HTML page of any factscope command's results."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from factscope.cli.display import print_skipped, print_summary, print_warning
from factscope.cli.option_groups import add_field_options
from factscope.cli.output_paths import check_outputs
from factscope.reports.report_options import ReportOptions

HELP = """Write the results of any factscope command as one HTML page you can open in any browser.

The page fits the command that wrote the file (its OUT.manifest.json says which): figures and charts first,
then each record with its claims, facts, citations or sentences coloured by their verdict. Several files of
one system make one page that compares them by model. The page is self-contained: no scripts, nothing loaded
from the network.

Examples:

  factscope report checked.jsonl -o report.html
  factscope report checked.jsonl -o hallucinated.html --only hallucinated --limit 50
  factscope report gpt.checked.jsonl llama.checked.jsonl -o models.html
  factscope report original.ground.jsonl -o grounding.html
"""


def register(app: typer.Typer) -> None:
    """Add the `report` command."""
    app.command("report", help=HELP)(add_field_options(report_command, ReportOptions, "options"))


def report_command(
    inputs: Annotated[
        list[Path], typer.Argument(help="results JSONL of a factscope command; several of one system make one page",
                                   show_default=False)
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="HTML file (default: the first INPUT's name + .html here)")
    ] = None,
    *,
    options: ReportOptions,
) -> None:
    """Write results as an HTML page (see `factscope report --help`)."""
    from factscope.reports.dispatch import make_report

    output = output or Path(f"{inputs[0].stem}.html")
    check_outputs(written={"output": output})
    report = make_report(inputs, **asdict(options))
    print_warning(*report.repeated)
    print_skipped(*report.problems)
    output.write_text(report.html, encoding="utf-8")
    print_summary("report", report.summary_rows(output))
