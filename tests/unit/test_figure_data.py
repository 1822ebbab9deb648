"""The test helper that reads back what a figure plots (`tests/figure_data.py`)."""

from __future__ import annotations

import math

import pytest
from matplotlib.figure import Figure

from figure_data import (
    annotations,
    bar_looks,
    bars,
    colour,
    errorbars,
    horizontal_levels,
    legend_labels,
    line,
    lines,
    scatters,
    segments,
    texts,
    vertical_positions,
    x_axis,
    y_axis,
)


def test_each_kind_of_artist_is_read_back() -> None:
    ax = Figure().subplots()
    ax.plot([1, 2], [3, 4], "--", color="C1", label="a")
    ax.step([0, 1], [5, 6], where="post", label="b")
    ax.plot([7], [8])  # unlabelled
    ax.axhline(2.5)
    ax.axvline(1.5)
    ax.errorbar([1, 2, 3], [10, 20, 30], yerr=[1, 0, 2], label="e")
    ax.bar([0, 1], [4, 5], width=0.5, bottom=[1, 1], label="bars")
    ax.text(0, 0, "note")
    ax.legend()
    assert [(e.label, e.x, e.y) for e in lines(ax)][:2] == [
        ("a", [1.0, 2.0], [3.0, 4.0]),
        ("b", [0.0, 1.0], [5.0, 6.0]),
    ]
    assert line(ax, "a").style == "--" and line(ax, "a").color == "C1"
    assert horizontal_levels(ax) == [2.5] and vertical_positions(ax) == [1.5]
    [bar] = errorbars(ax)
    assert (bar.label, bar.x, bar.y, bar.error) == (
        "e",
        [1.0, 2.0, 3.0],
        [10.0, 20.0, 30.0],
        [1.0, 0.0, 2.0],
    )
    [b] = bars(ax)
    assert (b.label, b.x, b.heights, b.bottoms) == ("bars", [0.0, 1.0], [4.0, 5.0], [1.0, 1.0])
    assert texts(ax) == ["note"]
    assert legend_labels(ax) == ["a", "b", "e", "bars"]
    assert any(math.isclose(e.y[0], 8.0) for e in lines(ax, unlabelled=True))


def test_a_label_must_name_exactly_one_line() -> None:
    ax = Figure().subplots()
    ax.plot([1], [1], label="x")
    ax.plot([2], [2], label="x")
    with pytest.raises(AssertionError, match="2 lines labelled 'x'"):
        line(ax, "x")


def test_bar_colours_hatches_and_axes_are_read_back() -> None:
    ax = Figure().subplots()
    ax.bar([0, 1], [1, 2], color="C3", label="ours")
    ax.bar([0.5, 1.5], [3, 4], color=["C0", "C1"], alpha=0.35, hatch=["//", ""], label="paper")
    ax.set_xticks([0, 1], ["10KB", "1MB"])
    ax.set_xlabel("buffer")
    ax.set_ylabel("rate (Mb/s)")
    ax.set_yscale("log")
    assert bar_looks(ax)[0].label == "ours" and bar_looks(ax)[0].hatches == ["", ""]
    assert bar_looks(ax)[0].colours == ["#d62728ff"] * 2  # C3 of the default cycle, opaque
    # alpha 0.35 is 89 / 255 → 0x59
    assert bar_looks(ax)[1].colours == ["#1f77b459", "#ff7f0e59"]
    assert bar_looks(ax)[1].colours == [colour("C0", 0.35), colour("C1", 0.35)]
    assert bar_looks(ax)[1].hatches == ["//", ""]
    x = x_axis(ax)
    assert (x.label, x.scale, x.ticks, x.tick_labels) == (
        "buffer",
        "linear",
        [0.0, 1.0],
        ["10KB", "1MB"],
    )
    assert (y_axis(ax).label, y_axis(ax).scale) == ("rate (Mb/s)", "log")


def test_scatters_line_collections_and_annotations_are_read_back() -> None:
    ax = Figure().subplots()
    ax.scatter([0.25], [75], color="C3")  # unlabelled
    ax.scatter([1, 2], [3, 4], color="black", label="paper")
    ax.scatter([], [], color="C0", label="legend only")
    ax.hlines([1, 2], [0, 1], [0.5, 1.5], label="levels")
    ax.vlines(3, 0, 1)
    ax.errorbar([1], [1], yerr=[0.5], label="e")  # its bars are not `segments`
    ax.annotate("g 2, R 2", (0.25, 75), xytext=(4, 3), textcoords="offset points")
    ax.text(0, 0, "plain")
    assert [(s.label, s.x, s.y, s.colours) for s in scatters(ax)] == [
        ("paper", [1.0, 2.0], [3.0, 4.0], ["#000000ff"]),
        ("legend only", [], [], [colour("C0")]),
    ]
    [first] = scatters(ax, unlabelled=True)[:1]
    assert (first.x, first.y, first.colours) == ([0.25], [75.0], ["#d62728ff"])
    found = segments(ax)
    assert [s.segments for s in found] == [
        [(0.0, 1.0, 0.5, 1.0), (1.0, 2.0, 1.5, 2.0)],
        [(3.0, 0.0, 3.0, 1.0)],
    ]
    assert found[0].label == "levels" and found[1].label.startswith("_")
    assert annotations(ax) == [("g 2, R 2", (0.25, 75.0))]
