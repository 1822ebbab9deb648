"""The report of one run: time series, distributions, and the summary as tables.

Panels (each drawn only when the run has the data): throughput against the link rate; cwnd
and inflight; bandwidth estimate against the true rate; RTT; queue backlog in bytes and BDP;
CC state timeline; CDFs of RTT and of delivery-rate samples; and, for runs with
`segments.parquet` (DASH), the quality and buffer timeline.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..plots.overview import (
    _LEGEND,
    Telemetry,
    _backlog,
    _cwnd,
    _Flow,
    _rtt,
    _states,
    _throughput,
    has_columns,
)
from ..result import Result, load_result
from .html import Plot, Section, esc, png, table

Array = npt.NDArray[Any]
PAYLOAD_SHARE = 1448 / 1500  # payload per wire byte of a full segment (default MSS)
WIDTH = 9.0


def run_sections(folder: Path) -> tuple[str, str, list[Section]]:
    """Title, subtitle (HTML) and sections of the report of the run at `folder`."""
    result = load_result(folder)
    summary = result.summary
    scenario = summary.get("scenario", {})
    bottleneck = scenario.get("bottleneck", {})
    title = f"bloatlab run: {summary.get('name', folder.name)}"
    subtitle = esc(
        f"seed {summary.get('seed')} · {_describe_bottleneck(bottleneck)} · "
        f"{len(summary.get('flows', {}))} flows · core {summary.get('version', '?')} · {folder}"
    )
    plots = run_plots(result, folder)
    sections = [
        Section(
            "Time series", plots=[p for p in plots if not p.name.startswith("cdf")], layout="wide"
        ),
        Section("Distributions", plots=[p for p in plots if p.name.startswith("cdf")]),
        Section("Summary", html=_summary_tables(summary)),
    ]
    return title, subtitle, [s for s in sections if s.plots or s.html]


def run_plots(result: Result, folder: Path | None = None) -> list[Plot]:
    run = Telemetry.of(result)
    samples = result.tables.get("samples", pa.table({}))

    def finite(column: str) -> bool:
        return any(np.isfinite(f[column]).any() for f in run.series if column in f.columns)

    specs: list[tuple[str, str, str, Callable[[Axes], None]]] = []
    if has_columns(run.flows, "t", "delivered_bytes"):
        specs.append(
            (
                "throughput",
                "Throughput per flow",
                "Delivered bytes per time bin (on the wire) against the bottleneck rate (dashed).",
                lambda ax: _throughput(ax, run.series, run.bottleneck, run.end),
            )
        )
    if has_columns(run.flows, "t", "cwnd_pkts"):
        specs.append(
            (
                "cwnd",
                "Congestion window and inflight",
                "cwnd (solid) and packets in flight (dotted) per flow.",
                lambda ax: _cwnd_with_legend(ax, run.series),
            )
        )
    if has_columns(run.flows, "t", "bw_est_bps") and finite("bw_est_bps"):
        specs.append(
            (
                "bw-estimate",
                "Bandwidth estimate against the true rate",
                "Each model-based flow's bottleneck-bandwidth estimate (payload bits/s) against "
                "the bottleneck rate (dashed, on the wire) and its payload equivalent (dotted).",
                lambda ax: _bw_estimate(ax, run.series, run.bottleneck, run.end),
            )
        )
    if has_columns(run.flows, "t", "srtt_s"):
        specs.append(
            (
                "rtt",
                "Round-trip time",
                "Smoothed RTT per flow; the dashed line is the base (propagation) RTT.",
                lambda ax: _rtt_with_legend(ax, run.series, run.bottleneck),
            )
        )
    if has_columns(run.queue, "t", "backlog_bytes"):
        specs.append(
            (
                "queue",
                "Bottleneck queue backlog",
                "Bytes waiting at the bottleneck (left axis) and the same in multiples of the "
                "bandwidth-delay product (right axis).",
                lambda ax: _backlog_with_label(ax, run.queue, run.bottleneck),
            )
        )
    if has_columns(run.flows, "t", "cc_state") and run.states:
        specs.append(
            (
                "cc-state",
                "Congestion-control state timeline",
                "The state each flow's algorithm is in over time.",
                lambda ax: _states(ax, run.series, run.states),
            )
        )
    plots = [_draw(name, title, caption, draw, run.end) for name, title, caption, draw in specs]
    plots.extend(_cdfs(run.flows, samples, run.series, result.dictionaries.get("flow", [])))
    if folder is not None and (folder / "segments.parquet").is_file():
        plots.append(video_plot(pq.read_table(folder / "segments.parquet"), result))
    return plots


def _draw(name: str, title: str, caption: str, draw: Callable[[Axes], None], end: float) -> Plot:
    fig = Figure(figsize=(WIDTH, 2.9), layout="constrained")
    ax = fig.subplots()
    draw(ax)
    ax.grid(True, alpha=0.3)
    ax.set_xlim(0, end or None)
    ax.set_xlabel("time (s)")
    ax.set_title(title, loc="left", fontsize="medium")
    return Plot(name, title, png(fig), caption)


def _backlog_with_label(ax: Axes, queue: pa.Table, bottleneck: dict[str, Any]) -> None:
    _backlog(ax, queue, bottleneck)
    ax.set_ylabel("backlog (bytes)")


def _flow_legend(ax: Axes, series: list[_Flow], extra: list[Line2D]) -> None:
    handles = [Line2D([], [], color=f.color, lw=1.5, label=f.name) for f in series[:12]]
    ax.legend(handles=handles + extra, **_LEGEND)


def _cwnd_with_legend(ax: Axes, series: list[_Flow]) -> None:
    _cwnd(ax, series)
    ax.set_ylabel("cwnd, inflight (packets)")
    extra = [
        Line2D([], [], color="grey", lw=1, label="cwnd"),
        Line2D([], [], color="grey", lw=0.8, ls=":", label="inflight"),
    ]
    _flow_legend(ax, series, extra)


def _rtt_with_legend(ax: Axes, series: list[_Flow], bottleneck: dict[str, Any]) -> None:
    _rtt(ax, series, bottleneck)
    _flow_legend(ax, series, [Line2D([], [], color="black", ls="--", lw=1, label="base RTT")])


def _bw_estimate(ax: Axes, series: list[_Flow], bottleneck: dict[str, Any], end: float) -> None:
    for flow in series:
        values = flow["bw_est_bps"]
        if np.isfinite(values).any():
            ax.plot(flow["t"], values * 1e-6, color=flow.color, lw=1)
    rate = bottleneck.get("rate_bps")
    extra = []
    if isinstance(rate, int | float) and rate > 0:
        ax.axhline(rate * 1e-6, color="black", ls="--", lw=1)
        ax.axhline(rate * PAYLOAD_SHARE * 1e-6, color="black", ls=":", lw=1)
        extra = [
            Line2D([], [], color="black", ls="--", lw=1, label="bottleneck rate"),
            Line2D([], [], color="black", ls=":", lw=1, label="payload rate"),
        ]
    ax.set_ylabel("bandwidth (Mb/s)")
    ax.set_ylim(bottom=0)
    estimating = [f for f in series if np.isfinite(f["bw_est_bps"]).any()]
    _flow_legend(ax, estimating, extra)


def _cdfs(flows: pa.Table, samples: pa.Table, series: list[_Flow], names: list[str]) -> list[Plot]:
    """CDFs of RTT and of delivery-rate samples: every rate sample when the run kept them
    (samples.parquet), else the per-interval telemetry."""
    per_flow_samples = _sample_columns(samples, names)
    plots = []
    for name, title, column, fallback, scale, unit in (
        ("cdf-rtt", "CDF of RTT", "rtt_s", "srtt_s", 1e3, "RTT (ms)"),
        (
            "cdf-rate",
            "CDF of delivery-rate samples",
            "rate_bps",
            "delivery_rate_bps",
            1e-6,
            "delivery rate (Mb/s)",
        ),
    ):
        data: list[tuple[str, str, Array]] = []
        source = "every rate sample (samples.parquet)"
        if per_flow_samples and column in per_flow_samples[0][2]:
            for flow_name, color, columns in per_flow_samples:
                values = columns[column]
                if column == "rate_bps" and "app_limited" in columns:
                    values = values[~columns["app_limited"].astype(bool)]
                data.append((flow_name, color, values))
            if column == "rate_bps":
                source += ", application-limited samples left out"
        else:
            source = f"the telemetry column {fallback} (this run kept no rate samples)"
            data = [(f.name, f.color, f[fallback]) for f in series if fallback in f.columns]
        data = [(n, c, v[np.isfinite(v) & (v > 0)]) for n, c, v in data]
        data = [(n, c, v) for n, c, v in data if len(v)]
        if not data:
            continue
        fig = Figure(figsize=(6.2, 3.4), layout="constrained")
        ax = fig.subplots()
        for flow_name, color, values in data[:12]:
            ordered = np.sort(values) * scale
            ax.step(
                ordered,
                np.arange(1, len(ordered) + 1) / len(ordered),
                where="post",
                color=color,
                lw=1.2,
                label=flow_name,
            )
        ax.set_xlabel(unit)
        ax.set_ylabel("fraction of samples")
        ax.set_ylim(0, 1.0)
        ax.set_xlim(left=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small", loc="lower right")
        ax.set_title(title, loc="left", fontsize="medium")
        plots.append(Plot(name, title, png(fig), f"From {source}."))
    return plots


def _sample_columns(samples: pa.Table, names: list[str]) -> list[tuple[str, str, dict[str, Array]]]:
    if samples.num_rows == 0 or "flow" not in samples.column_names:
        return []
    from ..plots.overview import _codes

    codes = _codes(samples.column("flow"))
    columns = {
        c: samples.column(c).to_numpy()
        for c in ("rtt_s", "rate_bps", "app_limited")
        if c in samples.column_names
    }
    out = []
    for code in np.unique(codes):
        rows = codes == code
        name = names[code] if code < len(names) else f"flow {code}"
        out.append((name, f"C{code % 10}", {c: v[rows] for c, v in columns.items()}))
    return out


def video_plot(segments: pa.Table, result: Result) -> Plot:
    """Quality (bitrate of each video segment) and player buffer over time, stalls marked.

    Reads `segments.parquet`: index, level, bitrate_bps, bytes, request_t, first_byte_t,
    last_byte_t, throughput_bps, abr_estimate_bps, buffer_s (at the request), stall, and when
    present `flow` (one player per DASH flow), `track` (audio rows are left out),
    `abandoned` (abandoned downloads are marked, not drawn as quality) and `replacement`
    (fast switching's re-fetches are marked).
    """
    import pyarrow.compute as pc

    if "track" in segments.column_names:
        segments = segments.filter(pc.equal(segments.column("track").cast(pa.string()), "video"))
    fig = Figure(figsize=(WIDTH, 4.8), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(3, 2))
    players: list[tuple[str, str, pa.Table]] = []
    if "flow" in segments.column_names:
        names = segments.column("flow").cast(pa.string()).to_pylist()
        for i, name in enumerate(dict.fromkeys(names)):
            mask = pa.array([n == name for n in names])
            players.append((str(name), f"C{i % 10}", segments.filter(mask)))
    else:
        players.append(("player", "C0", segments))
    for label, color, rows in players:
        abandoned = np.zeros(rows.num_rows, dtype=bool)
        if "abandoned" in rows.column_names:
            abandoned = _column(rows, "abandoned") > 0
        done = rows.filter(pa.array(~abandoned))
        t = _column(done, "last_byte_t")
        order = np.argsort(t)
        t = t[order]
        top.step(
            t,
            _column(done, "bitrate_bps")[order] * 1e-6,
            where="pre",
            color=color,
            lw=1.8,
            label=f"{label}: quality",
        )
        if "throughput_bps" in done.column_names:
            top.plot(
                t,
                _column(done, "throughput_bps")[order] * 1e-6,
                "o",
                ms=2.5,
                color=color,
                alpha=0.35,
                label="segment throughput",
            )
        if "abr_estimate_bps" in done.column_names:
            top.plot(
                t,
                _column(done, "abr_estimate_bps")[order] * 1e-6,
                "--",
                lw=0.9,
                color=color,
                alpha=0.8,
                label="ABR estimate",
            )
        if "replacement" in done.column_names:
            again = _column(done, "replacement")[order] > 0
            if again.any():
                top.plot(
                    t[again],
                    _column(done, "bitrate_bps")[order][again] * 1e-6,
                    "^",
                    color=color,
                    ms=5,
                    label="re-fetched (fast switching)",
                )
        if abandoned.any():
            gone = rows.filter(pa.array(abandoned))
            top.plot(
                _column(gone, "last_byte_t"),
                _column(gone, "bitrate_bps") * 1e-6,
                "x",
                color="C3",
                ms=6,
                label="abandoned",
            )
        if "buffer_s" in rows.column_names:
            requested = _column(rows, "request_t")
            by_request = np.argsort(requested)
            bottom.plot(
                requested[by_request],
                _column(rows, "buffer_s")[by_request],
                color=color,
                lw=1.2,
                label=f"{label}: buffer at request",
            )
        if "stall" in done.column_names:
            stalled = t[_column(done, "stall")[order] > 0]
            if len(stalled):
                bottom.plot(stalled, np.zeros(len(stalled)), "v", color="C3", ms=7, label="stalled")
    top.set_ylabel("bitrate (Mb/s)")
    top.set_ylim(bottom=0)
    top.legend(**_LEGEND)
    top.grid(True, alpha=0.3)
    top.set_title("Video quality and player buffer", loc="left", fontsize="medium")
    bottom.set_ylabel("buffer (s)")
    bottom.set_ylim(bottom=0)
    bottom.set_xlabel("time (s)")
    bottom.grid(True, alpha=0.3)
    bottom.legend(**_LEGEND)
    return Plot(
        "video",
        "Video quality and player buffer",
        png(fig),
        "Top: the bitrate of each video segment when its download finished, the throughput "
        "it saw (dots) and the ABR's estimate (dashed); crosses mark abandoned downloads, "
        "upward triangles segments fetched again by fast switching. "
        "Bottom: seconds of video buffered when each segment was requested; downward "
        "triangles mark segments that arrived during a stall.",
    )


def _column(table: pa.Table, name: str) -> Array:
    return np.asarray(table.column(name).to_numpy(zero_copy_only=False), dtype=np.float64)


def _describe_bottleneck(bottleneck: dict[str, Any]) -> str:
    parts = []
    rate, rtt = bottleneck.get("rate_bps"), bottleneck.get("rtt_ns")
    if isinstance(rate, int | float):
        parts.append(f"{rate / 1e6:g} Mb/s")
    if isinstance(rtt, int | float):
        parts.append(f"{rtt / 1e6:g} ms RTT")
    queue = bottleneck.get("queue", {})
    limit, bdp = queue.get("limit_bytes"), bottleneck.get("bdp_bytes")
    if isinstance(limit, int | float) and isinstance(bdp, int | float) and bdp > 0:
        parts.append(f"buffer {limit / bdp:g} BDP ({limit / 1e3:g} kB)")
    elif isinstance(limit, int | float):
        parts.append(f"buffer {limit / 1e3:g} kB")
    return ", ".join(parts) or "bottleneck"


_FLOW_COLUMNS = (
    ("goodput_bps", "goodput (Mb/s)", 1e-6, ".2f"),
    ("throughput_bps", "throughput (Mb/s)", 1e-6, ".2f"),
    ("rtt_p50_s", "RTT p50 (ms)", 1e3, ".1f"),
    ("rtt_p90_s", "RTT p90 (ms)", 1e3, ".1f"),
    ("retrans_ratio", "retrans (%)", 100, ".2f"),
    ("loss_rate", "loss (%)", 100, ".2f"),
    ("bw_est_mean_bps", "bw est mean (Mb/s)", 1e-6, ".2f"),
)
_BOTTLENECK_ROWS = (
    ("utilisation", "utilisation (%)", 100, ".1f"),
    ("drop_rate", "drop rate (%)", 100, ".2f"),
    ("queue_delay_p50_s", "queue delay p50 (ms)", 1e3, ".1f"),
    ("queue_delay_p90_s", "queue delay p90 (ms)", 1e3, ".1f"),
    ("backlog_mean_bdp", "backlog mean (BDP)", 1, ".2f"),
    ("backlog_p90_bdp", "backlog p90 (BDP)", 1, ".2f"),
    ("jain_index", "Jain index", 1, ".3f"),
)


def _fmt(value: Any, scale: float, spec: str) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool) or math.isnan(value):
        return "–"
    return f"{value * scale:{spec}}"


def _summary_tables(summary: dict[str, Any]) -> str:
    flows: dict[str, dict[str, Any]] = summary.get("flows", {})
    head = ["flow", "cc", *(label for _, label, _, _ in _FLOW_COLUMNS)]
    rows = [
        [name, str(flow.get("cc", "")), *(_fmt(flow.get(k), s, f) for k, _, s, f in _FLOW_COLUMNS)]
        for name, flow in flows.items()
    ]
    bottleneck = summary.get("bottleneck", {})
    window = summary.get("summary_window_s")
    note = ""
    if isinstance(window, list) and len(window) == 2:
        note = f"<p>Over the summary window {window[0]:g}–{window[1]:g} s.</p>"
    return (
        note
        + table(head, rows, numeric_from=2)
        + table(
            ["bottleneck", "value"],
            [[label, _fmt(bottleneck.get(k), s, f)] for k, label, s, f in _BOTTLENECK_ROWS],
        )
    )
