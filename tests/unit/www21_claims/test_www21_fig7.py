"""WWW'21 Fig. 7: each ABR rule's quality and stall change from 100 KB to 10 MB (and a
quality ratio over a zero quality, here and in Fig. 15)."""

from __future__ import annotations

from types import ModuleType

import pytest
from www21_tables import ABR, BUFFER, BURST, CC, Points, claims, fig7_runs, judged, runs_at, sweep

from bloatlab.reproduce.www21 import fig7, table3
from bloatlab.reproduce.www21._common import QUALITY, STALL


def test_fig7_claims_check_the_quality_drop_and_stall_rise_the_paper_states() -> None:
    found = claims(fig7, {"fig7": sweep(fig7_runs())})
    halves, keeps = "≈ -50 %, small stall rise", "< 20 % drop, stall +≈{}"
    assert judged(found) == {
        "bba: quality change and stall rise at 10 MB": (halves, "-50%, +0.10", "as stated", True),
        "bola: quality change and stall rise at 10 MB": (halves, "-20%, +0.00", "as stated", False),
        "festive: quality change and stall rise at 10 MB": (
            keeps.format(0.7),
            "-10%, +0.70",
            "as stated",
            True,
        ),
        "rb: quality change and stall rise at 10 MB": (
            keeps.format(1.1),
            "-10%, +0.20",
            "as stated",
            False,
        ),
    }
    assert {c.figure for c in found.values()} == {"Fig. 7"}


@pytest.mark.parametrize(
    ("abr", "quality", "stall", "ours", "passed"),
    [
        ("bba", 7.0, 0.0, "-30%, +0.00", True),
        ("bba", 7.01, 0.0, "-30%, +0.00", False),
        ("bba", 4.0, 1.0, "-60%, +1.00", True),  # the stall rise is not judged
        ("festive", 8.0, 0.3, "-20%, +0.30", True),
        ("festive", 7.99, 0.3, "-20%, +0.30", False),
        ("festive", 8.0, 0.29, "-20%, +0.29", False),
    ],
)
def test_fig7_verdicts_on_each_side_of_the_tolerance(
    abr: str, quality: float, stall: float, ours: str, passed: bool
) -> None:
    # from quality 10 and no stalls at 100 KB
    points = {
        (abr, "100KB"): {QUALITY: [10.0], STALL: [0.0]},
        (abr, "10MB"): {QUALITY: [quality], STALL: [stall]},
    }
    found = claims(fig7, {"fig7": sweep(runs_at((ABR, BUFFER), points))})
    claim = found[f"{abr}: quality change and stall rise at 10 MB"]
    assert (claim.ours, claim.passed) == (ours, passed)


@pytest.mark.parametrize("run", ["100KB", "10MB"])
def test_fig7_an_abr_run_at_one_buffer_only_fails_its_claim(run: str) -> None:
    # Every ABR the paper states a change for has its claim, failed with "–" where a buffer's
    # runs are missing (here bba has one buffer; bola, festive and rb none).
    found = claims(
        fig7,
        {"fig7": sweep(runs_at((ABR, BUFFER), {("bba", run): {QUALITY: [8.0], STALL: [0.0]}}))},
    )
    assert [(name, c.ours, c.passed) for name, c in found.items()] == [
        (f"{abr}: quality change and stall rise at 10 MB", "–", False)
        for abr in ("bba", "bola", "festive", "rb")
    ]


@pytest.mark.parametrize(
    ("module", "experiment", "keys", "points", "claim"),
    [
        pytest.param(
            fig7,
            "fig7",
            (ABR, BUFFER),
            {("bba", "100KB"): {QUALITY: [0.0]}, ("bba", "10MB"): {QUALITY: [0.0]}},
            "bba: quality change and stall rise at 10 MB",
            id="fig7",
        ),
        pytest.param(
            table3,
            "table3",
            (CC, BURST),
            {("bbr", "8KB"): {QUALITY: [0.0]}, ("bbr", "1MB"): {QUALITY: [5.0]}},
            "bbr quality at 1 MB / at 8 KB",
            id="fig15",
        ),
    ],
)
def test_a_quality_ratio_over_a_zero_quality_fails_rather_than_crash(
    module: ModuleType, experiment: str, keys: tuple[str, str], points: Points, claim: str
) -> None:
    found = claims(module, {experiment: sweep(runs_at(keys, points))})
    assert (found[claim].ours, found[claim].passed) == ("–", False)
