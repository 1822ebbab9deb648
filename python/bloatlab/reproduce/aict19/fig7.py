"""Fig. 7: BBR's loss against the router queue's size (§IV-B).

Table I: 2, 4 and 8 BBR flows × 40, 80 and 120 Mb/s × queues of 0.25–8 BDP (`--quick`: 0.5, 1
and 2 BDP), the drop rate over minutes 2–4 of 5, averaged. The paper's text: "5.5% for ... 1
BDP, doubling to about 11% ... 0.5", and about none from 1.5–2 BDP.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, pct, sweep
from ._common import (
    BBR,
    LOSS_TOLERANCE,
    bbr_alone,
    buffer_axis,
    loss_buffers,
    loss_by_buffer,
    loss_grid,
    seeds,
)

PAPER_LOSS = {0.5: 0.11, 1.0: 0.055}


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig7",
            sweep(
                "aict19-fig7",
                bbr_alone(mode),
                grid=loss_grid(mode),
                seeds=seeds(mode),
                description="BBR's loss against the buffer size",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    loss = loss_by_buffer(done(results["fig7"]))
    means = {b: mean(v) for b, v in loss.items()}
    claims = []
    for buffer, paper in PAPER_LOSS.items():
        ours = means.get(buffer, math.nan)
        claims.append(
            Claim(
                "Fig. 7",
                f"BBR loss at {buffer:g} BDP",
                f"≈{paper * 100:g} %",
                pct(ours, 2),
                f"±{LOSS_TOLERANCE:.0%} relative",
                abs(ours - paper) <= LOSS_TOLERANCE * paper,
            )
        )
    for buffer in (b for b in means if b >= 2.0):
        claims.append(
            Claim(
                "Fig. 7",
                f"BBR loss at {buffer:g} BDP",
                "≈0",
                pct(means[buffer], 2),
                "< 1 %",
                means[buffer] < 0.01,
            )
        )
    # every buffer up to 2 BDP the sweep runs: a missing one (NaN) fails the claim
    shallow = [means.get(b, math.nan) for b in loss_buffers(mode) if b <= 2.0]
    falling = all(a > b for a, b in itertools.pairwise(shallow))
    claims.append(
        Claim(
            "Fig. 7",
            "loss falls as the buffer grows to 2 BDP",
            "falls (≈linearly)",
            " → ".join(pct(v) for v in shallow),
            "strictly falling",
            falling,
        )
    )
    return Findings(claims, [_figure(results["fig7"], loss, means)])


def _figure(
    results: SweepResults, loss: dict[float, list[float]], means: dict[float, float]
) -> PaperFigure:
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    xs = [b for b in means if b <= 2.0]
    spread = [float(np.std(loss[b], ddof=1)) * 100 if len(loss[b]) > 1 else 0.0 for b in xs]
    ax.errorbar(
        xs,
        [means[b] * 100 for b in xs],
        yerr=spread,
        color=BBR,
        marker="o",
        lw=2,
        capsize=3,
        label="bloatlab: mean, ±1 sd over flows × rates × seeds",
    )
    ax.plot(
        list(PAPER_LOSS),
        [v * 100 for v in PAPER_LOSS.values()],
        "s",
        color="black",
        mfc="none",
        ms=9,
        label="paper (text: ≈11 %, ≈5.5 %)",
    )
    ax.plot([2.0], [0.0], "s", color="black", mfc="none", ms=9)
    buffer_axis(ax, xs)
    ax.set_ylabel("loss (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    finished = done(results)  # the flow counts and rates the means are over
    flows = {r["flow.bbr.count"] for r in finished}
    rates = {r["bottleneck.rate"] for r in finished}
    return PaperFigure(
        "fig7",
        "Fig. 7: BBR's loss against router queue size",
        "BBR's loss rate in steady state (minutes 2–4 of 5), averaged over 2/4/8 flows at 40/80/"
        "120 Mb/s: about 11 % at 0.5 BDP and 5.5 % at 1 BDP, falling to about 0 at 1.5–2 BDP.",
        png(fig),
        f"Drop rate at the bottleneck over 120–240 s, mean over {len(flows)} flow counts × "
        f"{len(rates)} rates × seeds; squares mark the values the paper states in its text.",
    )
