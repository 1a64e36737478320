"""Figures as the terminal shows them: a two-column table of named figures, and the way a figure is written in
it and in the wider tables of the systems and evaluations."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text


def summary_table(title: str, rows: list[tuple[str, object]]) -> Table:
    """A two-column table of named figures; floats are shown with 4 decimals, None as 'n/a'. The title, names and
    values are shown as written, never read as markup (they hold file names and ids)."""
    table = Table(title=Text(title), show_header=True, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in rows:
        table.add_row(Text(name), Text(format_value(value)))
    return table


def format_value(value: object, digits: int = 4, *, significant: bool = False) -> str:
    """A figure as the tables print it: a float with ``digits`` decimals (``significant``: significant digits),
    None as 'n/a', anything else as its text."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}{'g' if significant else 'f'}}"
    return str(value)
