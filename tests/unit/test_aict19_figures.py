"""What the AICT'19 reproduction's figures plot, checked against numbers worked out by hand.

Each figure is built from small hand-made sweeps (`aict19_tables`) and read back from its
artists (`figure_data`; nothing is rendered, no pixels compared): which series are drawn, in
the paper's colours (BBR red "C3", CUBIC blue "C0"), at which buffers (in BDP), with which
values (means over flow counts × rates × seeds of the runs that finished, in % where plotted as
%), the paper's own values where the figure marks them, the quartile lines and the crossing of
Fig. 10/12, and the time series of Fig. 5 and Fig. 9. The runs' time series are piecewise
constant, sampled on exact binary fractions of a second (every 0.5 s for flows, 0.25 s for the
queue) so each bin's value is known exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from aict19_tables import (
    BDP_BYTES,
    CAPACITY_BPS,
    FAILED,
    GROUPS,
    SHALLOW,
    loss_row,
    queue_row,
    share_row,
    shares,
    sweep,
    sync_sweep,
)
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from bloatlab.reproduce import aict19
from bloatlab.reproduce._base import Findings
from bloatlab.reproduce.aict19._common import BBR_LABEL
from bloatlab.sweep.table import SweepResults
from figure_data import (
    Line,
    annotations,
    drawn,
    errorbars,
    legend_labels,
    line,
    lines,
    texts,
    vertical_positions,
    x_axis,
)
from sweep_tables import sweep_results

BBR, CUBIC, SHALLOW_COLOUR = "C3", "C0", "C2"

# ----- runs with known time series -------------------------------------------------------------

Steps = tuple[tuple[float, float], ...]  # (from time in s, value): the value holds from then on


@dataclass(frozen=True)
class Series:
    """One run's time series over 0–240 s, each a step function of time."""

    bbr: Steps = ((0.0, 0.5),)  # the BBR group's share of the link (2 flows, half each)
    cubic: Steps = ((0.0, 0.4),)  # the CUBIC group's
    bbr_srtt: Steps = ((0.0, 0.03),)  # s, every BBR flow
    cubic_srtt: Steps = ((0.0, 0.05),)
    backlog: Steps = ((0.0, 1.0),)  # BDP
    loss: Steps = ((0.0, 0.0),)  # fraction of the arrivals (1000 packets/s) dropped


def at(steps: Steps, t: np.ndarray) -> np.ndarray:
    starts = np.array([s for s, _ in steps])
    values = np.array([v for _, v in steps])
    return np.asarray(values[np.searchsorted(starts, t, side="right") - 1], dtype=np.float64)


def write_series(folder: Path, series: Series) -> None:
    """flows.parquet sampled every 0.5 s (the figures' bin edges: a group's rate in a bin is its
    share at the bin's start) and queue.parquet every 0.25 s (two samples a bin)."""
    folder.mkdir(parents=True)
    t = np.arange(481) * 0.5
    flows: dict[str, list[Any]] = {"t": [], "flow": [], "delivered_bytes": [], "srtt_s": []}
    for group, share, srtt in (
        ("bbr", series.bbr, series.bbr_srtt),
        ("cubic", series.cubic, series.cubic_srtt),
    ):
        per_flow_bps = at(share, t[:-1]) * CAPACITY_BPS / len(GROUPS[group])
        delivered = np.concatenate([[0.0], np.cumsum(per_flow_bps * 0.5 / 8)])
        for name in GROUPS[group]:
            flows["t"] += list(t)
            flows["flow"] += [name] * len(t)
            flows["delivered_bytes"] += list(delivered)
            flows["srtt_s"] += list(at(srtt, t))
    pq.write_table(pa.table(flows), folder / "flows.parquet")
    tq = np.arange(961) * 0.25
    drops = np.concatenate([[0.0], np.cumsum(at(series.loss, tq[:-1]) * 1000 * 0.25)])
    queue = {
        "t": tq,
        "arrivals": 1000 * tq,
        "drops": drops,
        "backlog_bytes": at(series.backlog, tq) * BDP_BYTES,
    }
    pq.write_table(pa.table(queue), folder / "queue.parquet")


def runs(folder: Path, rows: Sequence[tuple[Mapping[str, Any], Series]]) -> SweepResults:
    """A sweep of `rows` (done, seed 1 unless they say otherwise), each with its run's series."""
    results = sweep_results(folder, folder.name, [r for r, _ in rows], groups=lambda run: GROUPS)
    for run, (_, series) in zip(results.rows(), rows, strict=True):
        write_series(results.run_folder(run["run"]), series)
    return results


def only(figures: list[Figure]) -> Axes:
    """The one axes of the one figure drawn."""
    [figure] = figures
    [ax] = figure.axes
    return ax


def plotted(entry: Line) -> tuple[list[float], list[float]]:
    return entry.x, entry.y


def look(entry: Line) -> tuple[Any, str, str]:
    return entry.color, entry.style, entry.marker


def quarters(start: float, end: float) -> list[float]:
    """Every 0.25 s (the queue samples' spacing) from `start` to `end`, both included."""
    return [start + 0.25 * k for k in range(round((end - start) / 0.25) + 1)]


HALF_SECOND_MIDS = [0.25 + 0.5 * k for k in range(120)]  # 60–120 s in 0.5 s bins, from 60 s


# ----- Fig. 5 ----------------------------------------------------------------------------------


def test_fig5_plots_the_queue_samples_of_one_minute_in_bdp_for_bbr_and_cubic(
    tmp_path: Path,
) -> None:
    bbr = runs(
        tmp_path / "bbr",
        [
            (queue_row(1.2, 1.5, seed=3), Series(backlog=((0.0, 3.0),))),  # listed first
            (queue_row(1.2, 1.5, seed=1) | FAILED, Series(backlog=((0.0, 5.0),))),
            # the lowest seed that finished: 4 BDP before the minute, 1 BDP, 1.5 from 90 s
            (queue_row(1.2, 1.5, seed=2), Series(backlog=((0.0, 4.0), (60.0, 1.0), (90.0, 1.5)))),
        ],
    )
    cubic = runs(
        tmp_path / "cubic",
        [
            (
                queue_row(6.0, 7.5),
                Series(backlog=((0.0, 2.0), (60.0, 8.0), (100.0, 7.0), (120.25, 0.5))),
            )
        ],
    )
    with drawn(aict19.fig5) as figures:
        aict19.fig5.analyse({"fig5-bbr": bbr, "fig5-cubic": cubic}, "quick")
    ax = only(figures)
    assert [(e.label, e.color) for e in lines(ax)] == [("BBR (4 flows)", BBR), ("CUBIC", CUBIC)]
    # samples every 0.25 s from 60 to 120 s, both ends included: 241, from t = 60 s
    # BBR seed 2: 60–89.75 s (120 samples) 1 BDP, 90–120 s (121) 1.5 BDP
    assert plotted(line(ax, "BBR (4 flows)")) == (quarters(0, 60), [1.0] * 120 + [1.5] * 121)
    # CUBIC: 60–99.75 s (160 samples) 8 BDP, 100–120 s (81) 7 BDP; 0.5 BDP only after 120 s
    assert plotted(line(ax, "CUBIC")) == (quarters(0, 60), [8.0] * 160 + [7.0] * 81)
    assert ax.get_xlim() == (0.0, 60.0) and ax.get_ylim() == (0.0, 8.5)
    assert legend_labels(ax) == ["BBR (4 flows)", "CUBIC"]


def test_fig5_full_draws_the_4_flow_80_mbps_run_whatever_the_other_combinations_hold(
    tmp_path: Path,
) -> None:
    def combo(flows: int, rate: str, seed: int = 1) -> dict[str, Any]:
        return queue_row(1.2, 1.5, seed=seed, **{"flow.bbr.count": flows, "bottleneck.rate": rate})

    bbr = runs(
        tmp_path / "bbr",
        [
            (combo(2, "80Mbps"), Series(backlog=((0.0, 2.5),))),
            (combo(4, "40Mbps"), Series(backlog=((0.0, 3.5),))),
            (combo(4, "80Mbps", seed=2), Series(backlog=((0.0, 1.25),))),
        ],
    )
    cubic = runs(tmp_path / "cubic", [(queue_row(6.0, 7.5), Series(backlog=((0.0, 8.0),)))])
    with drawn(aict19.fig5) as figures:
        aict19.fig5.analyse({"fig5-bbr": bbr, "fig5-cubic": cubic}, "full")
    # the only 4-flow run at 80 Mb/s is seed 2: 1.25 BDP throughout
    assert line(only(figures), "BBR (4 flows)").y == [1.25] * 241


@pytest.mark.filterwarnings("ignore:No artists with labels found:UserWarning")  # empty legend
def test_fig5_leaves_out_a_sender_without_a_finished_run(tmp_path: Path) -> None:
    failed_bbr = runs(tmp_path / "bbr", [(queue_row(1.2, 1.5) | FAILED, Series())])
    cubic = runs(tmp_path / "cubic", [(queue_row(6.0, 7.5), Series(backlog=((0.0, 8.0),)))])
    failed_cubic = runs(tmp_path / "none", [(queue_row(6.0, 7.5) | FAILED, Series())])
    with drawn(aict19.fig5) as figures:
        aict19.fig5.analyse({"fig5-bbr": failed_bbr, "fig5-cubic": cubic}, "quick")
        aict19.fig5.analyse({"fig5-bbr": failed_bbr, "fig5-cubic": failed_cubic}, "quick")
    cubic_only, empty = (fig.axes[0] for fig in figures)
    assert [(e.label, e.y[0]) for e in lines(cubic_only)] == [("CUBIC", 8.0)]
    assert lines(empty) == [] and empty.get_xlim() == (0.0, 60.0)


# ----- Fig. 7 ----------------------------------------------------------------------------------


def rate(value: str) -> dict[str, str]:
    return {"bottleneck.rate": value}


def test_fig7_plots_the_mean_loss_and_its_spread_over_flows_rates_and_seeds_up_to_2_bdp(
    tmp_path: Path,
) -> None:
    rows = [
        loss_row(2.0, 0.004, **rate("80Mbps")),  # out of buffer order
        loss_row(2.0, 0.5, flows=8, **rate("80Mbps"), **FAILED),
        loss_row(0.5, 0.10, **rate("40Mbps")),
        loss_row(0.5, 0.12, flows=4, **rate("80Mbps")),
        loss_row(0.5, 0.14, seed=2, **rate("40Mbps")),
        loss_row(1.0, 0.05, **rate("40Mbps")),
        loss_row(1.0, 0.07, flows=4, **rate("80Mbps")),
        loss_row(1.5, 0.3, **rate("40Mbps"), **FAILED),  # no finished run at 1.5 BDP
        loss_row(4.0, 0.001, **rate("80Mbps")),  # ran, but beyond the figure's 2 BDP
    ]
    with drawn(aict19.fig7) as figures:
        found = aict19.fig7.analyse({"fig7": sweep(tmp_path / "fig7", rows)}, "full")
    ax = only(figures)
    [ours] = errorbars(ax)
    assert ours.label == "bloatlab: mean, ±1 sd over flows × rates × seeds"
    # 0.5 BDP: (10 + 12 + 14) / 3 = 12 %, sd √((2² + 0 + 2²) / 2) = 2 %
    # 1 BDP: (5 + 7) / 2 = 6 %, sd √((1² + 1²) / 1) = √2 %; 2 BDP: one run, 0.4 %, no bar
    assert ours.x == [0.5, 1.0, 2.0]
    assert ours.y == pytest.approx([12.0, 6.0, 0.4])
    assert ours.error == pytest.approx([2.0, 2**0.5, 0.0])
    [data] = [e for e in lines(ax, unlabelled=True) if e.marker == "o"]
    assert data.color == BBR
    # the paper's values, from its text: ≈11 % at 0.5 BDP, ≈5.5 % at 1 BDP, ≈0 at 2 BDP
    paper = line(ax, "paper (text: ≈11 %, ≈5.5 %)")
    assert (plotted(paper), look(paper)) == (([0.5, 1.0], [11.0, 5.5]), ("black", "None", "s"))
    squares = [plotted(e) for e in lines(ax, unlabelled=True) if e.marker == "s"]
    assert squares == [([0.5, 1.0], [11.0, 5.5]), ([2.0], [0.0])]
    axis = x_axis(ax)
    assert (axis.ticks, axis.tick_labels) == ([0.5, 1.0, 2.0], ["0.5", "1", "2"])
    assert ax.get_xlim() == pytest.approx((0.0, 2.15)) and ax.get_ylim()[0] == 0.0
    # 2 and 4 flows finished (8 flows only failed), at 2 rates (40 and 80 Mb/s)
    [figure] = found.figures
    assert "mean over 2 flow counts × 2 rates × seeds" in figure.caption


def test_fig7_without_a_finished_run_plots_no_point_but_the_papers(tmp_path: Path) -> None:
    failed = sweep(tmp_path / "fig7", [loss_row(0.5, 0.11, **rate("40Mbps"), **FAILED)])
    with drawn(aict19.fig7) as figures:
        found = aict19.fig7.analyse({"fig7": failed}, "quick")
    ax = only(figures)
    [ours] = errorbars(ax)
    assert (ours.x, ours.y) == ([], [])
    assert line(ax, "paper (text: ≈11 %, ≈5.5 %)").y == [11.0, 5.5]
    assert x_axis(ax).ticks == [] and ax.get_xlim() == pytest.approx((0.0, 2.15))
    assert "mean over 0 flow counts × 0 rates × seeds" in found.figures[0].caption


# ----- Fig. 9 ----------------------------------------------------------------------------------

CYCLE = Series(
    # throughput: BBR 75 %, CUBIC 20 % of the link over 60–90 s; 25 % and 70 % over 90–120 s
    bbr=((0.0, 0.9), (60.0, 0.75), (90.0, 0.25)),
    cubic=((0.0, 0.05), (60.0, 0.2), (90.0, 0.7)),
    # RTT: BBR 30 ms until 105 s, then 40 ms; CUBIC 50 ms
    bbr_srtt=((0.0, 0.1), (60.0, 0.03), (105.0, 0.04)),
    cubic_srtt=((0.0, 0.05),),
    # queue: 0.5 BDP over 60–75 s, 1.5 BDP after; loss 0 until 100 s, then 2 %
    backlog=((0.0, 5.0), (60.0, 0.5), (75.0, 1.5)),
    loss=((0.0, 0.5), (60.0, 0.0), (100.0, 0.02)),
)
OTHER = Series(  # the runs Fig. 9 must not draw
    bbr=((0.0, 0.45),),
    cubic=((0.0, 0.45),),
    bbr_srtt=((0.0, 0.07),),
    cubic_srtt=((0.0, 0.07),),
    backlog=((0.0, 3.0),),
    loss=((0.0, 0.1),),
)


def test_fig9_plots_one_minute_of_the_first_finished_seed_at_1_75_bdp_in_half_second_bins(
    tmp_path: Path,
) -> None:
    fig10 = runs(
        tmp_path / "fig10",
        [
            (share_row(1.75, 0.5, 0.4, seed=3), OTHER),
            (share_row(1.75, 0.5, 0.4, seed=1) | FAILED, OTHER),
            (share_row(2.0, 0.5, 0.4, seed=1), OTHER),
            (share_row(1.75, 0.5, 0.4, seed=2), CYCLE),
        ],
    )
    with drawn(aict19.fig9) as figures:
        aict19.fig9.analyse({"fig10": fig10}, "quick")
    [figure] = figures
    throughput, queue, loss, rtt = figure.axes
    assert [ax.get_title(loc="left") for ax in figure.axes] == [
        "(a) throughput",
        "(b) queue length",
        "(c) loss rate, 0.5 s bins",
        "(d) RTT",
    ]
    # 120 bins of 0.5 s over 60–120 s, at their middles from t = 60 s: 0.25, 0.75, …, 59.75
    assert [(e.label, e.color, e.x) for e in lines(throughput)] == [
        ("BBR", BBR, HALF_SECOND_MIDS),
        ("CUBIC", CUBIC, HALF_SECOND_MIDS),
    ]
    assert line(throughput, "BBR").y == pytest.approx([75.0] * 60 + [25.0] * 60)
    assert line(throughput, "CUBIC").y == pytest.approx([20.0] * 60 + [70.0] * 60)
    # 105 s is the 91st bin's start: 90 bins at 30 ms, 30 at 40 ms
    assert [(e.label, e.color, e.x) for e in lines(rtt)] == [
        ("BBR", BBR, HALF_SECOND_MIDS),
        ("CUBIC", CUBIC, HALF_SECOND_MIDS),
    ]
    assert line(rtt, "BBR").y == pytest.approx([30.0] * 90 + [40.0] * 30)
    assert line(rtt, "CUBIC").y == pytest.approx([50.0] * 120)
    [backlog] = lines(queue, unlabelled=True)
    assert (backlog.color, backlog.x) == ("black", HALF_SECOND_MIDS)
    assert backlog.y == pytest.approx([0.5] * 30 + [1.5] * 90)  # 75 s: the 31st bin
    [dropped] = lines(loss, unlabelled=True)
    assert (dropped.color, dropped.x) == ("black", HALF_SECOND_MIDS)
    assert dropped.y == pytest.approx([0.0] * 80 + [2.0] * 40)  # 100 s: the 81st bin
    assert all(ax.get_ylim()[0] == 0.0 for ax in figure.axes)
    assert legend_labels(throughput) == ["BBR", "CUBIC"]


def test_fig9_is_not_drawn_without_a_finished_run_at_1_75_bdp(tmp_path: Path) -> None:
    fig10 = runs(
        tmp_path / "fig10",
        [(share_row(1.75, 0.5, 0.4) | FAILED, CYCLE), (share_row(2.0, 0.5, 0.4), CYCLE)],
    )
    with drawn(aict19.fig9) as figures:
        found = aict19.fig9.analyse({"fig10": fig10}, "quick")
    assert (figures, found.figures) == ([], [])


# ----- Fig. 10 and Fig. 12: shares -------------------------------------------------------------

# A run's quartiles are over the 240 half-second shares of 120–240 s. Four 30-s steps of values
# v1 < v2 < v3 < v4 (60 bins each, in any order) put the 25th percentile at sorted position
# 0.25 × 239 = 59.75, v1 + 0.75 (v2 - v1), and the 75th at 179.25, v3 + 0.25 (v4 - v3).


def steps(before: float, *values: float) -> Steps:
    """`before` until 120 s, then `values` in turn, 30 s each."""
    return ((0.0, before), *((120.0 + 30.0 * i, v) for i, v in enumerate(values)))


FIG10_RUNS = [
    # 8 BDP first: the lines must be ordered by buffer
    (share_row(8.0, 0.3, 0.6), Series(bbr=steps(0.9, 0.25), cubic=steps(0.05, 0.65))),
    (share_row(8.0, 0.9, 0.05) | FAILED, Series(bbr=steps(0.9, 0.9), cubic=steps(0.0, 0.05))),
    (
        # BBR 0.2, 0.4, 0.6, 0.8: 25th 0.2 + 0.75 × 0.2 = 0.35, 75th 0.6 + 0.25 × 0.2 = 0.65
        # CUBIC 0.3, 0.1, 0.4, 0.2: 25th 0.1 + 0.75 × 0.1 = 0.175, 75th 0.325
        share_row(1.0, 0.7, 0.2),
        Series(bbr=steps(0.95, 0.2, 0.4, 0.6, 0.8), cubic=steps(0.01, 0.3, 0.1, 0.4, 0.2)),
    ),
    (
        # BBR 0.5, 0.6, 0.7, 0.8: 25th 0.575, 75th 0.725; CUBIC 0.1 throughout
        share_row(1.0, 0.8, 0.1, seed=2),
        Series(bbr=steps(0.95, 0.5, 0.6, 0.7, 0.8), cubic=steps(0.01, 0.1)),
    ),
    (share_row(2.0, 0.9, 0.05) | FAILED, Series(bbr=steps(0.9, 0.9), cubic=steps(0.0, 0.05))),
    (share_row(4.0, 0.5, 0.4), Series(bbr=steps(0.9, 0.55), cubic=steps(0.05, 0.35))),
    (share_row(6.0, 0.35, 0.55), Series(bbr=steps(0.9, 0.3), cubic=steps(0.05, 0.6))),
]


def share_lines(ax: Axes) -> dict[str, tuple[list[float], list[float], tuple[Any, str, str]]]:
    return {e.label: (e.x, e.y, look(e)) for e in lines(ax)}


def test_fig10_plots_mean_shares_and_the_seeds_mean_quartiles_by_buffer(tmp_path: Path) -> None:
    with drawn(aict19.fig10) as figures:
        aict19.fig10.analyse({"fig10": runs(tmp_path / "fig10", FIG10_RUNS)}, "quick")
    ax = only(figures)
    found = share_lines(ax)
    buffers = [1.0, 4.0, 6.0, 8.0]  # 2 BDP only failed; the failed 8 BDP run is left out
    assert list(found) == [
        "BBR (mean)",
        "BBR (25th pct.)",
        "BBR (75th pct.)",
        "CUBIC (mean)",
        "CUBIC (25th pct.)",
        "CUBIC (75th pct.)",
    ]
    assert all(x == buffers for x, _, _ in found.values())
    # means of the rows' goodput over seeds: 1 BDP BBR (70 + 80) / 2 = 75 %, CUBIC (20 + 10) / 2
    assert found["BBR (mean)"][1:] == (pytest.approx([75.0, 50.0, 35.0, 30.0]), (BBR, "-", "o"))
    assert found["CUBIC (mean)"][1:] == (pytest.approx([15.0, 40.0, 55.0, 60.0]), (CUBIC, "-", "o"))
    # 1 BDP, mean over the two seeds: BBR 25th (35 + 57.5) / 2 = 46.25 %, 75th (65 + 72.5) / 2
    # = 68.75 %; CUBIC 25th (17.5 + 10) / 2 = 13.75 %, 75th (32.5 + 10) / 2 = 21.25 %.
    # Elsewhere one constant share (over 120–240 s), both quartiles.
    assert found["BBR (25th pct.)"][1:] == (pytest.approx([46.25, 55, 30, 25]), (BBR, ":", "None"))
    assert found["BBR (75th pct.)"][1:] == (pytest.approx([68.75, 55, 30, 25]), (BBR, "--", "None"))
    assert found["CUBIC (25th pct.)"][1:] == (
        pytest.approx([13.75, 35, 60, 65]),
        (CUBIC, ":", "None"),
    )
    assert found["CUBIC (75th pct.)"][1:] == (
        pytest.approx([21.25, 35, 60, 65]),
        (CUBIC, "--", "None"),
    )
    # BBR - CUBIC: +10 points at 4 BDP, -20 at 6: 4 + 2 × 10 / 30 = 4.67 BDP
    assert vertical_positions(ax) == [pytest.approx(4 + 2 / 3)]
    assert annotations(ax) == [("crossing 4.7 BDP", (pytest.approx(4 + 2 / 3), 95.0))]
    assert ax.get_xlim() == pytest.approx((0.0, 8.2)) and ax.get_ylim() == (0.0, 100.0)
    assert legend_labels(ax) == list(found)


@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
def test_fig10_without_a_crossing_or_a_finished_run_draws_no_crossing(tmp_path: Path) -> None:
    never = sweep(tmp_path / "never", shares({1.0: (0.7, 0.2), 8.0: (0.6, 0.3)}))
    failed = sweep(tmp_path / "failed", [share_row(1.0, 0.7, 0.2) | FAILED])
    with drawn(aict19.fig10) as figures:
        aict19.fig10.analyse({"fig10": never}, "quick")
        aict19.fig10.analyse({"fig10": failed}, "quick")
    apart, empty = (fig.axes[0] for fig in figures)
    assert line(apart, "BBR (mean)").y == pytest.approx([70.0, 60.0])
    assert vertical_positions(apart) == [] and texts(apart) == []
    # no run: six empty lines, the x axis up to 8 BDP, the paper's largest buffer, + 0.2
    assert [(e.x, e.y) for e in lines(empty)] == [([], [])] * 6
    assert vertical_positions(empty) == [] and texts(empty) == []
    assert empty.get_xlim() == pytest.approx((0.0, 8.2))


def test_fig12_plots_bbr_shallows_shares_from_its_own_sweep(tmp_path: Path) -> None:
    fig12 = runs(
        tmp_path / "fig12",
        [
            # BBR Shallow 0.3, 0.5, 0.7, 0.9: 25th 0.3 + 0.75 × 0.2 = 0.45, 75th 0.7 + 0.05 = 0.75
            (
                share_row(2.0, 0.5, 0.45),
                Series(bbr=steps(0.1, 0.3, 0.5, 0.7, 0.9), cubic=steps(0.1, 0.4)),
            ),
            (share_row(4.0, 0.4, 0.55), Series(bbr=steps(0.1, 0.35), cubic=steps(0.1, 0.6))),
        ],
    )
    fig10 = runs(tmp_path / "fig10", FIG10_RUNS)
    with drawn(aict19.fig12) as figures:
        aict19.fig12.analyse({"fig10": fig10, "fig12": fig12}, "quick")
    ax = only(figures)
    found = share_lines(ax)
    assert list(found) == [
        "BBR Shallow (mean)",
        "BBR Shallow (25th pct.)",
        "BBR Shallow (75th pct.)",
        "CUBIC (mean)",
        "CUBIC (25th pct.)",
        "CUBIC (75th pct.)",
    ]
    assert found["BBR Shallow (mean)"] == ([2.0, 4.0], pytest.approx([50.0, 40.0]), (BBR, "-", "o"))
    assert found["BBR Shallow (25th pct.)"][1] == pytest.approx([45.0, 35.0])
    assert found["BBR Shallow (75th pct.)"][1] == pytest.approx([75.0, 35.0])
    assert found["CUBIC (mean)"][1:] == (pytest.approx([45.0, 55.0]), (CUBIC, "-", "o"))
    assert found["CUBIC (25th pct.)"][1] == found["CUBIC (75th pct.)"][1] == pytest.approx([40, 60])
    # +5 points at 2 BDP, -15 at 4: 2 + 2 × 5 / 20 = 2.5 BDP (Fig. 10's sweep crosses at 4.67)
    assert vertical_positions(ax) == [pytest.approx(2.5)]
    assert texts(ax) == ["crossing 2.5 BDP"]
    assert ax.get_xlim() == pytest.approx((0.0, 4.2))


# ----- Fig. 11 ---------------------------------------------------------------------------------


def test_fig11_plots_the_mean_loss_of_bbr_and_bbr_shallow_by_buffer(tmp_path: Path) -> None:
    rows = [
        loss_row(1.0, 0.06, cc=BBR_LABEL),
        loss_row(0.5, 0.11, cc=BBR_LABEL),
        loss_row(0.5, 0.13, seed=2, cc=BBR_LABEL),
        loss_row(2.0, 0.5, cc=BBR_LABEL, **FAILED),  # BBR did not finish at 2 BDP
        loss_row(0.5, 0.08, cc=SHALLOW),
        loss_row(0.5, 0.10, flows=4, cc=SHALLOW),
        loss_row(1.0, 0.04, cc=SHALLOW),
        loss_row(1.5, 0.3, cc=SHALLOW, **FAILED),
        loss_row(2.0, 0.002, cc=SHALLOW),
    ]
    with drawn(aict19.fig11) as figures:
        aict19.fig11.analyse({"fig11": sweep(tmp_path / "fig11", rows)}, "quick")
    ax = only(figures)
    assert [(e.label, look(e)) for e in lines(ax)] == [
        ("BBR", (BBR, "-", "o")),
        ("BBR Shallow (cwnd gain 1.5)", (SHALLOW_COLOUR, "-", "o")),
    ]
    # BBR: 0.5 BDP (11 + 13) / 2 = 12 %, 1 BDP 6 %; BBR Shallow: (8 + 10) / 2 = 9 %, 4 %, 0.2 %
    assert line(ax, "BBR").x == [0.5, 1.0]
    assert line(ax, "BBR").y == pytest.approx([12.0, 6.0])
    shallow = line(ax, "BBR Shallow (cwnd gain 1.5)")
    assert shallow.x == [0.5, 1.0, 2.0]
    assert shallow.y == pytest.approx([9.0, 4.0, 0.2])
    # the axis spans every buffer plotted: BBR Shallow's 2 BDP point too
    axis = x_axis(ax)
    assert (axis.ticks, axis.tick_labels) == ([0.5, 1.0, 2.0], ["0.5", "1", "2"])
    assert ax.get_xlim() == pytest.approx((0.0, 2.15)) and ax.get_ylim()[0] == 0.0
    assert legend_labels(ax) == ["BBR", "BBR Shallow (cwnd gain 1.5)"]


def test_fig11_without_a_finished_run_plots_empty_lines(tmp_path: Path) -> None:
    rows = [
        loss_row(0.5, 0.1, cc=BBR_LABEL) | FAILED,
        loss_row(0.5, 0.1, cc=SHALLOW) | FAILED,
    ]
    with drawn(aict19.fig11) as figures:
        aict19.fig11.analyse({"fig11": sweep(tmp_path / "fig11", rows)}, "quick")
    ax = only(figures)
    assert [(e.label, e.x, e.y) for e in lines(ax)] == [
        ("BBR", [], []),
        ("BBR Shallow (cwnd gain 1.5)", [], []),
    ]
    assert x_axis(ax).ticks == [] and ax.get_xlim() == pytest.approx((0.0, 2.15))


# ----- the whole paper -------------------------------------------------------------------------


def test_analyse_draws_each_figure_once_in_the_papers_order(tmp_path: Path) -> None:
    fig5 = [(queue_row(1.2, 1.5), Series(backlog=((0.0, 1.0),)))]
    fig10 = runs(tmp_path / "fig10", [*FIG10_RUNS, (share_row(1.75, 0.6, 0.3), CYCLE)])
    results = {
        "fig4": sync_sweep(tmp_path / "fig4"),
        "fig5-bbr": runs(tmp_path / "fig5-bbr", fig5),
        "fig5-cubic": runs(tmp_path / "fig5-cubic", fig5),
        "fig7": sweep(tmp_path / "fig7", [loss_row(0.5, 0.1)]),
        "fig10": fig10,
        "fig11": sweep(tmp_path / "fig11", [loss_row(0.5, 0.1)]),
        "fig12": fig10,
    }
    with drawn(*aict19.FIGURES.parts) as figures:
        found: Findings = aict19.analyse(results, "quick")
    assert [f.name for f in found.figures] == [
        "fig4",
        "fig5",
        "fig6",
        "fig7",
        "fig8",
        "fig9",
        "fig10",
        "fig11",
        "fig12",
    ]
    # Fig. 9 has four panels, the others one
    assert [len(figure.axes) for figure in figures] == [1, 1, 1, 1, 1, 4, 1, 1, 1]
    assert [e.label for e in lines(figures[6].axes[0])][:1] == ["BBR (mean)"]
    assert [e.label for e in lines(figures[8].axes[0])][:1] == ["BBR Shallow (mean)"]
