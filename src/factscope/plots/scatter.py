"""A trade-off chart: labelled points on two linear axes (for instance identical labels against speed-up), with the
points of one series joined in the order given."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from factscope.plots.svg import chart_id, document, escape, text

WIDTH = 640.0
HEIGHT = 400.0
LEFT = 64.0
RIGHT = 24.0
TOP = 36.0
BOTTOM = 52.0
TICKS = 5


@dataclass(frozen=True)
class Point:
    """One labelled point; ``series`` names the line it belongs to (points of one series are joined)."""

    label: str
    x: float
    y: float
    series: str = ""


def _ticks(low: float, high: float) -> list[float]:
    step = (high - low) / TICKS
    return [low + step * number for number in range(TICKS + 1)]


def _axis_range(values: Sequence[float], floor: float | None) -> tuple[float, float]:
    low = min(values) if floor is None else min(floor, *values)
    high = max(values)
    if high <= low:
        high = low + 1.0
    return low, high + (high - low) * 0.05


def trade_off(
    points: Sequence[Point],
    *,
    title: str,
    x_title: str,
    y_title: str,
    x_floor: float | None = 0.0,
    y_floor: float | None = None,
    y_digits: int = 2,
    chart: str | None = None,
) -> str:
    """An inline SVG of ``points`` (x to the right, y up), each marked and labelled, the points of each series
    joined by a line; the axes start at ``x_floor`` / ``y_floor`` (None: at the smallest value)."""
    if not points:
        raise ValueError("trade_off needs at least one point")
    ident = chart_id(chart, "trade-off", title, [(p.label, p.x, p.y, p.series) for p in points])
    x_low, x_high = _axis_range([p.x for p in points], x_floor)
    y_low, y_high = _axis_range([p.y for p in points], y_floor)
    width, height = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(x: float, y: float) -> tuple[float, float]:
        return LEFT + (x - x_low) / (x_high - x_low) * width, TOP + (
            1 - (y - y_low) / (y_high - y_low)
        ) * height

    frame = (
        f'<rect x="{LEFT:.1f}" y="{TOP:.1f}" width="{width:.1f}" height="{height:.1f}" fill="none" '
        'stroke="#000" stroke-width="1"/>'
    )
    parts = [frame]
    for value in _ticks(x_low, x_high):
        x, _ = at(value, y_low)
        parts.append(
            f'<line x1="{x:.1f}" y1="{TOP + height:.1f}" x2="{x:.1f}" y2="{TOP + height + 4:.1f}" stroke="#000"/>'
        )
        parts.append(text(x, TOP + height + 16, f"{value:.3g}", anchor="middle", size=10))
    for value in _ticks(y_low, y_high):
        _, y = at(x_low, value)
        parts.append(f'<line x1="{LEFT - 4:.1f}" y1="{y:.1f}" x2="{LEFT:.1f}" y2="{y:.1f}" stroke="#000"/>')
        parts.append(text(LEFT - 6, y + 3, f"{value:.{y_digits}f}", anchor="end", size=10))
    parts.append(text(LEFT + width / 2, HEIGHT - 12, x_title, anchor="middle"))
    parts.append(
        f'<text x="14" y="{TOP + height / 2:.1f}" text-anchor="middle" font-size="12" fill="#000" '
        f'transform="rotate(-90 14 {TOP + height / 2:.1f})">{escape(y_title)}</text>'
    )
    for series in dict.fromkeys(p.series for p in points):
        members = [at(p.x, p.y) for p in points if p.series == series]
        if len(members) > 1:
            path = " ".join(f"{x:.1f},{y:.1f}" for x, y in members)
            parts.append(f'<polyline points="{path}" fill="none" stroke="#4c72b0" stroke-width="1.5"/>')
    for point in points:
        x, y = at(point.x, point.y)
        tip = f"{point.label}: {x_title} {point.x:.4g}, {y_title} {point.y:.4g}"
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#dd8452" stroke="#000" stroke-width="0.6">'
            f"<title>{escape(tip)}</title></circle>"
        )
        anchor = "end" if x > LEFT + width * 0.75 else "start"
        parts.append(text(x + (-7 if anchor == "end" else 7), y - 6, point.label, anchor=anchor, size=10))
    return document(ident, WIDTH, HEIGHT, title, "".join(parts))
