"""A checker evaluation as the terminal shows it: figures per dataset for one checker, the checkers compared per
dataset for several, and the summary rows of each checker and of the evaluation."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from factscope.core.display.figure_table import format_value
from factscope.evaluation.checker_eval import EvalReport


def datasets_table(report: EvalReport) -> Table:
    """One row per dataset and the mean: balanced accuracy, 3-way macro-F1, speed."""
    table = Table(title="checker figures per dataset", header_style="bold")
    table.caption = (
        "balanced acc.: mean recall of entailment and of not-entailment; AUROC: of P(Entailment), where the checker "
        "gives one; macro-F1 3-way: where the gold labels are 3-way; failed checks are counted and left out; mean: "
        "over datasets"
    )
    for column in ("dataset", "n", "failed", "entailed", "balanced acc.", "AUROC", "macro-F1 3-way", "pairs/s"):
        table.add_column(column, justify="left" if column == "dataset" else "right")
    for figures in report.datasets:
        table.add_row(
            Text(figures.dataset),
            str(figures.n),
            str(figures.failed),
            str(figures.entailed),
            format_value(figures.balanced_accuracy),
            format_value(figures.auroc),
            format_value(figures.macro_f1_3way),
            speed(figures.pairs_per_second),
        )
    table.add_row(
        "mean",
        str(sum(f.n for f in report.datasets)),
        str(report.failed),
        str(sum(f.entailed for f in report.datasets)),
        format_value(report.mean_balanced_accuracy),
        format_value(report.mean_auroc),
        format_value(report.mean_macro_f1_3way),
        speed(report.pairs_per_second),
        style="bold",
    )
    return table


def comparison_table(reports: Sequence[EvalReport]) -> Table:
    """One row per dataset, the mean and the speed; one column per checker: balanced accuracy / AUROC."""
    table = Table(title="checkers compared per dataset", header_style="bold")
    table.caption = (
        "each cell: balanced accuracy / AUROC of P(Entailment) (n/a: the checker gives no probability); mean: over "
        "datasets; pairs/s: model loading left out"
    )
    table.add_column("dataset")
    for report in reports:
        table.add_column(Text(report.checker), justify="right")
    datasets = list(dict.fromkeys(figures.dataset for report in reports for figures in report.datasets))
    for dataset in datasets:
        cells = []
        for report in reports:
            figures = next((f for f in report.datasets if f.dataset == dataset), None)
            cells.append(_pair(figures.balanced_accuracy, figures.auroc) if figures else "")
        table.add_row(Text(dataset), *cells)
    table.add_row(
        "mean", *(_pair(r.mean_balanced_accuracy, r.mean_auroc) for r in reports), style="bold"
    )
    table.add_row("pairs/s", *(speed(r.pairs_per_second) for r in reports))
    return table


def checker_rows(report: EvalReport) -> list[tuple[str, object]]:
    """A checker's lines of the summary table: its name, its decision rule, its pairs and its speed."""
    return [
        ("checker", report.checker),
        ("entailed when", decision(report)),
        ("pairs (failed)", f"{report.pairs} ({report.failed})"),
        ("pairs / second (model loading left out)", speed(report.pairs_per_second)),
        ("model loading seconds", f"{report.load_seconds or 0.0:.1f}"),
    ]


def evaluation_rows(reports: Sequence[EvalReport]) -> list[tuple[str, object]]:
    """The summary rows of an evaluation of the same files by ``reports``' checkers: each checker's
    (``checker_rows``), then the records of the files that were skipped."""
    rows = [row for report in reports for row in checker_rows(report)]
    return [*rows, ("skipped input records", reports[0].skipped if reports else 0)]


def decision(report: EvalReport) -> str:
    """When a pair was judged entailed: 'the label is Entailment', or the score, the threshold and where it was
    tuned (``probability / score >= 0.5000 (tuned on dev.jsonl)``)."""
    if report.claim_decision is not None:
        return f"the label is Entailment, after the claim decision fitted into {report.claim_decision}"
    if report.threshold is None:
        return "the label is Entailment"
    tuned = f" (tuned on {', '.join(report.tuned_on)})" if report.tuned_on else ""
    return f"{' / '.join(report.decided_by)} >= {report.threshold:.4f}{tuned}"


def speed(pairs_per_second: float | None) -> str:
    """Pairs a second with one decimal, 'n/a' when unmeasured."""
    return "n/a" if pairs_per_second is None else f"{pairs_per_second:.1f}"


def _pair(balanced: float | None, area: float | None) -> str:
    return f"{format_value(balanced)} / {format_value(area)}"
