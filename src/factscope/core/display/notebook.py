"""How results show themselves in a notebook: the hook their ``_repr_html_`` calls.

A result's HTML is its report (``factscope.reports``, a layer above the systems that make the results), so this
layer only holds the hook: the package root connects the reports to it when factscope is imported
(``use_html_view``), and a result no view renders shows its text summary.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

HtmlView = Callable[[object], "str | None"]
"""The HTML of a result, or None for an object it does not render."""

_views: list[HtmlView] = []


def use_html_view(view: HtmlView) -> None:
    """Render results with ``view`` from now on."""
    _views[:] = [view]


def html_of(result: object) -> str:
    """The HTML a notebook shows for ``result``: the view's, else its text summary, preformatted."""
    for view in _views:
        html = view(result)
        if html is not None:
            return html
    return f"<pre>{escape(str(result))}</pre>"


class ShownAsHtml:
    """A mixin: the object shows in a notebook as ``html_of`` renders it."""

    def _repr_html_(self) -> str:
        return html_of(self)
