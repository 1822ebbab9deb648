"""What every ATC'23 figure shares: the algorithms as the paper names them, the testbed's
transport settings, the scenario and sweep builders, and small analysis helpers."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from matplotlib.axes import Axes

from ...builders import HOST_JITTER, dumbbell
from ...sweep.spec import label
from .._base import Mode, mean

# The paper's testbed is nginx-quic: every algorithm runs over the same QUIC stack, whose
# packets carry 1252 bytes (spec §6), whose algorithms all start with 32 packets
# (NGX_BBR_INITIAL_WINDOW, CUBIC_INIT_WIN; the QUIC BBRv2 port likewise), and whose pacer lets
# bursts of a few milliseconds out on a ms clock (`ngx_pacing.c`, the core's `pacer =
# "nginx-quic"`), pacing CUBIC at 2× (slow start) or 1.2× its window per smoothed RTT; the
# client is Chromium's QUIC, which decimates its ACKs (`ack_policy = "quiche"`); the rate
# samples come from the stack's `ngx_sample.c`, whose reference packet outlives its ACK and
# whose RTT is QUIC's `latest_rtt` in whole milliseconds (`rate_sampler = "nginx-quic"`). The
# server queues up to its stream buffer beyond the acknowledged data and resends lost data
# behind what it has queued (`send_queue = "nginx-quic"`); the client (QUICHE's toy
# `quic_client`) grants a 6 MiB stream window beyond what it has read, moved at half a window
# (`flow_control = "quiche"`, `rcvbuf` = the window).
MSS = 1252
PACER = "nginx-quic"
ACK_POLICY = "quiche"
RATE_SAMPLER = "nginx-quic"
SEND_QUEUE = "nginx-quic"
FLOW_CONTROL = "quiche"
CLIENT_WINDOW = "6MiB"  # QUICHE quic_client_base.cc kStreamMaxRecvWindowSize
INITIAL_WINDOW = 32
BURST = "100KB"  # "In experiments that use tc, Burst is set to 100 KB" (§5.1)

# The paper's algorithms. BBR, B3R, BBR-S and oBBR share the artifact's own QUIC BBR
# (ngx_bbr.c): the core's BBR v1 with `artifact_base` (no ACK-aggregation allowance, no pacing
# margin, no policer mode, PROBE_RTT held 2·srtt from entry, the gain cycle and DRAIN on the
# packets in flight without EDT credit against max(gain·BDP, 4) bytes, a cwnd target of
# max(gain·BDP, 4) + 3 send quanta instead of Linux's TSO budget). "BBRv2" is the artifact's QUIC
# port (nginx-quic ngx_bbr2.c, min_rtt and PROBE_RTT windows 2.5 s, drain 0.75, ..., no
# loss-round restart, PROBE_BW on the in-flight before the ACK, no EDT), the core's `bbr2-quic`;
# Linux v2alpha (`bbr2`) is drawn beside it but no claim is about it. "CUBIC" is the artifact's
# own (nginx-quic cubic.c, from xquic), the core's `cubic-quic`: no HyStart, each lost packet
# sent after the last reduction cuts the window at once, one growth step per ACK frame.
ARTIFACT_BASE = {"artifact_base": True}
OBBR = {f"oBBR-{mu:g}": {"kind": "obbr", "mu": mu, "bbr": ARTIFACT_BASE} for mu in (0.5, 0.75, 1.0)}
CCAS: dict[str, Any] = {
    "BBR": {"kind": "bbr", **ARTIFACT_BASE},
    "B3R": {"kind": "b3r", "bbr": ARTIFACT_BASE},
    "BBR-S": {"kind": "bbr-s", "base": ARTIFACT_BASE},
    **OBBR,
    "BBRv2": "bbr2-quic",
    "BBRv2 (Linux)": "bbr2",
    "CUBIC": "cubic-quic",
}
COLORS = {
    "BBR": "red",
    "B3R": "purple",
    "BBR-S": "orange",
    "oBBR-0.5": "#66ccff",
    "oBBR-0.75": "#3399dd",
    "oBBR-1": "#1f5fa8",
    "BBRv2": "green",
    "BBRv2 (Linux)": "#8fd18f",
    "CUBIC": "grey",
}
HATCHES = {"oBBR-0.5": "xx", "oBBR-0.75": "..", "oBBR-1": "//", "BBRv2 (Linux)": "--"}
_BY_LABEL = {label(cc): name for name, cc in CCAS.items()}


def cca_name(value: Any) -> str:
    """The paper's name of an algorithm from its sweep-table label (or value)."""
    return _BY_LABEL.get(label(value), label(value))


def flow(name: str, cc: Any, *, count: int = 1, size: str | None = None) -> dict[str, Any]:
    """Bulk flows over the testbed's QUIC-sized packets; `size` bytes each (a file fetch)."""
    app: dict[str, Any] = {"kind": "bulk"}
    if size:
        app["bytes"] = size
    return {
        "name": name,
        "cc": cc,
        "app": app,
        "count": count,
        "mss": MSS,
        "initial_cwnd": INITIAL_WINDOW,
        "pacer": PACER,
        "ack_policy": ACK_POLICY,
        "rate_sampler": RATE_SAMPLER,
        "send_queue": SEND_QUEUE,
        "flow_control": FLOW_CONTROL,
        "rcvbuf": CLIENT_WINDOW,
    }


def testbed(
    rate: str,
    rtt: str,
    limit: str,
    flows: list[dict[str, Any]],
    duration: str,
    *,
    name: str,
    loss: float = 0.0,
    window: tuple[str, str] | None = None,
    interval: str = "100ms",
) -> dict[str, Any]:
    """The paper's bottleneck: netem delay, then tc tbf (100 KB burst, `limit` bytes of queue),
    both on the loopback device."""
    doc = dumbbell(
        rate,
        rtt,
        limit,
        flows,
        duration,
        name=name,
        burst=BURST,
        window=window,
        interval=interval,
        jitter=HOST_JITTER,
    )
    # The artifact's scripts run `tc` on `lo` (netem delay as the root, tbf its child): both
    # directions pass the delay and then the same token bucket and queue, so ACKs wait behind
    # data, and netem's random loss drops ACKs too.
    doc["bottleneck"]["topology"] = "loopback"
    if loss:
        doc["bottleneck"]["loss"] = loss
    return doc


def retransmission_ratio(row: Mapping[str, Any], flows: Sequence[str]) -> float:
    """The testbed's retransmission ratio, averaged over `flows` (a group's flows, as Fig. 8
    plots it "per flow"): retransmitted over all sent bytes.

    The paper's text calls it "the volume of retransmitted data divided by the overall
    delivered data", but its figures plot the server's per-second log (`ngx_event_quic_output.c`:
    every packet sent adds its length to `send`, a resent one to `resend` too), column 7, the
    cumulative `resend * 100 / send`, from the last line (`scripts/plots/fig7.py`, `mul.py`).
    Retransmissions count in the denominator there: x / (1 + x) of bloatlab's `retrans_ratio`
    (retransmitted / delivered) when everything sent is delivered or resent."""
    return mean(
        row[f"flows.{f}.bytes_retransmitted"] / sent
        for f in flows
        if (sent := row[f"flows.{f}.bytes_sent"]) > 0
    )


def seeds(mode: Mode) -> int:
    """The paper reports one session per setting; `--full` averages 3 seeds, `--quick` runs 1."""
    return 3 if mode == "full" else 1


def bdp(value: Any) -> float:
    """R, a buffer given in BDPs ("0.5BDP" → 0.5)."""
    return float(str(value).removesuffix("BDP"))


def payload(rate_bps: float) -> float:
    """The payload share of a wire rate, for the testbed's packets (goodput's ceiling)."""
    return rate_bps * MSS / (MSS + 52)


FOLLOWED = 1.5  # an estimate within this × the new rate's payload has followed a drop (Fig. 4, 9)


def time_to_follow(t: Any, estimate: Any, start: float, end: float, new_rate_bps: float) -> float:
    """Seconds from `start` until the first row in [start, end) whose estimate is within
    FOLLOWED × the new rate's payload; `end - start` if there is none."""
    inside = (t >= start) & (t < end) & np.isfinite(estimate)
    hit = np.nonzero(inside & (estimate <= FOLLOWED * payload(new_rate_bps)))[0]
    return float(t[hit[0]] - start) if len(hit) else end - start


def sender_rows(path: Path, columns: list[str]) -> Any:
    """The rows of the flow named "sender" in a run's parquet table (`t`, `flow`, `columns`)."""
    table = pq.read_table(path, columns=["t", "flow", *columns])
    return table.filter(pc.equal(table.column("flow").cast("string"), "sender"))


def algorithm_bars(
    ax: Axes, x: Any, values: list[float], width: float, cca: str, label: bool
) -> None:
    """One algorithm's bars in a grouped bar chart, in its colour and hatch."""
    ax.bar(
        x,
        values,
        width,
        color=COLORS[cca],
        hatch=HATCHES.get(cca),
        edgecolor="black",
        lw=0.4,
        label=cca if label else None,
    )


def legend(ax: Axes, **options: Any) -> None:
    """The axes' legend, if anything on them is labelled (a reproduction whose runs all failed
    draws empty axes)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**options)


def share_label(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.0%}"
