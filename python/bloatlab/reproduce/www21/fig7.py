"""Fig. 7: how each ABR rule's quality and stall rate change from a 100 KB to a 10 MB buffer,
under BBR."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, ratio, sweep
from ._common import QUALITY, STALL, means, scenario, seeds

ABRS = ["dynamic", "bola", "throughput", "bba", "rb", "festive", "robust_mpc"]


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig7",
            sweep(
                "www21-fig7",
                scenario("www21-abrs"),
                grid={"flow.video.app.abr": ABRS, "bottleneck.queue.limit": ["100KB", "10MB"]},
                seeds=seeds(mode, 5),
                description="every ABR rule, shallow and deep buffer",
            ),
        )
    ]


def _halves(drop: float, rise: float) -> bool:
    return drop <= -0.3


def _keeps_quality_stalls_more(drop: float, rise: float) -> bool:
    return drop >= -0.2 and rise >= 0.3


# Fig. 7 as the text states it: the quality change (10 MB vs 100 KB) and the stall-rate rise.
PAPER_FIG7: dict[str, tuple[str, Callable[[float, float], bool]]] = {
    "bba": ("≈ -50 %, small stall rise", _halves),
    "bola": ("≈ -50 %, small stall rise", _halves),
    "festive": ("< 20 % drop, stall +≈0.7", _keeps_quality_stalls_more),
    "rb": ("< 20 % drop, stall +≈1.1", _keeps_quality_stalls_more),
}


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig7"])
    quality = means(rows, QUALITY, "flow.video.app.abr", "bottleneck.queue.limit")
    stall = means(rows, STALL, "flow.video.app.abr", "bottleneck.queue.limit")
    abrs = [a for a in ABRS if any(key[0] == a for key in quality)]
    nan = math.nan
    drop = {
        a: ratio(quality.get((a, "10MB"), nan), quality.get((a, "100KB"), nan)) - 1 for a in ABRS
    }
    rise = {a: stall.get((a, "10MB"), nan) - stall.get((a, "100KB"), nan) for a in ABRS}
    claims = [
        Claim(
            "Fig. 7",
            f"{a}: quality change and stall rise at 10 MB",
            paper,
            "–" if math.isnan(drop[a] + rise[a]) else f"{drop[a]:+.0%}, {rise[a]:+.2f}",
            "as stated",
            check(drop[a], rise[a]),
        )
        for a, (paper, check) in PAPER_FIG7.items()
    ]
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax1, ax2 = fig.subplots(1, 2)
    xs = np.arange(len(abrs))
    ax1.bar(xs, [drop[a] * 100 for a in abrs], color="C3")
    ax1.set_ylabel("quality change, 10 MB vs 100 KB (%)")
    ax2.bar(xs, [rise[a] for a in abrs], color="C0")
    ax2.set_ylabel("stall-rate increase")
    for ax in (ax1, ax2):
        ax.set_xticks(xs, abrs, rotation=30)
        ax.axhline(0, color="k", lw=0.8)
    figure = PaperFigure(
        "fig7",
        "Fig. 7: QoE change under deep buffers, per ABR",
        "The paper: BBA and BOLA lose ≈50 % quality; Festive and RB keep quality but their "
        "stall rate rises by ≈0.7 and ≈1.1.",
        png(fig),
        "BBR, 25 Mb/s, 100 ms, TBF 1 MB; change from 100 KB to 10 MB, mean over seeds.",
    )
    return Findings(claims, [figure])
