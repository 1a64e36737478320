"""`factscope report`: a readable, self-contained HTML page of `factscope check` results."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from factscope.cli.display import print_skipped, print_table, summary_table
from factscope.cli.output_paths import check_outputs

HELP = """Write the results of `factscope check` as one HTML page you can open in any browser.

The page shows the dataset's hallucination rates (overall and per setting), then per record: the question,
the response with each claim's sentence coloured by its label (Entailment green, Neutral amber,
Contradiction red, failed check grey), a table of claims (triplet, label, probabilities, copy rate,
evidence) and the references with each verdict's evidence sentence highlighted. The file is self-contained:
inline CSS, no scripts, nothing loaded from the network.

Examples:

  factscope report checked.jsonl -o report.html

  factscope report checked.jsonl -o hallucinated.html --only hallucinated --limit 50
"""


def register(app: typer.Typer) -> None:
    """Add the `report` command."""
    app.command("report", help=HELP)(report_command)


def report_command(
    input: Annotated[
        Path, typer.Argument(help="results JSONL written by `factscope check`.", show_default=False)
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="HTML file (default: INPUT name + .html here)")
    ] = None,
    only: Annotated[
        Literal["all", "hallucinated"],
        typer.Option(help="'all' records, or 'hallucinated': those with a Neutral or Contradiction claim"),
    ] = "all",
    limit: Annotated[
        int | None, typer.Option(min=0, help="show at most this many records (rates still cover all)")
    ] = None,
    title: Annotated[str, typer.Option(help="page title")] = "factscope check report",
) -> None:
    from factscope.core.errors import InputError
    from factscope.refchecker.html_report import Only, load_results, render_report, select_results
    from factscope.refchecker.task import summarize_run

    output = output or Path(f"{input.stem}.html")
    check_outputs(written={"-o": output})
    if only not in ("all", "hallucinated"):
        raise InputError(f"--only must be 'all' or 'hallucinated', got {only!r}")
    chosen: Only = "hallucinated" if only == "hallucinated" else "all"
    results, problems = load_results(input)
    for problem in problems:
        print_skipped(problem)
    if not results:
        raise InputError(
            "no check results to report; pass the JSONL that `factscope check -o` wrote", path=input
        )
    run = summarize_run(results, new_records=len(results), seconds=0.0, extractor="", checker="")
    shown = select_results(results, only=chosen, limit=limit)
    page = render_report(run, shown, only=chosen, title=title, source=str(input))
    output.write_text(page, encoding="utf-8")
    print_table(
        summary_table(
            "report",
            [
                ("records read", len(results)),
                ("skipped rows", len(problems)),
                ("records shown", len(shown)),
                ("claims", sum(len(r.claims) for r in results)),
                ("page", str(output)),
                ("page size", f"{len(page.encode('utf-8')) / 1024:.1f} KiB"),
            ],
        )
    )
