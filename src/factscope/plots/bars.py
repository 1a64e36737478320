"""Horizontal bar charts: grouped bars (several figures per category), 100 % stacked bars (shares per
category) and a bar list (one figure per row). Horizontal, so long category names stay readable."""

from __future__ import annotations

from collections.abc import Sequence

from factscope.plots.svg import (
    Series,
    chart_id,
    document,
    escape,
    fill,
    legend,
    pattern_defs,
    shorten,
    styles_of,
    text,
    text_width,
)

WIDTH = 640.0
BAR = 14.0
GAP = 10.0
TOP = 28.0
LABEL_CHARACTERS = 28


def _label_column(categories: Sequence[str]) -> float:
    longest = max((len(shorten(c, LABEL_CHARACTERS)) for c in categories), default=0)
    return min(max(text_width("x" * longest) + 18, 60.0), WIDTH * 0.4)


def _category_label(category: str, label_width: float, middle: float) -> str:
    """A category's name, shortened, right-aligned in the label column at the height ``middle`` of its bars."""
    return text(label_width - 6, middle + 4, shorten(category, LABEL_CHARACTERS), anchor="end", tooltip=category)


def _value_text(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def grouped_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    values: Sequence[Sequence[float | None]],
    *,
    title: str,
    maximum: float = 1.0,
    digits: int = 2,
    chart: str | None = None,
) -> str:
    """One block of bars per category, one bar per series (``values[category][series]``), from 0 to
    ``maximum``; each bar is labelled with its figure (``digits`` decimals; None shows as 'n/a')."""
    if any(len(row) != len(series) for row in values) or len(values) != len(categories):
        raise ValueError("grouped_bars needs one value per series for every category")
    ident = chart_id(chart, "grouped", title, categories, [s.name for s in series], values)
    styles = styles_of(series)
    label_width = _label_column(categories)
    plot_width = WIDTH - label_width - 48
    scale = plot_width / maximum if maximum > 0 else 0.0
    parts = []
    y = TOP
    for category, row in zip(categories, values):
        block = len(series) * BAR
        parts.append(_category_label(category, label_width, y + block / 2))
        for index, (item, value) in enumerate(zip(series, row)):
            top = y + index * BAR
            length = max(min(value or 0.0, maximum), 0.0) * scale
            tip = f"{category} \u2014 {item.name}: {_value_text(value, 4)}"
            parts.append(
                f'<rect x="{label_width:.1f}" y="{top + 1:.1f}" width="{length:.1f}" height="{BAR - 2:.1f}" '
                f'fill="{fill(ident, index, styles[index])}" stroke="#000" stroke-width="0.5">'
                f"<title>{escape(tip)}</title></rect>"
            )
            parts.append(text(label_width + length + 4, top + BAR - 3, _value_text(value, digits), size=10))
        y += block + GAP
    parts.append(
        f'<line x1="{label_width:.1f}" y1="{TOP - 4:.1f}" x2="{label_width:.1f}" y2="{y - GAP + 4:.1f}" '
        'stroke="#000" stroke-width="1"/>'
    )
    keys, height = (
        legend(ident, series, styles, label_width, y + 4, plot_width) if len(series) > 1 else ("", 0.0)
    )
    return document(ident, WIDTH, y + height + 8, title, "".join(parts) + keys, pattern_defs(ident, styles))


def bar_list(
    items: Sequence[tuple[str, float | None]],
    *,
    title: str,
    name: str = "value",
    maximum: float = 1.0,
    digits: int = 2,
    chart: str | None = None,
) -> str:
    """One bar per row: ``items`` are (label, figure) pairs; ``name`` says what the figure is (shown on hover)."""
    return grouped_bars(
        [label for label, _ in items],
        [Series(name)],
        [[value] for _, value in items],
        title=title,
        maximum=maximum,
        digits=digits,
        chart=chart,
    )


def stacked_bars(
    categories: Sequence[str],
    series: Sequence[Series],
    counts: Sequence[Sequence[float]],
    *,
    title: str,
    chart: str | None = None,
) -> str:
    """One bar per category split into the shares of each series (``counts[category][series]``, any
    non-negative amounts); a segment wide enough shows its percentage, every segment shows it on hover, and
    each bar ends with its total."""
    if any(len(row) != len(series) for row in counts) or len(counts) != len(categories):
        raise ValueError("stacked_bars needs one count per series for every category")
    if any(value < 0 for row in counts for value in row):
        raise ValueError("stacked_bars needs non-negative counts")
    ident = chart_id(chart, "stacked", title, categories, [s.name for s in series], counts)
    styles = styles_of(series)
    label_width = _label_column(categories)
    plot_width = WIDTH - label_width - 60
    parts = []
    y = TOP
    height = BAR + 6
    for category, row in zip(categories, counts):
        total = sum(row)
        parts.append(_category_label(category, label_width, y + height / 2))
        x = label_width
        for index, (item, value) in enumerate(zip(series, row)):
            if value <= 0 or total <= 0:
                continue
            length = value / total * plot_width
            share = value / total
            tip = f"{category} \u2014 {item.name}: {value:g} of {total:g} ({share:.1%})"
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{length:.1f}" height="{height:.1f}" '
                f'fill="{fill(ident, index, styles[index])}" stroke="#000" stroke-width="0.5">'
                f"<title>{escape(tip)}</title></rect>"
            )
            label = f"{share:.0%}"
            if length > text_width(label, 10) + 6:
                parts.append(
                    f'<rect x="{x + length / 2 - text_width(label, 10) / 2 - 2:.1f}" y="{y + 4:.1f}" '
                    f'width="{text_width(label, 10) + 4:.1f}" height="{height - 8:.1f}" fill="#fff" opacity="0.85"/>'
                )
                parts.append(text(x + length / 2, y + height / 2 + 3.5, label, anchor="middle", size=10))
            x += length
        parts.append(text(label_width + plot_width + 6, y + height / 2 + 4, f"n={total:g}", size=10))
        y += height + GAP
    keys, legend_height = legend(ident, series, styles, label_width, y + 4, plot_width)
    return document(
        ident, WIDTH, y + legend_height + 8, title, "".join(parts) + keys, pattern_defs(ident, styles)
    )
