"""AICT'19 (Claypool et al., "Sharing but not Caring"): BBR's standing queue and loss vs buffer.

Paper set-up: dumbbell, 25 ms RTprop, tc-tbf with small buckets, 5-minute runs, Linux hosts
sending TSO/GSO skbs (`HOST`), steady state analysed (minute 1 of 5 for §IV-A, minutes 2–4
for Fig. 7). The standing-queue checks run shorter (150 s, window 60–150 s); Fig. 7 keeps the
paper's timing (300 s, window 120–240 s: a shorter window takes in start-up transients and raises
the loss) and sweeps three buffer sizes by default; `pytest -m slow` sweeps all ten.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import run_all

import bloatlab
from bloatlab.builders import bulk, dumbbell
from bloatlab.reproduce.aict19._common import BBR_CC, HOST

QUICK = {"duration": "150s", "window": ("60s", "150s")}
FULL = {"duration": "300s", "window": ("120s", "240s")}


def test_four_bbr_flows_keep_a_standing_queue_of_1_to_1_5_bdp(reproduce) -> None:
    r = bloatlab.simulate(
        dumbbell("80Mbps", "25ms", "8BDP", [bulk("bbr", BBR_CC, 4, **HOST)], **QUICK)
    )
    b = r.summary["bottleneck"]
    ours = b["backlog_mean_bdp"]
    ok = reproduce(
        "AICT'19 §IV-A: 4 BBR, 80 Mb/s, 8 BDP, standing queue (BDP)",
        "1–1.5 (≈1.1)",
        f"{ours:.2f} (p90 {b['backlog_p90_bdp']:.2f})",
        "1.0–1.5",
        1.0 <= ours <= 1.5,
    )
    assert ok
    assert b["drop_rate"] == 0.0
    assert b["jain_index"] > 0.95


def test_one_cubic_flow_fills_an_8_bdp_buffer(reproduce) -> None:
    r = bloatlab.simulate(
        dumbbell("80Mbps", "25ms", "8BDP", [bulk("cubic", "cubic", **HOST)], **QUICK)
    )
    b = r.summary["bottleneck"]
    ok = reproduce(
        "AICT'19 Fig. 5: 1 CUBIC, 8 BDP buffer, queue (BDP)",
        "fills towards 8",
        f"mean {b['backlog_mean_bdp']:.2f}, p90 {b['backlog_p90_bdp']:.2f}",
        "p90 ≥ 7, mean ≥ 5",
        b["backlog_p90_bdp"] >= 7 and b["backlog_mean_bdp"] >= 5,
    )
    assert ok


def _loss_vs_buffer(buffers: list[float], times: dict) -> dict[float, float]:
    grid = [(buf, n, rate) for buf in buffers for n in (2, 4, 8) for rate in (40, 80, 120)]
    runs = run_all(
        dumbbell(f"{rate}Mbps", "25ms", f"{buf}BDP", [bulk("bbr", BBR_CC, n, **HOST)], **times)
        for buf, n, rate in grid
    )
    loss: dict[float, list[float]] = {}
    for (buf, _, _), r in zip(grid, runs, strict=True):
        loss.setdefault(buf, []).append(r.summary["bottleneck"]["drop_rate"])
    return {buf: float(np.mean(v)) for buf, v in loss.items()}


PAPER_FIG7 = {0.5: 0.11, 1.0: 0.055}
# A known miss, printed and not required: BBR loses about 8 % at 1 BDP (docs/fidelity/aict19.md).
MISSES = {1.0}


def _check_fig7(loss: dict[float, float], reproduce) -> bool:
    ok = True
    for buf, paper in PAPER_FIG7.items():
        ours = loss[buf]
        held = reproduce(
            f"AICT'19 Fig. 7: BBR loss at {buf} BDP (2–8 flows, 40–120 Mb/s)",
            f"≈{paper:.1%}",
            f"{ours:.2%}",
            "±40% rel.",
            abs(ours - paper) <= 0.4 * paper,
        )
        ok &= held or buf in MISSES
    for buf in (b for b in loss if b >= 2):
        ok &= reproduce(
            f"AICT'19 Fig. 7: BBR loss at {buf} BDP",
            "≈0",
            f"{loss[buf]:.2%}",
            "< 1%",
            loss[buf] < 0.01,
        )
    return ok


def test_bbr_loss_falls_with_buffer_size_as_in_fig7(reproduce) -> None:
    loss = _loss_vs_buffer([0.5, 1.0, 2.0], FULL)
    assert _check_fig7(loss, reproduce)
    assert loss[0.5] > loss[1.0] > loss[2.0]


@pytest.mark.slow
def test_bbr_loss_vs_buffer_full_grid(reproduce) -> None:
    buffers = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 4.0, 8.0]
    loss = _loss_vs_buffer(buffers, FULL)
    for buf in buffers:
        print(f"  {buf:5.2f} BDP: {loss[buf]:.2%}")
    assert _check_fig7(loss, reproduce)
