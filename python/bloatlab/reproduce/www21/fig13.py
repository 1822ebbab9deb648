"""Fig. 13: one BBR session under the 10 MB buffer and 1 MB burst — RTT, segment quality and the
ABR's throughput estimate cycling in response to one another.

Protocol (§5.3): "over the course of one video run under a 10MB buffer and 1MB burst" (100 ms,
25 Mb/s, HTTP/2, DYNAMIC): high RTTs slow the segments, the throughput estimate falls and the
ABR picks lower quality; the smaller segments let the queue drain, the estimate rises and the
ABR picks higher quality; "Steps (1) through (4) repeat throughout the video run". Here Fig. 4/5's
BBR runs at 10 MB: a cycle is a fall in quality from one segment to the next that a later rise
follows; the figure draws the lowest seed's run.
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

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, shown
from ._common import BASE_RTT_S, RATE_BPS

BUFFER = "10MB"
REPEATS = 3  # "repeat throughout the video run": at least three falls, each risen from


def experiments(mode: Mode) -> list[Experiment]:
    return []  # Fig. 4/5's runs


def cycles(levels: Sequence[int]) -> int:
    """Falls in quality from one segment to the next that a later rise follows."""
    count, fallen = 0, False
    for a, b in itertools.pairwise(levels):
        if b < a:
            fallen = True
        elif b > a and fallen:
            count, fallen = count + 1, False
    return count


def video_segments(folder: Path) -> dict[str, np.ndarray]:
    """The video track's segments in request order: request time, level, ABR estimate."""
    table = pq.read_table(folder / "segments.parquet")
    table = table.filter(pc.equal(table.column("track").cast("string"), "video"))
    table = table.sort_by("request_t")

    def column(name: str) -> np.ndarray:
        values: np.ndarray = table.column(name).to_numpy(zero_copy_only=False)
        return values

    return {n: column(n) for n in ("request_t", "level", "abr_estimate_bps")}


def _runs(results: SweepResults) -> list[dict[str, Any]]:
    """The finished BBR runs at 10 MB that kept their segments' log."""
    return [
        r
        for r in done(results)
        if r["flow.video.cc"] == "bbr"
        and r["bottleneck.queue.limit"] == BUFFER
        and (results.run_folder(r["run"]) / "segments.parquet").exists()
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    sweep_results = results["fig4-5"]
    rows = _runs(sweep_results)
    counts = [
        cycles(list(video_segments(sweep_results.run_folder(r["run"]))["level"])) for r in rows
    ]
    median = float(np.median(counts)) if counts else math.nan
    claims = [
        Claim(
            "Fig. 13",
            "BBR at 10 MB: quality cycles down and up through the session",
            "repeats throughout the video run",
            f"median {shown(median, '.0f')} over {len(counts)} runs "
            f"({min(counts, default=0)}–{max(counts, default=0)})"
            if counts
            else "–",
            f"median ≥ {REPEATS} falls in quality, each risen from",
            median >= REPEATS,
        )
    ]
    row = min(rows, key=lambda r: r["seed"], default=None)
    return Findings(claims, [_figure(sweep_results, row)])


def _figure(results: SweepResults, row: Mapping[str, Any] | None) -> PaperFigure:
    fig = Figure(figsize=(9, 6), layout="constrained")
    rtt, quality, estimate = fig.subplots(3, 1, sharex=True)
    if row is not None:
        folder = results.run_folder(row["run"])
        flows = pq.read_table(folder / "flows.parquet", columns=["t", "srtt_s"])
        rtt.plot(flows.column("t").to_numpy(), flows.column("srtt_s").to_numpy() * 1e3, lw=0.8)
        segments = video_segments(folder)
        quality.step(segments["request_t"], segments["level"], where="post", lw=1)
        estimate.plot(segments["request_t"], segments["abr_estimate_bps"] / 1e6, lw=1, marker=".")
    rtt.axhline(BASE_RTT_S * 1e3, color="red", ls="--", lw=1)
    estimate.axhline(RATE_BPS / 1e6, color="red", ls="--", lw=1)
    for ax, label in (
        (rtt, "TCP's RTT (ms)"),
        (quality, "segment quality"),
        (estimate, "ABR estimate (Mb/s)"),
    ):
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
    quality.set_ylim(-0.5, 10.5)
    estimate.set_xlabel("time (s)")
    return PaperFigure(
        "fig13",
        "Fig. 13: RTT, quality and the ABR's estimate over one session",
        "The paper: one BBR session under a 10 MB buffer and 1 MB burst; the RTT, the segment "
        "quality and the ABR's throughput estimate cycle in response to one another throughout "
        "the video (dashed: the 100 ms propagation delay and the set 25 Mb/s).",
        png(fig),
        "The lowest seed's BBR session of Fig. 4/5 at 10 MB: its smoothed RTT, and each video "
        "segment's level and the ABR estimate at its request.",
    )
