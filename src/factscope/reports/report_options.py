"""What a report shows, declared once: the options of ``factscope.reports.dispatch.make_report`` and of
`factscope report`, light to import (the command line reads them before it loads any system)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from factscope.core.options.metadata import about
from factscope.core.options.validation import ValidatedOptions

Only = Literal["all", "hallucinated"]
"""Which records a report shows: all, or those the system flags (``ReportHooks.flagged``)."""


@dataclass(frozen=True)
class ReportOptions(ValidatedOptions):
    """Which records a report shows, and its title: ``make_report``'s options, declared once."""

    only: Only = field(default="all", metadata=about(
        "'all' records, or 'hallucinated': check: a Neutral or Contradiction claim; ground: a response fact absent "
        "from the context; attribute: a citation not in the graph or unreadable; knowledge: a non-verified or "
        "inconsistent sentence"
    ))
    limit: int | None = field(default=None, metadata=about(
        "show at most this many records (figures still cover all)", min=0
    ))
    title: str | None = field(default=None, metadata=about("page title (default: 'factscope SYSTEM report')"))
