"""Table 1: HTTP/1.1 at 10 and 100 ms, 100 KB against 10 MB, BBR and BBR2."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, done, shown, sweep
from ._common import GOODPUT, QUALITY, STALL, fmt, means, media_rate_mbps, scenario, seeds

# Table 1 (HTTP/1.1): (rtt, buffer, cc) → (quality, stall rate)
PAPER_TABLE1 = {
    ("10ms", "100KB", "bbr"): (9.86, 0.0),
    ("10ms", "100KB", "bbr2"): (9.86, 0.0),
    ("10ms", "10MB", "bbr"): (4.51, 0.11),
    ("10ms", "10MB", "bbr2"): (5.25, 0.08),
    ("100ms", "100KB", "bbr"): (9.85, 0.0),
    ("100ms", "100KB", "bbr2"): (9.85, 0.0),
    ("100ms", "10MB", "bbr"): (3.75, 0.14),
    ("100ms", "10MB", "bbr2"): (3.68, 0.24),
}
TABLE1_QUALITY_TOLERANCE = 1.0  # levels
TABLE1_STALL_TOLERANCE = 0.1


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "table1",
            sweep(
                "www21-table1",
                scenario("www21-http1", http="h1"),
                grid={
                    "flow.video.cc": ["bbr", "bbr2"],
                    "bottleneck.rtt": ["10ms", "100ms"],
                    "bottleneck.queue.limit": ["100KB", "10MB"],
                },
                seeds=seeds(mode, 5),
                description="HTTP/1.1 at 10 and 100 ms, shallow and deep buffers",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["table1"])
    keys = ("bottleneck.rtt", "bottleneck.queue.limit", "flow.video.cc")
    quality, stall = means(rows, QUALITY, *keys), means(rows, STALL, *keys)
    goodput = means(rows, GOODPUT, *keys)
    claims = []
    for key, (pq_, ps) in PAPER_TABLE1.items():
        oq, os_ = quality.get(key, math.nan), stall.get(key, math.nan)
        ok = abs(oq - pq_) <= TABLE1_QUALITY_TOLERANCE and abs(os_ - ps) <= TABLE1_STALL_TOLERANCE
        claims.append(
            Claim(
                "Table 1",
                f"HTTP/1.1, {key[0]}, {key[1]}, {key[2]}: quality, stall rate",
                f"{pq_:.2f}, {ps:.2f}",
                f"{fmt(oq)}, {fmt(os_)}",
                f"±{TABLE1_QUALITY_TOLERANCE:g} level, ±{TABLE1_STALL_TOLERANCE:g}",
                ok,
                f"media per second of playback: paper ≈{media_rate_mbps(pq_, ps):.1f} Mb/s, "
                f"ours {shown(media_rate_mbps(oq, os_), '.1f')} (goodput "
                f"{shown(goodput.get(key, math.nan) / 1e6, '.1f')})",
            )
        )
    return Findings(claims, [])
