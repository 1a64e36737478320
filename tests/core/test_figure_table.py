"""Figures as the terminal shows them: 4 decimals for a float, n/a for None, and names and values never read as
markup."""

from __future__ import annotations

import pytest
from rich.console import Console

from factscope.core.display.figure_table import format_value, summary_table


@pytest.mark.parametrize(("value", "shown"), [(None, "n/a"), (0.123456, "0.1235"), (3, "3"), ("gpt-4", "gpt-4")])
def test_a_figure_is_written_with_four_decimals_or_as_it_is(value, shown):
    assert format_value(value) == shown


def test_the_table_shows_file_names_and_ids_as_written():
    console = Console(width=80, record=True)
    console.print(summary_table("run [bold]x[/]", [("results", "out[1].jsonl"), ("rate", 0.5), ("model", None)]))
    text = console.export_text()
    assert "run [bold]x[/]" in text and "out[1].jsonl" in text
    assert "0.5000" in text and "n/a" in text


def test_a_run_summary_line_writes_four_significant_digits():
    assert format_value(0.246666, 4, significant=True) == "0.2467"
    assert format_value(1234.5678, 4, significant=True) == "1235"
    assert format_value(2.0, 2) == "2.00"
