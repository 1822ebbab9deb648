"""What each ATC'23 figure plots (Figs. 3, 7, 8, 9 and 12): the series drawn and their labels,
bar heights and their groups, unit scaling, the model and the paper's values overlaid, the means
over seeds with failed runs left out, and what a missing point leaves (an empty slot, a NaN bar),
read back from the artists (`figure_data`) of figures drawn from the hand-made sweep tables of
`atc23_tables`, against numbers worked out by hand in the comments."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from types import ModuleType

import pytest
from atc23_tables import (
    FIG3,
    FIG7,
    FIG8,
    FIG9,
    FIG12,
    SENT,
    fig3_results,
    fig3_row,
    fig7_results,
    fig7_row,
    fig8_results,
    fig8_row,
    fig9_results,
    fig9_row,
    fig12_results,
    fig12_row,
    write_flows,
)
from atc23_tables import (
    FIG8_RETRANS as TABLE_FIG8_RETRANS,
)
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bloatlab.reproduce.atc23 import fig3, fig7, fig8, fig9, fig12
from bloatlab.reproduce.atc23._common import CCAS, COLORS, OBBR
from bloatlab.sweep.spec import label
from bloatlab.sweep.table import SweepResults
from figure_data import (
    Bars,
    annotations,
    bar_looks,
    bars,
    colour,
    drawn,
    legend_labels,
    line,
    lines,
    scatters,
    segments,
    x_axis,
)


def draw(module: ModuleType, results: dict[str, SweepResults]) -> Figure:
    """The one figure `module.analyse` draws from `results`."""
    with drawn(module) as figures:
        module.analyse(results, "quick")
    [figure] = figures
    return figure


def approx(values: list[float]) -> object:
    return pytest.approx(values, rel=1e-9, abs=1e-9, nan_ok=True)


def nan_at(values: list[float]) -> list[int]:
    return [i for i, v in enumerate(values) if math.isnan(v)]


# ----- Fig. 3: BBR's share against the model's p (left), stacked goodputs per (g, R) (right) ----

# The configurations in the right panel's order: g = 2 over R, g = 1 over R, then R = 16's gains.
FIG3_SLOTS = ["g2\nR0.5", "g2\nR0.8", "g2\nR1", "g2\nR2", "g2\nR16"]
FIG3_SLOTS += ["g1\nR0.5", "g1\nR0.8", "g1\nR1", "g1\nR2", "g1\nR16"]
FIG3_SLOTS += ["g1.5\nR16", "g3\nR16", "g4\nR16"]
# BBR's shares of FIG3 in %, in that order.
FIG3_BBR = [95.0, 80.0, 70.0, 60.0, 30.0, 10.0, 10.0, 10.0, 10.0, 10.0, 20.0, 40.0, 50.0]
# The model's BBR share 1 - p, p = (R - g + 1)/(gR), clipped to [0, 1], in %, in that order:
# g 2: R 0.5 p = -0.5/1 → 150 → 100; R 0.8 p = -0.2/1.6 → 112.5 → 100; R 1 p = 0 → 100;
# R 2 p = 1/4 → 75; R 16 p = 15/32 → 53.125. g 1: p = R/R = 1 → 0 at every R.
# R 16: g 1.5 p = 15.5/24 → 35.41666…; g 3 p = 14/48 → 70.8333…; g 4 p = 13/64 → 79.6875.
FIG3_MODEL = [100.0, 100.0, 100.0, 75.0, 53.125, 0.0, 0.0, 0.0, 0.0, 0.0]
FIG3_MODEL += [100 * (1 - 15.5 / 24), 100 * (1 - 14 / 48), 79.6875]


def two_panels(module: ModuleType, results: dict[str, SweepResults]) -> tuple[Axes, Axes]:
    """The two panels of the figure `module` draws (Fig. 3: left, right; Fig. 7, 8: top, bottom)."""
    first, second = draw(module, results).axes
    return first, second


def stacked(found: list[Bars]) -> tuple[list[Bars], list[Bars]]:
    """Fig. 3's right panel: each point's BBR bar, then its CUBIC bar on top."""
    return found[0::2], found[1::2]


def test_fig3_model_curve_is_1_minus_p_clipped_to_0_100_percent(tmp_path: Path) -> None:
    left, _ = two_panels(fig3, fig3_results(tmp_path))
    model = line(left, "model: 1 - p")
    # p from -0.6 to 1 in steps of 0.01: 161 points.
    assert len(model.x) == 161
    assert model.x[0] == pytest.approx(-0.6) and model.x[-1] == pytest.approx(1.0)
    assert model.x == approx([x / 100 for x in range(-60, 101)])
    by_p = dict(zip((round(x, 2) for x in model.x), model.y, strict=True))
    # 1 - p in %: 160 → 100 at p = -0.6, 100 at p = 0, 75 at p = 1/4, 20 at p = 0.8, 0 at p = 1.
    assert [by_p[p] for p in (-0.6, -0.25, 0.0, 0.25, 0.5, 0.8, 1.0)] == approx(
        [100.0, 100.0, 100.0, 75.0, 50.0, 20.0, 0.0]
    )
    assert all(0 <= y <= 100 for y in model.y)


def test_fig3_each_point_is_plotted_at_its_model_p_against_bbrs_share_in_percent(
    tmp_path: Path,
) -> None:
    left, _ = two_panels(fig3, fig3_results(tmp_path))
    points = [s for s in scatters(left, unlabelled=True) if s.x]
    marked = annotations(left)
    # p = (R - g + 1)/(gR) (see FIG3_MODEL); BBR's share × 100. g 1 is always at p = 1.
    expected = {
        "g 2, R 0.5": (-0.5, 95.0, "C3"),
        "g 2, R 0.8": (-0.125, 80.0, "C3"),
        "g 2, R 1": (0.0, 70.0, "C3"),
        "g 2, R 2": (0.25, 60.0, "C3"),
        "g 2, R 16": (15 / 32, 30.0, "C3"),
        **{f"g 1, R {r:g}": (1.0, 10.0, "C0") for r in fig3.BUFFERS},
        "g 1.5, R 16": (15.5 / 24, 20.0, "C2"),
        "g 3, R 16": (14 / 48, 40.0, "C2"),
        "g 4, R 16": (13 / 64, 50.0, "C2"),
    }
    assert len(points) == len(marked) == 13
    found = {}
    for point, (text, xy) in zip(points, marked, strict=True):
        [x], [y] = point.x, point.y
        assert xy == pytest.approx((x, y))  # the annotation names the point it marks
        found[text] = (x, y, point.colours)
    assert found.keys() == expected.keys()
    for text, (p, share, spec) in expected.items():
        assert found[text] == (pytest.approx(p), pytest.approx(share), [colour(spec)]), text
    # The legend's markers are in the points' colours.
    assert legend_labels(left) == [
        "model: 1 - p",
        "bloatlab, g = 1",
        "bloatlab, g = 2",
        "bloatlab, R = 16, g = 1.5/3/4",
    ]
    assert [s.colours for s in scatters(left)] == [[colour(c)] for c in ("C0", "C3", "C2")]


def test_fig3_right_panel_stacks_bbr_and_cubic_per_configuration_under_the_model_mark(
    tmp_path: Path,
) -> None:
    _, right = two_panels(fig3, fig3_results(tmp_path))
    assert x_axis(right).tick_labels == FIG3_SLOTS
    assert x_axis(right).ticks == [float(i) for i in range(13)]
    bbr, cubic = stacked(bars(right))
    # Each link is fully used (total 100 %): BBR's bar its share, CUBIC's the rest on top.
    assert [b.x for b in bbr] == [[float(i)] for i in range(13)]
    assert [b.heights[0] for b in bbr] == approx(FIG3_BBR)
    assert [b.bottoms for b in bbr] == [[0.0]] * 13
    assert [c.x for c in cubic] == [[float(i)] for i in range(13)]
    assert [c.heights[0] for c in cubic] == approx([100 - s for s in FIG3_BBR])
    assert [c.bottoms[0] for c in cubic] == approx(FIG3_BBR)
    assert {look.colours[0] for look in bar_looks(right)[0::2]} == {colour("C0")}
    assert {look.colours[0] for look in bar_looks(right)[1::2]} == {colour("C1")}
    marks = lines(right, unlabelled=True)
    assert [m.x for m in marks] == [approx([i - 0.3, i + 0.3]) for i in range(13)]
    assert [m.y for m in marks] == [approx([m, m]) for m in FIG3_MODEL]
    assert legend_labels(right) == ["model", "BBR", "CUBIC"]


def test_fig3_averages_seeds_scales_by_the_links_share_taken_and_leaves_failed_runs_out(
    tmp_path: Path,
) -> None:
    # g 2, R 0.5: shares 70 % of a full link (total 100 %) and 90 % of 10 of 20 Mb/s (total
    # 50 %); the failed run's 0 % is left out. Mean share 80 %, mean total 75 %: BBR's bar
    # 0.8 × 75 = 60, CUBIC's 15 on it, the model's mark (BBR takes all) at 75.
    # g 2, R 2: 60 % of 10 of 20 Mb/s: total 50 %, BBR 30, CUBIC 20, the model 0.75 × 50 = 37.5.
    extra = (
        fig3_row(2.0, 0.5, 0.7, seed=1),
        fig3_row(2.0, 0.5, 0.9, link=10e6, seed=2),
        fig3_row(2.0, 0.5, 0.0, seed=3, status="failed"),
        fig3_row(2.0, 2.0, 0.6, link=10e6),
    )
    points = {k: v for k, v in FIG3.items() if k not in {(2.0, 0.5), (2.0, 2.0)}}
    left, right = two_panels(fig3, fig3_results(tmp_path, points, extra))
    bbr, cubic = stacked(bars(right))
    assert [bbr[0].heights[0], cubic[0].heights[0], cubic[0].bottoms[0]] == approx([60, 15, 60])
    assert [bbr[3].heights[0], cubic[3].heights[0], cubic[3].bottoms[0]] == approx([30, 20, 30])
    marks = lines(right, unlabelled=True)
    assert (marks[0].y, marks[3].y) == (approx([75, 75]), approx([37.5, 37.5]))
    # The left panel plots the mean share, 80 % (60 % at R 2: a share, not a goodput).
    shares = {text: xy for text, xy in annotations(left)}
    assert shares["g 2, R 0.5"] == pytest.approx((-0.5, 80.0))
    assert shares["g 2, R 2"] == pytest.approx((0.25, 60.0))


def test_fig3_a_missing_point_leaves_its_slot_empty_and_the_legend_whole(tmp_path: Path) -> None:
    # No (g 2, R 0.5) nor (g 1, R 16): slots 0 and 9 stay empty, every slot keeps its tick.
    # The legend's entries once came from slot 0's bars only: without that point it was empty.
    points = {k: v for k, v in FIG3.items() if k not in {(2.0, 0.5), (1.0, 16.0)}}
    left, right = two_panels(fig3, fig3_results(tmp_path, points))
    kept = [i for i in range(13) if i not in (0, 9)]
    bbr, cubic = stacked(bars(right))
    assert [b.x[0] for b in bbr] == [float(i) for i in kept]
    assert [b.heights[0] for b in bbr] == approx([FIG3_BBR[i] for i in kept])
    assert [m.y[0] for m in lines(right, unlabelled=True)] == approx([FIG3_MODEL[i] for i in kept])
    assert x_axis(right).tick_labels == FIG3_SLOTS
    assert legend_labels(right) == ["model", "BBR", "CUBIC"]
    assert (bbr[0].label, cubic[0].label) == ("BBR", "CUBIC")
    marked = [text for text, _ in annotations(left)]
    assert len(marked) == 11 and "g 2, R 0.5" not in marked and "g 1, R 16" not in marked
    assert len([s for s in scatters(left, unlabelled=True) if s.x]) == 11


# ----- Fig. 7: retransmission ratio (top) and goodput (bottom) per algorithm and condition -----

FIG7_NAMES = list(CCAS)  # the series, in drawing order
FIG7_TICKS = [
    *(f"100 Mb/s\n40 ms\nR=0.25\nloss {loss}" for loss in ("0%", "1%", "2%")),
    *(f"40 Mb/s\n100 ms\nR=0.25\nloss {loss}" for loss in ("0%", "1%", "2%")),
    *(f"60 Mb/s\n60 ms\nR={r}" for r in ("0.2", "0.4", "0.6")),
]
# FIG7's retransmission ratios in %, per algorithm over the conditions of FIG7_TICKS.
FIG7_RETRANS = {
    "BBR": [30.0] * 6 + [30.0, 20.0, 10.0],
    "B3R": [25.0] * 6 + [30.0, 20.0, 10.0],
    "BBR-S": [10.0] * 6 + [20.0, 10.0, 5.0],
    "oBBR-0.5": [0.51] * 5 + [2.82, 1.54, 0.51, 0.3],
    "oBBR-0.75": [0.62] * 5 + [3.06, 1.55, 0.61, 0.3],
    "oBBR-1": [1.97] * 5 + [3.93, 3.1, 1.78, 1.0],
    "BBRv2": [0.1] * 9,
    "BBRv2 (Linux)": [0.1] * 9,
    "CUBIC": [0.2] * 9,
}
WIDTH7 = 0.85 / 9  # nine algorithms share 0.85 of each condition's slot


def test_fig7_top_draws_each_algorithms_retransmission_ratio_in_percent_per_condition(
    tmp_path: Path,
) -> None:
    top, bottom = two_panels(fig7, fig7_results(tmp_path))
    found = bars(top)
    assert [b.label for b in found] == FIG7_NAMES
    for b in found:
        assert b.heights == approx(FIG7_RETRANS[b.label]), b.label
    # Algorithm i's bar in condition j is centred at j + (i - 4) × 0.85/9: BBR's first at
    # -0.3778, oBBR-0.75's (i = 4) on the tick, CUBIC's last at 8.3778.
    for i, b in enumerate(found):
        assert b.x == approx([j + (i - 4) * WIDTH7 for j in range(9)])
    assert found[0].x[0] == pytest.approx(-0.37778, abs=1e-5)
    assert found[-1].x[-1] == pytest.approx(8.37778, abs=1e-5)
    assert x_axis(bottom).tick_labels == FIG7_TICKS
    assert x_axis(bottom).ticks == [float(j) for j in range(9)]
    assert legend_labels(top) == ["paper (text)", *FIG7_NAMES]


def test_fig7_bottom_draws_each_algorithms_goodput_as_percent_of_its_link(tmp_path: Path) -> None:
    # Algorithm i in condition j takes (50 + 5i + j) % of its link (100, 40 or 60 Mb/s): every
    # bar differs, so a swapped series or condition shows.
    conditions = [*fig7._lossy_conditions(), "R0.2", "R0.4", "R0.6"]
    points = {
        (c, cca): (FIG7[(c, cca)][0], (50 + 5 * i + j) / 100)
        for i, cca in enumerate(FIG7_NAMES)
        for j, c in enumerate(conditions)
    }
    top, bottom = two_panels(fig7, fig7_results(tmp_path, points))
    found = bars(bottom)
    assert len(found) == 9
    for i, b in enumerate(found):
        assert b.heights == approx([50 + 5 * i + j for j in range(9)]), FIG7_NAMES[i]
        assert b.x == approx([j + (i - 4) * WIDTH7 for j in range(9)])
    # BBR 50–58 %, CUBIC (i = 8) 90–98 %.
    assert found[0].heights[0] == pytest.approx(50) and found[-1].heights[-1] == pytest.approx(98)
    # The bottom's series are unlabelled, told apart by the colour and hatch both panels share.
    for ax in (top, bottom):
        looks = bar_looks(ax)
        assert [look.colours[0] for look in looks] == [colour(COLORS[c]) for c in FIG7_NAMES]
        assert [look.hatches[0] for look in looks] == ["", "", "", "xx", "..", "//", "", "--", ""]
    assert legend_labels(bottom) == []


def test_fig7_marks_the_papers_obbr_ratios_on_their_bars_at_40_mbps_100_ms(
    tmp_path: Path,
) -> None:
    top, _ = two_panels(fig7, fig7_results(tmp_path))
    marks = scatters(top, unlabelled=True)
    # oBBR-μ (i = 3, 4, 5) at 40/100/0 % (slot 3) and 40/100/2 % (slot 5): the paper's 0.51 and
    # 2.82 %, 0.62 and 3.06 %, 1.97 and 3.93 % (§5.2.1).
    assert [(m.x, m.y) for m in marks] == [
        (approx([3 - WIDTH7, 5 - WIDTH7]), approx([0.51, 2.82])),
        (approx([3.0, 5.0]), approx([0.62, 3.06])),
        (approx([3 + WIDTH7, 5 + WIDTH7]), approx([1.97, 3.93])),
    ]
    assert marks[0].label == "paper (text)" and [m.label[0] for m in marks[1:]] == ["_", "_"]
    assert {m.colours[0] for m in marks} == {colour("black")}


def test_fig7_averages_ratios_and_goodputs_over_seeds_leaving_failed_runs_out(
    tmp_path: Path,
) -> None:
    # BBR at 100 Mb/s, 40 ms, 0 % loss: seeds retransmit 10 % of 2^30 and 30 % of 2^28 bytes
    # sent: the mean ratio is 20 % (the summed bytes' would be 0.175/1.25 = 14 %); goodputs 60
    # and 80 % of the link: 70 %. The failed run's 90 % and 0 % are left out.
    extra = (
        fig7_row("100/40/0%", "BBR", 0.1, 0.6, seed=1),
        fig7_row("100/40/0%", "BBR", 0.3, 0.8, sent=SENT / 4, seed=2),
        fig7_row("100/40/0%", "BBR", 0.9, 0.0, seed=3, status="failed"),
    )
    points = {k: v for k, v in FIG7.items() if k != ("100/40/0%", "BBR")}
    top, bottom = two_panels(fig7, fig7_results(tmp_path, points, extra))
    assert bars(top)[0].heights == approx([20.0, *FIG7_RETRANS["BBR"][1:]])
    assert bars(bottom)[0].heights == approx([70.0] + [90.0] * 8)


def test_fig7_a_point_without_a_finished_run_is_a_nan_bar(tmp_path: Path) -> None:
    # BBR at 100/40/0 % (slot 0) and CUBIC at R 0.6 (slot 8) only failed.
    extra = (
        fig7_row("100/40/0%", "BBR", 0.3, 0.9, status="failed"),
        fig7_row("R0.6", "CUBIC", 0.002, 0.8, status="failed"),
    )
    points = {k: v for k, v in FIG7.items() if k not in {("100/40/0%", "BBR"), ("R0.6", "CUBIC")}}
    top, bottom = two_panels(fig7, fig7_results(tmp_path, points, extra))
    for ax in (top, bottom):
        found = bars(ax)
        assert (nan_at(found[0].heights), nan_at(found[-1].heights)) == ([0], [8])
        assert all(not nan_at(b.heights) for b in found[1:-1])
    assert bars(top)[0].heights[1:] == approx(FIG7_RETRANS["BBR"][1:])
    assert [b.label for b in bars(top)] == FIG7_NAMES


# ----- Fig. 8: retransmission ratio per flow (top) and goodput per flow (bottom), 1–5 flows -----

FIG8_NAMES = [name for name in CCAS if name != "BBRv2 (Linux)"]  # `--quick`'s algorithms
# FIG8's retransmission ratios per flow in %, 1–5 flows, a group's flows averaged: BBR's 2 flows
# 10 and 14 %: 12 %.
FIG8_RETRANS = {
    name: [100 * (sum(v) / len(v) if isinstance(v, list) else v) for v in ratios]
    for name, ratios in TABLE_FIG8_RETRANS.items()
}


def test_fig8_top_draws_each_algorithms_retransmission_ratio_per_flow_by_flow_count(
    tmp_path: Path,
) -> None:
    top, bottom = two_panels(fig8, fig8_results(tmp_path))
    found = bars(top)
    assert [b.label for b in found] == FIG8_NAMES
    for b in found:
        assert b.heights == approx(FIG8_RETRANS[b.label]), b.label
    # Eight algorithms share 0.85 of each flow count's slot: algorithm i at n - 1 + (i - 3.5)
    # × 0.10625, BBR's first bar at -0.371875.
    for i, b in enumerate(found):
        assert b.x == approx([n + (i - 3.5) * 0.10625 for n in range(5)])
    assert found[0].x[0] == pytest.approx(-0.371875)
    assert x_axis(bottom).tick_labels == ["1 flow", "2 flows", "3 flows", "4 flows", "5 flows"]
    assert [look.colours[0] for look in bar_looks(top)] == [colour(COLORS[c]) for c in FIG8_NAMES]
    assert legend_labels(top) == FIG8_NAMES


def test_fig8_bottom_draws_goodput_per_flow_in_mbps_under_the_links_payload_per_flow(
    tmp_path: Path,
) -> None:
    # Algorithm i delivers (50 + 5i) % of 100 Mb/s over its n flows: (50 + 5i)/n Mb/s per flow;
    # BBR 50, 25, 16.67, 12.5, 10; CUBIC (i = 7) 85, 42.5, 28.33, 21.25, 17.
    utilisation = {
        (cca, n): (50 + 5 * i) / 100 for i, cca in enumerate(FIG8_NAMES) for n in range(1, 6)
    }
    _, bottom = two_panels(fig8, fig8_results(tmp_path, utilisation=utilisation))
    found = bars(bottom)
    assert len(found) == 8
    for i, b in enumerate(found):
        assert b.heights == approx([(50 + 5 * i) / n for n in range(1, 6)]), FIG8_NAMES[i]
    assert found[-1].heights == approx([85.0, 42.5, 85 / 3, 21.25, 17.0])
    assert [look.colours[0] for look in bar_looks(bottom)] == [
        colour(COLORS[c]) for c in FIG8_NAMES
    ]
    # The link's payload, 100 Mb/s × 1252/1304 = 96.0123 Mb/s, over n flows: 96.01, 48.01,
    # 32.00, 24.00, 19.20, each a dash across its slot (n - 1 ± 0.45).
    [fair] = segments(bottom)
    assert fair.label == "link payload / n"
    payload = 100 * 1252 / 1304
    assert fair.segments == [
        approx([n - 1 - 0.45, payload / n, n - 1 + 0.45, payload / n]) for n in range(1, 6)
    ]
    assert fair.segments[2][1] == pytest.approx(32.00409, abs=1e-5)
    assert legend_labels(bottom) == ["link payload / n"]


def test_fig8_averages_over_seeds_leaving_failed_runs_out(tmp_path: Path) -> None:
    # 3 BBR flows: seeds retransmit 10 % and 20 % per flow (15 %) and deliver 90 and 60 % of
    # 100 Mb/s, 30 and 20 Mb/s per flow (25 Mb/s); the failed run's 90 % and 0 are left out.
    extra = (
        fig8_row("BBR", 3, 0.1, seed=1),
        fig8_row("BBR", 3, 0.2, utilisation=0.6, seed=2),
        fig8_row("BBR", 3, 0.9, utilisation=0.0, seed=3, status="failed"),
    )
    points = {k: v for k, v in FIG8.items() if k != ("BBR", 3)}
    top, bottom = two_panels(fig8, fig8_results(tmp_path, points, extra))
    assert bars(top)[0].heights == approx([8.0, 12.0, 15.0, 14.0, 13.0])
    assert bars(bottom)[0].heights == approx([90.0, 45.0, 25.0, 22.5, 18.0])


def test_fig8_a_missing_point_is_a_nan_bar_and_its_algorithm_stays_drawn(tmp_path: Path) -> None:
    # CUBIC's 2 flows and BBR's 5 never finished. CUBIC was left out of the figure altogether
    # when its 2-flow point was missing; the Linux BBRv2, not run by `--quick`, is left out.
    points = {k: v for k, v in FIG8.items() if k not in {("CUBIC", 2), ("BBR", 5)}}
    top, bottom = two_panels(fig8, fig8_results(tmp_path, points))
    assert [b.label for b in bars(top)] == FIG8_NAMES
    for ax in (top, bottom):
        found = bars(ax)
        assert (nan_at(found[0].heights), nan_at(found[-1].heights)) == ([4], [1])
    assert bars(top)[-1].heights == approx([0.2, math.nan, 0.2, 0.2, 0.2])
    assert bars(bottom)[-1].heights == approx([85.0, math.nan, 30.0, 22.5, 18.0])


def test_fig8_draws_the_linux_bbrv2_where_it_ran_in_the_order_of_the_algorithms(
    tmp_path: Path,
) -> None:
    # `--full` adds the Linux BBRv2 (1 % per flow at every count): nine series, 0.85/9 wide.
    linux = {("BBRv2 (Linux)", n): 0.01 for n in range(1, 6)}
    top, _ = two_panels(fig8, fig8_results(tmp_path, {**FIG8, **linux}))
    found = bars(top)
    assert [b.label for b in found] == list(CCAS)
    assert found[7].heights == approx([1.0] * 5)
    assert found[7].x == approx([n + (7 - 4) * 0.85 / 9 for n in range(5)])


# ----- Fig. 9: (a) estimate, (b) RTT, (c) retransmitted, (d) goodput over time, one seed each --

FIG9_NAMES = ["BBR", "oBBR-0.5", "oBBR-0.75", "oBBR-1"]
HALF_SECONDS_TO_40 = [i / 2 for i in range(81)]  # the series' times, 0–40 s every 0.5 s


def fig9_panels(results: dict[str, SweepResults]) -> dict[str, Axes]:
    axes = draw(fig9, results).axes
    return {ax.get_title(loc="left"): ax for ax in axes}


def test_fig9_link_rate_alternates_40_and_10_mbps_every_10_s_as_the_schedule_does(
    tmp_path: Path,
) -> None:
    panels = fig9_panels(fig9_results(tmp_path, FIG9))
    assert list(panels) == [
        "(a) bandwidth estimate",
        "(b) RTT",
        "(c) retransmissions",
        "(d) goodput",
    ]
    link = line(panels["(a) bandwidth estimate"], "link rate")
    # 0–60 s every 50 ms: 1201 points.
    assert len(link.x) == 1201 and link.x[0] == 0 and link.x[-1] == pytest.approx(60)
    by_t = dict(zip((round(t, 2) for t in link.x), link.y, strict=True))
    # 40 Mb/s until 10 s, then 10, 40, 10, 40, 10 Mb/s for 10 s each.
    spots = [0.0, 5.0, 9.95, 10.05, 15.0, 19.95, 20.05, 25.0, 35.0, 45.0, 55.0, 59.95]
    assert [by_t[t] for t in spots] == [40, 40, 40, 10, 10, 10, 40, 40, 10, 40, 10, 10]
    # and so does the schedule the sweep runs, at every point away from a switch.
    steps = [(float(s["at"].removesuffix("s")), s["rate"]) for s in fig9.schedule(60)]
    for t, y in zip(link.x, link.y, strict=True):
        if abs(t / 10 - round(t / 10)) > 1e-6:
            rate = next((r for at, r in reversed(steps) if at <= t), "40Mbps")
            assert y == float(rate.removesuffix("Mbps")), t


def expected_estimate(follow: tuple[float, float]) -> list[float]:
    """The estimate `write_flows` writes, in Mb/s: 40, but 9 from 10 + follow[0] s until 20 s
    and from 30 + follow[1] s until 40 s."""
    return [
        9.0 if 10 + follow[0] <= t < 20 or 30 + follow[1] <= t < 40 else 40.0
        for t in HALF_SECONDS_TO_40
    ]


def test_fig9_draws_each_algorithms_estimate_rtt_retransmissions_and_goodput_over_time(
    tmp_path: Path,
) -> None:
    panels = fig9_panels(fig9_results(tmp_path, FIG9))
    estimate = panels["(a) bandwidth estimate"]
    assert [entry.label for entry in lines(estimate)] == ["link rate", *FIG9_NAMES]
    assert legend_labels(estimate) == ["link rate", *FIG9_NAMES]
    # The sender's estimate in Mb/s (never the other flow's 0): BBR low from 16 to 19.5 s and
    # 36 to 39.5 s (8 points each); oBBR-0.5 from 11.5 and 32.5 s (17 and 15 points).
    follows = {"BBR": (6, 6), "oBBR-0.5": (1.5, 2.5), "oBBR-0.75": (3, 3), "oBBR-1": (2, 2)}
    for cca, follow in follows.items():
        drawn_line = line(estimate, cca)
        assert drawn_line.x == HALF_SECONDS_TO_40
        assert drawn_line.y == expected_estimate(follow), cca
        assert drawn_line.color == COLORS[cca]
    assert line(estimate, "BBR").y.count(9.0) == 16
    assert line(estimate, "oBBR-0.5").y.count(9.0) == 17 + 15
    for cca in FIG9_NAMES:
        # srtt 0.1 s: 100 ms; 1e5 bytes retransmitted per s: 0.1·t MB, 4 MB at 40 s.
        rtt = line(panels["(b) RTT"], cca)
        assert (rtt.x, rtt.y) == (HALF_SECONDS_TO_40, approx([100.0] * 81))
        retrans = line(panels["(c) retransmissions"], cca)
        assert retrans.x == HALF_SECONDS_TO_40
        assert retrans.y == approx([0.1 * t for t in HALF_SECONDS_TO_40])
        # 3e6 bytes delivered per s = 24 Mb/s in each 1 s bin up to 40 s, none after; bins end
        # at 1, 2, …, 120 s.
        goodput = line(panels["(d) goodput"], cca)
        assert goodput.x == [float(t) for t in range(1, 121)]
        assert goodput.y == approx([24.0] * 40 + [0.0] * 80)


def rewrite_series(tmp_path: Path, run: str, until: float, follow: list[float]) -> None:
    """Replace run `run`'s flows.parquet by one `until` s long (estimate low 9 Mb/s)."""
    folder = tmp_path / "runs" / run
    shutil.rmtree(folder)
    write_flows(folder, follow, 9e6, until)


def test_fig9_cuts_estimate_and_rtt_at_60_s_and_retransmissions_at_the_fetchs_end(
    tmp_path: Path,
) -> None:
    # BBR's fetch ends at 40 s but its series runs to 70 s: the estimate and RTT are drawn for
    # the first minute (0–60 s, 121 points), the retransmissions for the session (0–40 s, 81),
    # the goodput over the 1 s bins with data (24 Mb/s up to 70 s).
    results = fig9_results(tmp_path, FIG9)
    rewrite_series(tmp_path, "run-0", 70.0, [6.0, 6.0])
    panels = fig9_panels(results)
    first_minute = [i / 2 for i in range(121)]
    assert line(panels["(a) bandwidth estimate"], "BBR").x == first_minute
    assert line(panels["(b) RTT"], "BBR").x == first_minute
    assert line(panels["(c) retransmissions"], "BBR").x == HALF_SECONDS_TO_40
    assert line(panels["(d) goodput"], "BBR").y == approx([24.0] * 70 + [0.0] * 50)


def test_fig9_draws_the_lowest_finished_seed_not_a_mean(tmp_path: Path) -> None:
    # BBR's seed 2 (listed first) follows in 1 s, seed 1 in 6 s; the failed seed 0 has no
    # series. Seed 1's estimate is drawn, low from 16 s (a mean would be neither 9 nor 40 Mb/s
    # from 11 to 16 s).
    rows = [
        fig9_row("BBR", [1.0, 1.0], seed=2),
        fig9_row("BBR", [6.0, 6.0], seed=1),
        fig9_row("BBR", [1.0, 1.0], seed=0, status="failed"),
        *FIG9[1:],
    ]
    panels = fig9_panels(fig9_results(tmp_path, rows))
    assert line(panels["(a) bandwidth estimate"], "BBR").y == expected_estimate((6, 6))


def test_fig9_a_fetch_without_an_end_draws_its_retransmissions_over_the_whole_series(
    tmp_path: Path,
) -> None:
    # No completion time (NaN, as the table holds an unfinished fetch's): the session is the
    # 600 s cap, so the whole series (0–40 s) is drawn; a NaN end once drew nothing.
    rows = [fig9_row("BBR", [6.0, 6.0], end=math.nan), *FIG9[1:]]
    panels = fig9_panels(fig9_results(tmp_path, rows))
    retrans = line(panels["(c) retransmissions"], "BBR")
    assert retrans.x == HALF_SECONDS_TO_40
    assert retrans.y == approx([0.1 * t for t in HALF_SECONDS_TO_40])


def test_fig9_an_algorithm_without_a_finished_run_is_not_drawn(tmp_path: Path) -> None:
    rows = [FIG9[0], fig9_row("oBBR-0.5", [1.5, 2.5], status="failed"), FIG9[3]]
    panels = fig9_panels(fig9_results(tmp_path, rows))
    assert legend_labels(panels["(a) bandwidth estimate"]) == ["link rate", "BBR", "oBBR-1"]
    for title in ("(b) RTT", "(c) retransmissions", "(d) goodput"):
        assert [entry.label for entry in lines(panels[title])] == ["BBR", "oBBR-1"]


# ----- Fig. 12: oBBR's share (bottom) and the rival's (top) per (R, μ), a bar per rival ---------

FIG12_TICKS = [f"R {r}\nμ {mu}" for r in ("0.5", "1") for mu in ("0.5", "0.75", "1")]
# oBBR's shares in % of FIG12 per rival over (R, μ) in FIG12_TICKS' order.
FIG12_OBBR = {
    "BBR": [5.0, 15.0, 33.0, 41.0, 45.0, 50.0],
    "BBRv2": [75.0, 80.0, 85.0, 40.0, 45.0, 50.0],
    "CUBIC": [70.0, 75.0, 80.0, 60.0, 55.0, 50.0],
}


def fig12_axes(results: dict[str, SweepResults]) -> Axes:
    [ax] = draw(fig12, results).axes
    return ax


def test_fig12_stacks_obbrs_share_under_each_rivals_grouped_by_buffer_and_mu(
    tmp_path: Path,
) -> None:
    ax = fig12_axes(fig12_results(tmp_path))
    assert x_axis(ax).tick_labels == FIG12_TICKS
    assert x_axis(ax).ticks == [float(i) for i in range(6)]
    found = bars(ax)
    assert [b.label for b in found[1::2]] == ["BBR", "BBRv2", "CUBIC"]
    assert found[0].label == "oBBR" and [b.label[0] for b in found[2::2]] == ["_", "_"]
    for i, rival in enumerate(["BBR", "BBRv2", "CUBIC"]):
        mine, theirs = found[2 * i], found[2 * i + 1]
        # Rival i's bars are 0.22 wide, at the tick + (i - 1) × 0.22.
        assert mine.x == theirs.x == approx([x + (i - 1) * 0.22 for x in range(6)])
        assert mine.heights == approx(FIG12_OBBR[rival]), rival
        assert mine.bottoms == [0.0] * 6
        assert theirs.heights == approx([100 - s for s in FIG12_OBBR[rival]]), rival
        assert theirs.bottoms == approx(FIG12_OBBR[rival])
    looks = bar_looks(ax)
    assert [look.colours[0] for look in looks] == [
        colour(c) for rival in ("BBR", "BBRv2", "CUBIC") for c in ("tab:blue", COLORS[rival])
    ]
    assert [look.hatches[0] for look in looks[1::2]] == ["", "--", ""]
    # BBR's share against CUBIC: 95 % across R 0.5's three groups (x 0–2 ± 0.4), 90 % across
    # R 1's (x 3–5 ± 0.4).
    assert [(s.label, s.segments) for s in segments(ax)] == [
        ("BBR's share against CUBIC", [approx([-0.4, 95, 2.4, 95])]),
        ("_", [approx([2.6, 90, 5.4, 90])]),
    ]
    assert legend_labels(ax) == ["BBR's share against CUBIC", "oBBR", "BBR", "BBRv2", "CUBIC"]


def test_fig12_averages_each_runs_share_over_seeds_leaving_failed_runs_out(tmp_path: Path) -> None:
    # oBBR-1 against BBR at R 0.5: 2 of 20 Mb/s (10 %) and 20 of 40 Mb/s (50 %): mean share
    # 30 % (of the summed goodputs it would be 22/60 = 36.7 %); the failed run's 90 % is out.
    point = {"flow.rival.cc": label(CCAS["BBR"]), "flow.obbr.cc": label(OBBR["oBBR-1"])}
    extra = (
        {
            **fig12_row(0.5, 0.1, **point, seed=1),
            "flows.obbr.goodput_bps": 2e6,
            "flows.rival.goodput_bps": 18e6,
        },
        fig12_row(0.5, 0.5, **point, seed=2),
        fig12_row(0.5, 0.9, **point, seed=3, status="failed"),
    )
    points = {k: v for k, v in FIG12.items() if k != ("BBR", 0.5, "oBBR-1")}
    mine, theirs = bars(fig12_axes(fig12_results(tmp_path, points, extra=extra)))[:2]
    assert mine.heights == approx([5.0, 15.0, 30.0, 41.0, 45.0, 50.0])
    assert theirs.heights[2] == pytest.approx(70.0)


def test_fig12_a_missing_point_is_a_nan_bar_and_a_missing_reference_leaves_its_line_out(
    tmp_path: Path,
) -> None:
    # No oBBR-0.75 against BBRv2 at R 1 (group 4), no BBR-against-CUBIC run at R 0.5: R 1's
    # line alone, labelled (it was not, the label going with R 0.5's line only).
    points = {k: v for k, v in FIG12.items() if k != ("BBRv2", 1.0, "oBBR-0.75")}
    ax = fig12_axes(fig12_results(tmp_path, points, reference={1.0: 0.9}))
    mine, theirs = bars(ax)[2:4]
    assert (nan_at(mine.heights), nan_at(theirs.heights)) == ([4], [4])
    assert mine.heights == approx([75.0, 80.0, 85.0, 40.0, math.nan, 50.0])
    assert [(s.label, s.segments) for s in segments(ax)] == [
        ("BBR's share against CUBIC", [approx([2.6, 90, 5.4, 90])])
    ]
    assert legend_labels(ax)[0] == "BBR's share against CUBIC"
