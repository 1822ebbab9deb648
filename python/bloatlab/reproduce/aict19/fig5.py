"""Fig. 5: BBR's standing queue against CUBIC's full one in an 8 BDP buffer (§IV-A).

4 BBR flows (in `--full` also 2 and 8, at 40, 80 and 120 Mb/s) and, separately, 1 CUBIC flow,
80 Mb/s, 25 ms, an 8 BDP (2 MB) buffer; the queue over one steady-state minute (60–120 s of 300 s,
"1 minute of a 5 minute trial").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from ...analysis.timeseries import bins, queue_series
from ...builders import bulk
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import (
    Claim,
    Experiment,
    Findings,
    Mode,
    PaperFigure,
    done,
    highest,
    lowest,
    mean,
    shown,
    sweep,
)
from ._common import BBR, BBR_CC, CUBIC, FLOWS, HOST, MINUTE, RATES, seconds, seeds, testbed


def _queue_run(mode: Mode, name: str, flow: dict[str, Any]) -> dict[str, Any]:
    duration = "300s" if mode == "full" else "120s"
    return testbed(name, [flow], duration, buffer="8BDP", window=MINUTE)


def experiments(mode: Mode) -> list[Experiment]:
    full = mode == "full"
    return [
        Experiment(
            "fig5-bbr",
            sweep(
                "aict19-fig5-bbr",
                _queue_run(mode, "aict19-standing-queue", bulk("bbr", BBR_CC, 4, **HOST)),
                grid={"flow.bbr.count": FLOWS, "bottleneck.rate": RATES} if full else {},
                seeds=seeds(mode),
                description="BBR's standing queue in an 8 BDP buffer",
            ),
        ),
        Experiment(
            "fig5-cubic",
            sweep(
                "aict19-fig5-cubic",
                _queue_run(mode, "aict19-cubic-queue", bulk("cubic", "cubic", **HOST)),
                description="1 CUBIC in an 8 BDP buffer",
            ),
        ),
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    bbr, cubic = results["fig5-bbr"], results["fig5-cubic"]
    rows = done(bbr)
    claims = []
    four = [
        r
        for r in rows
        if r.get("flow.bbr.count", 4) == 4 and r.get("bottleneck.rate", "80Mbps") == "80Mbps"
    ]
    standing = mean([r["bottleneck.backlog_mean_bdp"] for r in four])
    p90 = mean([r["bottleneck.backlog_p90_bdp"] for r in four])
    claims.append(
        Claim(
            "Fig. 5",
            "4 BBR, 80 Mb/s, 8 BDP buffer: standing queue",
            "≈1.1 BDP (1–1.5)",
            f"{shown(standing, '.2f')} BDP (p90 {shown(p90, '.2f')})",
            "mean 1–1.5 BDP",
            1.0 <= standing <= 1.5,
        )
    )
    if mode == "full":
        by_combo: dict[tuple[Any, Any], list[float]] = {}
        for r in rows:
            key = (r["flow.bbr.count"], r["bottleneck.rate"])
            by_combo.setdefault(key, []).append(r["bottleneck.backlog_mean_bdp"])
        means = {(n, rate): mean(by_combo.get((n, rate), [])) for n in FLOWS for rate in RATES}
        ran = [m for m in means.values() if not math.isnan(m)]
        # a combination without a finished run (NaN) is outside too
        outside = [f"{n} flows {rate}" for (n, rate), m in means.items() if not 1.0 <= m <= 1.5]
        claims.append(
            Claim(
                "Fig. 5",
                "2/4/8 BBR × 40/80/120 Mb/s: standing queue",
                "1–1.5 BDP",
                f"{lowest(ran):.2f}–{highest(ran):.2f} BDP over {len(ran)} of {len(means)} "
                "combinations"
                if ran
                else f"no finished run of {len(means)} combinations",
                "each mean 1–1.5 BDP",
                not outside,
                note=f"outside, or not run: {', '.join(outside)}" if outside else "",
            )
        )
    cubic_rows = done(cubic)
    c_mean = mean([r["bottleneck.backlog_mean_bdp"] for r in cubic_rows])
    c_p90 = mean([r["bottleneck.backlog_p90_bdp"] for r in cubic_rows])
    claims.append(
        Claim(
            "Fig. 5",
            "1 CUBIC, 8 BDP buffer: fills the queue",
            "fills to the 8 BDP maximum",
            f"mean {shown(c_mean, '.2f')}, p90 {shown(c_p90, '.2f')} BDP",
            "p90 ≥ 7 BDP",
            c_p90 >= 7.0,
        )
    )
    drawn = (("BBR (4 flows)", BBR, bbr, four), ("CUBIC", CUBIC, cubic, cubic_rows))
    return Findings(claims, [_figure(drawn)])


def _figure(
    drawn: tuple[tuple[str, str, SweepResults, list[dict[str, Any]]], ...],
) -> PaperFigure:
    """Each run's queue (its lowest finished seed) over the minute."""
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax = fig.subplots()
    start, end = seconds(MINUTE)
    for label, color, source, rows in drawn:
        if not rows:
            continue
        run = min(rows, key=lambda r: r["seed"])
        series = queue_series(source.run_folder(run["run"]), bins(start, end, 0.1))
        bdp = run["bottleneck.bdp_bytes"]
        t, raw = series["t"], series["raw"]
        inside = (t >= start) & (t <= end)
        ax.plot(t[inside] - start, raw[inside] / bdp, color=color, lw=1.2, label=label)
    ax.set_xlabel(f"time (s, from t = {start:g} s)")
    ax.set_ylabel("queue length (BDP)")
    ax.set_ylim(0, 8.5)
    ax.set_xlim(0, end - start)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center right")
    return PaperFigure(
        "fig5",
        "Fig. 5: BBR and CUBIC in a large router queue",
        "In an 80 Mb/s, 25 ms bottleneck with an 8 BDP (2 MB) buffer, one CUBIC flow fills the "
        "queue to 8 BDP while 4 BBR flows keep a standing queue of about 1.1 BDP, rising to "
        "about 1.5 BDP while they probe for bandwidth.",
        png(fig),
        "Queue length at the bottleneck over one steady-state minute (60–120 s), the lowest "
        "finished seed; BBR and CUBIC run separately, as in the paper.",
    )
