"""Fig. 4/5: average quality and stall rate against the bottleneck buffer, for CUBIC, BBR and BBR2
(HTTP/2, 100 ms, TBF burst 1 MB)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, shown, sweep
from ._common import COLOURS, QUALITY, RATE_BPS, STALL, fmt, means, media_rate_mbps, scenario, seeds

CCAS = ["cubic", "bbr", "bbr2"]
BUFFERS_FULL = ["10KB", "100KB", "1MB", "3MB", "5MB", "10MB", "100MB"]
BUFFERS_QUICK = ["10KB", "100KB", "10MB"]


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig4-5",
            sweep(
                "www21-fig4-5",
                scenario("www21-buffers"),
                grid={
                    "flow.video.cc": CCAS,
                    "bottleneck.queue.limit": BUFFERS_FULL if mode == "full" else BUFFERS_QUICK,
                },
                seeds=seeds(mode, 10),
                description="quality and stall rate against the bottleneck buffer",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig4-5"])
    quality = means(rows, QUALITY, "flow.video.cc", "bottleneck.queue.limit")
    stall = means(rows, STALL, "flow.video.cc", "bottleneck.queue.limit")

    def q(cc: str, b: str) -> float:
        return quality.get((cc, b), math.nan)

    def s(cc: str, b: str) -> float:
        return stall.get((cc, b), math.nan)

    claims = [
        Claim(
            "Fig. 4",
            "BBR quality at 100 KB",
            "≈10 (near-ideal)",
            fmt(q("bbr", "100KB")),
            "≥ 9",
            q("bbr", "100KB") >= 9,
        ),
        Claim(
            "Fig. 4",
            "BBR quality at 10 MB",
            "< 5",
            fmt(q("bbr", "10MB")),
            "≤ 6",
            q("bbr", "10MB") <= 6,
        ),
        Claim(
            "Fig. 5",
            "BBR stall rate at 10 MB",
            "≥ 0.75",
            fmt(s("bbr", "10MB")),
            "> 0",
            s("bbr", "10MB") > 0,
        ),
        Claim(
            "Fig. 4",
            "BBR2 quality at 10 MB",
            "< 5",
            fmt(q("bbr2", "10MB")),
            "≤ 6",
            q("bbr2", "10MB") <= 6,
        ),
        *(
            Claim(
                "Fig. 4/5",
                f"{cc.upper()} at 10 MB: media delivered per second of playback",
                f"≤ {media_rate_mbps(5, 0.75):.1f} Mb/s (from quality < 5, stall rate ≥ 0.75)",
                f"{shown(media_rate_mbps(q(cc, '10MB'), s(cc, '10MB')), '.1f')} Mb/s",
                f"≤ {RATE_BPS / 2e6:g} Mb/s (half the link)",
                media_rate_mbps(q(cc, "10MB"), s(cc, "10MB")) <= RATE_BPS / 2e6,
                "derived (media_rate_mbps): the paper's numbers mean the link carried video "
                "less than a third of the time while the player stalled",
            )
            for cc in ("bbr", "bbr2")
        ),
        Claim(
            "Fig. 4/5",
            "Cubic at 10 KB: losses starve the video",
            "quality ≈0, stall rate ≈1",
            f"{fmt(q('cubic', '10KB'))}, {fmt(s('cubic', '10KB'))}",
            "quality ≤ 2",
            q("cubic", "10KB") <= 2,
        ),
        Claim(
            "Fig. 4",
            "BBR at 10 KB still performs well",
            "near-ideal quality",
            fmt(q("bbr", "10KB")),
            "≥ 8",
            q("bbr", "10KB") >= 8,
        ),
    ]
    buffers = [b for b in BUFFERS_FULL if any(k[1] == b for k in quality)]
    figs = []
    for name, metric, label, paper_note in (
        (
            "fig4",
            quality,
            "average quality (level 0–10)",
            "near 10 at 100 KB–1 MB; below 5 at 10 MB for all CCAs",
        ),
        (
            "fig5",
            stall,
            "stall rate",
            "0 at 100 KB–1 MB; at least 0.75 for BBR at 10 MB; 1 for Cubic at 10 KB",
        ),
    ):
        fig = Figure(figsize=(7, 3.6), layout="constrained")
        ax = fig.subplots()
        for cc in CCAS:
            ax.plot(
                range(len(buffers)),
                [metric.get((cc, b), math.nan) for b in buffers],
                "o-",
                color=COLOURS[cc],
                label=cc,
            )
        ax.set_xticks(range(len(buffers)), buffers)
        ax.set_xlabel("bottleneck buffer")
        ax.set_ylabel(label)
        ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
        title = (
            "Fig. 4: average quality vs buffer"
            if name == "fig4"
            else "Fig. 5: stall rate vs buffer"
        )
        figs.append(
            PaperFigure(
                name,
                title,
                f"The paper: {paper_note}.",
                png(fig),
                "25 Mb/s, 100 ms, TBF burst 1 MB, HTTP/2, DYNAMIC; mean over seeds.",
            )
        )
    return Findings(claims, figs)
