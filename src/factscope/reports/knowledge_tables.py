"""CONNER's agreement with human ratings as the terminal shows it (the paper's Table 9)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table

if TYPE_CHECKING:
    from factscope.conner.agreement import Agreement

SIGNIFICANT = 0.05
"""The p-value below which a Somers' D is marked † (the paper's Table 9)."""


def agreement_table(results: Sequence[Agreement]) -> Table:
    """One row per dimension and metric: n, Somers' D (marked † when p < ``SIGNIFICANT``, which the caption
    says), its p-value, Pearson and Spearman, each with 2 decimals ('n/a' where not computed)."""
    table = Table(title="Agreement with human ratings (Somers' D of metric given rating)",
                  caption=f"† p < {SIGNIFICANT:g}, as in the paper's Table 9")
    for column in ("dimension", "metric", "n", "Somers' D", "p", "Pearson", "Spearman"):
        table.add_column(column, justify="left" if column in ("dimension", "metric") else "right")
    for r in results:
        mark = "" if r.somers_p is None or r.somers_p >= SIGNIFICANT else " †"
        cells = [r.somers_d, r.somers_p, r.pearson, r.spearman]
        shown = ["n/a" if v is None else f"{v:.2f}" for v in cells]
        table.add_row(r.dimension, r.metric, str(r.n), shown[0] + mark, shown[1], shown[2], shown[3])
    return table
