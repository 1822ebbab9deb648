"""Fig. 10 and 12's analysis: each group's share of the link against the buffer (2 BBR or BBR
Shallow + 2 CUBIC), the buffer at which the shares cross, and the figure of both."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...analysis.timeseries import bins, crossing, group_rates
from ...sweep.table import SweepResults
from .._base import Claim, done, highest, lowest, mean, shown
from ._common import BBR, CUBIC, STEADY, bdp, seconds

DOMINATES_BELOW = 1.5  # BDP: "BBR dominates" below it (Fig. 10)
LARGE_BUFFER = 8.0  # CUBIC takes more than BBR at the largest buffer, 8 BDP


def by_buffer(
    results: SweepResults, group: str = "bbr"
) -> tuple[dict[float, float], dict[float, float], list[dict[str, Any]]]:
    """`group`'s and CUBIC's mean goodput share by buffer (ascending), and the finished runs."""
    rows = done(results)
    bbr: dict[float, list[float]] = {}
    cubic: dict[float, list[float]] = {}
    for r in rows:
        b = bdp(r["bottleneck.queue.limit"])
        bbr.setdefault(b, []).append(
            r[f"groups.{group}.goodput_bps"] / r["bottleneck.capacity_bps"]
        )
        cubic.setdefault(b, []).append(r["groups.cubic.goodput_bps"] / r["bottleneck.capacity_bps"])
    return (
        {b: mean(v) for b, v in sorted(bbr.items())},
        {b: mean(v) for b, v in sorted(cubic.items())},
        rows,
    )


def claims(
    figure: str,
    name: str,
    bbr: dict[float, float],
    cubic: dict[float, float],
    paper_crossing: str,
    window: tuple[float, float],
) -> tuple[list[Claim], float | None]:
    """Fig. 10's dominance below 1.5 BDP (Fig. 10 only), the crossing within `window`, and
    CUBIC's lead at 8 BDP; and the crossing."""
    buffers = list(bbr)
    cross = crossing(buffers, [bbr[b] for b in buffers], [cubic[b] for b in buffers])
    low = [b for b in buffers if b < DOMINATES_BELOW]
    found = []
    if figure == "Fig. 10":
        found.append(
            Claim(
                figure,
                f"{name} takes more than CUBIC below {DOMINATES_BELOW:g} BDP",
                "BBR dominates",
                f"{name} {shown(lowest(bbr[b] for b in low), '.0%')}–"
                f"{shown(highest(bbr[b] for b in low), '.0%')}, "
                f"CUBIC ≤ {shown(highest(cubic[b] for b in low), '.0%')}"
                if low
                else f"no run below {DOMINATES_BELOW:g} BDP",
                f"{name} > CUBIC at each buffer < {DOMINATES_BELOW:g} BDP",
                bool(low) and all(bbr[b] > cubic[b] for b in low),
            )
        )
    found.append(
        Claim(
            figure,
            f"{name} and CUBIC shares cross",
            paper_crossing,
            "no crossing" if cross is None else f"{cross:.1f} BDP",
            f"{window[0]:g}–{window[1]:g} BDP",
            cross is not None and window[0] <= cross <= window[1],
        )
    )
    top = LARGE_BUFFER
    found.append(
        Claim(
            figure,
            f"CUBIC takes more than {name} in large buffers",
            f"CUBIC > {name} at {top:g} BDP",
            f"CUBIC {shown(cubic[top], '.0%')} vs {name} {shown(bbr[top], '.0%')} at {top:g} BDP"
            if top in bbr
            else f"no finished run at {top:g} BDP",
            f"CUBIC > {name}",
            top in bbr and cubic[top] > bbr[top],
        )
    )
    return found, cross


def figure(
    results: SweepResults,
    bbr: dict[float, float],
    cubic: dict[float, float],
    rows: list[dict[str, Any]],
    name: str,
    cross: float | None,
) -> Figure:
    """Mean share (thick) and the 25th/75th percentiles of half-second shares (thin)."""
    start, end = seconds(STEADY)
    edges = bins(start, end, 0.5)
    quartiles: dict[str, dict[float, list[tuple[float, float]]]] = {"bbr": {}, "cubic": {}}
    for r in rows:
        rates = group_rates(results.run_folder(r["run"]), results.groups(r["run"]), edges)
        capacity = r["bottleneck.capacity_bps"]
        for group, series in rates.items():
            share = series / capacity
            b = bdp(r["bottleneck.queue.limit"])
            quartiles[group].setdefault(b, []).append(
                (float(np.percentile(share, 25)), float(np.percentile(share, 75)))
            )
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    for group, color, means, label in (("bbr", BBR, bbr, name), ("cubic", CUBIC, cubic, "CUBIC")):
        xs = list(means)
        ax.plot(
            xs,
            [means[b] * 100 for b in xs],
            color=color,
            lw=2.5,
            marker="o",
            ms=4,
            label=f"{label} (mean)",
        )
        q = quartiles[group]
        for i, style in ((0, ":"), (1, "--")):
            ax.plot(
                xs,
                [np.mean([p[i] for p in q[b]]) * 100 for b in xs],
                color=color,
                lw=0.9,
                ls=style,
                label=f"{label} ({'25th' if i == 0 else '75th'} pct.)",
            )
    if cross is not None:
        ax.axvline(cross, color="grey", lw=1, ls="-.")
        ax.annotate(
            f"crossing {cross:.1f} BDP",
            (cross, 95),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize="small",
            color="grey",
        )
    ax.set_xlabel("router queue length (multiples of BDP)")
    ax.set_ylabel("goodput (% of link rate)")
    ax.set_xlim(0, max(bbr, default=LARGE_BUFFER) + 0.2)
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2, loc="center right")
    return fig
