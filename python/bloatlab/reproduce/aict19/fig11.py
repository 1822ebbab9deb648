"""Fig. 11: BBR Shallow's loss against the router queue's size (§V-B).

Fig. 7's runs with BBR and BBR Shallow (cwnd gain 1.5) side by side, at the buffers up to 2 BDP:
BBR Shallow "induces less loss" below 1.5 BDP, compared here at each buffer up to 1 BDP.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, pct, sweep
from ._common import (
    BBR,
    BBR_CC,
    BBR_LABEL,
    BBR_SHALLOW_CC,
    bbr_alone,
    buffer_axis,
    buffer_label,
    loss_buffers,
    loss_by_buffer,
    loss_grid,
    seeds,
)

COMPARED_UP_TO = 1.0  # BDP


def experiments(mode: Mode) -> list[Experiment]:
    grid = {
        **loss_grid(mode),
        "bottleneck.queue.limit": [buffer_label(b) for b in loss_buffers(mode) if b <= 2.0],
        "flow.bbr.cc": [BBR_CC, BBR_SHALLOW_CC],
    }
    return [
        Experiment(
            "fig11",
            sweep(
                "aict19-fig11",
                bbr_alone(mode),
                grid=grid,
                seeds=seeds(mode),
                description="BBR and BBR Shallow: loss against the buffer size",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig11"])
    by_cc = {
        "bbr": loss_by_buffer([r for r in rows if r["flow.bbr.cc"] == BBR_LABEL]),
        "shallow": loss_by_buffer([r for r in rows if r["flow.bbr.cc"] != BBR_LABEL]),
    }
    means = {cc: {b: mean(v) for b, v in loss.items()} for cc, loss in by_cc.items()}
    claims = []
    for buffer in (b for b in means["bbr"] if b <= COMPARED_UP_TO):
        ours_s, ours_b = means["shallow"].get(buffer, math.nan), means["bbr"][buffer]
        claims.append(
            Claim(
                "Fig. 11",
                f"BBR Shallow loses less than BBR at {buffer:g} BDP",
                "less loss below 1.5 BDP",
                f"{pct(ours_s, 2)} vs {pct(ours_b, 2)}",
                "BBR Shallow < BBR",
                ours_s < ours_b,
            )
        )
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    for cc, color, label in (("bbr", BBR, "BBR"), ("shallow", "C2", "BBR Shallow (cwnd gain 1.5)")):
        xs = list(means[cc])
        ax.plot(xs, [means[cc][b] * 100 for b in xs], color=color, marker="o", lw=2, label=label)
    buffer_axis(ax, sorted({*means["bbr"], *means["shallow"]}))  # every buffer plotted
    ax.set_ylabel("loss (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    figure = PaperFigure(
        "fig11",
        "Fig. 11: BBR Shallow's loss against router queue length",
        "With its inflight cap lowered from 2 to 1.5 BDP, BBR Shallow induces less loss than "
        "BBR in buffers smaller than 1.5 BDP.",
        png(fig),
        "Drop rate over 120–240 s, mean over flow counts × rates × seeds, as Fig. 7.",
    )
    return Findings(claims, [figure])
