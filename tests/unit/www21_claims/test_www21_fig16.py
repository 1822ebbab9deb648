"""WWW'21 Fig. 16: BBR-S and BBR2-S against BBR and BBR2, and BBR2-S's variants."""

from __future__ import annotations

import pytest
from www21_tables import CC, claims, fig16_runs, runs, sweep

from bloatlab.reproduce.www21 import fig16
from bloatlab.reproduce.www21._common import BW, QUALITY, STALL


def test_fig16_claims_read_each_ccas_mean_quality_stall_rate_and_estimate() -> None:
    found = claims(fig16, {name: sweep(rows) for name, rows in fig16_runs().items()})
    sampled, unsampled = ("near 10, no stalls", "≥ 8.5, ≤ 0.05"), ("< 4, > 0.75", "quality ≤ 6")
    estimate = ("≈ link rate (no overestimate)", "within 15 % of 25 Mb/s")
    assert {name: (c.ours, c.passed) for name, c in found.items()} == {
        "bbr-s: quality, stall rate": ("9.50, 0.05", True),
        "bbr-s: mean bandwidth estimate": ("25.0 Mb/s", True),
        "bbr2-s: quality, stall rate": ("8.50, 0.00", True),
        "bbr2-s: mean bandwidth estimate": ("30.0 Mb/s", False),  # 20 % over
        "bbr: quality, stall rate": ("6.00, 0.50", True),
        "bbr2: quality, stall rate": ("7.00, 0.30", False),
    }
    assert [(c.paper, c.tolerance) for c in found.values()] == [
        sampled,
        estimate,
        sampled,
        estimate,
        unsampled,
        unsampled,
    ]
    assert [c.note for c in found.values()] == [
        "goodput 21.0 Mb/s",
        "",
        "goodput 23.0 Mb/s; no pacing margin: 9.00, estimate 24.0 Mb/s; "
        "1 ms path jitter: 8.00, estimate 26.0 Mb/s",
        "",
        "goodput 11.0 Mb/s",
        "goodput 9.0 Mb/s",
    ]
    assert {c.figure for c in found.values()} == {"Fig. 16"}


@pytest.mark.parametrize(
    ("cc", "metrics", "claim", "ours", "passed"),
    [
        (
            "bbr-s",
            {QUALITY: [8.5], STALL: [0.05]},
            "bbr-s: quality, stall rate",
            "8.50, 0.05",
            True,
        ),
        (
            "bbr-s",
            {QUALITY: [8.49], STALL: [0.0]},
            "bbr-s: quality, stall rate",
            "8.49, 0.00",
            False,
        ),
        (
            "bbr-s",
            {QUALITY: [9.0], STALL: [0.06]},
            "bbr-s: quality, stall rate",
            "9.00, 0.06",
            False,
        ),
        ("bbr2-s", {BW: [28.75e6]}, "bbr2-s: mean bandwidth estimate", "28.8 Mb/s", True),
        ("bbr2-s", {BW: [28.76e6]}, "bbr2-s: mean bandwidth estimate", "28.8 Mb/s", False),
        ("bbr", {QUALITY: [6.01], STALL: [1.0]}, "bbr: quality, stall rate", "6.01, 1.00", False),
        ("bbr2", {QUALITY: [6.0], STALL: [1.0]}, "bbr2: quality, stall rate", "6.00, 1.00", True),
    ],
)
def test_fig16_verdicts_on_each_side_of_the_tolerance(
    cc: str, metrics: dict[str, list[float]], claim: str, ours: str, passed: bool
) -> None:
    found = claims(fig16, {"fig16": sweep(runs({CC: cc}, metrics)), "fig16-bbr2-s": sweep()})
    assert (found[claim].ours, found[claim].passed) == (ours, passed)
