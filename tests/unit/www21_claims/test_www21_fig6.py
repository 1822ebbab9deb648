"""WWW'21 Fig. 6 (the WAN, 200 ms): quality of BBR and BBR2 behind 100 KB and 10 MB, CUBIC under
both, from the finished runs, at the edges of each tolerance."""

from __future__ import annotations

import pytest
from www21_tables import BUFFER, CC, QUALITY, STALL, claims, fig6_runs, judged, runs, sweep

from bloatlab.reproduce.www21 import fig6


def test_fig6_claims_are_the_means_of_the_finished_runs() -> None:
    found = claims(fig6, {"fig6": sweep(fig6_runs())})
    assert judged(found) == {
        # BBR (9.5 + 9.0) / 2, BBR2 9.0
        "BBR / BBR2 quality at 100 KB (200 ms)": ("around 10", "9.25 / 9.00", "≥ 9 each", True),
        # BBR (4 + 5) / 2; BBR2 6.0 (the failed run's 9 left out)
        "BBR / BBR2 quality at 10 MB (200 ms)": ("under 5", "4.50 / 6.00", "≤ 6 each", True),
        "CUBIC quality at 100 KB / 10 MB (200 ms)": (
            "relatively poor under both",
            "1.50 / 5.00",
            "≤ 6 each",
            True,
        ),
    }
    assert found["CUBIC quality at 100 KB / 10 MB (200 ms)"].note == (
        "stall rates (CUBIC, BBR, BBR2 at 100 KB / 10 MB): 0.80 / 0.10; 0.00 / 0.60; 0.00 / 0.20"
    )
    assert {c.figure for c in found.values()} == {"Fig. 6"}


@pytest.mark.parametrize(
    ("cc", "buffer", "quality", "claim", "passed"),
    [
        ("bbr2", "100KB", 8.99, "BBR / BBR2 quality at 100 KB (200 ms)", False),
        ("bbr", "10MB", 6.0, "BBR / BBR2 quality at 10 MB (200 ms)", True),
        ("bbr", "10MB", 6.01, "BBR / BBR2 quality at 10 MB (200 ms)", False),
        ("cubic", "10MB", 6.0, "CUBIC quality at 100 KB / 10 MB (200 ms)", True),
        ("cubic", "10MB", 6.01, "CUBIC quality at 100 KB / 10 MB (200 ms)", False),
        ("cubic", "100KB", 6.01, "CUBIC quality at 100 KB / 10 MB (200 ms)", False),
    ],
)
def test_fig6_tolerances_hold_at_their_edges(
    cc: str, buffer: str, quality: float, claim: str, passed: bool
) -> None:
    rows = [r for r in fig6_runs() if (r[CC], r[BUFFER]) != (cc, buffer)]
    rows += runs({CC: cc, BUFFER: buffer}, {QUALITY: [quality], STALL: [0.0]})
    assert claims(fig6, {"fig6": sweep(rows)})[claim].passed is passed


def test_fig6_a_missing_point_fails_its_claim() -> None:
    rows = [r for r in fig6_runs() if (r[CC], r[BUFFER]) != ("cubic", "10MB")]
    found = claims(fig6, {"fig6": sweep(rows)})["CUBIC quality at 100 KB / 10 MB (200 ms)"]
    assert (found.ours, found.passed) == ("1.50 / –", False)
