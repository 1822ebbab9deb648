"""Fig. 3: one BBR flow (PROBE_BW cwnd gain g) against one CUBIC flow in a buffer of R BDP, and
the §3.1 model's converge point.

Model (§3.1): at the converge point the loss-based flows hold p = (R - g + 1)/(gR) of the
buffer and BBR the rest, so BBR's share of the goodput is 1 - p (clipped to [0, 1]); the
artifact's plot script (fig3.py) draws exactly `min(1 - (R-g+1)/(gR), 1)` × total as the red
mark on each bar. We plot BBR's measured share against p for every (g, R), with the line 1 - p.

Protocol (artifact fig3.sh): 20 Mb/s, 40 ms, tbf burst 100 KB, buffers 50/80/100/200/1600 KB
(R = 0.5, 0.8, 1, 2, 16), g ∈ {1, 2} at every R and g ∈ {1.5, 3, 4} at R = 16; CUBIC starts
first and BBR 3 s later, 420 s, goodput averaged from 60 s on.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, pct, shown, sweep
from ._common import CCAS, bdp, flow, legend, retransmission_ratio, seeds, share_label, testbed

RATE, RTT = "20Mbps", "40ms"
BUFFERS = [0.5, 0.8, 1.0, 2.0, 16.0]  # R; × 100 KB (the BDP) = the artifact's limits
GAINS_R16 = [1.0, 1.5, 2.0, 3.0, 4.0]
PAIRS = [(g, r) for r in BUFFERS for g in (1.0, 2.0)] + [(g, 16.0) for g in (1.5, 3.0, 4.0)]
PAPER_LOSS_R05 = 0.1336  # "When R is reduced to 0.5, BBR dominates ... loss ratio 13.36 %"
LOSS_TOLERANCE = 0.4  # relative
STEP = 0.02  # a share may rise by this much and still count as "falling" (noise)


def model_p(g: float, r: float) -> float:
    """The loss-based flows' share of the buffer at the converge point, (R - g + 1)/(gR)."""
    return (r - g + 1) / (g * r)


def model_bbr(g: float, r: float) -> float:
    return min(max(1.0 - model_p(g, r), 0.0), 1.0)


def experiments(mode: Mode) -> list[Experiment]:
    base = testbed(
        RATE,
        RTT,
        "1BDP",
        [flow("cubic", CCAS["CUBIC"]), {**flow("bbr", "bbr"), "start": "3s"}],
        "420s",
        name="atc23-fig3",
        window=("60s", "420s"),
    )
    zips: dict[str, list[Any]] = {
        "flow.bbr.cc": [{**CCAS["BBR"], "cwnd_gain": g} for g, _ in PAIRS],
        "bottleneck.queue.limit": [f"{r:g}BDP" for _, r in PAIRS],
    }
    return [
        Experiment(
            "fig3",
            sweep(
                "atc23-fig3",
                base,
                zips=[zips],
                seeds=seeds(mode),
                description="1 BBR (cwnd gain g) + 1 CUBIC, buffer R BDP",
            ),
        )
    ]


def _shares(results: SweepResults) -> dict[tuple[float, float], dict[str, float]]:
    by: dict[tuple[float, float], list[dict[str, Any]]] = {}
    for row in done(results):
        g = _gain(row["flow.bbr.cc"])
        r = bdp(row["bottleneck.queue.limit"])
        by.setdefault((g, r), []).append(row)
    out = {}
    for key, rows in sorted(by.items()):
        shares = [
            r["flows.bbr.goodput_bps"] / (r["flows.bbr.goodput_bps"] + r["flows.cubic.goodput_bps"])
            for r in rows
        ]
        out[key] = {
            "bbr": mean(shares),
            "retrans": mean([retransmission_ratio(r, ["bbr"]) for r in rows]),
            "total": mean(
                [
                    (r["flows.bbr.goodput_bps"] + r["flows.cubic.goodput_bps"])
                    / r["bottleneck.capacity_bps"]
                    for r in rows
                ]
            ),
        }
    return out


def _gain(value: Any) -> float:
    found = re.search(r"cwnd_gain = ([0-9.]+)", str(value))
    return float(found.group(1)) if found else 2.0


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    shares = _shares(results["fig3"])
    bbr = {k: v["bbr"] for k, v in shares.items()}
    claims = []
    g2 = [bbr.get((2.0, r), math.nan) for r in BUFFERS]
    falling = all(b <= a + STEP for a, b in itertools.pairwise(g2)) and g2[-1] < g2[0]
    claims.append(
        Claim(
            "Fig. 3",
            "g = 2: BBR's share falls as R grows (0.5 → 16)",
            "decreases as R is greater",
            " → ".join(share_label(s) for s in g2),
            f"non-increasing (±{STEP * 100:g} pp), R 16 < R 0.5",
            falling,
        )
    )
    below = [(r, bbr.get((2.0, r), math.nan), model_bbr(2.0, r)) for r in BUFFERS]
    below = [b for b in below if b[2] < 1.0]
    claims.append(
        Claim(
            "Fig. 3",
            "g = 2: BBR's share below the model's converge point",
            "lower than the converge point",
            ", ".join(f"R {r:g}: {shown(s, '.0%')} vs {shown(m, '.0%')}" for r, s, m in below),
            "< 1 - (R-g+1)/(gR) wherever that is < 1",
            all(s < m for _, s, m in below),
        )
    )
    low = shares.get((2.0, 0.5), {"bbr": math.nan, "retrans": math.nan})
    claims.append(
        Claim(
            "Fig. 3",
            "g = 2, R = 0.5: BBR dominates",
            "BBR dominates the bandwidth",
            share_label(low["bbr"]),
            "BBR ≥ 80 %",
            low["bbr"] >= 0.8,
        )
    )
    claims.append(
        Claim(
            "Fig. 3",
            "g = 2, R = 0.5: BBR's loss ratio",
            pct(PAPER_LOSS_R05, 2),
            pct(low["retrans"], 2),
            f"±{LOSS_TOLERANCE:.0%} relative",
            abs(low["retrans"] - PAPER_LOSS_R05) <= LOSS_TOLERANCE * PAPER_LOSS_R05,
            note="ours: BBR's retransmitted / sent bytes (the testbed's log), over 60–420 s",
        )
    )
    g1 = [bbr.get((1.0, r), math.nan) for r in BUFFERS]
    claims.append(
        Claim(
            "Fig. 3",
            "g = 1: BBR can hardly compete at any R",
            "almost all bandwidth to CUBIC",
            ", ".join(f"R {r:g}: {shown(s, '.0%')}" for r, s in zip(BUFFERS, g1, strict=True)),
            "BBR ≤ 20 % at every R",
            all(s <= 0.2 for s in g1),
        )
    )
    r16 = [bbr.get((g, 16.0), math.nan) for g in GAINS_R16]
    rising = all(b >= a - STEP for a, b in itertools.pairwise(r16)) and r16[-1] > r16[0]
    claims.append(
        Claim(
            "Fig. 3",
            "R = 16: BBR gains more goodput with increasing g (1 → 4)",
            "grows with g",
            " → ".join(share_label(s) for s in r16),
            f"non-decreasing (±{STEP * 100:g} pp), g 4 > g 1",
            rising,
        )
    )
    return Findings(claims, [_figure(shares)])


def _style(g: float, r: float) -> tuple[str, str]:
    if g == 1.0:
        return "C0", "v"
    return ("C3", "o") if g == 2.0 else ("C2", "s")


def _figure(shares: dict[tuple[float, float], dict[str, float]]) -> PaperFigure:
    fig = Figure(figsize=(11, 4.2), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.2, 1]})
    xs = [x / 100 for x in range(-60, 101)]
    left.plot(
        xs, [min(max(1 - x, 0), 1) * 100 for x in xs], color="red", lw=1.5, label="model: 1 - p"
    )
    for (g, r), v in shares.items():
        p = model_p(g, r)
        color, marker = _style(g, r)
        left.scatter([p], [v["bbr"] * 100], color=color, marker=marker, s=40, zorder=3)
        left.annotate(
            f"g {g:g}, R {r:g}",
            (p, v["bbr"] * 100),
            xytext=(4, 3),
            textcoords="offset points",
            fontsize="x-small",
        )
    for series, color, marker in (
        ("g = 1", "C0", "v"),
        ("g = 2", "C3", "o"),
        ("R = 16, g = 1.5/3/4", "C2", "s"),
    ):
        left.scatter([], [], color=color, marker=marker, label=f"bloatlab, {series}")
    left.set_xlabel("model converge point p = (R - g + 1)/(gR)")
    left.set_ylabel("BBR's share of the goodput (%)")
    left.set_xlim(-0.6, 1.05)
    left.set_ylim(0, 105)
    left.grid(True, alpha=0.3)
    legend(left, fontsize="small", loc="lower left")
    # The paper's own layout: stacked goodput per configuration set, the model's mark in red.
    keys = [(2.0, r) for r in BUFFERS] + [(1.0, r) for r in BUFFERS]
    keys += [(g, 16.0) for g in GAINS_R16 if g not in (1.0, 2.0)]
    names = [f"g{g:g}\nR{r:g}" for g, r in keys]
    first = True  # the legend's entries come from the first point drawn
    for i, key in enumerate(keys):
        if key not in shares:
            continue
        v = shares[key]
        total = v["total"] * 100
        b = v["bbr"] * total
        right.bar(i, b, color="C0", width=0.6, label="BBR" if first else None)
        right.bar(i, total - b, bottom=b, color="C1", width=0.6, label="CUBIC" if first else None)
        m = model_bbr(*key) * total
        right.plot([i - 0.3, i + 0.3], [m, m], color="red", lw=3, label="model" if first else None)
        first = False
    right.set_xticks(range(len(keys)), names, fontsize="x-small")
    right.set_ylabel("goodput (% of the link)")
    right.set_ylim(0, 105)
    legend(right, fontsize="small", ncol=3, loc="upper right")
    return PaperFigure(
        "fig3",
        "Fig. 3: BBR against CUBIC for configuration sets of g and R, with the model",
        "1 BBR + 1 CUBIC flow, 20 Mb/s, 40 ms: with g = 2 BBR's share falls as R grows but stays "
        "below the model's converge point (red marks); with g = 1 CUBIC takes almost all the "
        "bandwidth at every R; at R = 16, BBR's share grows with g; at R = 0.5 and g = 2 BBR "
        "dominates and loses 13.36 %.",
        png(fig),
        "Left: BBR's share of the two flows' goodput (60–420 s) against the model's p, with the "
        "model's 1 - p; right: the paper's layout, stacked goodput per (g, R), the model's "
        "share marked. Mean over seeds.",
    )
