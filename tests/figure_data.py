"""What a matplotlib figure plots, read back from its artists, so that tests of plotting code can
check the data each line, bar or marker shows (numbers worked out by hand) without comparing
pixels. Rendering is patched out: `drawn(module)` records each figure the module passes to its
`png` (every report and reproduction module imports `png` from `bloatlab.report.html`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_hex, to_rgba
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Annotation

PNG = b"\x89PNG fake"  # what a patched `png` returns


@contextmanager
def drawn(*modules: ModuleType) -> Iterator[list[Figure]]:
    """Within the block, every figure one of `modules` renders with `png` is appended to the
    yielded list (in drawing order) instead of being rendered."""
    figures: list[Figure] = []

    def record(figure: Figure) -> bytes:
        figures.append(figure)
        return PNG

    with pytest.MonkeyPatch.context() as patch:
        for module in modules:
            patch.setattr(module, "png", record)
        yield figures


@dataclass(frozen=True)
class Line:
    label: str
    x: list[float]
    y: list[float]
    style: str  # "-", "--", ":", "-." or "None" (markers only)
    marker: str
    color: Any


def lines(ax: Axes, *, unlabelled: bool = False) -> list[Line]:
    """The lines of `ax` in drawing order (plot, step, axhline, axvline, errorbar's data line);
    those matplotlib labels `_child…` (no label given) only when `unlabelled`."""
    out = []
    for artist in ax.get_lines():
        label = str(artist.get_label())
        if label.startswith("_") and not unlabelled:
            continue
        out.append(
            Line(
                label,
                _floats(artist.get_xdata()),
                _floats(artist.get_ydata()),
                str(artist.get_linestyle()),
                str(artist.get_marker()),
                artist.get_color(),
            )
        )
    return out


def line(ax: Axes, label: str) -> Line:
    """The one line of `ax` labelled `label`."""
    found = [entry for entry in lines(ax) if entry.label == label]
    assert len(found) == 1, f"{len(found)} lines labelled {label!r}: {[e.label for e in lines(ax)]}"
    return found[0]


def horizontal_levels(ax: Axes) -> list[float]:
    """The y of every horizontal reference line (axhline) of `ax`."""
    return [
        entry.y[0]
        for entry in lines(ax, unlabelled=True)
        if len(entry.y) == 2 and entry.y[0] == entry.y[1] and entry.x == [0.0, 1.0]
    ]


def vertical_positions(ax: Axes) -> list[float]:
    """The x of every vertical reference line (axvline) of `ax`."""
    return [
        entry.x[0]
        for entry in lines(ax, unlabelled=True)
        if len(entry.x) == 2 and entry.x[0] == entry.x[1] and entry.y == [0.0, 1.0]
    ]


@dataclass(frozen=True)
class Errorbar:
    label: str
    x: list[float]
    y: list[float]
    error: list[float]  # half the bar's height at each point (0 where it has none)


def errorbars(ax: Axes) -> list[Errorbar]:
    """Each `errorbar` call of `ax`: its points and symmetric error."""
    out = []
    for container in ax.containers:
        if not isinstance(container, ErrorbarContainer):
            continue
        data_line, _caps, bars = container.lines
        assert isinstance(data_line, Line2D)
        x, y = _floats(data_line.get_xdata()), _floats(data_line.get_ydata())
        error = [0.0] * len(y)
        if bars:
            collection = bars[0]
            assert isinstance(collection, LineCollection)
            for segment in collection.get_segments():
                (x0, y0), (_x1, y1) = segment
                error[x.index(float(x0))] = abs(float(y1) - float(y0)) / 2
        out.append(Errorbar(str(container.get_label()), x, y, error))
    return out


@dataclass(frozen=True)
class Bars:
    label: str
    x: list[float]  # centre of each bar
    heights: list[float]
    bottoms: list[float]


def bars(ax: Axes) -> list[Bars]:
    """Each `bar` call of `ax` (one per series), bars in drawing order."""
    out = []
    for container in ax.containers:
        if not isinstance(container, BarContainer):
            continue
        patches = list(container.patches)
        out.append(
            Bars(
                str(container.get_label()),
                [float(p.get_x() + p.get_width() / 2) for p in patches],
                [float(p.get_height()) for p in patches],
                [float(p.get_y()) for p in patches],
            )
        )
    return out


def texts(ax: Axes) -> list[str]:
    """The text drawn inside `ax` (annotations, `ax.text`)."""
    return [t.get_text() for t in ax.texts]


def legend_labels(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


@dataclass(frozen=True)
class Scatter:
    label: str
    x: list[float]
    y: list[float]
    colours: list[str]  # face colours as `colour` gives them: one for all points, or one each


def scatters(ax: Axes, *, unlabelled: bool = False) -> list[Scatter]:
    """Each `scatter` call of `ax` in drawing order (also those without points, drawn for a
    legend entry); those matplotlib labels `_child…` (no label given) only when `unlabelled`."""
    out = []
    for collection in ax.collections:
        if not isinstance(collection, PathCollection):
            continue
        label = str(collection.get_label())
        if label.startswith("_") and not unlabelled:
            continue
        offsets = np.asarray(collection.get_offsets(), dtype=float).reshape(-1, 2)
        out.append(
            Scatter(
                label,
                _floats(offsets[:, 0]),
                _floats(offsets[:, 1]),
                [to_hex(rgba, keep_alpha=True) for rgba in collection.get_facecolors()],
            )
        )
    return out


@dataclass(frozen=True)
class Segments:
    label: str
    segments: list[tuple[float, float, float, float]]  # (x0, y0, x1, y1) of each segment


def segments(ax: Axes) -> list[Segments]:
    """Each `hlines` / `vlines` call of `ax` (a LineCollection; not errorbar's bars), with its
    label as given (matplotlib's `_child…` when none)."""
    in_errorbars = {
        id(collection)
        for container in ax.containers
        if isinstance(container, ErrorbarContainer)
        for collection in container.lines[2]
    }
    out = []
    for collection in ax.collections:
        if not isinstance(collection, LineCollection) or id(collection) in in_errorbars:
            continue
        out.append(
            Segments(
                str(collection.get_label()),
                [
                    (float(s[0][0]), float(s[0][1]), float(s[-1][0]), float(s[-1][1]))
                    for s in collection.get_segments()
                ],
            )
        )
    return out


def annotations(ax: Axes) -> list[tuple[str, tuple[float, float]]]:
    """Each `annotate` of `ax`: its text and the data point it marks."""
    return [
        (t.get_text(), (float(t.xy[0]), float(t.xy[1])))
        for t in ax.texts
        if isinstance(t, Annotation)
    ]


@dataclass(frozen=True)
class BarLook:
    label: str
    colours: list[str]  # each bar's face colour as "#rrggbbaa" (see `colour`)
    hatches: list[str]  # each bar's hatch pattern ("" for none)


def bar_looks(ax: Axes) -> list[BarLook]:
    """How each `bar` call of `ax` is drawn (in the order of `bars`): colour and hatch per bar,
    e.g. to tell the paper's hatched bars from ours."""
    out = []
    for container in ax.containers:
        if not isinstance(container, BarContainer):
            continue
        out.append(
            BarLook(
                str(container.get_label()),
                [to_hex(p.get_facecolor(), keep_alpha=True) for p in container.patches],
                [str(p.get_hatch() or "") for p in container.patches],
            )
        )
    return out


def colour(spec: Any, alpha: float | None = None) -> str:
    """A matplotlib colour ("C3", "k", …) with `alpha` as `bar_looks` reports it."""
    return to_hex(to_rgba(spec, alpha), keep_alpha=True)


@dataclass(frozen=True)
class Axis:
    label: str
    scale: str  # "linear", "log", …
    ticks: list[float]  # tick positions
    tick_labels: list[str]  # the text at each tick


def x_axis(ax: Axes) -> Axis:
    """The x axis of `ax`: its label, scale and ticks."""
    return Axis(
        ax.get_xlabel(),
        ax.get_xscale(),
        _floats(ax.get_xticks()),
        [t.get_text() for t in ax.get_xticklabels()],
    )


def y_axis(ax: Axes) -> Axis:
    """The y axis of `ax`: its label, scale and ticks."""
    return Axis(
        ax.get_ylabel(),
        ax.get_yscale(),
        _floats(ax.get_yticks()),
        [t.get_text() for t in ax.get_yticklabels()],
    )


def _floats(values: Any) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=float)]
