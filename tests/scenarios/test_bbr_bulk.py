"""One BBR bulk flow through the WWW'21 bottleneck: 25 Mb/s, 100 ms, TBF 1 MB burst, 10 MB queue."""

from __future__ import annotations

import numpy as np

import bloatlab
from bloatlab.builders import bulk, dumbbell

PAYLOAD_SHARE = 1448 / 1500  # BBR estimates payload bandwidth; the link rate counts headers


def test_bandwidth_estimate_in_probe_bw_is_the_link_rate(reproduce) -> None:
    r = bloatlab.simulate(
        dumbbell(
            "25Mbps", "100ms", "10MB", [bulk("bbr", "bbr")], "120s", burst="1MB", interval="10ms"
        )
    )
    df = r.flows.to_pandas()
    probe_bw = df[(df["cc_state"].astype(str) == "PROBE_BW") & (df["t"] > 30)]
    median = float(np.median(probe_bw["bw_est_bps"]))
    mean = float(np.mean(probe_bw["bw_est_bps"]))
    err = median / 25e6 - 1
    ok = reproduce(
        "1 BBR, 25 Mb/s, TBF 1 MB: median bw estimate in PROBE_BW",
        "25 Mb/s",
        f"{median / 1e6:.2f} Mb/s (mean {mean / 1e6:.1f}: token refills after PROBE_RTT)",
        "±5%",
        abs(err) <= 0.05,
    )
    assert ok
    assert abs(median - 25e6 * PAYLOAD_SHARE) / 25e6 < 0.01, (
        "the estimate is the payload rate of the link"
    )


def _startup_exit_round(df) -> tuple[int, int]:
    """Replays Linux's full-bandwidth rule on the telemetry; returns (predicted, observed) round."""
    rounds = df["round"].to_numpy()
    bw = df["bw_est_bps"].to_numpy()
    state = df["cc_state"].astype(str).to_numpy()
    full_bw, count, predicted = 0.0, 0, None
    for i in range(1, len(df)):
        if rounds[i] == rounds[i - 1] or state[i - 1] != "STARTUP":
            continue
        if bw[i] >= 1.25 * full_bw:
            full_bw, count = bw[i], 0
        else:
            count += 1
            if count == 3 and predicted is None:
                predicted = int(rounds[i])
    observed = int(rounds[np.argmax(state != "STARTUP")])
    assert predicted is not None
    return predicted, observed


def test_startup_exits_three_rounds_after_bandwidth_stops_growing(reproduce) -> None:
    for burst, label in ((None, "plain 25 Mb/s"), ("1MB", "TBF 1 MB")):
        r = bloatlab.simulate(
            dumbbell(
                "25Mbps", "100ms", "10MB", [bulk("bbr", "bbr")], "20s", burst=burst, interval="ack"
            )
        )
        predicted, observed = _startup_exit_round(r.flows.to_pandas())
        ok = reproduce(
            f"BBR STARTUP exit round ({label})",
            "3 rounds w/o 25% growth (tcp_bbr.c)",
            f"round {observed} (rule predicts {predicted})",
            "exact",
            predicted == observed,
        )
        assert ok
