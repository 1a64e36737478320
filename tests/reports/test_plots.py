"""Inline SVG charts: bin counts, bar lengths in proportion, labels on every mark, escaping, print patterns."""

import math
import re
import xml.etree.ElementTree as ET

import pytest

from factscope.plots.bars import bar_list, grouped_bars, stacked_bars
from factscope.plots.histogram import bin_counts, histogram
from factscope.plots.svg import Series, Style, chart_id, escape
from factscope.plots.templating import format_figure, percent

HOSTILE = [
    "<script>alert(1)</script>",
    '" onmouseover="alert(1)',
    "<img src=x onerror=alert(1)>",
    "javascript:alert(1)",
]


def parsed(svg):
    return ET.fromstring(svg)


def bars(root):
    """The data rectangles: those with a <title> child (legend swatches and label backgrounds have none)."""
    return [rect for rect in root.iter("rect") if rect.find("title") is not None]


def texts(root):
    return ["".join(node.itertext()) for node in root.iter("text")]


def test_bin_counts_put_each_value_in_its_bin_and_clip_the_ends():
    values = [0.0, 0.05, 0.1, 0.95, 1.0, 1.5, -0.2, math.nan, 0.55]
    counts = bin_counts(values, bins=10)
    assert counts == [3, 1, 0, 0, 0, 1, 0, 0, 0, 3]
    assert bin_counts([2.0, 3.0, 4.0], bins=2, low=2.0, high=4.0) == [1, 2]
    with pytest.raises(ValueError):
        bin_counts([0.5], bins=0)
    with pytest.raises(ValueError):
        bin_counts([0.5], low=1.0, high=1.0)


def test_histogram_labels_every_bar_with_its_count_and_the_title_with_n():
    root = parsed(histogram([0.1, 0.15, 0.9], title="F1", x_label="F1 per record", bins=5))
    assert root.find("title").text == "F1 (n=3)"
    heights = [float(rect.get("height")) for rect in bars(root)]
    assert len(heights) == 5 and heights[0] > 0 and heights[1:4] == [0.0, 0.0, 0.0]
    assert heights[0] == pytest.approx(2 * heights[4])
    labels = texts(root)
    assert labels.count("0") >= 3 and "2" in labels and "1" in labels and "F1 per record" in labels


def test_grouped_bar_lengths_are_in_proportion_and_missing_values_say_n_a():
    root = parsed(grouped_bars(["a", "b"], [Series("P"), Series("R")], [[1.0, 0.5], [0.25, None]], title="t"))
    widths = [float(rect.get("width")) for rect in bars(root)]
    assert len(widths) == 4
    assert (
        widths[1] == pytest.approx(widths[0] / 2)
        and widths[2] == pytest.approx(widths[0] / 4)
        and widths[3] == 0
    )
    labels = texts(root)
    assert ["1.00", "0.50", "0.25", "n/a"] == [t for t in labels if t in ("1.00", "0.50", "0.25", "n/a")]
    assert "P" in labels and "R" in labels
    assert [rect.find("title").text for rect in bars(root)][3] == "b \u2014 R: n/a"
    with pytest.raises(ValueError):
        grouped_bars(["a"], [Series("P"), Series("R")], [[1.0]], title="t")


def test_values_above_the_maximum_are_clipped_to_the_axis():
    root = parsed(bar_list([("high", 3.0), ("full", 1.0)], title="t"))
    widths = [float(rect.get("width")) for rect in bars(root)]
    assert widths[0] == pytest.approx(widths[1]) and "3.00" in texts(root)


def test_stacked_segments_split_the_bar_by_share_and_end_with_the_total():
    root = parsed(
        stacked_bars(
            ["zero", "none"], [Series("E"), Series("N"), Series("C")], [[2, 1, 1], [0, 0, 0]], title="labels"
        )
    )
    segments = bars(root)
    widths = [float(rect.get("width")) for rect in segments]
    assert len(segments) == 3
    assert widths[0] == pytest.approx(2 * widths[1]) and widths[1] == pytest.approx(widths[2])
    assert float(segments[1].get("x")) == pytest.approx(float(segments[0].get("x")) + widths[0])
    assert segments[0].find("title").text == "zero \u2014 E: 2 of 4 (50.0%)"
    labels = texts(root)
    assert "50%" in labels and "n=4" in labels and "n=0" in labels
    with pytest.raises(ValueError):
        stacked_bars(["a"], [Series("E")], [[-1]], title="t")


def test_series_are_told_apart_by_pattern_as_well_as_colour():
    svg = grouped_bars(
        ["a"], [Series("P"), Series("R"), Series("F1")], [[0.1, 0.2, 0.3]], title="t", chart="x"
    )
    root = parsed(svg)
    patterns = [p.get("id") for p in root.iter("pattern")]
    assert patterns == ["chart-x-p1", "chart-x-p2"]
    assert [rect.get("fill") for rect in bars(root)] == ["#4c72b0", "url(#chart-x-p1)", "url(#chart-x-p2)"]
    other = grouped_bars(["b"], [Series("P"), Series("R")], [[0.1, 0.2]], title="t")
    assert parsed(other).get("id") != root.get("id")
    with pytest.raises(ValueError):
        grouped_bars(["a"], [Series("P", Style('red" onload="x'))], [[0.1]], title="t")


def test_charts_scale_print_in_black_and_load_nothing():
    for svg in (
        grouped_bars(["a"], [Series("P")], [[0.5]], title="t"),
        stacked_bars(["a"], [Series("E"), Series("N")], [[1, 1]], title="t"),
        histogram([0.5], title="t", x_label="x"),
    ):
        root = parsed(svg)
        assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox"))
        assert {node.get("fill") for node in root.iter("text")} == {"#000"}
        assert "http" not in svg and "@import" not in svg and "<script" not in svg


@pytest.mark.parametrize("hostile", HOSTILE)
def test_every_text_in_a_chart_is_escaped(hostile):
    charts = [
        grouped_bars([hostile], [Series(hostile), Series("R")], [[0.5, 0.5]], title=hostile),
        stacked_bars([hostile], [Series(hostile)], [[1]], title=hostile),
        histogram([0.5], title=hostile, x_label=hostile),
        bar_list([(hostile, 0.5)], title=hostile, name=hostile),
    ]
    for svg in charts:
        root = parsed(svg)
        names = {node.tag for node in root.iter()}
        assert not names & {"script", "img", "a", "foreignObject"}
        assert all(not key.startswith("on") for node in root.iter() for key in node.attrib)
        assert any(hostile in text or hostile[:20] in text for text in texts(root))
        assert "<script" not in svg and "<img" not in svg


def test_chart_ids_are_safe_and_figures_print_as_the_pages_do():
    assert chart_id('a" b<c>') == "chart-a--b-c-"
    assert chart_id(None, 1, 2) == chart_id(None, 1, 2) != chart_id(None, 2, 1)
    assert escape('"<&>') == "&quot;&lt;&amp;&gt;"
    assert [format_figure(v) for v in (0.5, None, 3)] == ["0.5000", "n/a", "3"]
    assert [percent(v) for v in (0.375, None, 1.7, -1)] == ["37.5%", "0.0%", "100.0%", "0.0%"]


def test_trade_off_places_points_in_proportion_and_labels_and_escapes_them():
    from factscope.plots.scatter import Point, trade_off

    points = [Point("low", 0.0, 90.0, "line"), Point("high", 40.0, 100.0, "line"), Point(HOSTILE[0], 20.0, 95.0)]
    root = parsed(trade_off(points, title="Trade-off", x_title="speed", y_title="identical (%)", y_floor=90.0))
    circles = root.findall("circle")
    assert len(circles) == 3
    xs = [float(c.get("cx")) for c in circles]
    ys = [float(c.get("cy")) for c in circles]
    # x from 0 to 42 (5% headroom), y from 90 to 100.5 on a 552 x 312 plot area at (64, 36)
    assert xs[0] == pytest.approx(64.0) and xs[1] == pytest.approx(64 + 40 / 42 * 552, abs=0.1)
    assert ys[0] == pytest.approx(36 + 312, abs=0.1) and ys[2] == pytest.approx(36 + (1 - 5 / 10.5) * 312, abs=0.1)
    assert len(root.findall("polyline")) == 1  # the two points of "line" are joined; the lone point is not
    assert HOSTILE[0] in texts(root) and "<script>" not in trade_off(points, title="t", x_title="x", y_title="y")
    with pytest.raises(ValueError):
        trade_off([], title="t", x_title="x", y_title="y")
