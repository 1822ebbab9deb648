"""Fig. 16: BBR-S and BBR2-S against BBR and BBR2 behind the 10 MB buffer, and BBR2-S's
sensitivity to its pacing margin and to path jitter."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from ...builders import HOST_JITTER
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, shown, sweep
from ._common import BW, COLOURS, GOODPUT, QUALITY, RATE_BPS, STALL, fmt, means, scenario, seeds

SAMPLED = ["bbr", "bbr-s", "bbr2", "bbr2-s"]
# BBR2-S's sensitivity (Fig. 16): BBRv2 paces 1 % below its estimate (`bbr_pacing_margin_percent`,
# kept in `bbr2s.c`), so on a path that adds no noise its own samples pull the percentile down.
# Each variant lifts that in its own way: no margin, or 1 ms of path jitter (noisier samples).
MARGIN = "flow.video.cc.base.pacing_margin_percent"
BBR2_S_VARIANTS = {"no pacing margin": (0, HOST_JITTER), "1 ms path jitter": (1, "1ms")}


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig16",
            sweep(
                "www21-fig16",
                scenario("www21-sampled"),
                grid={"flow.video.cc": SAMPLED},
                seeds=seeds(mode, 10),
                description="BBR-S and BBR2-S against BBR and BBR2",
            ),
        ),
        Experiment(
            "fig16-bbr2-s",
            sweep(
                "www21-fig16-bbr2-s",
                scenario(
                    "www21-bbr2-s", cc={"kind": "bbr2-s", "base": {"pacing_margin_percent": 1}}
                ),
                zips=[
                    {
                        MARGIN: [margin for margin, _ in BBR2_S_VARIANTS.values()],
                        "bottleneck.jitter": [jitter for _, jitter in BBR2_S_VARIANTS.values()],
                    }
                ],
                seeds=seeds(mode, 10),
                description="BBR2-S without its pacing margin, and with 1 ms of path jitter",
            ),
        ),
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig16"])
    quality, stall = means(rows, QUALITY, "flow.video.cc"), means(rows, STALL, "flow.video.cc")
    bw = means(rows, BW, "flow.video.cc")
    goodput = means(rows, GOODPUT, "flow.video.cc")

    def carried(cc: str) -> str:
        return f"goodput {shown(goodput.get((cc,), math.nan) / 1e6, '.1f')} Mb/s"

    variants = _bbr2_s_variants(results["fig16-bbr2-s"])
    sensitivity = "; ".join(
        f"{label}: {fmt(q)}, estimate {shown(est / 1e6, '.1f')} Mb/s"
        for label, (q, _, est) in variants.items()
    )
    claims = []
    for cc in ("bbr-s", "bbr2-s"):
        q, s = quality.get((cc,), math.nan), stall.get((cc,), math.nan)
        claims.append(
            Claim(
                "Fig. 16",
                f"{cc}: quality, stall rate",
                "near 10, no stalls",
                f"{fmt(q)}, {fmt(s)}",
                "≥ 8.5, ≤ 0.05",
                q >= 8.5 and s <= 0.05,
                note=carried(cc) + (f"; {sensitivity}" if cc == "bbr2-s" else ""),
            )
        )
        est = bw.get((cc,), math.nan)
        claims.append(
            Claim(
                "Fig. 16",
                f"{cc}: mean bandwidth estimate",
                "≈ link rate (no overestimate)",
                f"{shown(est / 1e6, '.1f')} Mb/s",
                "within 15 % of 25 Mb/s",
                abs(est / RATE_BPS - 1) <= 0.15,
            )
        )
    for cc in ("bbr", "bbr2"):
        q, s = quality.get((cc,), math.nan), stall.get((cc,), math.nan)
        claims.append(
            Claim(
                "Fig. 16",
                f"{cc}: quality, stall rate",
                "< 4, > 0.75",
                f"{fmt(q)}, {fmt(s)}",
                "quality ≤ 6",
                q <= 6,
                note=carried(cc),
            )
        )
    labels = SAMPLED + [f"bbr2-s, {label}" for label in variants]
    qualities = [quality.get((c,), math.nan) for c in SAMPLED] + [v[0] for v in variants.values()]
    stalls = [stall.get((c,), math.nan) for c in SAMPLED] + [v[1] for v in variants.values()]
    estimates = [bw.get((c,), math.nan) for c in SAMPLED] + [v[2] for v in variants.values()]
    colours = [COLOURS[c] for c in SAMPLED] + [COLOURS["bbr2-s"]] * len(variants)
    hatches = [""] * len(SAMPLED) + ["//"] * len(variants)
    fig = Figure(figsize=(12, 3.6), layout="constrained")
    ax1, ax2, ax3 = fig.subplots(1, 3)
    xs = np.arange(len(labels))
    ax1.bar(xs, qualities, color=colours, hatch=hatches)
    ax1.set_ylabel("average quality")
    ax2.bar(xs, stalls, color=colours, hatch=hatches)
    ax2.set_ylabel("stall rate")
    ax3.bar(xs, [e / 1e6 for e in estimates], color=colours, hatch=hatches)
    ax3.axhline(RATE_BPS / 1e6, color="k", ls="--", lw=1)
    ax3.set_ylabel("mean bandwidth estimate (Mb/s)")
    for ax in (ax1, ax2, ax3):
        ax.set_xticks(xs, labels, fontsize=7, rotation=25, ha="right")
    figure = PaperFigure(
        "fig16",
        "Fig. 16: BBR-S and BBR2-S",
        "The paper: BBR-S and BBR2-S raise quality from below 4 to near 10 with no stalls.",
        png(fig),
        "10 MB buffer, TBF burst 1 MB, HTTP/2; mean over seeds. Hatched: BBR2-S without its 1 % "
        "pacing margin, and with 1 ms of path jitter (the margin pulls the percentile of its "
        "own samples down on a noiseless path).",
    )
    return Findings(claims, [figure])


def _bbr2_s_variants(results: SweepResults) -> dict[str, tuple[float, float, float]]:
    """BBR2-S's sensitivity runs: label → (mean quality, stall rate, bandwidth estimate)."""
    rows = done(results)
    quality, stall, bw = (means(rows, m, MARGIN, "bottleneck.jitter") for m in (QUALITY, STALL, BW))
    return {
        label: (quality.get(key, math.nan), stall.get(key, math.nan), bw.get(key, math.nan))
        for label, key in BBR2_S_VARIANTS.items()
    }
