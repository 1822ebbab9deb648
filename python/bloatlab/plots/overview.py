"""The overview figure: stacked panels of one run sharing the time axis.

Panels, each drawn when its columns are present: per-flow throughput against the bottleneck
rate, cwnd and inflight, bandwidth estimate, smoothed RTT, queue backlog (with BDP multiples
on a twin axis when the scenario gives a rate and an RTT), and a CC state timeline.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import EngFormatter

if TYPE_CHECKING:
    from ..result import Result

Array = npt.NDArray[Any]
# At most this many throughput bins across the run: enough detail, no per-ACK noise.
_THROUGHPUT_BINS = 400
# Legends sit right of their panel, clear of the data.
_LEGEND: dict[str, Any] = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "fontsize": "small"}


def save_overview(result: Result, path: str | os.PathLike[str]) -> None:
    """Write the overview figure of `result` as a PNG."""
    overview_figure(result).savefig(path, dpi=110)


@dataclass(frozen=True)
class Telemetry:
    """A result's telemetry as the plots read it: the flows and queue tables, the bottleneck's
    settings, each flow's rows as numpy columns, the CC state names and the end time."""

    flows: pa.Table
    queue: pa.Table
    bottleneck: dict[str, Any]
    series: list[_Flow]
    states: list[str]
    end: float

    @classmethod
    def of(cls, result: Result) -> Telemetry:
        flows = result.tables.get("flows", pa.table({}))
        queue = result.tables.get("queue", pa.table({}))
        return cls(
            flows=flows,
            queue=queue,
            bottleneck=result.summary.get("scenario", {}).get("bottleneck", {}),
            series=list(_per_flow(flows, result.dictionaries.get("flow", []))),
            states=result.dictionaries.get("cc_state", []),
            end=_end_time(result, flows, queue),
        )


def has_columns(table: pa.Table, *columns: str) -> bool:
    """`table` has rows and every one of `columns`."""
    return table.num_rows > 0 and all(c in table.column_names for c in columns)


def _any_value(column: pa.ChunkedArray) -> bool:
    """Some row holds a number (an algorithm without the quantity leaves it null or NaN)."""
    values = column.to_numpy(zero_copy_only=False).astype(np.float64)
    return bool(np.isfinite(values).any())


def overview_figure(result: Result) -> Figure:
    """The overview figure of `result` (a `matplotlib.figure.Figure`, not tied to pyplot)."""
    run = Telemetry.of(result)
    panels: list[Callable[[Axes], None]] = []
    if has_columns(run.flows, "t", "delivered_bytes"):
        panels.append(lambda ax: _throughput(ax, run.series, run.bottleneck, run.end))
    if has_columns(run.flows, "t", "cwnd_pkts"):
        panels.append(lambda ax: _cwnd(ax, run.series))
    if has_columns(run.flows, "t", "bw_est_bps") and _any_value(run.flows["bw_est_bps"]):
        panels.append(
            lambda ax: _per_flow_line(ax, run.series, "bw_est_bps", 1e-6, "bw estimate (Mb/s)")
        )
    if has_columns(run.flows, "t", "srtt_s"):
        panels.append(lambda ax: _rtt(ax, run.series, run.bottleneck))
    if has_columns(run.queue, "t", "backlog_bytes"):
        panels.append(lambda ax: _backlog(ax, run.queue, run.bottleneck))
    if has_columns(run.flows, "t", "cc_state") and run.states:
        panels.append(lambda ax: _states(ax, run.series, run.states))

    fig = Figure(figsize=(11, 1.2 + 2.1 * max(len(panels), 1)), layout="constrained")
    axes = fig.subplots(max(len(panels), 1), 1, sharex=True, squeeze=False)[:, 0]
    for draw, ax in zip(panels, axes, strict=False):
        draw(ax)
        ax.grid(True, alpha=0.3)
    if not panels:
        axes[0].text(0.5, 0.5, "no telemetry recorded", ha="center", va="center")
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(0, run.end or None)
    name = result.summary.get("name", "")
    seed = result.summary.get("seed")
    fig.suptitle(f"{name}  (seed {seed})" if seed is not None else name)
    return fig


@dataclass(frozen=True)
class _Flow:
    """One flow's rows of the flows table, as numpy columns."""

    name: str
    color: str
    columns: dict[str, Array]

    def __getitem__(self, column: str) -> Array:
        return self.columns[column]


def _per_flow(flows: pa.Table, names: list[str]) -> Iterator[_Flow]:
    if flows.num_rows == 0 or "flow" not in flows.column_names:
        return
    codes = _codes(flows.column("flow"))
    numeric = {
        c: flows.column(c).to_numpy()
        for c in flows.column_names
        if c != "flow" and not pa.types.is_dictionary(flows.schema.field(c).type)
    }
    if "cc_state" in flows.column_names:
        numeric["cc_state"] = _codes(flows.column("cc_state"))
    for code in np.unique(codes):
        rows = codes == code
        name = names[code] if code < len(names) else f"flow {code}"
        yield _Flow(name, f"C{code % 10}", {c: v[rows] for c, v in numeric.items()})


def _codes(column: pa.ChunkedArray) -> Array:
    """Dictionary codes of a column (or the values themselves if it is plain integers)."""
    array = column.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.indices
    return np.asarray(array.to_numpy(zero_copy_only=False), dtype=np.int64)


def _end_time(result: Result, flows: pa.Table, queue: pa.Table) -> float:
    duration = result.summary.get("duration_s")
    if isinstance(duration, int | float) and duration > 0:
        return float(duration)
    ends = [
        float(np.max(t.column("t"))) for t in (flows, queue) if "t" in t.column_names and t.num_rows
    ]
    return max(ends, default=0.0)


def _throughput(ax: Axes, series: list[_Flow], bottleneck: dict[str, Any], end: float) -> None:
    width = max(end / _THROUGHPUT_BINS, 1e-3)
    for flow in series:
        t, delivered = flow["t"], flow["delivered_bytes"].astype(np.float64)
        if len(t) < 2:
            continue
        step = max(width, float(np.median(np.diff(t))))
        grid = t[0] + step * np.arange(int((t[-1] - t[0]) // step) + 1)  # whole bins only
        if len(grid) < 2:
            continue
        rate = np.diff(np.interp(grid, t, delivered)) * 8 / step / 1e6
        ax.step(grid[1:], rate, where="pre", color=flow.color, label=flow.name, lw=1.2)
    times, rates = _rate_schedule(bottleneck, end)
    if len(times):
        ax.step(times, rates / 1e6, where="post", color="black", ls="--", lw=1, label="bottleneck")
    trace = bottleneck.get("trace")
    if isinstance(trace, dict) and isinstance(trace.get("mean_rate_bps"), int | float):
        ax.axhline(trace["mean_rate_bps"] / 1e6, color="black", ls=":", lw=1, label="trace mean")
    ax.set_ylabel("throughput (Mb/s)")
    ax.set_ylim(bottom=0)
    ax.legend(**_LEGEND)


def _rate_schedule(bottleneck: dict[str, Any], end: float) -> tuple[Array, Array]:
    """The bottleneck rate over time: `rate_bps`, then `schedule` entries (`at_ns`, `rate_bps`)."""
    rate = bottleneck.get("rate_bps")
    if not isinstance(rate, int | float):
        return np.array([]), np.array([])
    times, rates = [0.0], [float(rate)]
    for change in bottleneck.get("schedule") or []:
        if isinstance(change, dict) and "at_ns" in change and "rate_bps" in change:
            times.append(change["at_ns"] / 1e9)
            rates.append(float(change["rate_bps"]))
    times.append(max(end, times[-1]))
    rates.append(rates[-1])
    return np.array(times), np.array(rates)


def _cwnd(ax: Axes, series: list[_Flow]) -> None:
    for flow in series:
        ax.plot(flow["t"], flow["cwnd_pkts"], color=flow.color, lw=1)
        if "inflight_pkts" in flow.columns:
            ax.plot(flow["t"], flow["inflight_pkts"], color=flow.color, lw=0.8, ls=":")
    ax.set_ylabel("packets")
    ax.set_ylim(bottom=0)
    styles = [Line2D([], [], color="grey", lw=1, label="cwnd")]
    if any("inflight_pkts" in flow.columns for flow in series):
        styles.append(Line2D([], [], color="grey", lw=0.8, ls=":", label="inflight"))
    ax.legend(handles=styles, **_LEGEND)


def _per_flow_line(ax: Axes, series: list[_Flow], column: str, scale: float, label: str) -> None:
    for flow in series:
        values = flow[column]
        ax.plot(flow["t"], values * scale, color=flow.color, lw=1)
    ax.set_ylabel(label)
    ax.set_ylim(bottom=0)


def _rtt(ax: Axes, series: list[_Flow], bottleneck: dict[str, Any]) -> None:
    """Smoothed RTT per flow; dotted, the algorithm's own min-RTT estimate where it has one
    (BBR's, which restarts from the sample of the moment when its window expires)."""
    _per_flow_line(ax, series, "srtt_s", 1e3, "smoothed RTT (ms)")
    handles = []
    estimating = [f for f in series if "cc_min_rtt_s" in f.columns]
    estimating = [f for f in estimating if np.isfinite(f["cc_min_rtt_s"]).any()]
    for flow in estimating:
        ax.plot(flow["t"], flow["cc_min_rtt_s"] * 1e3, color=flow.color, lw=1, ls=":")
    if estimating:
        handles.append(Line2D([], [], color="gray", ls=":", lw=1, label="min-RTT estimate"))
    base = bottleneck.get("rtt_ns")
    if isinstance(base, int | float):
        ax.axhline(base / 1e6, color="black", ls="--", lw=1)
        handles.append(Line2D([], [], color="black", ls="--", lw=1, label="base RTT"))
    if handles:
        ax.legend(handles=handles, **_LEGEND)


def _backlog(ax: Axes, queue: pa.Table, bottleneck: dict[str, Any]) -> None:
    t = queue.column("t").to_numpy()
    backlog = queue.column("backlog_bytes").to_numpy().astype(np.float64)
    ax.fill_between(t, backlog, step="post", color="C7", alpha=0.5, lw=0)
    ax.step(t, backlog, where="post", color="C7", lw=0.8)
    ax.set_ylabel("queue backlog")
    ax.yaxis.set_major_formatter(EngFormatter(unit="B"))
    ax.set_ylim(bottom=0)
    rate, rtt = bottleneck.get("rate_bps"), bottleneck.get("rtt_ns")
    if isinstance(rate, int | float) and isinstance(rtt, int | float) and rate > 0 and rtt > 0:
        bdp_bytes = rate * rtt / 1e9 / 8

        def to_bdp(backlog_bytes: npt.ArrayLike) -> npt.ArrayLike:
            return np.divide(backlog_bytes, bdp_bytes)

        def to_bytes(bdp: npt.ArrayLike) -> npt.ArrayLike:
            return np.multiply(bdp, bdp_bytes)

        ax.secondary_yaxis("right", functions=(to_bdp, to_bytes)).set_ylabel("backlog (BDP)")


def _states(ax: Axes, series: list[_Flow], states: list[str]) -> None:
    """One row per flow, coloured by CC state over time."""

    def color(code: int) -> Any:  # pastel, so states do not read as flows
        return colormaps["Set2"](code % 8)

    seen: set[int] = set()
    for row, flow in enumerate(series):
        t, codes = flow["t"], flow["cc_state"]
        if len(t) == 0:
            continue
        change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        starts = np.concatenate(([0], change))
        ends = np.concatenate((change, [len(t) - 1]))
        for code in np.unique(codes[starts]):
            runs = starts[codes[starts] == code]
            stops = ends[codes[starts] == code]
            spans = list(zip(t[runs], np.maximum(t[stops] - t[runs], 0), strict=True))
            ax.broken_barh(spans, (row - 0.4, 0.8), color=color(int(code)), lw=0)
            seen.add(int(code))
    ax.set_yticks(range(len(series)), [flow.name for flow in series])
    ax.set_ylim(-0.6, len(series) - 0.4)
    ax.invert_yaxis()
    ax.set_ylabel("CC state")
    handles = [Patch(color=color(c), label=states[c]) for c in sorted(seen) if c < len(states)]
    ax.legend(handles=handles, **_LEGEND)
