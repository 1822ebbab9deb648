"""The testbed's RTT log (`nginx -r`), as Fig. 4 and 5 read it: which rate samples it holds and
how they are normalized, rebuilt from a run's samples.parquet and per-ACK flows.parquet.

`ngx_bbr_update_bandwidth` (ngx_bbr.c) writes a line for every valid rate sample that is not
app-limited while BBR is in PROBE_BW (none in STARTUP, DRAIN or PROBE_RTT): here the valid,
not app-limited samples whose ACK found the flow in PROBE_BW. Per line, as the log has them:
the sample in bit/s (`bandwidth * 8`, over QUIC packet bytes; ours count the 1252-byte MSS of
each packet); the sample over the bandwidth estimate after it entered the max filter (so at
most 1); the RTT, QUIC's `latest_rtt` in whole ms, which stays until an ACK brings a new one;
the RTT over min(min_rtt before the ACK, the RTT); the bytes in flight.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .._base import Mode, sweep
from ._common import CCAS, flow, seeds, sender_rows, testbed

HIGH, RTT = 20e6, "100ms"  # fig4_5.sh: tbf rate 20Mbit, netem delay 50ms on lo
PROBE_BW = "PROBE_BW"
K = 30  # oBBR's k (spec §6.1: bw_down_cnt >= 30, up_rtt > 30)


def bbr_sweep(
    name: str, buffer: str, end: float, schedules: list[list[dict[str, str]]], mode: Mode, what: str
) -> Any:
    """The artifact's BBR alone on the testbed at 20 Mb/s, 100 ms, once per rate schedule, with
    a flows row per ACK and the rate samples."""
    doc = testbed(
        f"{HIGH / 1e6:g}Mbps",
        RTT,
        buffer,
        [flow("sender", CCAS["BBR"])],
        f"{end:g}s",
        name=name,
        interval="ack",
    )
    doc["telemetry"]["rate_samples"] = True
    return sweep(
        name, doc, grid={"bottleneck.schedule": schedules}, seeds=seeds(mode), description=what
    )


def longest_run(mask: np.ndarray) -> int:
    """The most consecutive True values (plots/fig4_5.py's count)."""
    best = run = 0
    for hit in mask:
        run = run + 1 if hit else 0
        best = max(best, run)
    return best


def latest(values: np.ndarray) -> np.ndarray:
    """Each value or, where it is NaN, the last one before it; NaN before the first."""
    positions = np.where(np.isfinite(values), np.arange(len(values)), -1)
    last = np.maximum.accumulate(positions) if len(values) else positions
    return np.where(last >= 0, values[np.maximum(last, 0)], math.nan)


def _column(table: Any, name: str) -> np.ndarray:
    values: np.ndarray = table.column(name).to_numpy(zero_copy_only=False).astype(np.float64)
    return values


def read_run(folder: Path) -> dict[str, np.ndarray]:
    """The run's logged samples (`t`, `rate`, `rtt`, `bw_ratio`, `rtt_ratio`) and its per-ACK
    flow series (`flows_t`, `state`, `bw_est`, `inflight`, `retransmitted`)."""
    samples = sender_rows(folder / "samples.parquet", ["rate_bps", "rtt_s", "app_limited"])
    flows = sender_rows(
        folder / "flows.parquet",
        ["cc_state", "bw_est_bps", "cc_min_rtt_s", "inflight_pkts", "retransmitted_bytes"],
    )
    ft = _column(flows, "t")
    state = np.asarray(flows.column("cc_state").cast("string").to_pylist())
    bw_est, min_rtt = _column(flows, "bw_est_bps"), _column(flows, "cc_min_rtt_s")
    t, rate = _column(samples, "t"), _column(samples, "rate_bps")
    rtt = latest(_column(samples, "rtt_s"))
    app_limited = samples.column("app_limited").to_numpy(zero_copy_only=False)
    after = np.searchsorted(ft, t, side="right") - 1  # the row this sample's ACK wrote
    before = after - 1  # the state the ACK found
    logged = np.isfinite(rate) & ~app_limited & (before >= 0)
    logged[logged] = state[before[logged]] == PROBE_BW
    after, before = after[logged], before[logged]
    t, rate, rtt = t[logged], rate[logged], rtt[logged]
    return {
        "t": t,
        "rate": rate,
        "rtt": rtt,
        "bw_ratio": rate / bw_est[after],
        "rtt_ratio": rtt / np.minimum(min_rtt[before], rtt),
        "flows_t": ft,
        "state": state,
        "bw_est": bw_est,
        "inflight": _column(flows, "inflight_pkts"),
        "retransmitted": _column(flows, "retransmitted_bytes"),
    }


def first_seed(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The lowest seed's entry (the one a figure draws)."""
    return min(entries, key=lambda r: r["seed"], default=None)
