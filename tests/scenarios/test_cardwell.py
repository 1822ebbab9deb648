"""Cardwell et al. (ACM Queue 2016), Fig. 8, as re-validated by AICT'19 Fig. 4: five BBR flows
with staggered starts share a 100 Mb/s, 10 ms bottleneck fairly and synchronise PROBE_RTT."""

from __future__ import annotations

import numpy as np

import bloatlab
from bloatlab.builders import bulk, dumbbell


def _probe_rtt_entries(result: bloatlab.Result) -> dict[str, np.ndarray]:
    df = result.flows.to_pandas()
    out = {}
    for name, g in df.groupby("flow", observed=True):
        state = g["cc_state"].astype(str).to_numpy()
        t = g["t"].to_numpy()
        enter = (state[1:] == "PROBE_RTT") & (state[:-1] != "PROBE_RTT")
        out[str(name)] = t[1:][enter]
    return out


def test_five_staggered_bbr_flows_share_fairly_and_probe_rtt_together(reproduce) -> None:
    flows = [bulk(f"bbr{i}", "bbr", start=f"{2 * i}s") for i in range(5)]
    scenario = dumbbell(
        "100Mbps", "10ms", "1000pkts", flows, "60s", window=("30s", "60s"), interval="10ms"
    )
    r = bloatlab.simulate(scenario)
    jain = r.summary["bottleneck"]["jain_index"]
    ok = reproduce(
        "Cardwell Fig. 8: 5 BBR staggered, Jain after 30 s",
        "fair (≈20 Mb/s each)",
        f"{jain:.3f}",
        "≥ 0.95",
        jain >= 0.95,
    )
    entries = _probe_rtt_entries(r)
    late = {name: t[t > 30] for name, t in entries.items()}
    reference = late["bbr0"]
    assert len(reference) >= 2, "PROBE_RTT every ~10 s"
    spread = max(
        float(np.max(np.abs(t - reference))) for t in late.values() if len(t) == len(reference)
    )
    synced = all(len(t) == len(reference) for t in late.values()) and spread <= 0.2
    ok &= reproduce(
        "Cardwell Fig. 8: PROBE_RTT entries after 30 s",
        "synchronised",
        f"max spread {spread * 1e3:.0f} ms",
        "≤ 200 ms",
        synced,
    )
    assert ok
