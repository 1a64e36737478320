"""The page every system's report shares: title, source, the system's overview (figures and charts), a table of
contents and the records, styled by one inline stylesheet that also serves pages embedding single records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup

from factscope.core.version import __version__
from factscope.plots.templating import environment
from factscope.refchecker.html_report import stylesheet as check_stylesheet


@dataclass(frozen=True)
class RecordEntry:
    """One record on a page: its anchor, id, a short line of figures for the contents, and its HTML."""

    anchor: str
    id: str
    caption: str
    html: Markup


@cache
def stylesheet() -> str:
    """The CSS of every report page and of every system's record fragments (`factscope check`'s included)."""
    own = environment("factscope.reports").loader
    assert own is not None
    return check_stylesheet() + own.get_source(environment("factscope.reports"), "page.css")[0]


def render_page(
    *,
    title: str,
    overview: Markup,
    records: Sequence[RecordEntry],
    source: str | None = None,
    problems: Sequence[str] = (),
    only: str = "all",
    flagged: str = "",
) -> str:
    """The whole self-contained HTML page; ``problems`` are the skipped rows, ``flagged`` says what
    ``only='hallucinated'`` kept."""
    return (
        environment("factscope.reports")
        .get_template("page.html.j2")
        .render(
            title=title,
            source=source,
            overview=overview,
            records=records,
            problems=problems,
            only=only,
            flagged=flagged,
            version=__version__,
            stylesheet=Markup(stylesheet()),
        )
    )
