"""WWW'21 Table 2: the time BBR and BBR2 spend per state, from Fig. 4/5's runs and the runs
with the player's page."""

from __future__ import annotations

import pytest
from www21_tables import (
    BUFFER,
    CC,
    PROBE_RTT,
    claims,
    judged,
    runs_at,
    sweep,
    table2_page_runs,
    table2_runs,
)

from bloatlab.reproduce.www21 import table2


def test_table2_claims_read_the_mean_share_of_each_state_over_seeds() -> None:
    found = claims(
        table2, {"fig4-5": sweep(table2_runs()), "table2-page": sweep(table2_page_runs())}
    )
    page = "(page from the video's server: {} %)"
    assert judged(found) == {
        "BBR: PROBE_RTT share rises from 100 KB to 10 MB": (
            "1.2 → 11.5 %",
            "2.0 → 11.0 %",
            "higher at 10 MB",
            True,
        ),
        # 11.5 / 2 ≤ 11.0 ≤ 11.5 × 2; 5.3 / 2 ≤ 6.0 ≤ 5.3 × 2
        "BBR: PROBE_RTT share at 10 MB": (
            "11.5 %",
            f"11.0 % {page.format(8.0)}",
            "within ×2",
            True,
        ),
        "BBR: STARTUP share at 10 MB": ("5.3 %", f"6.0 % {page.format(40.0)}", "within ×2", True),
        "BBR2: PROBE_RTT share rises from 100 KB to 10 MB": (
            "2.9 → 13.1 %",
            "5.0 → 10.0 %",
            "higher at 10 MB",
            True,
        ),
        "BBR2: PROBE_RTT share at 10 MB": (
            "13.1 %",
            f"10.0 % {page.format(30.0)}",
            "within ×2",
            True,
        ),
        # 10.0 < 31.9 / 2
        "BBR2: STARTUP share at 10 MB": (
            "31.9 %",
            f"10.0 % {page.format(35.0)}",
            "within ×2",
            False,
        ),
    }
    assert {c.figure for c in found.values()} == {"Table 2"}


@pytest.mark.parametrize(
    ("claim", "shallow", "deep", "ours", "passed"),
    [
        ("BBR: PROBE_RTT share rises from 100 KB to 10 MB", 0.05, 0.05, "5.0 → 5.0 %", False),
        ("BBR: PROBE_RTT share rises from 100 KB to 10 MB", 0.05, 0.051, "5.0 → 5.1 %", True),
        # the paper's 11.5 %: from 5.75 to 23 %
        ("BBR: PROBE_RTT share at 10 MB", 0.0, 0.0575, "5.8 %", True),
        ("BBR: PROBE_RTT share at 10 MB", 0.0, 0.0574, "5.7 %", False),
        ("BBR: PROBE_RTT share at 10 MB", 0.0, 0.23, "23.0 %", True),
        ("BBR: PROBE_RTT share at 10 MB", 0.0, 0.2301, "23.0 %", False),
    ],
)
def test_table2_verdicts_on_each_side_of_the_tolerance(
    claim: str, shallow: float, deep: float, ours: str, passed: bool
) -> None:
    fractions = {("bbr", "100KB"): {PROBE_RTT: [shallow]}, ("bbr", "10MB"): {PROBE_RTT: [deep]}}
    found = claims(
        table2, {"fig4-5": sweep(runs_at((CC, BUFFER), fractions)), "table2-page": sweep()}
    )
    assert found[claim].ours.startswith(ours)
    assert found[claim].passed is passed
