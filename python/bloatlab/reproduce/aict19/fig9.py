"""Fig. 9: 2 BBR + 2 CUBIC take turns in a 1.75 BDP queue (§V-A).

No runs of its own: Fig. 10's run at 1.75 BDP. The two algorithms "take turns dominating" in
cycles of about 20 s: counted here as the switches of the sign of BBR's minus CUBIC's throughput
(half-second bins, smoothed over 2 s) over minutes 2–4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from ...analysis.timeseries import bins, group_mean, group_rates, queue_series, switches
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done
from ._common import BBR, CUBIC, STEADY, bdp, seconds

CYCLE_BUFFER = 1.75
PERIOD_S = (10.0, 30.0)  # "cycles of ≈20 s"


def experiments(mode: Mode) -> list[Experiment]:
    return []  # Fig. 10's runs


def _claim(ours: str, passed: bool) -> Claim:
    return Claim(
        "Fig. 9",
        f"2 BBR + 2 CUBIC at {CYCLE_BUFFER:g} BDP alternate dominance",
        "cycles of ≈20 s",
        ours,
        f"period {PERIOD_S[0]:g}–{PERIOD_S[1]:g} s",
        passed,
    )


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = [r for r in done(results["fig10"]) if bdp(r["bottleneck.queue.limit"]) == CYCLE_BUFFER]
    if not rows:
        return Findings([_claim(f"no finished run at {CYCLE_BUFFER:g} BDP", False)])
    row = min(rows, key=lambda r: r["seed"])
    folder = results["fig10"].run_folder(row["run"])
    groups = results["fig10"].groups(row["run"])
    capacity, bdp_bytes = row["bottleneck.capacity_bps"], row["bottleneck.bdp_bytes"]
    # Cycles, measured over the whole analysis window with 2 s smoothing.
    start, end = seconds(STEADY)
    rates = group_rates(folder, groups, bins(start, end, 0.5))
    difference = np.convolve(rates["bbr"] - rates["cubic"], np.ones(4) / 4, mode="valid")
    flips = switches(difference)
    period = 2 * (end - start) / flips if flips else math.inf
    claims = [
        _claim(
            f"{flips} switches in {end - start:g} s (period ≈{period:.0f} s)",
            PERIOD_S[0] <= period <= PERIOD_S[1],
        )
    ]
    # The figure: one minute, as the paper's.
    first, last = 60.0, 120.0
    edges = bins(first, last, 0.5)
    rates = group_rates(folder, groups, edges)
    rtt = group_mean(folder, groups, edges, "srtt_s")
    queue = queue_series(folder, edges)
    mid = (edges[1:] + edges[:-1]) / 2 - first
    fig = Figure(figsize=(9, 6.4), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    for group, color, label in (("bbr", BBR, "BBR"), ("cubic", CUBIC, "CUBIC")):
        axes[0].plot(mid, rates[group] / capacity * 100, color=color, lw=1.2, label=label)
        axes[3].plot(mid, rtt[group] * 1e3, color=color, lw=1.2, label=label)
    axes[1].plot(mid, queue["backlog_bytes"] / bdp_bytes, color="black", lw=1.2)
    axes[2].plot(mid, queue["loss"] * 100, color="black", lw=1.2)
    for ax, label, title in (
        (axes[0], "throughput (% of link rate)", "(a) throughput"),
        (axes[1], "queue length (BDP)", "(b) queue length"),
        (axes[2], "loss rate (%)", "(c) loss rate, 0.5 s bins"),
        (axes[3], "RTT (ms)", "(d) RTT"),
    ):
        ax.set_ylabel(label)
        ax.set_title(title, loc="left", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    for ax in axes[2:]:
        ax.set_xlabel(f"time (s, from t = {first:g} s)")
    axes[0].legend(fontsize="small")
    figure = PaperFigure(
        "fig9",
        "Fig. 9: BBR and CUBIC show cyclic performance in medium buffers",
        "2 BBR + 2 CUBIC, 80 Mb/s, 25 ms, 1.75 BDP buffer: the two algorithms take turns "
        "dominating in about 20-second cycles; loss spikes after BBR's RTprop probes (every "
        "≈20 s) and the queue does not always drain.",
        png(fig),
        "One minute (60–120 s) of the 1.75 BDP run of Fig. 10 (its lowest finished seed), in "
        "half-second bins.",
    )
    return Findings(claims, [figure])
