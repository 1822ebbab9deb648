"""bloatlab's BBR against Linux's, on this machine's kernel (6.18): the standing queue that n
BBR flows keep in an 8 BDP buffer, measured with `tools/realstack/` (README: "The standing
queue on a real kernel") and simulated on the same path.

The real runs: `RATE=<rate> DELAY=0.025 tools/realstack/run.sh DIR bbr <8 BDP>b 10kb bulk:<n> 60`
then `tools/realstack/bulk_summary.py DIR <rate> 0.025`, the tbf's backlog sampled every 50 ms
from 10 s to 60 s. Linux 6.18's BBR has the ACK-aggregation allowance of v4.20 on, which is the
core's default `bbr`; the hosts send GSO skbs (`tso = true`).
"""

from __future__ import annotations

import pytest
from helpers import run_all

from bloatlab.builders import HOST_JITTER, bulk, dumbbell

# (flows, rate) -> the real kernel's mean backlog in BDPs (one 60 s run each, 2026-11-22; a
# second 4-flow run with TSO/GSO off: 1.34)
REAL_KERNEL = {(4, "80Mbps"): 1.34, (8, "40Mbps"): 2.13, (2, "120Mbps"): 1.21}
TOLERANCE = 0.10  # relative


def test_bbr_keeps_the_standing_queue_the_real_kernel_keeps(reproduce) -> None:
    cases = list(REAL_KERNEL)
    runs = run_all(
        dumbbell(
            rate,
            "25ms",
            "8BDP",
            [bulk("bbr", "bbr", n, tso=True)],
            "60s",
            burst="10KB",
            window=("10s", "60s"),
            jitter=HOST_JITTER,
        )
        for n, rate in cases
    )
    held = []
    for (n, rate), run in zip(cases, runs, strict=True):
        real = REAL_KERNEL[(n, rate)]
        ours = run.summary["bottleneck"]["backlog_mean_bdp"]
        held.append(
            reproduce(
                f"Linux 6.18: {n} BBR, {rate}, 25 ms, 8 BDP: mean queue (BDP)",
                f"{real:.2f}",
                f"{ours:.2f}",
                f"±{TOLERANCE:.0%}",
                ours == pytest.approx(real, rel=TOLERANCE),
            )
        )
        assert run.summary["bottleneck"]["drop_rate"] == 0.0
    assert all(held)
