"""Fig. 8: BBR against CUBIC in a 0.5 BDP queue (§IV-B).

No runs of its own: Fig. 10's 2 BBR + 2 CUBIC at 0.5 BDP. CUBIC's throughput is "much lower"
than BBR's (at most half of it, here), with loss "about 10 %" as in Fig. 6.
"""

from __future__ import annotations

from collections.abc import Mapping

from matplotlib.figure import Figure

from ...analysis.timeseries import bins, group_rates
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, pct, shown
from ._common import (
    BBR,
    CUBIC,
    LOSS_TOLERANCE,
    PAPER_SHALLOW_LOSS,
    SHALLOW,
    bdp,
    time_axes,
)

MUCH_LOWER = 0.5  # CUBIC's throughput "much lower" than BBR's: at most half of it


def experiments(mode: Mode) -> list[Experiment]:
    return []  # Fig. 10's runs


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = [r for r in done(results["fig10"]) if bdp(r["bottleneck.queue.limit"]) == SHALLOW]
    bbr = mean([r["groups.bbr.goodput_bps"] / r["bottleneck.capacity_bps"] for r in rows])
    cubic = mean([r["groups.cubic.goodput_bps"] / r["bottleneck.capacity_bps"] for r in rows])
    loss = mean([r.get("bottleneck.drop_rate") for r in rows])
    claims = [
        Claim(
            "Fig. 8",
            "2 BBR + 2 CUBIC, 0.5 BDP: CUBIC's throughput much lower than BBR's",
            "much lower",
            f"CUBIC {shown(cubic, '.0%')} vs BBR {shown(bbr, '.0%')} of the link (minutes 2–4)"
            if rows
            else "–",
            f"CUBIC ≤ {MUCH_LOWER:g} × BBR",
            cubic <= MUCH_LOWER * bbr,
        ),
        Claim(
            "Fig. 8",
            "2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6",
            "about 10 %",
            f"{pct(loss, 2)} (minutes 2–4)" if rows else "–",
            f"±{LOSS_TOLERANCE:.0%} relative",
            abs(loss - PAPER_SHALLOW_LOSS) <= LOSS_TOLERANCE * PAPER_SHALLOW_LOSS,
        ),
    ]
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    if rows:
        row = min(rows, key=lambda r: r["seed"])
        edges = bins(0.0, 60.0, 0.5)
        rates = group_rates(
            results["fig10"].run_folder(row["run"]), results["fig10"].groups(row["run"]), edges
        )
        mid = (edges[1:] + edges[:-1]) / 2
        for group, color, name in (("bbr", BBR, "BBR"), ("cubic", CUBIC, "CUBIC")):
            ax.plot(
                mid,
                rates[group] / row["bottleneck.capacity_bps"] * 100,
                color=color,
                lw=1.2,
                label=name,
            )
        ax.legend(fontsize="small")
    time_axes(ax, "throughput (% of the link)")
    figure = PaperFigure(
        "fig8",
        "Fig. 8: throughput utilization of BBR and CUBIC in a shallow buffer",
        "80 Mb/s, 25 ms, a 0.5 BDP queue: CUBIC's throughput is much lower than BBR's, since it "
        "responds to the loss (about 10 %, as in Fig. 6) and BBR does not.",
        png(fig),
        "2 BBR + 2 CUBIC (Fig. 10's run at 0.5 BDP, its lowest finished seed), each group's "
        "throughput in half-second bins over the first minute.",
    )
    return Findings(claims, [figure])
