"""Histograms of scores: how many records fall in each bin of a range, with the count on every bar."""

from __future__ import annotations

import math
from collections.abc import Sequence

from factscope.plots.svg import DEFAULT_STYLES, Style, chart_id, document, escape, pattern_defs, text

WIDTH = 640.0
HEIGHT = 220.0
LEFT = 36.0
TOP = 30.0
BOTTOM = 40.0


def bin_counts(values: Sequence[float], *, bins: int = 10, low: float = 0.0, high: float = 1.0) -> list[int]:
    """How many of ``values`` fall in each of ``bins`` equal bins over [low, high]; the last bin includes
    ``high``; values outside the range go to the nearest end bin; NaN values are left out."""
    if bins < 1 or not high > low:
        raise ValueError("a histogram needs at least one bin and high > low")
    counts = [0] * bins
    for value in values:
        if math.isnan(value):
            continue
        index = math.floor((value - low) / (high - low) * bins)
        counts[min(max(index, 0), bins - 1)] += 1
    return counts


def histogram(
    values: Sequence[float],
    *,
    title: str,
    x_label: str,
    bins: int = 10,
    low: float = 0.0,
    high: float = 1.0,
    style: Style = DEFAULT_STYLES[0],
    chart: str | None = None,
) -> str:
    """A histogram of ``values`` over [low, high] (see ``bin_counts``), each bar labelled with its count, the
    bin edges on the x axis and ``x_label`` under it; the title says how many values it shows."""
    counts = bin_counts(values, bins=bins, low=low, high=high)
    shown = sum(counts)
    ident = chart_id(chart, "histogram", title, x_label, counts, low, high)
    plot_width = WIDTH - LEFT - 12
    plot_height = HEIGHT - TOP - BOTTOM
    tallest = max(counts, default=0) or 1
    step = plot_width / bins
    colour = style.colour if style.pattern == "solid" else f"url(#{ident}-p0)"
    axis = (
        f'<line x1="{LEFT}" y1="{TOP + plot_height:.1f}" x2="{LEFT + plot_width:.1f}" '
        f'y2="{TOP + plot_height:.1f}" stroke="#000" stroke-width="1"/>'
    )
    parts = [axis]
    width_of_bin = (high - low) / bins
    for index, count in enumerate(counts):
        start = low + index * width_of_bin
        end = start + width_of_bin
        bar = count / tallest * (plot_height - 14)
        x = LEFT + index * step
        closing = "]" if index == bins - 1 else ")"
        tip = f"[{start:g}, {end:g}{closing}: {count} of {shown}"
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{TOP + plot_height - bar:.1f}" width="{step - 2:.1f}" height="{bar:.1f}" '
            f'fill="{colour}" stroke="#000" stroke-width="0.5"><title>{escape(tip)}</title></rect>'
        )
        parts.append(text(x + step / 2, TOP + plot_height - bar - 3, count, anchor="middle", size=10))
    every = max(1, math.ceil(bins / 10))
    for index in range(0, bins + 1, every):
        x = LEFT + index * step
        parts.append(
            text(x, TOP + plot_height + 13, f"{low + index * width_of_bin:g}", anchor="middle", size=10)
        )
    parts.append(text(LEFT + plot_width / 2, HEIGHT - 8, x_label, anchor="middle", size=11))
    full_title = f"{title} (n={shown})"
    return document(ident, WIDTH, HEIGHT, full_title, "".join(parts), pattern_defs(ident, [style]))
