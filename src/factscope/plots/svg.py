"""The parts every chart shares: escaped text, fill styles that survive printing, and the <svg> element itself.

A chart is a string of inline SVG: a ``viewBox`` so it scales with the page, black text in the reader's own
sans-serif font (nothing fetched), a ``<title>`` for screen readers, and a ``<title>`` on every mark so that
hovering shows the exact figure without scripts. Each series has a colour *and* a pattern (solid, hatched,
dotted, ...), so a chart printed in black and white still tells its series apart.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape as _escape

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
"""Only fonts already on the reader's machine: nothing is loaded from the network."""

CHAR_WIDTH = 0.62
"""Average width of a character as a share of the font size, for laying out labels."""

PATTERNS = ("solid", "hatch", "dots", "cross", "vertical", "horizontal")
"""The fill patterns, in the order series take them."""


@dataclass(frozen=True)
class Style:
    """How a series is filled: a colour and a pattern drawn over it in black (one of ``PATTERNS``)."""

    colour: str
    pattern: str = "solid"


DEFAULT_STYLES: tuple[Style, ...] = (
    Style("#4c72b0", "solid"),
    Style("#dd8452", "hatch"),
    Style("#55a868", "dots"),
    Style("#c44e52", "cross"),
    Style("#8172b3", "vertical"),
    Style("#937860", "horizontal"),
)
"""Series styles in order; the seventh series takes the first again."""


@dataclass(frozen=True)
class Series:
    """One named series of a chart; without a style it takes the next of ``DEFAULT_STYLES``."""

    name: str
    style: Style | None = None


def escape(text: object) -> str:
    """Text made safe for SVG / HTML content and attribute values (quotes included)."""
    return _escape(str(text), quote=True)


_SAFE_COLOUR = re.compile(r"^#[0-9a-fA-F]{3,8}$|^[a-zA-Z]{3,20}$")
_ID_CHARACTERS = re.compile(r"[^a-zA-Z0-9_-]")


def styles_of(series: Sequence[Series]) -> list[Style]:
    """The style of each series: its own, or the next default one; a colour that is not a plain CSS colour
    name or hex code is refused (ValueError), so no caller can smuggle markup in through it."""
    styles = []
    for index, item in enumerate(series):
        style = item.style or DEFAULT_STYLES[index % len(DEFAULT_STYLES)]
        if not _SAFE_COLOUR.match(style.colour) or style.pattern not in PATTERNS:
            raise ValueError(
                f"series {item.name!r}: unknown colour {style.colour!r} or pattern {style.pattern!r}"
            )
        styles.append(style)
    return styles


def chart_id(prefix: str | None, *parts: object) -> str:
    """An element id for a chart's patterns: ``prefix`` made safe, or a digest of what the chart shows, so
    that two charts on one page never share ids by accident."""
    if prefix:
        return "chart-" + _ID_CHARACTERS.sub("-", prefix)
    return "chart-" + hashlib.sha1(repr(parts).encode("utf-8")).hexdigest()[:10]


def pattern_defs(chart: str, styles: Sequence[Style]) -> str:
    """The ``<defs>`` holding one fill pattern per style: the colour with black marks over it."""
    patterns = []
    for index, style in enumerate(styles):
        if style.pattern == "solid":
            continue
        marks = {
            "hatch": '<path d="M0,6 L6,0 M-1,1 L1,-1 M5,7 L7,5" stroke="#000" stroke-width="0.8"/>',
            "dots": '<circle cx="3" cy="3" r="1.1" fill="#000"/>',
            "cross": '<path d="M0,0 L6,6 M6,0 L0,6" stroke="#000" stroke-width="0.7"/>',
            "vertical": '<path d="M3,0 L3,6" stroke="#000" stroke-width="0.8"/>',
            "horizontal": '<path d="M0,3 L6,3" stroke="#000" stroke-width="0.8"/>',
        }[style.pattern]
        patterns.append(
            f'<pattern id="{chart}-p{index}" width="6" height="6" patternUnits="userSpaceOnUse">'
            f'<rect width="6" height="6" fill="{style.colour}"/>{marks}</pattern>'
        )
    return f"<defs>{''.join(patterns)}</defs>" if patterns else ""


def fill(chart: str, index: int, style: Style) -> str:
    """The ``fill`` value of series ``index``: its colour, or its pattern."""
    return style.colour if style.pattern == "solid" else f"url(#{chart}-p{index})"


def text(
    x: float,
    y: float,
    content: object,
    *,
    anchor: str = "start",
    size: float = 12,
    bold: bool = False,
    tooltip: str | None = None,
) -> str:
    """One escaped ``<text>`` element in black; ``tooltip`` adds a ``<title>`` shown on hover."""
    weight = ' font-weight="bold"' if bold else ""
    hover = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size:g}" fill="#000"{weight}>'
        f"{hover}{escape(content)}</text>"
    )


def shorten(label: str, characters: int) -> str:
    """``label`` cut to ``characters`` with an ellipsis when it is longer."""
    return label if len(label) <= characters else label[: max(characters - 1, 1)] + "\u2026"


def text_width(content: str, size: float = 12) -> float:
    """The approximate width of ``content`` at font ``size``."""
    return len(content) * size * CHAR_WIDTH


def legend(
    chart: str, series: Sequence[Series], styles: Sequence[Style], x: float, y: float, width: float
) -> tuple[str, float]:
    """The legend as swatches and names in rows that fit ``width``; returns the markup and its height."""
    parts = []
    cursor, row = x, 0
    for index, (item, style) in enumerate(zip(series, styles)):
        entry = 18 + text_width(item.name) + 16
        if cursor > x and cursor + entry > x + width:
            cursor, row = x, row + 1
        top = y + row * 18
        parts.append(
            f'<rect x="{cursor:.1f}" y="{top:.1f}" width="12" height="12" fill="{fill(chart, index, style)}" '
            'stroke="#000" stroke-width="0.6"/>'
        )
        parts.append(text(cursor + 16, top + 10.5, item.name))
        cursor += entry
    return "".join(parts), (row + 1) * 18 if series else 0.0


def document(chart: str, width: float, height: float, title: str, body: str, defs: str = "") -> str:
    """The ``<svg>`` element for inline use in HTML (which needs no namespace): ``viewBox`` sized, titled for
    screen readers, with the chart's title drawn on top."""
    return (
        f'<svg class="chart" id="{chart}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img" aria-labelledby="{chart}-title" '
        f'font-family="{FONT}" style="max-width:100%;height:auto">'
        f'<title id="{chart}-title">{escape(title)}</title>{defs}'
        f"{text(0, 16, title, size=14, bold=True)}{body}</svg>"
    )
