"""Fig. 6: BBR's loss over time in a 0.5 BDP queue (§IV-B).

No runs of its own: Fig. 7's 4 BBR flows at 80 Mb/s behind 0.5 BDP (the testbed's usual 4 flows,
§IV-A), the bottleneck's loss rate in half-second bins over minutes 2–4. The paper: it "varies
considerably" but "persists and averages over 10 percent".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...analysis.timeseries import bins, queue_series
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, pct
from ._common import (
    BBR,
    LOSS_TOLERANCE,
    PAPER_SHALLOW_LOSS,
    SHALLOW,
    STEADY,
    bdp,
    seconds,
    time_axes,
)

FLOWS, RATE = 4, "80Mbps"
PERSISTS = 0.9  # of the half-second bins with loss


def experiments(mode: Mode) -> list[Experiment]:
    return []  # Fig. 7's runs


def half_second_loss(results: SweepResults, row: dict[str, Any]) -> np.ndarray:
    """The bottleneck's loss rate in half-second bins over the steady window (minutes 2–4)."""
    start, end = seconds(STEADY)
    loss: np.ndarray = queue_series(results.run_folder(row["run"]), bins(start, end, 0.5))["loss"]
    return loss


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = [
        r
        for r in done(results["fig7"])
        if bdp(r["bottleneck.queue.limit"]) == SHALLOW
        and r["flow.bbr.count"] == FLOWS
        and r["bottleneck.rate"] == RATE
    ]
    bins_by_run = [half_second_loss(results["fig7"], r) for r in rows]
    average = mean([float(np.mean(b)) for b in bins_by_run])
    persists = mean([float(np.mean(b > 0)) for b in bins_by_run])
    floor = PAPER_SHALLOW_LOSS * (1 - LOSS_TOLERANCE)
    claims = [
        Claim(
            "Fig. 6",
            f"{FLOWS} BBR, 0.5 BDP: loss averages over 10 %",
            "over 10 %",
            pct(average, 2),
            f"≥ {pct(floor, 0)} (10 % less {LOSS_TOLERANCE * 100:g} %, as Fig. 7's)",
            average >= floor,
        ),
        Claim(
            "Fig. 6",
            f"{FLOWS} BBR, 0.5 BDP: loss persists",
            "persists",
            f"{pct(persists, 0)} of half-second bins with loss",
            f"≥ {PERSISTS:.0%} of the bins",
            persists >= PERSISTS,
        ),
    ]
    drawn = min(zip(rows, bins_by_run, strict=True), key=lambda p: p[0]["seed"], default=None)
    return Findings(claims, [_figure(None if drawn is None else drawn[1])])


def _figure(loss: np.ndarray | None) -> PaperFigure:
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    if loss is not None:
        times = seconds(STEADY)[0] + 0.25 + 0.5 * np.arange(len(loss))
        ax.plot(times, loss * 100, color=BBR, lw=1)
    ax.axhline(PAPER_SHALLOW_LOSS * 100, color="black", ls="--", lw=1, label="paper: ≈10 %")
    time_axes(ax, "loss (%, 0.5 s bins)")
    ax.legend(fontsize="small")
    return PaperFigure(
        "fig6",
        "Fig. 6: BBR's loss rate in a small router queue",
        "80 Mb/s, 25 ms, a 0.5 BDP queue: the loss rate over 500 ms intervals varies considerably "
        "but persists, averaging over 10 %.",
        png(fig),
        f"{FLOWS} BBR flows (Fig. 7's run at 0.5 BDP, 80 Mb/s; its lowest finished "
        "seed), minutes 2–4, half-second bins.",
    )
