"""What the run report's and the overview's panels plot, read back from the figures
(`tests/figure_data.py`), on a hand-made two-flow result small enough to work out by hand.

The result: flows "a" (BBR-like: a bandwidth estimate and a min-RTT estimate) and "b" (no
estimate), samples at t = 0, 1, 2 s; a 10 Mb/s, 20 ms bottleneck whose rate drops to 5 Mb/s
at 1 s, a 50 kB queue (2 BDP of 25 kB), the backlog 0, 5000, 2500 bytes.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection

from bloatlab.plots import overview_figure
from bloatlab.report import run as run_report
from bloatlab.report import sweep as sweep_report
from bloatlab.result import Result, table_from_columns
from figure_data import (
    PNG,
    drawn,
    errorbars,
    horizontal_levels,
    legend_labels,
    line,
    lines,
)

NAN = math.nan
FLOWS = ["a", "b"]
STATES = ["STARTUP", "DRAIN", "PROBE_BW"]


def telemetry(**extra: Any) -> Result:
    flows = table_from_columns(
        {
            "flow": np.array([0, 0, 0, 1, 1, 1], dtype=np.int64),
            "t": np.array([0.0, 1.0, 2.0, 0.0, 1.0, 2.0]),
            # a: 125 000 then 250 000 bytes a second = 1 and 2 Mb/s; b: 0.5 Mb/s twice
            "delivered_bytes": np.array([0, 125_000, 375_000, 0, 62_500, 125_000], dtype=np.int64),
            "cwnd_pkts": np.array([10.0, 20.0, 30.0, 4.0, 5.0, 6.0]),
            "inflight_pkts": np.array([9.0, 19.0, 29.0, 3.0, 4.0, 5.0]),
            "bw_est_bps": np.array([1e6, 2e6, 3e6, NAN, NAN, NAN]),
            "srtt_s": np.array([0.020, 0.030, 0.040, 0.025, 0.035, 0.045]),
            "cc_min_rtt_s": np.array([0.020, 0.020, 0.021, NAN, NAN, NAN]),
            "cc_state": np.array([0, 0, 2, 0, 1, 1], dtype=np.int64),
            "delivery_rate_bps": np.array([0.0, 4e6, 2e6, 1e6, NAN, 3e6]),
        },
        {"flow": FLOWS, "cc_state": STATES},
    )
    queue = pa.table({"t": [0.0, 1.0, 2.0], "backlog_bytes": [0, 5000, 2500]})
    bottleneck = {
        "rate_bps": 10e6,
        "rtt_ns": 20_000_000,
        "schedule": [{"at_ns": 1_000_000_000, "rate_bps": 5e6}],
        "queue": {"limit_bytes": 50_000},
        "bdp_bytes": 25_000,
    }
    summary = {
        "name": "hand-made",
        "seed": 7,
        "duration_s": 2.0,
        "scenario": {"bottleneck": bottleneck},
        **extra,
    }
    tables = {"flows": flows, "queue": queue}
    return Result(summary, tables, {"flow": FLOWS, "cc_state": STATES})


def panel(plots: list[Any], figures: list[Any], name: str) -> Axes:
    """The first axes of the run report's plot called `name`."""
    index = [p.name for p in plots].index(name)
    return figures[index].axes[0]


# ----- the overview (bloatlab run --plot) ----------------------------------------------------


def overview_axes(result: Result) -> dict[str, Axes]:
    figure = overview_figure(result)
    return {ax.get_ylabel(): ax for ax in figure.axes}


def test_overview_throughput_is_delivered_bytes_per_bin_against_the_rate_schedule() -> None:
    ax = overview_axes(telemetry())["throughput (Mb/s)"]
    # bins of max(2 s / 400, median step 1 s) = 1 s, drawn at their ends
    assert (line(ax, "a").x, line(ax, "a").y) == ([1.0, 2.0], [1.0, 2.0])
    assert (line(ax, "b").x, line(ax, "b").y) == ([1.0, 2.0], [0.5, 0.5])
    # 10 Mb/s from 0 s, 5 Mb/s from 1 s, held to the end (2 s)
    rate = line(ax, "bottleneck")
    assert (rate.x, rate.y, rate.style) == ([0.0, 1.0, 2.0], [10.0, 5.0, 5.0], "--")
    assert [line(ax, f).color for f in FLOWS] == ["C0", "C1"]


def test_overview_throughput_marks_a_traces_mean_rate() -> None:
    result = telemetry()
    result.summary["scenario"]["bottleneck"]["trace"] = {"mean_rate_bps": 12e6}
    ax = overview_axes(result)["throughput (Mb/s)"]
    assert line(ax, "trace mean").y == [12.0, 12.0]


def test_overview_cwnd_and_inflight_per_flow() -> None:
    ax = overview_axes(telemetry())["packets"]
    drawn_lines = [(e.y, e.style, e.color) for e in lines(ax, unlabelled=True)]
    assert drawn_lines == [
        ([10.0, 20.0, 30.0], "-", "C0"),
        ([9.0, 19.0, 29.0], ":", "C0"),
        ([4.0, 5.0, 6.0], "-", "C1"),
        ([3.0, 4.0, 5.0], ":", "C1"),
    ]
    assert legend_labels(ax) == ["cwnd", "inflight"]


def test_overview_rtt_in_ms_with_the_min_rtt_estimate_and_the_base_rtt() -> None:
    ax = overview_axes(telemetry())["smoothed RTT (ms)"]
    drawn_lines = [(e.y, e.style) for e in lines(ax, unlabelled=True)]
    assert drawn_lines[:3] == [
        (pytest.approx([20.0, 30.0, 40.0]), "-"),
        (pytest.approx([25.0, 35.0, 45.0]), "-"),
        (pytest.approx([20.0, 20.0, 21.0]), ":"),  # only a has a min-RTT estimate
    ]
    assert horizontal_levels(ax) == [20.0]
    assert legend_labels(ax) == ["min-RTT estimate", "base RTT"]


def test_overview_bandwidth_estimate_in_mbps() -> None:
    ax = overview_axes(telemetry())["bw estimate (Mb/s)"]
    a, b = lines(ax, unlabelled=True)
    assert (a.y, a.color) == ([1.0, 2.0, 3.0], "C0")
    assert all(math.isnan(v) for v in b.y)  # b has no estimate: nothing shows


def test_overview_backlog_in_bytes_with_a_bdp_axis() -> None:
    figure = overview_figure(telemetry())
    ax = next(a for a in figure.axes if a.get_ylabel() == "queue backlog")
    [step] = lines(ax, unlabelled=True)
    assert (step.x, step.y) == ([0.0, 1.0, 2.0], [0.0, 5000.0, 2500.0])
    [bdp_axis] = ax.child_axes
    assert bdp_axis.get_ylabel() == "backlog (BDP)"
    ax.set_ylim(0, 50_000)
    figure.draw_without_rendering()
    assert bdp_axis.get_ylim() == pytest.approx((0.0, 2.0))  # BDP = 10 Mb/s × 20 ms = 25 kB


def test_overview_state_timeline_spans_each_state_until_the_next() -> None:
    ax = overview_axes(telemetry())["CC state"]
    spans = []
    for collection in ax.collections:
        assert isinstance(collection, PolyCollection)
        for path in collection.get_paths():
            xs, ys = path.vertices[:, 0], path.vertices[:, 1]
            spans.append((float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())))
    # a: STARTUP 0–2 s (until PROBE_BW at 2 s), PROBE_BW from its last sample (0 wide);
    # b (row 1): STARTUP 0–1 s, DRAIN 1–2 s
    assert sorted(spans) == sorted(
        [
            (0.0, 2.0, -0.4, 0.4),
            (2.0, 2.0, -0.4, 0.4),
            (0.0, 1.0, 0.6, 1.4),
            (1.0, 2.0, 0.6, 1.4),
        ]
    )
    assert legend_labels(ax) == STATES
    assert [t.get_text() for t in ax.get_yticklabels()] == FLOWS


def test_overview_title_and_time_axis() -> None:
    figure = overview_figure(telemetry())
    assert figure.get_suptitle() == "hand-made  (seed 7)"
    assert figure.axes[-1].get_xlim() == (0.0, 2.0)


# ----- the run report's panels ---------------------------------------------------------------


def test_report_bandwidth_estimates_only_flows_with_one_against_wire_and_payload_rates() -> None:
    with drawn(run_report) as figures:
        plots = run_report.run_plots(telemetry())
    ax = panel(plots, figures, "bw-estimate")
    estimates = [e for e in lines(ax, unlabelled=True) if len(e.x) == 3]
    assert [(e.y, e.color) for e in estimates] == [([1.0, 2.0, 3.0], "C0")]
    # the dashed wire rate and the dotted payload rate, 10 × 1448/1500 = 9.6533 Mb/s
    assert horizontal_levels(ax) == pytest.approx([10.0, 10.0 * 1448 / 1500])
    assert legend_labels(ax) == ["a", "bottleneck rate", "payload rate"]


def test_report_panels_follow_the_columns_present() -> None:
    with drawn(run_report) as figures:
        plots = run_report.run_plots(telemetry())
    assert [p.name for p in plots] == [
        "throughput",
        "cwnd",
        "bw-estimate",
        "rtt",
        "queue",
        "cc-state",
        "cdf-rtt",
        "cdf-rate",
    ]
    assert all(p.png == PNG for p in plots) and len(figures) == len(plots)
    assert figures[0].axes[0].get_xlim() == (0.0, 2.0)  # the run's end


def test_report_cdfs_from_the_telemetry_leave_out_zeros_and_missing_values() -> None:
    with drawn(run_report) as figures:
        plots = run_report.run_plots(telemetry())
    rtt = panel(plots, figures, "cdf-rtt")
    # srtt in ms, sorted; fractions 1/3, 2/3, 1
    assert (line(rtt, "a").x, line(rtt, "a").y) == (
        pytest.approx([20.0, 30.0, 40.0]),
        pytest.approx([1 / 3, 2 / 3, 1.0]),
    )
    rate = panel(plots, figures, "cdf-rate")
    # a: 0 is left out, 2 and 4 Mb/s remain; b: NaN left out, 1 and 3 Mb/s
    assert (line(rate, "a").x, line(rate, "a").y) == ([2.0, 4.0], [0.5, 1.0])
    assert (line(rate, "b").x, line(rate, "b").y) == ([1.0, 3.0], [0.5, 1.0])
    caption = plots[[p.name for p in plots].index("cdf-rate")].caption
    assert caption == "From the telemetry column delivery_rate_bps (this run kept no rate samples)."


def test_report_cdfs_use_every_rate_sample_but_the_application_limited_ones() -> None:
    result = telemetry()
    samples = table_from_columns(
        {
            "flow": np.array([1, 0, 0, 0, 1], dtype=np.int64),
            "rtt_s": np.array([0.05, 0.03, 0.01, 0.02, 0.04]),
            "rate_bps": np.array([5e6, 3e6, 1e6, 2e6, 4e6]),
            "app_limited": np.array([False, False, True, False, False]),
        },
        {"flow": FLOWS},
    )
    result = Result(result.summary, {**result.tables, "samples": samples}, result.dictionaries)
    with drawn(run_report) as figures:
        plots = run_report.run_plots(result)
    rtt = panel(plots, figures, "cdf-rtt")
    # every RTT sample, app-limited or not: a 10, 20, 30 ms; b 40, 50 ms
    assert line(rtt, "a").x == pytest.approx([10.0, 20.0, 30.0])
    assert line(rtt, "b").x == pytest.approx([40.0, 50.0])
    rate = panel(plots, figures, "cdf-rate")
    # a's 1 Mb/s sample was application-limited
    assert (line(rate, "a").x, line(rate, "a").y) == ([2.0, 3.0], [0.5, 1.0])
    assert line(rate, "b").x == [4.0, 5.0]
    captions = {p.name: p.caption for p in plots}
    assert captions["cdf-rate"] == (
        "From every rate sample (samples.parquet), application-limited samples left out."
    )
    assert captions["cdf-rtt"] == "From every rate sample (samples.parquet)."


def video_segments(**extra: list[Any]) -> pa.Table:
    """Four segments of one player, finishing out of request order (the fourth and the
    abandoned third before the second), the fourth re-fetched by fast switching and late
    (a stall)."""
    columns: dict[str, list[Any]] = {
        "index": [0, 1, 1, 2],
        "bitrate_bps": [1e6, 4e6, 2e6, 8e6],
        "request_t": [0.0, 2.0, 3.0, 4.0],
        "last_byte_t": [1.0, 3.5, 3.2, 3.3],
        "throughput_bps": [2e6, 5e6, 1e6, 9e6],
        "abr_estimate_bps": [1.5e6, 4.5e6, 3e6, 8.5e6],
        "buffer_s": [0.0, 4.0, 3.0, 0.5],
        "stall": [False, False, False, True],
        "abandoned": [False, False, True, False],
        "replacement": [False, False, False, True],
        **extra,
    }
    return pa.table(columns)


def test_video_quality_is_the_bitrate_of_each_finished_segment_in_time_order() -> None:
    with drawn(run_report) as figures:
        run_report.video_plot(video_segments(), telemetry())
    top, bottom = figures[0].axes
    quality = line(top, "player: quality")
    # the abandoned download (2 Mb/s, ends 3.2 s) is not quality; the rest by last byte
    assert (quality.x, quality.y) == ([1.0, 3.3, 3.5], [1.0, 8.0, 4.0])
    assert line(top, "segment throughput").y == [2.0, 9.0, 5.0]
    assert line(top, "ABR estimate").y == [1.5, 8.5, 4.5]
    assert (line(top, "abandoned").x, line(top, "abandoned").y) == ([3.2], [2.0])
    again = line(top, "re-fetched (fast switching)")
    assert (again.x, again.y) == ([3.3], [8.0])
    # the buffer at each request, the abandoned one's included, in request order
    buffer = line(bottom, "player: buffer at request")
    assert (buffer.x, buffer.y) == ([0.0, 2.0, 3.0, 4.0], [0.0, 4.0, 3.0, 0.5])
    assert (line(bottom, "stalled").x, line(bottom, "stalled").y) == ([3.3], [0.0])


def test_video_leaves_out_audio_and_draws_a_line_per_player() -> None:
    segments = video_segments(
        flow=["v1", "v2", "v1", "v2"], track=["video", "video", "audio", "video"]
    )
    with drawn(run_report) as figures:
        run_report.video_plot(segments, telemetry())
    top, _ = figures[0].axes
    v1, v2 = line(top, "v1: quality"), line(top, "v2: quality")
    assert (v1.x, v1.y, v1.color) == ([1.0], [1.0], "C0")
    assert (v2.x, v2.y, v2.color) == ([3.3, 3.5], [8.0, 4.0], "C1")
    assert "abandoned" not in legend_labels(top)  # the abandoned row was audio


# ----- the run report's summary tables -------------------------------------------------------


def test_summary_tables_scale_each_metric_and_show_missing_values_as_a_dash() -> None:
    summary = {
        "flows": {
            "a": {
                "cc": "bbr",
                "goodput_bps": 9.5e6,
                "throughput_bps": 9.87654e6,
                "rtt_p50_s": 0.02345,
                "rtt_p90_s": 0.0301,
                "retrans_ratio": 0.01234,
                "loss_rate": NAN,
                "bw_est_mean_bps": True,  # not a number
            }
        },
        "bottleneck": {"utilisation": 0.9876, "jain_index": 0.99951, "drop_rate": None},
        "summary_window_s": [1.5, 10],
    }
    html = run_report._summary_tables(summary)
    assert html.startswith("<p>Over the summary window 1.5–10 s.</p>")
    cells = re.findall(r'<td class="[^"]*">([^<]*)</td>', html)
    assert cells[:9] == ["a", "bbr", "9.50", "9.88", "23.4", "30.1", "1.23", "–", "–"]
    assert cells[9:] == [
        "utilisation (%)",
        "98.8",
        "drop rate (%)",
        "–",
        "queue delay p50 (ms)",
        "–",
        "queue delay p90 (ms)",
        "–",
        "backlog mean (BDP)",
        "–",
        "backlog p90 (BDP)",
        "–",
        "Jain index",
        "1.000",
    ]


@pytest.mark.parametrize(
    ("bottleneck", "text"),
    [
        (
            {
                "rate_bps": 25e6,
                "rtt_ns": 100e6,
                "queue": {"limit_bytes": 625e3},
                "bdp_bytes": 312.5e3,
            },
            "25 Mb/s, 100 ms RTT, buffer 2 BDP (625 kB)",
        ),
        ({"rate_bps": 25e6, "queue": {"limit_bytes": 10e6}}, "25 Mb/s, buffer 10000 kB"),
        ({"queue": {"limit_bytes": 1e5}, "bdp_bytes": 0}, "buffer 100 kB"),
        ({}, "bottleneck"),
    ],
)
def test_the_subtitle_describes_the_bottleneck(bottleneck: dict[str, Any], text: str) -> None:
    assert run_report._describe_bottleneck(bottleneck) == text


# ----- the sweep report's metric plots -------------------------------------------------------


def sweep_rows() -> list[dict[str, Any]]:
    """Two CCAs × rates 5, 10, 20, 80 Mb/s × seeds 1, 2; one seed of cubic at 10 Mb/s failed
    (it is not passed on: `metric_plot` receives the finished rows)."""
    rows = []
    for cc, base in (("bbr", 0.5), ("cubic", 0.2)):
        for rate, mbps in (("5Mbps", 5), ("10Mbps", 10), ("20Mbps", 20), ("80Mbps", 80)):
            for seed in (1, 2):
                if (cc, rate, seed) == ("cubic", "10Mbps", 2):
                    continue
                value = base + mbps / 100 + (0.01 if seed == 2 else -0.01)
                rows.append({"cc": cc, "rate": rate, "seed": seed, "m.drop_rate": value})
    return rows


def test_a_metric_is_the_mean_over_seeds_with_a_standard_deviation_per_line() -> None:
    layout = sweep_report.Layout(
        "rate", {"5Mbps": 5.0, "10Mbps": 10.0, "20Mbps": 20.0, "80Mbps": 80.0}, "Mb/s", ["cc"]
    )
    with drawn(sweep_report) as figures:
        plot = sweep_report.metric_plot(sweep_rows(), "m.drop_rate", layout)
    assert plot is not None
    ax = figures[0].axes[0]
    bbr, cubic = errorbars(ax)
    # bbr at 5 Mb/s: 0.54 and 0.56 → mean 0.55 (×100 for a %), sample std 0.01414 (×100)
    assert bbr.label == "bbr" and bbr.x == [5.0, 10.0, 20.0, 80.0]
    assert bbr.y == pytest.approx([55.0, 60.0, 70.0, 130.0])
    assert bbr.error == pytest.approx([100 * 0.02 / math.sqrt(2)] * 4)
    # cubic at 10 Mb/s has one seed: its value (0.2 + 0.1 - 0.01) and no error bar
    assert cubic.y == pytest.approx([25.0, 29.0, 40.0, 100.0])
    assert cubic.error == pytest.approx([1.4142, 0.0, 1.4142, 1.4142], abs=1e-4)
    # 80 / 5 ≥ 16 with more than two positions: a log2 x axis with ticks at the rates
    assert ax.get_xscale() == "log"
    assert list(ax.get_xticks()) == [5.0, 10.0, 20.0, 80.0]
    assert ax.get_xlabel() == "rate (Mb/s)"
    assert legend_labels(ax) == ["bbr", "cubic"]
    assert plot.caption == "<code>m.drop_rate</code>."


def test_a_non_numeric_parameter_is_a_category_axis_in_the_order_seen() -> None:
    rows = [{"cc": cc, "seed": 1, "m.drop_rate": v} for cc, v in (("cubic", 0.2), ("bbr", 0.4))]
    layout = sweep_report.Layout("cc", None, "", [])
    with drawn(sweep_report) as figures:
        sweep_report.metric_plot(rows, "m.drop_rate", layout)
    ax = figures[0].axes[0]
    [series] = errorbars(ax)
    assert (series.x, series.y) == ([0.0, 1.0], pytest.approx([20.0, 40.0]))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["cubic", "bbr"]
    assert ax.get_xscale() == "linear" and ax.get_legend() is None


def test_only_the_first_lines_are_drawn_and_the_caption_says_so() -> None:
    rows = [{"n": n, "x": 1, "seed": 1, "m.drop_rate": n / 100} for n in range(14)]
    layout = sweep_report.Layout("x", {1: 1.0}, "", ["n"])
    with drawn(sweep_report) as figures:
        plot = sweep_report.metric_plot(rows, "m.drop_rate", layout)
    assert plot is not None
    assert len(errorbars(figures[0].axes[0])) == sweep_report.MAX_LINES
    assert plot.caption == "<code>m.drop_rate</code>; the first 12 of 14 lines."


def test_rows_without_a_finite_value_are_left_out_and_none_means_no_plot() -> None:
    rows = [{"x": 1, "seed": s, "m.drop_rate": v} for s, v in ((1, NAN), (2, None), (3, True))]
    layout = sweep_report.Layout("x", {1: 1.0}, "", [])
    with drawn(sweep_report) as figures:
        assert sweep_report.metric_plot(rows, "m.drop_rate", layout) is None
    assert figures == []


@pytest.mark.parametrize(
    ("seeds", "text"),
    [([1, 2, 3], "1–3"), ([1, 2], "1, 2"), ([1, 3, 4], "1, 3, 4"), ([], "")],
)
def test_seeds_are_shown_as_a_range_when_they_are_one(seeds: list[int], text: str) -> None:
    assert sweep_report._seed_text(seeds) == text


def test_the_runs_section_counts_each_status_and_lists_the_failed_runs() -> None:
    rows = [
        {"run": "r1", "p": 1, "seed": 1, "status": "done", "error": None},
        {"run": "r2", "p": 2, "seed": 1, "status": "failed", "error": "boom"},
        {"run": "r3", "p": 3, "seed": 1, "status": "invalid", "error": "p: <bad>"},
    ]
    html = sweep_report._status_html(rows, ["p"])
    assert html.startswith("<p>1 done, 1 failed, 1 invalid.</p><table>")
    assert '<td class="">r2</td>' in html and "boom" in html and "p: &lt;bad&gt;" in html
    assert "r1" not in html


# ----- the page and its files ----------------------------------------------------------------


def test_a_page_writes_each_plot_as_a_numbered_slug_and_drops_the_last_writes_pngs(
    tmp_path: Path,
) -> None:
    from bloatlab.report.html import Plot, Section, write_page

    folder = tmp_path / "page_files"
    folder.mkdir()
    (folder / "07-old.png").write_bytes(b"stale")
    (folder / "notes.txt").write_text("kept")
    sections = [
        Section("A", plots=[Plot("CDF of RTT", "t", b"one"), Plot("--", "t", b"two")]),
        Section("B", intro="<i>x</i>", plots=[Plot("bw/est", "t", b"three")], layout="wide"),
    ]
    page = write_page(tmp_path / "page.html", "T <1>", "sub", sections)
    assert sorted(p.name for p in folder.iterdir()) == [
        "01-cdf-of-rtt.png",
        "02-plot.png",  # nothing left of the name
        "03-bw-est.png",
        "notes.txt",
    ]
    assert (folder / "03-bw-est.png").read_bytes() == b"three"
    html = page.read_text()
    assert "<title>T &lt;1&gt;</title>" in html and '<figure id="cdf-of-rtt">' in html
    assert '<p><i>x</i></p>\n<div class="grid wide">' in html


def test_without_a_duration_the_time_axis_ends_at_the_last_sample() -> None:
    result = telemetry()
    del result.summary["duration_s"]
    queue = pa.table({"t": [0.0, 3.5], "backlog_bytes": [0, 0]})
    result = Result(result.summary, {**result.tables, "queue": queue}, result.dictionaries)
    figure = overview_figure(result)
    assert figure.axes[-1].get_xlim() == (0.0, 3.5)  # the queue's last sample, after the flows'


def test_no_state_panel_without_a_state_column() -> None:
    result = telemetry()
    flows = result.tables["flows"].drop_columns(["cc_state"])
    result = Result(result.summary, {**result.tables, "flows": flows}, result.dictionaries)
    assert "CC state" not in overview_axes(result)
