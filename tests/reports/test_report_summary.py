"""The figures `factscope report` prints of a report: its system, records read, skipped and shown, the page and
its size in KiB of UTF-8."""

from __future__ import annotations

from pathlib import Path

from factscope.core.errors import InputError
from factscope.refchecker.system import CHECK
from factscope.reports.dispatch import Report


def test_the_summary_counts_rows_and_measures_the_page_in_utf8():
    html = "é" * 1536  # two bytes each: 3,072 bytes, 3.0 KiB
    report = Report(html, CHECK, rows=["a", "b", "c"], problems=[InputError("bad row")], shown=["b"])
    assert report.summary_rows(Path("out/page.html")) == [
        ("results of", "factscope check"),
        ("records read", 3),
        ("skipped rows", 1),
        ("records shown", 1),
        ("page", str(Path("out/page.html"))),
        ("page size", "3.0 KiB"),
    ]
