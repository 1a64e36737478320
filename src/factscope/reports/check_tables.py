"""The agreement of a check run with human labels as the terminal shows it: its figures, each model's rates, the
confusion matrix and the run's summary rows (a check run's own label rates are
``factscope.refchecker.rates_table``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from factscope.core.display.figure_table import format_value
from factscope.core.schema import LABELS

if TYPE_CHECKING:
    from factscope.refchecker.agree import AgreementReport


def agreement_table(result: AgreementReport) -> Table:
    """Claim- and response-level figures, over all responses and per context setting."""
    table = Table(title="agreement with human labels", header_style="bold")
    table.caption = (
        "claim figures: the checker on the annotated triplets (checker mode); Pearson / Spearman: response "
        "hallucination rates; ranking: Spearman of the models' mean rates (3 models or more)"
    )
    columns = ("setting", "responses", "claims", "accuracy", "macro-F1", "F1 E", "F1 N", "F1 C", "Pearson", "Spearman")
    for column in (*columns, "ranking"):
        table.add_column(column, justify="left" if column == "setting" else "right")
    for name, figures in [("all", result), *result.by_setting.items()]:
        table.add_row(
            name,
            str(figures.responses),
            str(figures.claims) if result.mode == "checker" else "n/a",
            format_value(figures.accuracy),
            format_value(figures.macro_f1),
            *(format_value(figures.per_class_f1.get(label)) for label in LABELS),
            format_value(figures.pearson[0] if figures.pearson else None),
            format_value(figures.spearman[0] if figures.spearman else None),
            format_value(figures.model_ranking_spearman),
        )
    return table


def model_rates_table(result: AgreementReport) -> Table:
    """Each model's mean hallucination rate by humans and by factscope, over all responses and per setting."""
    table = Table(title="mean response hallucination rate per model: human / factscope", header_style="bold")
    scopes = [("all", result), *result.by_setting.items()]
    table.add_column("model")
    for name, _ in scopes:
        table.add_column(name, justify="right")
    for model in result.model_rates:
        cells = []
        for _, figures in scopes:
            rates = figures.model_rates.get(model)
            cells.append(f"{rates[0]:.3f} / {rates[1]:.3f}" if rates else "n/a")
        table.add_row(Text(model), *cells)
    return table


def confusion_table(result: AgreementReport) -> Table:
    """Checked claims by human label (rows) and checker label (columns), over all responses."""
    table = Table(title="confusion matrix: human label (rows) x checker label (columns)", header_style="bold")
    table.caption = f"{result.failed_checks} claim(s) whose check failed are left out"
    table.add_column("human")
    for label in LABELS:
        table.add_column(label.value, justify="right")
    for human in LABELS:
        row = result.confusion.get(human, {})
        table.add_row(human.value, *(str(row.get(label, 0)) for label in LABELS))
    return table


def agreement_tables(result: AgreementReport) -> list[Table]:
    """The tables of an agreement run: its figures, each model's rates and, in checker mode, the confusion
    matrix."""
    tables = [agreement_table(result), model_rates_table(result)]
    return [*tables, confusion_table(result)] if result.mode == "checker" else tables


def agreement_rows(result: AgreementReport, output: Path) -> list[tuple[str, object]]:
    """The summary rows of an agreement run: its mode, the responses it checked and resumed, the annotated ids
    without a record, the input records skipped and the results file ``output``."""
    return [
        ("mode", result.mode),
        ("responses (new / resumed)", f"{result.new_responses} / {result.resumed_responses}"),
        ("annotated ids without a record", len(result.unmatched_ids)),
        ("skipped input records", result.skipped_records),
        ("results", str(output)),
    ]
