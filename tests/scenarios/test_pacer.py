"""The ATC'23 testbed's QUIC pacer (`pacer = "nginx-quic"`) against Linux's per-packet pacing."""

from __future__ import annotations

import numpy as np
from helpers import run_all

from bloatlab.builders import bulk, dumbbell

PACERS = ("linux", "nginx-quic")


def _bbr(pacer: str, limit: str, burst: str | None = None) -> dict:
    flow = bulk("bbr", "bbr", mss=1252, pacer=pacer)
    return dumbbell("100Mbps", "40ms", limit, [flow], "30s", burst=burst, interval="1ms")


def test_the_quic_pacer_sends_millisecond_bursts_that_queue_at_the_bottleneck() -> None:
    """Linux spaces packets at the pacing rate, so in PROBE_BW's cruise the queue stays near
    empty; the budget pacer releases up to 6 ms of the rate at once, which queues."""
    linux, quic = run_all(_bbr(p, "4BDP") for p in PACERS)
    p90 = {}
    for name, r in (("linux", linux), ("nginx-quic", quic)):
        q = r.queue.to_pandas()
        p90[name] = float(np.percentile(q[q["t"] > 10]["backlog_bytes"], 90))
    assert p90["nginx-quic"] > 2 * p90["linux"] + 10_000, p90


def test_bursts_into_a_quarter_bdp_buffer_cost_bbr_retransmissions() -> None:
    """ATC'23's mechanism: at R = 0.25 (TBF burst 100 KB) the bursts overflow the buffer, so
    BBR over the QUIC pacer retransmits several times what it does over Linux pacing."""
    linux, quic = run_all(_bbr(p, "0.25BDP", burst="100KB") for p in PACERS)
    ratio = {
        name: r.summary["flows"]["bbr"]["retrans_ratio"]
        for name, r in (("linux", linux), ("nginx-quic", quic))
    }
    assert ratio["nginx-quic"] > 3 * ratio["linux"], ratio
    assert ratio["nginx-quic"] > 0.10, ratio
    goodput = quic.summary["flows"]["bbr"]["goodput_bps"]
    assert goodput > 0.8 * 100e6, goodput


def test_the_quic_pacer_paces_cubic_at_its_window_per_whole_ms_avg_rtt() -> None:
    """`ngx_pacing_rate_calc`: CUBIC has no pacing rate of its own; the artifact's pacer derives
    one from the window over QUIC's `avg_rtt` (whole ms), × 2 in slow start and × 1.2 after.
    `avg_rtt` is not in the telemetry, so the test recovers it from the rate: a whole number of
    ms, never below the 40 ms path, at most 7 ms (the integer EWMA's rest) above the RTTs seen.
    Linux without fq leaves CUBIC unpaced."""
    flows = {p: bulk("cubic", "cubic", mss=1252, pacer=p, initial_cwnd=32) for p in PACERS}
    linux, quic = run_all(
        dumbbell("40Mbps", "40ms", "1BDP", [flows[p]], "20s", interval="50ms") for p in PACERS
    )
    assert np.isnan(linux.flows.to_pandas()["pacing_rate_bps"]).all()
    rows = quic.flows.to_pandas().dropna(subset=["srtt_s", "pacing_rate_bps"])
    slow_start = ~(rows["cwnd_pkts"] >= rows["ssthresh_pkts"])  # NaN ssthresh: still in slow start
    assert (~slow_start).sum() > 100, "the flow must leave slow start"
    ratio = np.where(slow_start, 2.0, 1.2)
    window_bytes = rows["cwnd_pkts"] * 1252
    avg_rtt_ms = np.round(window_bytes * 1000 * ratio * 8 / rows["pacing_rate_bps"])
    expected = np.floor(window_bytes * 1000 / avg_rtt_ms) * ratio * 8
    assert np.allclose(rows["pacing_rate_bps"], expected, rtol=1e-6, atol=8), rows[
        ["cwnd_pkts", "srtt_s", "pacing_rate_bps"]
    ].head()
    assert avg_rtt_ms.min() >= 40, avg_rtt_ms.min()
    # not Linux's srtt, which times the oldest packet an ACK covers, ACK delay included
    differs = (avg_rtt_ms != np.floor(rows["srtt_s"] * 1000 + 1e-9)).mean()
    assert differs > 0.5, differs
    assert avg_rtt_ms.max() <= np.ceil(rows["srtt_s"].max() * 1000) + 7, (
        avg_rtt_ms.max(),
        rows["srtt_s"].max(),
    )
