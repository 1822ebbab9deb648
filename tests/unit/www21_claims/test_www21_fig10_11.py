"""WWW'21 Fig. 10/11: quality and stall rate of the 10 MB runs by primary state (the state a
run spent most time in), at the edges of each tolerance."""

from __future__ import annotations

import pytest
from www21_tables import CC, claims, fig10_11_runs, judged, state_run, sweep

from bloatlab.reproduce.www21 import fig10_11

BBR = "BBR at 10 MB: runs mainly in STARTUP against those in PROBE_BW"
BBR2 = "BBR2 at 10 MB: runs mainly in STARTUP against those in PROBE_BW"


def test_a_runs_primary_state_is_where_it_spent_the_plurality_of_its_time() -> None:
    assert fig10_11.primary_state(state_run("bbr", 0.6, 8.0, 0.0)) == "STARTUP"
    assert fig10_11.primary_state(state_run("bbr", 0.4, 8.0, 0.0)) == "PROBE_BW"
    # BBR2's PROBE_BW phases count together: 0.4 STARTUP against 0.3 + 0.3
    assert fig10_11.primary_state(state_run("bbr2", 0.4, 8.0, 0.0)) == "PROBE_BW"
    assert fig10_11.primary_state({CC: "bbr", "bottleneck.queue.limit": "10MB"}) is None


def test_fig10_11_claims_compare_the_groups_of_the_finished_10_mb_runs() -> None:
    found = claims(fig10_11, {"fig4-5": sweep(fig10_11_runs())})
    assert judged(found) == {
        BBR: (
            "similar quality; stall rate over 3× higher",
            "quality 8.00 vs 8.50, stall rate 0.50 vs 0.12 (1 in STARTUP, 2 in PROBE_BW, of 3)",
            "quality within ±1; stall rate ≥ 3× and > 0",
            True,
        ),
        BBR2: (
            "quality over 50 % lower; stall rate ≈0 → nearly 1.5",
            "quality 3.00 vs 8.00, stall rate 1.50 vs 0.00 (1 in STARTUP, 1 in PROBE_BW, of 2)",
            "quality ≤ 0.5×; stall rate ≥ 3× and > 0",
            True,
        ),
    }


@pytest.mark.parametrize(
    ("runs", "claim", "passed"),
    [
        # BBR: quality 7.5 vs 8.5 is similar (±1); 7.4 is not; stall 0.375 is 3× 0.125
        ([("bbr", 0.6, 7.5, 0.5)], BBR, True),
        ([("bbr", 0.6, 7.4, 0.5)], BBR, False),
        ([("bbr", 0.6, 8.0, 0.375)], BBR, True),
        ([("bbr", 0.6, 8.0, 0.37)], BBR, False),
        # BBR2: quality 4.0 is half of 8.0; 4.1 is not; no stall at all is no rise
        ([("bbr2", 0.7, 4.0, 1.5)], BBR2, True),
        ([("bbr2", 0.7, 4.1, 1.5)], BBR2, False),
        ([("bbr2", 0.7, 3.0, 0.0)], BBR2, False),
    ],
)
def test_fig10_11_tolerances_hold_at_their_edges(
    runs: list[tuple[str, float, float, float]], claim: str, passed: bool
) -> None:
    cc = runs[0][0]
    startup = [
        r
        for r in fig10_11_runs()
        if r[CC] == cc and r["flows.video.state_time_fraction.STARTUP"] > 0.5
    ]
    rows = [r for r in fig10_11_runs() if r not in startup] + [state_run(*run) for run in runs]
    assert claims(fig10_11, {"fig4-5": sweep(rows)})[claim].passed is passed


def test_without_a_run_mainly_in_startup_the_claims_fail() -> None:
    rows = [state_run("bbr", 0.1, 9.0, 0.0), state_run("bbr2", 0.01, 9.0, 0.0)]
    found = claims(fig10_11, {"fig4-5": sweep(rows)})
    assert [(c.ours, c.passed) for c in found.values()] == [
        ("no run mainly in STARTUP (0 in STARTUP, 1 in PROBE_BW, of 1)", False),
        ("no run mainly in STARTUP (0 in STARTUP, 1 in PROBE_BW, of 1)", False),
    ]
