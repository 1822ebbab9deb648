"""Fig. 10/11: quality and stall rate of the runs whose primary state is STARTUP against those
whose primary state is PROBE_BW, for BBR and BBR2 under the 10 MB buffer.

Protocol (§5.2): "60 video runs each for BBR and BBR2, where RTT is set to 100 ms, bandwidth is
set to 25 Mbps, and buffer size is set to 10MB", HTTP/2; "a run's primary state is the state in
which it spends the plurality of its time". Here: Fig. 4/5's runs at 10 MB (10 seeds each in
`--full`), the primary state from each run's time per state (BBR2's PROBE_BW phases summed, as
Table 2 counts them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean
from ._common import COLOURS, QUALITY, STALL, fmt
from .table2 import state_shares

CCAS = ("bbr", "bbr2")
BUFFER = "10MB"
STATES = ("STARTUP", "PROBE_BW")
STALL_RATIO = 3.0  # "the stall rate during STARTUP mode increases over 3×"
SIMILAR_QUALITY = 1.0  # BBR "manages to maintain a similar average quality": ±1 level
HALF = 0.5  # BBR2: "quality decreasing by over 50%"


def experiments(mode: Mode) -> list[Experiment]:
    return []  # Fig. 4/5's runs


def primary_state(row: Mapping[str, Any]) -> str | None:
    """The Table 2 state in which the run spent the plurality of its time; None for a run
    without time per state."""
    shares = state_shares([row], row["flow.video.cc"], row["bottleneck.queue.limit"])
    known = {s: v for s, v in shares.items() if not math.isnan(v) and v > 0}
    return max(known, key=lambda s: known[s]) if known else None


def by_state(rows: Sequence[Mapping[str, Any]], cc: str) -> dict[str, list[Mapping[str, Any]]]:
    """`cc`'s runs at 10 MB by primary state (STARTUP and PROBE_BW always present)."""
    grouped: dict[str, list[Mapping[str, Any]]] = {s: [] for s in STATES}
    for r in rows:
        if r["flow.video.cc"] == cc and r["bottleneck.queue.limit"] == BUFFER:
            state = primary_state(r)
            if state is not None:
                grouped.setdefault(state, []).append(r)
    return grouped


def means(grouped: Mapping[str, list[Mapping[str, Any]]]) -> dict[str, dict[str, float]]:
    """Mean quality and stall rate per primary state: metric → state → mean."""
    return {
        metric: {s: mean([r[column] for r in grouped[s]]) for s in STATES}
        for metric, column in (("quality", QUALITY), ("stall", STALL))
    }


def _ours(
    grouped: Mapping[str, list[Mapping[str, Any]]], m: Mapping[str, Mapping[str, float]]
) -> str:
    counts = ", ".join(f"{len(grouped[s])} in {s}" for s in STATES)
    total = sum(len(v) for v in grouped.values())
    if not total:
        return "–"
    if not grouped["STARTUP"]:
        return f"no run mainly in STARTUP ({counts}, of {total})"
    q, st = m["quality"], m["stall"]
    return (
        f"quality {fmt(q['STARTUP'])} vs {fmt(q['PROBE_BW'])}, stall rate {fmt(st['STARTUP'])} "
        f"vs {fmt(st['PROBE_BW'])} ({counts}, of {total})"
    )


def _stalls_more(m: Mapping[str, Mapping[str, float]]) -> bool:
    stall = m["stall"]
    return stall["STARTUP"] > 0 and stall["STARTUP"] >= STALL_RATIO * stall["PROBE_BW"]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig4-5"])
    groups = {cc: by_state(rows, cc) for cc in CCAS}
    found = {cc: means(groups[cc]) for cc in CCAS}
    bbr, bbr2 = found["bbr"], found["bbr2"]
    claims = [
        Claim(
            "Fig. 10/11",
            "BBR at 10 MB: runs mainly in STARTUP against those in PROBE_BW",
            "similar quality; stall rate over 3× higher",
            _ours(groups["bbr"], bbr),
            f"quality within ±{SIMILAR_QUALITY:g}; stall rate ≥ {STALL_RATIO:g}× and > 0",
            abs(bbr["quality"]["STARTUP"] - bbr["quality"]["PROBE_BW"]) <= SIMILAR_QUALITY
            and _stalls_more(bbr),
        ),
        Claim(
            "Fig. 10/11",
            "BBR2 at 10 MB: runs mainly in STARTUP against those in PROBE_BW",
            "quality over 50 % lower; stall rate ≈0 → nearly 1.5",
            _ours(groups["bbr2"], bbr2),
            f"quality ≤ {HALF:g}×; stall rate ≥ {STALL_RATIO:g}× and > 0",
            bbr2["quality"]["STARTUP"] <= HALF * bbr2["quality"]["PROBE_BW"] and _stalls_more(bbr2),
        ),
    ]
    return Findings(claims, [_figure(found, groups)])


def _figure(
    found: Mapping[str, Mapping[str, Mapping[str, float]]],
    groups: Mapping[str, Mapping[str, list[Mapping[str, Any]]]],
) -> PaperFigure:
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    axes = dict(zip(("quality", "stall"), fig.subplots(1, 2), strict=True))
    x = np.arange(len(STATES))
    for i, cc in enumerate(CCAS):
        offset = (i - 0.5) * 0.35
        for metric, ax in axes.items():
            values = [found[cc][metric][s] for s in STATES]
            ax.bar(x + offset, values, 0.35, color=COLOURS[cc], label=cc.upper())
            for xi, s in zip(x, STATES, strict=True):
                ax.annotate(
                    f"n={len(groups[cc][s])}", (xi + offset, 0), ha="center", fontsize="x-small"
                )
    for ax, ylabel in zip(axes.values(), ("average quality", "stall rate"), strict=True):
        ax.set_xticks(x, [f"runs mainly in {s}" for s in STATES])
        ax.set_ylabel(ylabel)
        ax.grid(True, axis="y", alpha=0.3)
    axes["quality"].legend(fontsize="small")
    return PaperFigure(
        "fig10_11",
        "Fig. 10/11: quality and stall rate by a run's primary state",
        "The paper: at 10 MB, runs spending most of their time in STARTUP stall over 3× as often "
        "as those in PROBE_BW (BBR, at a similar quality); BBR2's lose over half their quality "
        "and stall at nearly 1.5 against about 0.",
        png(fig),
        "Fig. 4/5's runs at 10 MB grouped by the state they spent most time in (mean over the "
        "group; n its runs; a group without runs has no bar).",
    )
