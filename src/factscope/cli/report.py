"""`factscope report`: a readable, self-contained HTML page of `factscope check` results."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from factscope.cli.display import print_skipped, print_table, print_warning
from factscope.cli.output_paths import check_outputs
from factscope.core.figure_table import summary_table

HELP = """Write the results of any factscope command as one HTML page you can open in any browser.

The page fits the command that wrote the file (its OUT.manifest.json says which; without one, the fields of
the first record): figures and charts first, then the records.

- `factscope check`: rates overall and per setting, claims by label per setting, hallucination rate per
  setting and per model; each response with its claims coloured by label (Entailment green, Neutral amber,
  Contradiction red, failed check grey), the claim table and the references with the evidence highlighted.

- `factscope ground`: precision, recall and F1 by factor (popularity, single / multi context, ...), the F1
  distribution; each record's response and gold facts marked present or absent with their scores.

- `factscope attribute score`: citation quality, alignment and \\[NA] figures per number of removed
  triples, citation precision and recall per answer; each answer's citations coloured correct / wrong / \\[NA].

- `factscope knowledge score`: the mean and distribution of every CONNER metric; each record's six
  dimensions and its knowledge sentences coloured by their evidence.

Several files of one system make one page; check and ground pages then compare them by model (a record's
`model` field, else its file's name). The page is self-contained: inline CSS and SVG, no scripts, nothing
loaded from the network; hovering shows labels, probabilities and scores, and it prints in black and white.

Examples:

  factscope report checked.jsonl -o report.html

  factscope report checked.jsonl -o hallucinated.html --only hallucinated --limit 50

  factscope report gpt.checked.jsonl llama.checked.jsonl -o models.html

  factscope report original.ground.jsonl -o grounding.html

  factscope report scores.jsonl -o attribution.html --only hallucinated

  factscope report scored.jsonl -o knowledge.html --limit 100
"""


def register(app: typer.Typer) -> None:
    """Add the `report` command."""
    app.command("report", help=HELP)(report_command)


def report_command(
    inputs: Annotated[
        list[Path],
        typer.Argument(
            help="results JSONL written by `factscope check`, `ground`, `attribute score` or `knowledge score` "
            "(several files of one system make one page).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="HTML file (default: the first INPUT's name + .html here)")
    ] = None,
    only: Annotated[
        Literal["all", "hallucinated"],
        typer.Option(
            help="'all' records, or 'hallucinated': check: a Neutral or Contradiction claim; ground: a response "
            "fact absent from the context; attribute: a citation not in the graph or unreadable; knowledge: a "
            "non-verified or inconsistent sentence"
        ),
    ] = "all",
    limit: Annotated[
        int | None, typer.Option(min=0, help="show at most this many records (figures still cover all)")
    ] = None,
    title: Annotated[
        str | None, typer.Option(help="page title (default: 'factscope SYSTEM report')", show_default=False)
    ] = None,
) -> None:
    from factscope.reports.dispatch import make_report

    output = output or Path(f"{inputs[0].stem}.html")
    check_outputs(written={"-o": output})
    report = make_report(inputs, only=only, limit=limit, title=title)
    for said in report.repeated:
        print_warning(said)
    print_skipped(*report.problems)
    output.write_text(report.html, encoding="utf-8")
    print_table(
        summary_table(
            "report",
            [
                ("results of", report.system.command),
                ("records read", len(report.rows)),
                ("skipped rows", len(report.problems)),
                ("records shown", len(report.shown)),
                ("page", str(output)),
                ("page size", f"{len(report.html.encode('utf-8')) / 1024:.1f} KiB"),
            ],
        )
    )
