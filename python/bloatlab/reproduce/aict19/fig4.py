"""Fig. 4: 4 BBR flows with staggered starts synchronise (§III).

"4 simultaneous BBR flows with staggered start times competing for a 80 MB/s link" that
"synchronize at a fair share of 20 Mb/s within about time 30 seconds, repeatedly doing so every
10 seconds". The stagger and the buffer are not given: 2 s apart, Fig. 5's 8 BDP, 60 s.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from ...analysis.timeseries import bins, group_rates
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
    shown,
    sweep,
)
from ._common import BBR_CC, HOST, seeds, testbed, time_axes

FLOWS, STAGGER_S, END_S, FROM_S = 4, 2.0, 60.0, 30.0
FAIR_SHARE_BPS = 20e6
FAIR_TOLERANCE = 0.25  # relative, each flow
TOGETHER_S = 0.5  # PROBE_RTT entries of all flows within this of each other
PROBE_RTT_EVERY = (8.0, 12.0)  # "every 10 seconds"
NAMES = [f"bbr{i + 1}" for i in range(FLOWS)]


def experiments(mode: Mode) -> list[Experiment]:
    flows = [
        bulk(name, BBR_CC, **HOST, start=f"{i * STAGGER_S:g}s") for i, name in enumerate(NAMES)
    ]
    base = testbed("aict19-sync", flows, f"{END_S:g}s", buffer="8BDP")
    return [
        Experiment(
            "fig4",
            sweep(
                "aict19-fig4",
                base,
                seeds=seeds(mode),
                description="4 BBR flows, staggered starts: fair shares and PROBE_RTT together",
            ),
        )
    ]


def probe_rtt_entries(folder: Any, flows: Sequence[str]) -> dict[str, list[float]]:
    """When each flow entered PROBE_RTT (its telemetry rows' `cc_state`)."""
    table = pq.read_table(Path(folder) / "flows.parquet", columns=["t", "flow", "cc_state"])
    names = table.column("flow").cast("string")
    entries: dict[str, list[float]] = {}
    for flow in flows:
        rows = table.filter(pc.equal(names, flow))
        t = rows.column("t").to_numpy()
        inside = np.asarray(rows.column("cc_state").cast("string").to_pylist()) == "PROBE_RTT"
        starts = inside & ~np.concatenate([[False], inside[:-1]])
        entries[flow] = [float(x) for x in t[starts]]
    return entries


def synchrony(entries: Mapping[str, list[float]], since: float) -> tuple[float, list[float]]:
    """From `since`: the largest gap between a flow's PROBE_RTT entry and the nearest entry of
    any other flow (inf where a flow has none), and every flow's intervals between its
    entries."""
    later = {flow: [t for t in times if t >= since] for flow, times in entries.items()}
    if len(later) < 2 or not any(later.values()):
        return math.inf, []
    spread = max(
        min((abs(t - u) for u in entries[other]), default=math.inf)
        for flow, times in later.items()
        for t in times
        for other in entries
        if other != flow
    )
    intervals = [b - a for times in later.values() for a, b in itertools.pairwise(times)]
    return spread, intervals


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    sweep_results = results["fig4"]
    rows = done(sweep_results)
    edges = np.array([FROM_S, END_S])
    shares: list[list[float]] = []
    spreads: list[float] = []
    periods: list[float] = []
    for r in rows:
        folder = sweep_results.run_folder(r["run"])
        rates = group_rates(folder, {f: [f] for f in NAMES}, edges)
        shares.append([float(rates[f][0]) for f in NAMES])
        spread, intervals = synchrony(probe_rtt_entries(folder, NAMES), FROM_S)
        spreads.append(spread)
        periods += intervals
    low, high = FAIR_SHARE_BPS * (1 - FAIR_TOLERANCE), FAIR_SHARE_BPS * (1 + FAIR_TOLERANCE)
    every = [x for run in shares for x in run]
    worst = max(spreads, default=math.inf)
    claims = [
        Claim(
            "Fig. 4",
            f"{FLOWS} staggered BBR flows, 80 Mb/s: each flow's share from {FROM_S:g} s",
            "a fair 20 Mb/s",
            f"{shown(lowest(every) / 1e6, '.1f')}–{shown(highest(every) / 1e6, '.1f')} Mb/s"
            if every
            else "–",
            f"each {low / 1e6:g}–{high / 1e6:g} Mb/s",
            bool(every) and all(low <= x <= high for x in every),
        ),
        Claim(
            "Fig. 4",
            f"they enter PROBE_RTT together from {FROM_S:g} s, every 10 s",
            "at the same time, every 10 s",
            f"within {shown(worst, '.2f')} s of each other; every "
            + (f"{min(periods):.1f}–{max(periods):.1f} s" if periods else "– s")
            if periods or math.isfinite(worst)
            else "–",
            f"within {TOGETHER_S:g} s; every {PROBE_RTT_EVERY[0]:g}–{PROBE_RTT_EVERY[1]:g} s",
            worst <= TOGETHER_S
            and bool(periods)
            and all(PROBE_RTT_EVERY[0] <= p <= PROBE_RTT_EVERY[1] for p in periods),
        ),
    ]
    return Findings(claims, [_figure(sweep_results, rows)])


def _figure(results: SweepResults, rows: list[dict[str, Any]]) -> PaperFigure:
    fig = Figure(figsize=(7, 3.4), layout="constrained")
    ax = fig.subplots()
    if rows:
        row = min(rows, key=lambda r: r["seed"])
        edges = bins(0.0, END_S, 0.5)
        rates = group_rates(results.run_folder(row["run"]), {f: [f] for f in NAMES}, edges)
        mid = (edges[1:] + edges[:-1]) / 2
        for i, f in enumerate(NAMES):
            ax.plot(mid, rates[f] / 1e6, lw=1, color=f"C{i}", label=f"flow {i + 1}")
        ax.legend(fontsize="small", ncol=2)
    ax.axhline(FAIR_SHARE_BPS / 1e6, color="black", ls="--", lw=1)
    time_axes(ax, "throughput (Mb/s)")
    return PaperFigure(
        "fig4",
        "Fig. 4: synchronization of BBR flows",
        "4 BBR flows with staggered starts at 80 Mb/s converge to a fair share of 20 Mb/s within "
        "about 30 s and enter PROBE_RTT together, every 10 s (as Cardwell et al.'s 5 flows).",
        png(fig),
        f"Starts {STAGGER_S:g} s apart, 25 ms, 8 BDP buffer (the paper gives neither); the "
        "lowest finished seed, half-second bins; the dashed line is the fair share.",
    )
