"""WWW'21 Fig. 14: the share of BBR's and BBR2's delivery-rate samples above the set 25 Mb/s,
pooled over the finished runs' folders, at the edges of each tolerance."""

from __future__ import annotations

from pathlib import Path

import pytest
from www21_tables import claims, fig14_runs, judged, rate_sample_run, sweep

from bloatlab.reproduce.www21 import fig14


def test_fig14_claims_pool_the_valid_samples_of_the_finished_runs(tmp_path: Path) -> None:
    found = claims(fig14, {"fig14": sweep(fig14_runs(tmp_path), folder=tmp_path)})
    assert judged(found) == {
        # 30 and 26 of 30 20 26 25 10 Mb/s (the NaN is no sample; exactly 25 is not above)
        "BBR: samples above the set 25 Mb/s": (
            "more than 30%",
            "40.0 %",
            '≥ 20% (the text\'s "more than 20–30 %")',
            True,
        ),
        # 25.1 of 24 25.1 5 1 Mb/s
        "BBR2: samples above the set 25 Mb/s": ("about 20%", "25.0 %", "±10 pp", True),
        "BBR's samples exceed the link more often than BBR2's": (
            "30 % vs 20 %",
            "40.0 % vs 25.0 %",
            "BBR > BBR2",
            True,
        ),
    }
    note = found["BBR: samples above the set 25 Mb/s"].note
    assert note == "not app-limited samples only: BBR 66.7 %, BBR2 50.0 %"


@pytest.mark.parametrize(
    ("cc", "rates", "claim", "passed"),
    [
        # BBR: 1 of 5 above is 20 %, at the edge
        ("bbr", [26e6, 20e6, 20e6, 20e6, 20e6], "BBR: samples above the set 25 Mb/s", True),
        ("bbr", [26e6, 20e6, 20e6, 20e6, 20e6, 20e6], "BBR: samples above the set 25 Mb/s", False),
        # BBR2: 3 of 10 (30 %) and 1 of 10 (10 %) are the edges of 20 ± 10 pp
        ("bbr2", [26e6] * 3 + [20e6] * 7, "BBR2: samples above the set 25 Mb/s", True),
        ("bbr2", [26e6] * 4 + [20e6] * 6, "BBR2: samples above the set 25 Mb/s", False),
        ("bbr2", [26e6] + [20e6] * 9, "BBR2: samples above the set 25 Mb/s", True),
        ("bbr2", [20e6] * 10, "BBR2: samples above the set 25 Mb/s", False),
        # BBR2 at 40 %, as often as BBR
        (
            "bbr2",
            [26e6] * 2 + [20e6] * 3,
            "BBR's samples exceed the link more often than BBR2's",
            False,
        ),
    ],
)
def test_fig14_tolerances_hold_at_their_edges(
    tmp_path: Path, cc: str, rates: list[float], claim: str, passed: bool
) -> None:
    rows = [r for r in fig14_runs(tmp_path) if r["flow.video.cc"] != cc]
    rows.append(rate_sample_run(tmp_path, "edge", cc, rates, [False] * len(rates)))
    assert claims(fig14, {"fig14": sweep(rows, folder=tmp_path)})[claim].passed is passed


def test_fig14_without_samples_every_claim_fails(tmp_path: Path) -> None:
    rows = [{"run": "x", "flow.video.cc": "bbr", "seed": 1, "status": "failed"}]
    found = claims(fig14, {"fig14": sweep(rows, folder=tmp_path)})
    assert [(c.ours, c.passed) for c in found.values()] == [
        ("–", False),
        ("–", False),
        ("– vs –", False),
    ]
