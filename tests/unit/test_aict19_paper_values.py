"""AICT'19: every claim's `paper` value, as the paper gives it.

The claims of `bloatlab reproduce aict19` are listed in order, each as (figure, paper value) with
where the paper states that value (S. Claypool, M. Claypool, J. Chung, F. Li, "Sharing but not
Caring – Performance of TCP BBR and TCP CUBIC at the Network Bottleneck", AICT 2019; section,
figure or table and a short quote), read from the paper, not from the code, so a misquoted
number fails here. The claims come from `aict19.analyse` over hand-made sweep tables
(aict19_tables.py, no simulation) holding a finished run at every point each mode's sweeps run:
which claims there are depends on the buffers run, their `paper` values do not depend on the
results. `--full` adds Fig. 5's claim over flow counts and rates, and the Fig. 7 and Fig. 11
claims at the buffers of Table I that `--quick` does not run.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from aict19_tables import SHALLOW, loss_row, queue_row, shares, sweep, sync_sweep

from bloatlab.reproduce import aict19
from bloatlab.reproduce._base import Mode
from bloatlab.reproduce.aict19._common import BBR_LABEL, bdp
from bloatlab.sweep.table import SweepResults

# Sections are the paper's: §IV-A "Standard BBR Behavior", §IV-C "BBR over Different Router
# Queue Sizes", §IV-D "BBR's Interplay with CUBIC" (1: shallow buffers, 2: medium to large),
# §IV-E1 "CWND" (BBR Shallow), §V "Conclusions" (answers B and C). §IV-C: "we refer to buffers
# less than 1.5 BDP as shallow, buffers greater than 4 BDP as large".

QUICK: list[tuple[str, str]] = [
    # 4 staggered BBR flows, 80 Mb/s. §III (Fig. 4b): "our BBR flows synchronize at a fair
    # share of 20 Mb/s within about time 30 seconds"
    ("Fig. 4", "a fair 20 Mb/s"),
    # §III, as above: "repeatedly doing so every 10 seconds"; Cardwell et al.'s flows (Fig. 4a)
    # "enter PROBE RTT at the same time"
    ("Fig. 4", "at the same time, every 10 s"),
    # 4 BBR, 80 Mb/s, 8 BDP buffer: standing queue. §IV-A, Fig. 5 (4 BBR flows, 80 Mb/s, "2
    # MBytes (8BDP)"): "BBR creates a persistent queue of about 1.1 BDP, increasing to roughly
    # 1.5 BDP during bandwidth probing"; the range, §IV-A: "BBR tends to create a 1 to 1.5 BDP
    # standing queue" and "a standing queue of 1 to 1.5 BDP, similar to what is shown in Figure 5"
    ("Fig. 5", "≈1.1 BDP (1–1.5)"),
    # 1 CUBIC, 8 BDP buffer. §IV-A: "CUBIC, as a loss-based protocol, continues to fill the queue
    # until the 8 BDP maximum is reached"
    ("Fig. 5", "fills to the 8 BDP maximum"),
    # 4 BBR, 80 Mb/s, 0.5 BDP: loss over half-second bins. §IV-B (Fig. 6, "a bottleneck
    # bandwidth of 80 Mb/s and a RTprop of 25 ms, but with a bottleneck router queue of just
    # 0.5 BDP"): "loss varies considerably over time, but persists and averages over 10 percent"
    ("Fig. 6", "over 10 %"),
    # §IV-B, as above: "but persists"
    ("Fig. 6", "persists"),
    # BBR loss at 0.5 BDP. §V B: "doubling to about 11% when the router buffer size is 0.5 BDP"
    # (§IV-B, Fig. 6 at 0.5 BDP, 80 Mb/s: "averages over 10 percent")
    ("Fig. 7", "≈11 %"),
    # BBR loss at 1 BDP. §V B: "Loss rates are 5.5% for a router buffer size of 1 BDP"
    ("Fig. 7", "≈5.5 %"),
    # BBR loss at 2 BDP. §V B: "BBR induces packet loss on congested links with a router buffer
    # sized smaller than 1.5 BDP"; §IV-C: loss "is high unless the router buffer size is at least
    # 1.5 BDP". No number in the text: the ≈0 at 2 BDP is read from the plot (Fig. 7)
    ("Fig. 7", "≈0"),
    # Loss falls as the buffer grows to 2 BDP. §V B: "with loss increasing linearly with a
    # decrease in buffer size"
    ("Fig. 7", "falls (≈linearly)"),
    # BBR and CUBIC at 0.5 BDP. §IV-D1 (Fig. 8, "a shallow (0.5 BDP) buffer in an 80 Mb/s and
    # 25 ms bottleneck"): "the relative throughput for CUBIC is much lower than BBR"
    ("Fig. 8", "much lower"),
    # §IV-D1, as above: "The loss rates are similar to Figure 6, averaging about 10 percent"
    ("Fig. 8", "about 10 %"),
    # 2 BBR + 2 CUBIC at 1.75 BDP alternate dominance. §IV-D2 (80 Mb/s, 25 ms, "a router queue
    # of 1.75 BDP"): "they alternate which flows dominate the connection over a regular 20
    # second period"; §V C: "large 20-second throughput cycles"
    ("Fig. 9", "cycles of ≈20 s"),
    # BBR takes more than CUBIC below 1.5 BDP. §V C: "BBR is extremely unfair when competing with
    # CUBIC in shallow buffers since CUBIC responds to the packet loss by reducing rates while
    # BBR does not" (shallow: below 1.5 BDP, §IV-C); §IV-D1 at 0.5 BDP: "the relative throughput
    # for CUBIC is much lower than BBR"; the shares themselves are read from the plot (Fig. 10)
    ("Fig. 10", "BBR dominates"),
    # BBR and CUBIC shares cross. §IV-E1: "Instead of having a fair share when the bottleneck
    # router queue size is around 5 BDP" (BBR, Fig. 10)
    ("Fig. 10", "≈5 BDP"),
    # CUBIC takes more than BBR in large buffers. §IV-D2: "As the bottleneck queue gets larger
    # ... This causes CUBIC to progressively obtain more of the throughput as its CWND grows
    # beyond BBR's CWND limits"; CUBIC above BBR at 8 BDP, the largest buffer, is read from the
    # plot (Fig. 10)
    ("Fig. 10", "CUBIC > BBR at 8 BDP"),
    # BBR Shallow loses less than BBR at 0.5 BDP. §IV-E1: "BBR Shallow induces less loss in
    # buffers smaller than 1.5 BDP"
    ("Fig. 11", "less loss below 1.5 BDP"),
    # ... at 1 BDP. §IV-E1, as above
    ("Fig. 11", "less loss below 1.5 BDP"),
    # BBR Shallow and CUBIC shares cross. §IV-E1: "the fair share is instead when the maximum
    # bottleneck router queue size is around 3 BDP" (BBR Shallow, Fig. 12)
    ("Fig. 12", "≈3 BDP"),
    # CUBIC takes more than BBR Shallow in large buffers: with the fair share near 3 BDP
    # (§IV-E1), CUBIC above BBR Shallow at 8 BDP is read from the plot (Fig. 12)
    ("Fig. 12", "CUBIC > BBR Shallow at 8 BDP"),
    # The fair-share buffer moves down. §IV-E1: "Instead of having a fair share when the
    # bottleneck router queue size is around 5 BDP, the fair share is instead when the maximum
    # bottleneck router queue size is around 3 BDP"
    ("Fig. 12", "≈5 → ≈3 BDP"),
]

# `--full` runs the rest of Table I; its other claims are QUICK's, in the same order.
FULL: list[tuple[str, str]] = [
    *QUICK[:3],
    # 2/4/8 BBR × 40/80/120 Mb/s: standing queue. §IV-A: "Over the full range of flows,
    # capacities, and queue sizes listed in Table I, analysis confirms that BBR creates a
    # standing queue of 1 to 1.5 BDP"
    ("Fig. 5", "1–1.5 BDP"),
    *QUICK[3:9],
    # BBR loss at 4 and 8 BDP: Fig. 7's axis ends at 2 BDP, though §IV-C runs "2.00, 4.00, and
    # 8.00 BDP"; only the text: §V B "packet loss ... smaller than 1.5 BDP", §IV-C "high unless
    # the router buffer size is at least 1.5 BDP"
    ("Fig. 7", "≈0"),
    ("Fig. 7", "≈0"),
    *QUICK[9:16],
    # BBR Shallow's loss at 0.25 and 0.75 BDP as well (Table I's buffers up to 1 BDP): §IV-E1
    # "BBR Shallow induces less loss in buffers smaller than 1.5 BDP"
    *QUICK[16:18],
    *QUICK[16:18],
    *QUICK[18:],
]


def runs(root: Path, mode: Mode) -> dict[str, SweepResults]:
    """A finished run (seed 1) at every point of each of `mode`'s sweeps but the seed."""
    grids = {e.name: e.sweep.grid for e in aict19.experiments(mode)}

    def buffers(name: str) -> list[float]:
        return [bdp(b) for b in grids[name]["bottleneck.queue.limit"]]

    def loss(b: float) -> float:  # 11 % at 0.5 BDP, 5.5 % at 1, none from 1.5
        return max(0.0, 0.11 * (1.5 - b))

    combos = itertools.product(
        grids["fig5-bbr"].get("flow.bbr.count", [4]),
        grids["fig5-bbr"].get("bottleneck.rate", ["80Mbps"]),
    )
    fig5 = [queue_row(1.1, 1.5, **{"flow.bbr.count": n, "bottleneck.rate": r}) for n, r in combos]
    fig11 = [
        loss_row(b, loss(b) * share, cc=cc)
        for b in buffers("fig11")
        for cc, share in ((BBR_LABEL, 1.0), (SHALLOW, 0.8))
    ]
    # BBR's share falls and CUBIC's grows with the buffer: equal at 5.25 BDP; BBR Shallow's at 3.5
    fig10 = shares({b: (0.9 - 0.08 * b, 0.06 + 0.08 * b) for b in buffers("fig10")})
    fig12 = shares({b: (0.8 - 0.1 * b, 0.1 + 0.1 * b) for b in buffers("fig12")})
    return {
        "fig4": sync_sweep(root / "fig4"),
        "fig5-bbr": sweep(root / "fig5-bbr", fig5),
        "fig5-cubic": sweep(root / "fig5-cubic", [queue_row(6.5, 8.0)]),
        "fig7": sweep(root / "fig7", [loss_row(b, loss(b)) for b in buffers("fig7")]),
        "fig10": sweep(root / "fig10", fig10),
        "fig11": sweep(root / "fig11", fig11),
        "fig12": sweep(root / "fig12", fig12),
    }


@pytest.mark.parametrize(("mode", "expected"), [("quick", QUICK), ("full", FULL)])
def test_each_claim_quotes_the_papers_value(
    tmp_path: Path, mode: Mode, expected: list[tuple[str, str]]
) -> None:
    claims = aict19.analyse(runs(tmp_path, mode), mode).claims
    assert [(c.figure, c.paper) for c in claims] == expected
