"""WWW'21 Fig. 4/5: BBR's, BBR2's and Cubic's quality and stall rate by buffer, and the
verdicts on each side of the tolerances."""

from __future__ import annotations

import pytest
from www21_tables import BUFFER, CC, claims, fig4_5_runs, judged, runs, sweep

from bloatlab.reproduce.www21 import fig4_5
from bloatlab.reproduce.www21._common import QUALITY, STALL


def test_fig4_5_claims_read_the_mean_quality_and_stall_rate_over_seeds() -> None:
    found = claims(fig4_5, {"fig4-5": sweep(fig4_5_runs())})
    # Media per second of playback: the ladder is 1, 2.5, 5 … 25 Mb/s by level, so BBR's quality
    # 5.8 is 12.5 + 0.8 × 2.5 = 14.5 Mb/s, over 1.1 × the video: 13.2. BBR2's quality 7 is
    # 17.5 Mb/s over 1.4: 12.5, on the bound. The paper's quality 5, stall rate 0.75: 12.5 / 1.75.
    media = "(from quality < 5, stall rate ≥ 0.75)"
    half = "≤ 12.5 Mb/s (half the link)"
    assert judged(found) == {
        "BBR quality at 100 KB": ("≈10 (near-ideal)", "9.10", "≥ 9", True),
        "BBR quality at 10 MB": ("< 5", "5.80", "≤ 6", True),
        "BBR stall rate at 10 MB": ("≥ 0.75", "0.10", "> 0", True),
        "BBR2 quality at 10 MB": ("< 5", "7.00", "≤ 6", False),
        "BBR at 10 MB: media delivered per second of playback": (
            f"≤ 7.1 Mb/s {media}",
            "13.2 Mb/s",
            half,
            False,
        ),
        "BBR2 at 10 MB: media delivered per second of playback": (
            f"≤ 7.1 Mb/s {media}",
            "12.5 Mb/s",
            half,
            True,
        ),
        "Cubic at 10 KB: losses starve the video": (
            "quality ≈0, stall rate ≈1",
            "2.00, 0.95",
            "quality ≤ 2",
            True,
        ),
        "BBR at 10 KB still performs well": ("near-ideal quality", "8.25", "≥ 8", True),
    }
    assert [c.figure for c in found.values()] == ["Fig. 4", "Fig. 4", "Fig. 5", "Fig. 4"] + [
        "Fig. 4/5"
    ] * 3 + ["Fig. 4"]


@pytest.mark.parametrize(
    ("claim", "cc", "buffer", "metrics", "ours", "passed"),
    [
        ("BBR quality at 100 KB", "bbr", "100KB", {QUALITY: [9.0]}, "9.00", True),
        ("BBR quality at 100 KB", "bbr", "100KB", {QUALITY: [8.99]}, "8.99", False),
        ("BBR quality at 10 MB", "bbr", "10MB", {QUALITY: [6.0]}, "6.00", True),
        ("BBR quality at 10 MB", "bbr", "10MB", {QUALITY: [6.01]}, "6.01", False),
        ("BBR stall rate at 10 MB", "bbr", "10MB", {STALL: [0.0]}, "0.00", False),
        ("BBR stall rate at 10 MB", "bbr", "10MB", {STALL: [0.01]}, "0.01", True),
        ("BBR2 quality at 10 MB", "bbr2", "10MB", {QUALITY: [6.0]}, "6.00", True),
        ("BBR2 quality at 10 MB", "bbr2", "10MB", {QUALITY: [6.01]}, "6.01", False),
        (
            "BBR at 10 MB: media delivered per second of playback",
            "bbr",
            "10MB",
            {QUALITY: [5.0], STALL: [0.0]},  # level 5 is 12.5 Mb/s, played without a stall
            "12.5 Mb/s",
            True,
        ),
        (
            "BBR at 10 MB: media delivered per second of playback",
            "bbr",
            "10MB",
            {QUALITY: [5.1], STALL: [0.0]},  # 12.5 + 0.1 × 2.5
            "12.8 Mb/s",
            False,
        ),
        (
            "Cubic at 10 KB: losses starve the video",
            "cubic",
            "10KB",
            {QUALITY: [2.0], STALL: [1.0]},
            "2.00, 1.00",
            True,
        ),
        (
            "Cubic at 10 KB: losses starve the video",
            "cubic",
            "10KB",
            {QUALITY: [2.01], STALL: [1.0]},
            "2.01, 1.00",
            False,
        ),
        ("BBR at 10 KB still performs well", "bbr", "10KB", {QUALITY: [8.0]}, "8.00", True),
        ("BBR at 10 KB still performs well", "bbr", "10KB", {QUALITY: [7.99]}, "7.99", False),
    ],
)
def test_fig4_5_verdicts_on_each_side_of_the_tolerance(
    claim: str, cc: str, buffer: str, metrics: dict[str, list[float]], ours: str, passed: bool
) -> None:
    found = claims(fig4_5, {"fig4-5": sweep(runs({CC: cc, BUFFER: buffer}, metrics))})
    assert (found[claim].ours, found[claim].passed) == (ours, passed)
