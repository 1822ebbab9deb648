"""Table 2: the share of a session BBR and BBR2 spend in each state, at 100 KB and 10 MB (Fig.
4/5's runs), and the same with the player's page served by the video's server."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, shown, sweep
from ._common import scenario, seeds

# Table 2: percentage of a video run in each state, HTTP/2, 100 ms: (cc, buffer) → state → %
PAPER_TABLE2 = {
    ("bbr", "100KB"): {"STARTUP": 0.23, "PROBE_BW": 98.4, "DRAIN": 0.0, "PROBE_RTT": 1.2},
    ("bbr", "10MB"): {"STARTUP": 5.3, "PROBE_BW": 82.8, "DRAIN": 0.3, "PROBE_RTT": 11.5},
    ("bbr2", "100KB"): {"STARTUP": 0.17, "PROBE_BW": 96.7, "DRAIN": 0.01, "PROBE_RTT": 2.9},
    ("bbr2", "10MB"): {"STARTUP": 31.9, "PROBE_BW": 54.8, "DRAIN": 0.16, "PROBE_RTT": 13.1},
}
TABLE2_STATES = ("STARTUP", "PROBE_BW", "DRAIN", "PROBE_RTT")
TABLE2_BUFFERS = ["100KB", "10MB"]
# Where the player's page came from (Table 2's sensitivity): the paper does not say. Served by the
# video's nginx, as `tools/realstack` serves it, the browser fetches it over the video's HTTP/2
# connection before the manifest, which opens BBR's window before the first segment: 2442 B of
# `player.html` and 595 378 B of dash.js 3.0.3's `dash.all.min.js`.
PLAYER_PAGE = ["2442B", "595378B"]


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "table2-page",
            sweep(
                "www21-table2-page",
                scenario("www21-page", page=PLAYER_PAGE),
                grid={"flow.video.cc": ["bbr", "bbr2"], "bottleneck.queue.limit": TABLE2_BUFFERS},
                seeds=seeds(mode, 10),
                description="Table 2's runs with the player's page served by the video's server",
            ),
        )
    ]


def state_shares(rows: Sequence[Mapping[str, Any]], cc: str, buffer: str) -> dict[str, float]:
    """Mean percentage of the run in each Table 2 state (BBRv2's PROBE_BW phases summed)."""
    runs = [r for r in rows if r["flow.video.cc"] == cc and r["bottleneck.queue.limit"] == buffer]
    prefix = "flows.video.state_time_fraction."
    shares: dict[str, float] = {}
    for state in TABLE2_STATES:
        per_run = [
            100
            * sum(
                v
                for k, v in r.items()
                if k.startswith(prefix + state) and isinstance(v, float) and not math.isnan(v)
            )
            for r in runs
        ]
        shares[state] = mean(per_run)
    return shares


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig4-5"])
    ours = {key: state_shares(rows, *key) for key in PAPER_TABLE2}
    page_rows = done(results["table2-page"])
    with_page = {key: state_shares(page_rows, *key) for key in PAPER_TABLE2}

    def pair(cc: str, state: str, source: Mapping[tuple[str, str], Mapping[str, float]]) -> str:
        shallow, deep = (shown(source[(cc, b)][state], ".1f") for b in ("100KB", "10MB"))
        return f"{shallow} → {deep} %"

    claims = []
    for cc, name in (("bbr", "BBR"), ("bbr2", "BBR2")):
        shallow, deep = ours[(cc, "100KB")], ours[(cc, "10MB")]
        claims.append(
            Claim(
                "Table 2",
                f"{name}: PROBE_RTT share rises from 100 KB to 10 MB",
                pair(cc, "PROBE_RTT", PAPER_TABLE2),
                pair(cc, "PROBE_RTT", ours),
                "higher at 10 MB",
                deep["PROBE_RTT"] > shallow["PROBE_RTT"],
            )
        )
        for state in ("PROBE_RTT", "STARTUP"):
            paper_deep = PAPER_TABLE2[(cc, "10MB")][state]
            claims.append(
                Claim(
                    "Table 2",
                    f"{name}: {state} share at 10 MB",
                    f"{paper_deep:.1f} %",
                    f"{shown(deep[state], '.1f')} % (page from the video's server: "
                    f"{shown(with_page[(cc, '10MB')][state], '.1f')} %)",
                    "within ×2",
                    paper_deep / 2 <= deep[state] <= paper_deep * 2,
                )
            )
    return Findings(claims, [_table2_figure(ours)])


def _table2_figure(ours: Mapping[tuple[str, str], Mapping[str, float]]) -> PaperFigure:
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    width = 0.2
    bars = (
        ("100KB", PAPER_TABLE2, "paper"),
        ("100KB", ours, "bloatlab"),
        ("10MB", PAPER_TABLE2, "paper"),
        ("10MB", ours, "bloatlab"),
    )
    for ax, cc in zip(fig.subplots(1, 2, sharey=True), ("bbr", "bbr2"), strict=True):
        xs = np.arange(len(TABLE2_STATES))
        for i, (buffer, source, who) in enumerate(bars):
            ax.bar(
                xs + (i - 1.5) * width,
                [max(source[(cc, buffer)][st], 0.01) for st in TABLE2_STATES],
                width,
                color="C0" if buffer == "100KB" else "C3",
                alpha=0.35 if who == "paper" else 1.0,
                hatch="//" if who == "paper" else "",
                label=f"{buffer} ({who})",
            )
        ax.set_yscale("log")
        ax.set_xticks(xs, TABLE2_STATES, fontsize="small")
        ax.set_title(cc.upper())
        ax.grid(True, axis="y", alpha=0.3)
    fig.axes[0].set_ylabel("time in state (% of the run)")
    fig.axes[0].legend(fontsize="small")
    return PaperFigure(
        "table2",
        "Table 2: time per BBR state",
        "The paper: under a 10 MB buffer BBR spends 11.5 % in PROBE_RTT and 5.3 % in STARTUP, "
        "BBR2 13.1 % and 31.9 %; under 100 KB both stay at least 96.7 % in PROBE_BW.",
        png(fig),
        "Fig. 4/5's HTTP/2 runs at 100 KB and 10 MB, mean over seeds; hatched bars are the "
        "paper's; BBR2's four PROBE_BW phases are summed; 0 is drawn at 0.01 %.",
    )
