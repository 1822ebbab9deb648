"""WWW'21: what each of the reproduction's figures plots, read back from the figure's artists
(no pixels), against numbers worked out by hand from the small sweep tables of `www21_tables`.

For each figure: the series drawn and their labels, the x positions (buffer, burst or ABR
categories in the paper's order), the y values (means over the finished seeds, in the figure's
unit), the paper's own values where the figure shows them beside ours (hatched), the reference
lines (the 25 Mb/s link, the 100 ms propagation delay), the axes' scales and labels, and how a
point without a finished run is drawn (NaN, a gap) or left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from www21_tables import (
    ABR,
    BUFFER,
    BURST,
    CC,
    PROBE_RTT,
    STARTUP,
    Row,
    fig4_5_runs,
    fig6_runs,
    fig7_runs,
    fig8_9_runs,
    fig14_runs,
    fig16_runs,
    runs,
    sample_run,
    sweep,
    table1_runs,
    table2_page_runs,
    table2_runs,
    table3_runs,
)

from bloatlab.reproduce._base import Findings
from bloatlab.reproduce.www21 import (
    fig4_5,
    fig6,
    fig7,
    fig8_9,
    fig14,
    fig16,
    table1,
    table2,
    table3,
)
from bloatlab.reproduce.www21._common import BW, QUALITY, STALL
from bloatlab.sweep.table import SweepResults
from figure_data import (
    PNG,
    Axis,
    bar_looks,
    bars,
    colour,
    horizontal_levels,
    legend_labels,
    line,
    lines,
    vertical_positions,
    x_axis,
    y_axis,
)
from figure_data import drawn as drawing

nan = math.nan
STATE = "flows.video.state_time_fraction."


def drawn(module: ModuleType, results: Mapping[str, SweepResults]) -> tuple[Findings, list[Figure]]:
    """The module's findings and the figures it rendered, in drawing order."""
    with drawing(module) as figures:
        found = module.analyse(results, "quick")
    assert [f.png for f in found.figures] == [PNG] * len(figures)  # each one drawn goes out
    return found, figures


def same(actual: Sequence[float], expected: Sequence[float]) -> bool:
    """Equal up to rounding, NaN where NaN is expected (a point drawn as a gap)."""
    return list(actual) == pytest.approx(list(expected), nan_ok=True)


def heights(ax: Axes) -> list[list[float]]:
    """Each bar series' heights, rounded to 9 decimals so that sums like 10 + 40 + 5 + 5 % compare
    exactly."""
    return [[round(h, 9) for h in b.heights] for b in bars(ax)]


# Fig. 4/5: quality and stall rate against the buffer, one line per CCA.


def test_fig4_plots_mean_quality_over_finished_seeds_per_cca_at_each_buffer() -> None:
    found, figures = drawn(fig4_5, {"fig4-5": sweep(fig4_5_runs())})
    assert [f.name for f in found.figures] == ["fig4", "fig5"]
    ax = figures[0].axes[0]
    # one line per CCA, in the paper's order and colours
    assert [(e.label, e.color) for e in lines(ax)] == [
        ("cubic", "C0"),
        ("bbr", "C3"),
        ("bbr2", "C2"),
    ]
    assert legend_labels(ax) == ["cubic", "bbr", "bbr2"]
    # the buffers with a finished run, by size, at evenly spaced positions 0, 1, 2
    assert x_axis(ax) == Axis(
        "bottleneck buffer", "linear", [0.0, 1.0, 2.0], ["10KB", "100KB", "10MB"]
    )
    assert y_axis(ax).label == "average quality (level 0–10)"
    by_label = {e.label: e for e in lines(ax)}
    assert all(e.x == [0.0, 1.0, 2.0] for e in by_label.values())
    # cubic: (1 + 3) / 2 = 2 at 10 KB, no run elsewhere
    assert same(by_label["cubic"].y, [2.0, nan, nan])
    # bbr: (8 + 8.5) / 2 = 8.25; (9.5 + 8.7) / 2 = 9.1 without the failed run's 0 (else 6.07);
    # (6.5 + 5.1) / 2 = 5.8
    assert same(by_label["bbr"].y, [8.25, 9.1, 5.8])
    assert same(by_label["bbr2"].y, [nan, nan, 7.0])
    # a point between two gaps shows only as its marker
    assert {e.marker for e in lines(ax)} == {"o"}


def test_fig5_plots_mean_stall_rate_per_cca_and_a_gap_where_no_run_reports_it() -> None:
    _, figures = drawn(fig4_5, {"fig4-5": sweep(fig4_5_runs())})
    ax = figures[1].axes[0]
    assert [e.label for e in lines(ax)] == ["cubic", "bbr", "bbr2"]
    assert x_axis(ax).tick_labels == ["10KB", "100KB", "10MB"]
    assert y_axis(ax).label == "stall rate"
    by_label = {e.label: e for e in lines(ax)}
    # cubic (0.9 + 1) / 2 = 0.95; bbr's runs at 10 KB and 100 KB report no stall rate (NaN);
    # bbr (0.2 + 0) / 2 = 0.1 and bbr2 (0.5 + 0.3) / 2 = 0.4 at 10 MB
    assert same(by_label["cubic"].y, [0.95, nan, nan])
    assert same(by_label["bbr"].y, [nan, nan, 0.1])
    assert same(by_label["bbr2"].y, [nan, nan, 0.4])


def test_fig4_5_order_buffers_by_size_and_leave_out_a_buffer_without_a_finished_run() -> None:
    rows = [
        *runs({CC: "bbr", BUFFER: "100MB"}, {QUALITY: [4.0, 6.0], STALL: [0.5, 0.7]}),
        *runs({CC: "bbr2", BUFFER: "1MB"}, {QUALITY: [9.0], STALL: [0.0]}),
        *runs({CC: "bbr", BUFFER: "10KB"}, {QUALITY: [7.0], STALL: [0.2]}),
        *runs({CC: "cubic", BUFFER: "3MB"}, {QUALITY: [3.0], STALL: [0.1]}, status="failed"),
    ]
    _, (fig4, fig5) = drawn(fig4_5, {"fig4-5": sweep(rows)})
    for figure in (fig4, fig5):
        ax = figure.axes[0]
        # 10 KB < 1 MB < 100 MB (not the rows' order, nor "100MB" < "10KB" < "1MB"); 3 MB only
        # failed; cubic has no finished run but keeps its (empty) line and legend entry
        assert x_axis(ax).ticks == [0.0, 1.0, 2.0]
        assert x_axis(ax).tick_labels == ["10KB", "1MB", "100MB"]
        assert legend_labels(ax) == ["cubic", "bbr", "bbr2"]
    quality = {e.label: e.y for e in lines(fig4.axes[0])}
    stall = {e.label: e.y for e in lines(fig5.axes[0])}
    assert same(quality["cubic"], [nan] * 3) and same(stall["cubic"], [nan] * 3)
    # bbr: 7 at 10 KB, (4 + 6) / 2 = 5 at 100 MB; stall 0.2 and (0.5 + 0.7) / 2 = 0.6
    assert same(quality["bbr"], [7.0, nan, 5.0]) and same(stall["bbr"], [0.2, nan, 0.6])
    assert same(quality["bbr2"], [nan, 9.0, nan]) and same(stall["bbr2"], [nan, 0.0, nan])


# Table 2: time per state, ours beside the paper's, one panel per CCA.

TABLE2_SERIES = ["100KB (paper)", "100KB (bloatlab)", "10MB (paper)", "10MB (bloatlab)"]
# four bars of width 0.2 around each state's position 0 … 3: offsets -0.3, -0.1, 0.1, 0.3
TABLE2_X = [[s + offset for s in range(4)] for offset in (-0.3, -0.1, 0.1, 0.3)]


def table2_figure(rows: list[Row], page_rows: list[Row] | None = None) -> Figure:
    results = {"fig4-5": sweep(rows), "table2-page": sweep(page_rows or [])}
    _, [figure] = drawn(table2, results)
    return figure


def test_table2_plots_our_mean_share_per_state_beside_the_papers_in_percent() -> None:
    figure = table2_figure(table2_runs(), table2_page_runs())
    bbr, bbr2 = figure.axes
    assert (bbr.get_title(), bbr2.get_title()) == ("BBR", "BBR2")
    for ax in (bbr, bbr2):
        assert [b.label for b in bars(ax)] == TABLE2_SERIES
        assert all(same(b.x, x) for b, x in zip(bars(ax), TABLE2_X, strict=True))
        # the states in the paper's column order, on a log scale (shares from 0.01 to 98 %)
        assert x_axis(ax).tick_labels == ["STARTUP", "PROBE_BW", "DRAIN", "PROBE_RTT"]
        assert y_axis(ax).scale == "log"
        # hatched, faint bars are the paper's; blue 100 KB, red 10 MB
        assert [(look.colours, look.hatches) for look in bar_looks(ax)] == [
            ([colour("C0", 0.35)] * 4, ["//"] * 4),
            ([colour("C0", 1.0)] * 4, [""] * 4),
            ([colour("C3", 0.35)] * 4, ["//"] * 4),
            ([colour("C3", 1.0)] * 4, [""] * 4),
        ]
    assert y_axis(bbr).label == "time in state (% of the run)"
    assert legend_labels(bbr) == TABLE2_SERIES
    # STARTUP, PROBE_BW, DRAIN, PROBE_RTT in %; a share of 0 is drawn at 0.01
    assert heights(bbr) == [
        [0.23, 98.4, 0.01, 1.2],  # the paper's 0.0 DRAIN at 0.01
        # PROBE_RTT (1 + 3) / 2 = 2 %, not counting the failed run's 90 %; no other state
        [0.01, 0.01, 0.01, 2.0],
        [5.3, 82.8, 0.3, 11.5],
        # (5 + 7) / 2 = 6 % STARTUP, (10 + 12) / 2 = 11 % PROBE_RTT; the page's runs (40 %
        # STARTUP) are not plotted
        [6.0, 0.01, 0.01, 11.0],
    ]
    assert heights(bbr2) == [
        [0.17, 96.7, 0.01, 2.9],
        [0.01, 0.01, 0.01, 5.0],
        [31.9, 54.8, 0.16, 13.1],
        # STARTUP (10 + 10) / 2; PROBE_RTT (20 + 0) / 2: a run that never probed counts 0
        [10.0, 0.01, 0.01, 10.0],
    ]


def test_table2_sums_bbr2s_probe_bw_phases_and_leaves_a_point_without_runs_as_nan() -> None:
    phases = {
        STATE + "PROBE_BW_DOWN": [0.1, 0.2],
        STATE + "PROBE_BW_CRUISE": [0.4, 0.5],
        STATE + "PROBE_BW_REFILL": [0.05, 0.0],
        STATE + "PROBE_BW_UP": [0.05, 0.1],
        STATE + "DRAIN": [0.002, 0.004],
    }
    rows = [
        *runs({CC: "bbr2", BUFFER: "10MB"}, phases),
        *runs({CC: "bbr2", BUFFER: "10MB"}, {STATE + "PROBE_BW_CRUISE": [0.9]}, status="failed"),
        *runs({CC: "bbr", BUFFER: "100KB"}, {STATE + "PROBE_BW": [0.97], PROBE_RTT: [0.03]}),
    ]
    bbr, bbr2 = table2_figure(rows).axes
    ours = {b.label: b.heights for b in bars(bbr2)}
    # PROBE_BW: seed 1 10 + 40 + 5 + 5 = 60 %, seed 2 20 + 50 + 0 + 10 = 80 %: 70 %; DRAIN
    # (0.2 + 0.4) / 2 = 0.3 %; STARTUP and PROBE_RTT never entered: 0, drawn at 0.01
    assert ours["10MB (bloatlab)"] == pytest.approx([0.01, 70.0, 0.3, 0.01])
    # no run of BBR2 at 100 KB: its bars are NaN (no bar), not a share of 0 drawn at 0.01
    assert same(ours["100KB (bloatlab)"], [nan] * 4)
    assert same({b.label: b.heights for b in bars(bbr)}["100KB (bloatlab)"], [0.01, 97, 0.01, 3])
    assert same({b.label: b.heights for b in bars(bbr)}["10MB (bloatlab)"], [nan] * 4)


# Table 1 draws nothing: its numbers are the claims'.


def test_table1_draws_no_figure() -> None:
    assert table1.analyse({"table1": sweep(table1_runs())}, "quick").figures == []


# Fig. 8/9: CDFs of the samples pooled over BBR's finished runs.


@pytest.fixture
def fig8_9_figures(tmp_path: Path) -> list[Figure]:
    found, figures = drawn(fig8_9, {"fig8-9": sweep(fig8_9_runs(tmp_path), folder=tmp_path)})
    assert [f.name for f in found.figures] == ["fig8", "fig9"]
    return figures


def test_fig8_plots_the_cdf_of_the_finite_rtt_samples_in_ms_with_the_propagation_delay(
    fig8_9_figures: list[Figure],
) -> None:
    ax = fig8_9_figures[0].axes[0]
    shallow, deep = lines(ax)
    assert [(shallow.label, shallow.color), (deep.label, deep.color)] == [
        ("100 KB buffer", "C0"),
        ("10 MB buffer", "C3"),
    ]
    # 100 KB: runs a (0.1, 0.105, 0.2, NaN) and b (0.11, 0.3) s, sorted, in ms; each of the
    # 5 samples adds 1/5
    assert same(shallow.x, [100, 105, 110, 200, 300])
    assert same(shallow.y, [0.2, 0.4, 0.6, 0.8, 1.0])
    # 10 MB: c (0.5, 0.7, 0.9) and d (0.6); the failed run e is not read
    assert same(deep.x, [500, 600, 700, 900])
    assert same(deep.y, [0.25, 0.5, 0.75, 1.0])
    assert vertical_positions(ax) == [100.0]  # the 100 ms propagation delay
    assert (x_axis(ax).label, x_axis(ax).scale) == ("RTT (ms)", "log")
    assert y_axis(ax).label == "CDF"
    assert legend_labels(ax) == ["100 KB buffer", "10 MB buffer"]


def test_fig9_plots_the_cdf_of_the_finite_estimates_in_mbps_with_the_link_rate(
    fig8_9_figures: list[Figure],
) -> None:
    ax = fig8_9_figures[1].axes[0]
    shallow, deep = lines(ax)
    assert (shallow.label, deep.label) == ("100 KB buffer", "10 MB buffer")
    # 100 KB: a (25, 30, NaN) and b (20, 40, 50) Mb/s
    assert same(shallow.x, [20, 25, 30, 40, 50])
    assert same(shallow.y, [0.2, 0.4, 0.6, 0.8, 1.0])
    # 10 MB: c (75, 100, NaN) and d (50)
    assert same(deep.x, [50, 75, 100])
    assert same(deep.y, [1 / 3, 2 / 3, 1.0])
    assert vertical_positions(ax) == [25.0]  # the link rate
    assert (x_axis(ax).label, x_axis(ax).scale) == ("bandwidth estimate (Mb/s)", "log")
    assert y_axis(ax).label == "CDF"


def test_fig8_9_draw_no_cdf_for_a_buffer_without_a_finished_run(tmp_path: Path) -> None:
    rows = [
        sample_run(tmp_path, "a", "10MB", [0.4, 0.2], [60e6]),
        {"run": "b", BUFFER: "100KB", "seed": 1, "status": "failed"},
    ]
    _, (fig8, fig9) = drawn(fig8_9, {"fig8-9": sweep(rows, folder=tmp_path)})
    [rtt] = lines(fig8.axes[0])
    assert (rtt.label, rtt.x, rtt.y) == ("10 MB buffer", [200.0, 400.0], [0.5, 1.0])
    [bw] = lines(fig9.axes[0])
    assert (bw.label, bw.x, bw.y) == ("10 MB buffer", [60.0], [1.0])
    assert legend_labels(fig8.axes[0]) == legend_labels(fig9.axes[0]) == ["10 MB buffer"]
    assert (vertical_positions(fig8.axes[0]), vertical_positions(fig9.axes[0])) == ([100], [25])


# Table 3: the mean bandwidth estimate per burst, ours beside the paper's.


def test_table3_plots_mean_estimate_in_mbps_beside_the_papers_per_burst() -> None:
    _, [figure, _] = drawn(table3, {"table3": sweep(table3_runs())})
    ax = figure.axes[0]
    # per burst (positions 0 … 3): bbr's pair left of centre, bbr2's right; in each pair ours
    # left, the paper's right, bars 0.2 wide: offsets -0.3, -0.1, +0.1, +0.3
    [bbr, bbr_paper, bbr2, bbr2_paper] = bars(ax)
    assert [b.label for b in bars(ax)] == [
        "bbr (bloatlab)",
        "bbr (paper)",
        "bbr2 (bloatlab)",
        "bbr2 (paper)",
    ]
    assert legend_labels(ax) == [b.label for b in bars(ax)]
    for series, offset in ((bbr, -0.3), (bbr_paper, -0.1), (bbr2, 0.1), (bbr2_paper, 0.3)):
        assert same(series.x, [burst + offset for burst in range(4)])
    # 8 KB (24 + 26) / 2 = 25; 100 KB 40, the failed run's 28.3 left out; 1 MB (60 + 80) / 2
    # = 70; no run at 2 MB
    assert same(bbr.heights, [25.0, 40.0, 70.0, nan])
    assert same(bbr2.heights, [24.2, nan, 65.7, nan])
    assert same(bbr_paper.heights, [24.1, 28.3, 91.8, 162.9])
    assert same(bbr2_paper.heights, [24.2, 29.4, 65.7, 107.9])
    assert [(look.colours, look.hatches) for look in bar_looks(ax)] == [
        ([colour("C3")] * 4, [""] * 4),
        ([colour("C3", 0.35)] * 4, ["//"] * 4),
        ([colour("C2")] * 4, [""] * 4),
        ([colour("C2", 0.35)] * 4, ["//"] * 4),
    ]
    assert horizontal_levels(ax) == [25.0]  # the link rate
    assert x_axis(ax).ticks == [0.0, 1.0, 2.0, 3.0]
    assert x_axis(ax).tick_labels == ["8KB", "100KB", "1MB", "2MB"]
    assert (x_axis(ax).label, y_axis(ax).label) == (
        "token-bucket burst",
        "mean bandwidth estimate (Mb/s)",
    )


def test_fig15_plots_mean_quality_per_burst_for_bbr_and_bbr2() -> None:
    _, [_, figure] = drawn(table3, {"table3": sweep(table3_runs())})
    ax = figure.axes[0]
    bbr, bbr2 = bars(ax)
    assert [bbr.label, bbr2.label] == ["bbr", "bbr2"] == legend_labels(ax)
    # bars 0.35 wide either side of each burst's position
    assert same(bbr.x, [b - 0.175 for b in range(4)]) and same(
        bbr2.x, [b + 0.175 for b in range(4)]
    )
    # bbr: 8 KB (9 + 8) / 2, 1 MB (5 + 6) / 2; bbr2 8 KB 10, 1 MB 5; no quality at 100 KB or 2 MB
    assert same(bbr.heights, [8.5, nan, 5.5, nan])
    assert same(bbr2.heights, [10.0, nan, 5.0, nan])
    assert [look.colours for look in bar_looks(ax)] == [[colour("C3")] * 4, [colour("C2")] * 4]
    assert x_axis(ax).tick_labels == ["8KB", "100KB", "1MB", "2MB"]
    assert (y_axis(ax).label, ax.get_ylim()) == ("average quality (0–10)", (0.0, 10.0))


# Fig. 7: each ABR's change from 100 KB to 10 MB.


def test_fig7_plots_each_abrs_quality_change_in_percent_and_stall_rate_rise() -> None:
    _, [figure] = drawn(fig7, {"fig7": sweep(fig7_runs())})
    quality, stall = figure.axes
    # the ABRs that ran, in the paper's order (throughput and robust_mpc did not)
    abrs = ["dynamic", "bola", "bba", "rb", "festive"]
    for ax in (quality, stall):
        assert x_axis(ax).ticks == [0.0, 1.0, 2.0, 3.0, 4.0]
        assert x_axis(ax).tick_labels == abrs
        assert horizontal_levels(ax) == [0.0]
        [series] = bars(ax)
        assert series.x == [0.0, 1.0, 2.0, 3.0, 4.0]
    # quality at 10 MB / at 100 KB - 1, in %: dynamic 10 / 10; bola 8 / 10, the failed run's 4
    # left out; bba (4 + 5) / 2 / ((8 + 10) / 2) = 4.5 / 9; rb and festive 9 / 10
    assert same(bars(quality)[0].heights, [0.0, -20.0, -50.0, -10.0, -10.0])
    # stall rate at 10 MB - at 100 KB: bba (0.1 + 0.2) / 2 - (0 + 0.1) / 2 = 0.1; rb 0.2;
    # festive 0.7
    assert same(bars(stall)[0].heights, [0.0, 0.0, 0.1, 0.2, 0.7])
    assert y_axis(quality).label == "quality change, 10 MB vs 100 KB (%)"
    assert y_axis(stall).label == "stall-rate increase"


def test_fig7_draws_nan_for_an_abr_missing_one_buffer_and_leaves_out_one_that_never_ran() -> None:
    rows = [
        *runs({ABR: "throughput", BUFFER: "100KB"}, {QUALITY: [8.0], STALL: [0.1]}),
        *runs({ABR: "bola", BUFFER: "100KB"}, {QUALITY: [10.0, 6.0], STALL: [0.0, 0.2]}),
        *runs({ABR: "bola", BUFFER: "10MB"}, {QUALITY: [6.0], STALL: [0.4]}),
        *runs({ABR: "robust_mpc", BUFFER: "10MB"}, {QUALITY: [5.0]}, status="failed"),
    ]
    _, [figure] = drawn(fig7, {"fig7": sweep(rows)})
    quality, stall = figure.axes
    assert x_axis(quality).tick_labels == x_axis(stall).tick_labels == ["bola", "throughput"]
    # bola: 6 / ((10 + 6) / 2) - 1 = -25 %, stall 0.4 - (0 + 0.2) / 2 = 0.3; throughput has
    # no run at 10 MB
    assert same(bars(quality)[0].heights, [-25.0, nan])
    assert same(bars(stall)[0].heights, [0.3, nan])


# Fig. 16: quality and estimate per CCA and per BBR2-S variant.

FIG16_LABELS = [
    "bbr",
    "bbr-s",
    "bbr2",
    "bbr2-s",
    "bbr2-s, no pacing margin",
    "bbr2-s, 1 ms path jitter",
]


def test_fig16_plots_mean_quality_stalls_and_estimate_per_cca_then_bbr2_s_variants_hatched() -> (
    None
):
    _, [figure] = drawn(fig16, {name: sweep(rows) for name, rows in fig16_runs().items()})
    quality, stalls, estimate = figure.axes
    for ax in (quality, stalls, estimate):
        assert x_axis(ax).tick_labels == FIG16_LABELS
        [series] = bars(ax)
        assert series.x == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        # each CCA in its colour, the variants in BBR2-S's, hatched
        [look] = bar_looks(ax)
        assert look.colours == [colour(c) for c in ("C3", "C1", "C2", "C4", "C4", "C4")]
        assert look.hatches == ["", "", "", "", "//", "//"]
    # bbr 6; bbr-s (9 + 10) / 2; bbr2 7, its missing run's 1 left out; bbr2-s 8.5; no margin
    # (9 + 9) / 2; 1 ms jitter 8
    assert same(bars(quality)[0].heights, [6.0, 9.5, 7.0, 8.5, 9.0, 8.0])
    # bbr (0.4 + 0.6) / 2; bbr-s (0 + 0.1) / 2; bbr2 0.3; bbr2-s 0; no margin (0 + 0.1) / 2;
    # 1 ms jitter 0.2
    assert same(bars(stalls)[0].heights, [0.5, 0.05, 0.3, 0.0, 0.05, 0.2])
    # Mb/s: bbr and bbr2 report no estimate; bbr-s (24 + 26) / 2; bbr2-s 30; no margin
    # (23 + 25) / 2; 1 ms jitter 26
    assert same(bars(estimate)[0].heights, [nan, 25.0, nan, 30.0, 24.0, 26.0])
    assert [horizontal_levels(ax) for ax in figure.axes] == [[], [], [25.0]]
    assert y_axis(quality).label == "average quality"
    assert y_axis(stalls).label == "stall rate"
    assert y_axis(estimate).label == "mean bandwidth estimate (Mb/s)"


def test_fig16_keeps_every_bar_with_nan_where_nothing_finished() -> None:
    rows = [
        *runs({CC: "bbr2"}, {QUALITY: [3.0], BW: [80e6]}),
        *runs({CC: "bbr"}, {QUALITY: [2.0], BW: [90e6]}, status="failed"),
    ]
    _, [figure] = drawn(fig16, {"fig16": sweep(rows), "fig16-bbr2-s": sweep()})
    quality, _, estimate = figure.axes
    assert x_axis(quality).tick_labels == FIG16_LABELS
    assert same(bars(quality)[0].heights, [nan, nan, 3.0, nan, nan, nan])
    assert same(bars(estimate)[0].heights, [nan, nan, 80.0, nan, nan, nan])


# Each series is drawn from its own metric (not, e.g., Fig. 4's quality in Fig. 5, or Table 2's
# PROBE_RTT as its STARTUP), and a point with no finished run stays NaN.


@pytest.mark.parametrize(("metric", "index"), [(QUALITY, 0), (STALL, 1)])
def test_fig4_5_each_figure_reads_its_own_metric(metric: str, index: int) -> None:
    rows = runs({CC: "bbr", BUFFER: "1MB"}, {metric: [0.5, 0.7]})
    figures = drawn(fig4_5, {"fig4-5": sweep(rows)})[1]
    # (0.5 + 0.7) / 2 in the metric's figure, NaN in the other's
    assert same({e.label: e.y for e in lines(figures[index].axes[0])}["bbr"], [0.6])
    assert same({e.label: e.y for e in lines(figures[1 - index].axes[0])}["bbr"], [nan])


def test_table2_reads_startup_from_its_own_column() -> None:
    rows = runs({CC: "bbr", BUFFER: "10MB"}, {STARTUP: [0.02, 0.04], PROBE_RTT: [0.5, 0.5]})
    bbr = table2_figure(rows).axes[0]
    # STARTUP (2 + 4) / 2 = 3 %, PROBE_RTT 50 %
    assert same({b.label: b.heights for b in bars(bbr)}["10MB (bloatlab)"], [3, 0.01, 0.01, 50])


def test_table3_draws_ours_as_nan_where_no_run_finished_and_always_the_papers() -> None:
    rows = runs({CC: "bbr2", BURST: "2MB"}, {BW: [100e6, 110e6]})
    _, [figure, _] = drawn(table3, {"table3": sweep(rows)})
    by_label = {b.label: b.heights for b in bars(figure.axes[0])}
    assert same(by_label["bbr (bloatlab)"], [nan] * 4)
    assert same(by_label["bbr2 (bloatlab)"], [nan, nan, nan, 105.0])  # (100 + 110) / 2 Mb/s
    assert same(by_label["bbr2 (paper)"], [24.2, 29.4, 65.7, 107.9])


# Fig. 6: quality and stall rate per CCA at 100 KB and 10 MB in the WAN.


def test_fig6_draws_each_ccas_mean_quality_and_stall_rate_per_buffer() -> None:
    _, [figure] = drawn(fig6, {"fig6": sweep(fig6_runs())})
    quality, stall = figure.axes
    # CUBIC, BBR, BBR2 in the legend's order; 100 KB then 10 MB (fig6_runs' means)
    assert [b.label for b in bars(quality)] == ["CUBIC", "BBR", "BBR2"]
    assert heights(quality) == [[1.5, 5.0], [9.25, 4.5], [9.0, 6.0]]
    assert heights(stall) == [[0.8, 0.1], [0.0, 0.6], [0.0, 0.2]]


# Fig. 14: the CDF of each algorithm's pooled rate samples.


def test_fig14_draws_the_cdf_of_each_algorithms_valid_samples(tmp_path: Path) -> None:
    _, [figure] = drawn(fig14, {"fig14": sweep(fig14_runs(tmp_path), folder=tmp_path)})
    [ax] = figure.axes
    bbr, bbr2 = line(ax, "BBR"), line(ax, "BBR2")
    assert (bbr.x, bbr.y) == ([10.0, 20.0, 25.0, 26.0, 30.0], [0.2, 0.4, 0.6, 0.8, 1.0])
    assert bbr2.x == [1.0, 5.0, 24.0, 25.1] and same(bbr2.y, [0.25, 0.5, 0.75, 1.0])
    assert vertical_positions(ax) == [25.0]
