"""`bloatlab reproduce www21`: every claim of the paper, checked on our runs.

What this simulator reproduces from first principles, and these tests therefore require, is the
network-level mechanism: BBR's bandwidth overestimate through the token bucket (Table 3, Fig. 9),
the RTT inflation it causes under deep buffers (Fig. 8), BBR and BBR2 probing RTT more often
under deep buffers (Table 2's direction), and BBR-S/BBR2-S removing the overestimate (Fig. 16).
Of the player-level claims it requires CUBIC's starvation behind a 10 KB buffer (Fig. 4/5): on
a window restarted after each idle gap, dash.js abandons every try at a higher level and
re-requests the segment low. The other player-level claims — quality collapsing and stalls
appearing under deep buffers (Figs. 4, 5, 7, 15, Tables 1 and 2's STARTUP shares) — are not
reproduced by the dash.js model (nor by dash.js itself in Chromium on a real kernel): they are
printed in the paper-vs-ours table as misses, not asserted (see docs/fidelity/www21.md), with the
two derived Fig. 4/5 claims that turn the paper's quality and stall rate into the media rate its
link carried (≤ 7.1 Mb/s at 10 MB; ours 22), and the WAN's (Fig. 6, 200 ms) the same. So is
BBR2's estimate at a 2 MB burst: 147 Mb/s against the paper's 108 (+36 %, outside ±30 %), and
the share of BBR's rate samples above the link (Fig. 14: 19–20 % against more than 30 %; BBR2's
15 % against about 20 %, and BBR's above BBR2's, are required).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from reproduction import keep, record_claims, run_paper

from bloatlab import resolve
from bloatlab.reproduce import Claim, Reproduction, www21

REPRODUCED = (
    "Fig. 8",
    "Fig. 9",
    "Table 2 BBR: PROBE_RTT share rises",
    "Table 2 BBR2: PROBE_RTT share rises",
    "Table 3 bbr mean bandwidth estimate",
    "Table 3 bbr2 mean bandwidth estimate, burst 8KB",
    "Table 3 bbr2 mean bandwidth estimate, burst 100KB",
    "Table 3 bbr2 mean bandwidth estimate, burst 1MB",
    "Table 3 BBR at",
    "Fig. 16 bbr-s: mean bandwidth estimate",
    "Fig. 16 bbr2-s: mean bandwidth estimate",
    "Fig. 4 BBR at 10 KB still performs well",
    "Fig. 4/5 Cubic at 10 KB",
    "Fig. 14 BBR2: samples above",
    "Fig. 14 BBR's samples exceed the link more often",
)


def required(c: Claim) -> bool:
    label = f"{c.figure} {c.claim}"
    return any(label.startswith(r) for r in REPRODUCED)


def check(result: Reproduction, record: object) -> None:
    record_claims(result, record, "WWW'21")
    must = [c for c in result.findings.claims if required(c)]
    assert len(must) == 21
    failed = [f"{c.figure} {c.claim}: {c.ours}" for c in must if not c.passed]
    assert not failed


def test_the_quick_reproduction_shows_the_bufferbloat_mechanism(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("www21", "quick", tmp_path)
    keep(result, "www21-quick")
    assert {f.name for f in result.findings.figures} == {
        "fig4",
        "fig5",
        "table2",
        "fig6",
        "fig8",
        "fig9",
        "fig10_11",
        "fig13",
        "table3",
        "fig15",
        "fig7",
        "fig14",
        "fig16",
    }
    check(result, reproduce)


@pytest.mark.slow
def test_the_full_reproduction_shows_the_bufferbloat_mechanism(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("www21", "full", tmp_path)
    keep(result, "www21-full")
    check(result, reproduce)


def test_the_papers_ladder_is_the_www21_videos(core: ModuleType) -> None:
    resolved = resolve(www21.scenario("ladder"))
    assert resolved["flows"][0]["app"]["video_levels_bps"] == [m * 1e6 for m in www21.LADDER_MBPS]
