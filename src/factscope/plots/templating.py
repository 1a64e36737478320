"""The one way report pages are templated: jinja2 with autoescape on, so every text from a results file is
escaped, plus the filters all report templates print figures with."""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup


def format_figure(value: float | None) -> str:
    """A figure as the pages print it: floats with 4 decimals, None as 'n/a', integers as they are."""
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def counted(number: int, noun: str) -> str:
    """``number`` with ``noun``, plural unless the number is 1: '1 claim', '3 claims'."""
    return f"{number} {noun}" + ("" if number == 1 else "s")


def percent(value: float | None) -> str:
    """A share in [0, 1] as a CSS width ('37.5%'), clipped to the range; None is 0%."""
    share = min(max(value or 0.0, 0.0), 1.0)
    return f"{share * 100:.1f}%"


@cache
def environment(package: str) -> Environment:
    """The template environment of ``package``'s ``templates`` folder: autoescaped, strict about undefined
    names, with the ``figure``, ``counted`` and ``percent`` filters."""
    loaded = Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=StrictUndefined,
    )
    loaded.filters["figure"] = format_figure
    loaded.filters["counted"] = counted
    loaded.filters["percent"] = percent
    return loaded


def render_html(package: str, template: str, **context: Any) -> Markup:
    """The template ``template`` of ``package``'s ``templates`` folder (``environment``) rendered with ``context``,
    as markup to place in a page."""
    return Markup(environment(package).get_template(template).render(**context))
