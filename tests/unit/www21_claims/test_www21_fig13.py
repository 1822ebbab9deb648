"""WWW'21 Fig. 13: the quality cycles of Fig. 4/5's BBR sessions at 10 MB, and the session it
draws."""

from __future__ import annotations

from pathlib import Path

import pytest
from www21_tables import claims, fig13_runs, judged, session_run, sweep

from bloatlab.reproduce.www21 import fig13
from figure_data import drawn, horizontal_levels, lines

CLAIM = "BBR at 10 MB: quality cycles down and up through the session"


@pytest.mark.parametrize(
    ("levels", "count"),
    [
        ([9, 9, 9], 0),
        ([9, 8, 9], 1),
        ([9, 8, 7, 9, 10], 1),  # one fall, however deep, one rise
        ([9, 8, 8, 9, 8, 9, 8], 2),  # the last fall is not risen from
        ([5, 6, 7, 6, 7], 1),  # rises before any fall do not count
    ],
)
def test_a_cycle_is_a_fall_in_quality_that_a_later_rise_follows(
    levels: list[int], count: int
) -> None:
    assert fig13.cycles(levels) == count


def test_fig13_counts_the_cycles_of_the_finished_bbr_runs_at_10_mb(tmp_path: Path) -> None:
    found = claims(fig13, {"fig4-5": sweep(fig13_runs(tmp_path), folder=tmp_path)})
    # 3, 0 and 3 cycles: median 3
    assert judged(found) == {
        CLAIM: (
            "repeats throughout the video run",
            "median 3 over 3 runs (0–3)",
            "median ≥ 3 falls in quality, each risen from",
            True,
        )
    }


def test_fig13_fails_below_three_cycles_and_without_runs(tmp_path: Path) -> None:
    rows = [session_run(tmp_path, "a", [9, 8, 9, 8, 9]), session_run(tmp_path, "b", [9, 8, 9])]
    assert claims(fig13, {"fig4-5": sweep(rows, folder=tmp_path)})[CLAIM].passed is False
    none = [
        {"run": "x", "flow.video.cc": "bbr", "bottleneck.queue.limit": "10MB", "status": "failed"}
    ]
    found = claims(fig13, {"fig4-5": sweep(none, folder=tmp_path)})[CLAIM]
    assert (found.ours, found.passed) == ("–", False)


def test_fig13_draws_the_lowest_seeds_rtt_quality_and_abr_estimate(tmp_path: Path) -> None:
    with drawn(fig13) as figures:
        fig13.analyse({"fig4-5": sweep(fig13_runs(tmp_path), folder=tmp_path)}, "quick")
    rtt, quality, estimate = figures[0].axes
    # run b (seed 1): levels 9 9 9 8 requested at 0, 5, 10, 15 s; the audio segment left out
    rtt_line = lines(rtt, unlabelled=True)[0]  # drawn before the propagation delay's line
    assert (rtt_line.x, rtt_line.y) == ([0.0, 1.0], [100.0, 800.0])
    [steps] = lines(quality, unlabelled=True)
    assert (steps.x, steps.y) == ([0.0, 5.0, 10.0, 15.0], [9.0, 9.0, 9.0, 8.0])
    [abr] = [e for e in lines(estimate, unlabelled=True) if len(e.x) == 4]
    assert abr.y == [29.0, 29.0, 29.0, 28.0]
    assert horizontal_levels(rtt) == [100.0] and horizontal_levels(estimate) == [25.0]
