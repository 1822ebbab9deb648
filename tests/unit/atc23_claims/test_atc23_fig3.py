"""ATC'23 Fig. 3 (BBR with cwnd gain g against CUBIC, buffer R BDP): the shares, their
trends and bounds at their edges, BBR's loss ratio, seeds and missing points."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from atc23_tables import FIG3, analyse, edge, fig3_results, fig3_row, passed, verdicts

from bloatlab.reproduce.atc23 import fig3
from bloatlab.reproduce.atc23._common import CCAS
from bloatlab.sweep.spec import label


def test_fig3_claims_are_computed_from_the_shares(tmp_path: Path) -> None:
    assert verdicts(analyse(fig3, fig3_results(tmp_path))) == {
        "g = 2: BBR's share falls as R grows (0.5 → 16)": ("95% → 80% → 70% → 60% → 30%", True),
        "g = 2: BBR's share below the model's converge point": (
            "R 2: 60% vs 75%, R 16: 30% vs 53%",  # R ≤ 1: the model's BBR takes all, no bound
            True,
        ),
        "g = 2, R = 0.5: BBR dominates": ("95%", True),
        "g = 2, R = 0.5: BBR's loss ratio": ("12.50 %", True),  # |12.5 - 13.36| ≤ 5.344
        "g = 1: BBR can hardly compete at any R": (
            "R 0.5: 10%, R 0.8: 10%, R 1: 10%, R 2: 10%, R 16: 10%",
            True,
        ),
        "R = 16: BBR gains more goodput with increasing g (1 → 4)": (
            "10% → 20% → 30% → 40% → 50%",
            True,
        ),
    }


@pytest.mark.parametrize(
    ("g2", "falls"),
    [
        ([0.95, 0.5, 0.52, 0.3, 0.3], True),  # a 2 pp rise is noise
        ([0.95, 0.5, 0.53, 0.3, 0.3], False),
        ([0.5, 0.5, 0.5, 0.5, 0.5], False),  # flat: R 16 must be below R 0.5
        ([0.5, 0.5, 0.5, 0.5, 0.49], True),  # R 16 against R 0.5, not its neighbours
        ([0.5, 0.48, 0.49, 0.49, 0.49], True),
    ],
)
def test_fig3_share_falls_with_r_up_to_a_2_pp_rise(
    tmp_path: Path, g2: list[float], falls: bool
) -> None:
    points = {**FIG3, **{(2.0, r): s for r, s in zip(fig3.BUFFERS, g2, strict=True)}}
    findings = analyse(fig3, fig3_results(tmp_path, points))
    assert passed(findings, "g = 2: BBR's share falls as R grows (0.5 → 16)") is falls


@pytest.mark.parametrize(
    ("r16", "rises"),
    [
        ([0.1, 0.52, 0.5, 0.6, 0.7], True),  # a 2 pp fall is noise
        ([0.1, 0.52, 0.49, 0.6, 0.7], False),
        ([0.3, 0.3, 0.3, 0.3, 0.3], False),  # flat: g 4 must be above g 1
        ([0.3, 0.3, 0.3, 0.3, 0.31], True),  # g 4 against g 1, not its neighbours
        ([0.3, 0.32, 0.31, 0.31, 0.31], True),
    ],
)
def test_fig3_share_rises_with_g_up_to_a_2_pp_fall(
    tmp_path: Path, r16: list[float], rises: bool
) -> None:
    points = {**FIG3, **{(g, 16.0): s for g, s in zip(fig3.GAINS_R16, r16, strict=True)}}
    findings = analyse(fig3, fig3_results(tmp_path, points))
    claim = "R = 16: BBR gains more goodput with increasing g (1 → 4)"
    assert passed(findings, claim) is rises


@pytest.mark.parametrize(
    ("point", "share", "claim", "holds"),
    [
        ((2.0, 2.0), 0.74, "g = 2: BBR's share below the model's converge point", True),
        ((2.0, 2.0), 0.75, "g = 2: BBR's share below the model's converge point", False),
        ((2.0, 16.0), 17 / 32, "g = 2: BBR's share below the model's converge point", False),
        ((2.0, 0.5), 0.8, "g = 2, R = 0.5: BBR dominates", True),
        ((2.0, 0.5), 0.79, "g = 2, R = 0.5: BBR dominates", False),
        ((1.0, 2.0), 0.2, "g = 1: BBR can hardly compete at any R", True),
        ((1.0, 2.0), 0.21, "g = 1: BBR can hardly compete at any R", False),
    ],
)
def test_fig3_share_bounds_hold_at_their_edges(
    tmp_path: Path, point: tuple[float, float], share: float, claim: str, holds: bool
) -> None:
    findings = analyse(fig3, fig3_results(tmp_path, {**FIG3, point: share}))
    assert passed(findings, claim) is holds


@pytest.mark.parametrize(
    ("retrans", "holds"),
    [
        (edge(0.1336, 0.4 * 0.1336), True),  # 8.016 %: 40 % of 13.36 % below it
        (math.nextafter(edge(0.1336, 0.4 * 0.1336), 0), False),
        (0.187, True),  # 18.704 % is the upper edge
        (0.188, False),
    ],
)
def test_fig3_loss_ratio_is_within_40_percent_of_the_papers(
    tmp_path: Path, retrans: float, holds: bool
) -> None:
    results = fig3_results(
        tmp_path,
        {k: v for k, v in FIG3.items() if k != (2.0, 0.5)},
        (fig3_row(2.0, 0.5, 0.95, retrans=retrans),),
    )
    assert passed(analyse(fig3, results), "g = 2, R = 0.5: BBR's loss ratio") is holds


def test_fig3_a_bbr_without_a_cwnd_gain_in_its_label_has_the_default_gain_of_2(
    tmp_path: Path,
) -> None:
    row = {**fig3_row(2.0, 0.5, 0.95), "flow.bbr.cc": label(CCAS["BBR"])}
    points = {k: v for k, v in FIG3.items() if k != (2.0, 0.5)}
    found = verdicts(analyse(fig3, fig3_results(tmp_path, points, (row,))))
    assert found["g = 2, R = 0.5: BBR dominates"] == ("95%", True)


def test_fig3_averages_the_seeds_of_a_point_and_ignores_unfinished_runs(tmp_path: Path) -> None:
    # Seeds take 70 % of 20 Mb/s and 90 % of 10 Mb/s: the mean share is 80 % (the share of the
    # summed goodputs would be (14 + 9) / 30 = 77 %); loss 10 % and 20 %: 15 %.
    extra = (
        fig3_row(2.0, 0.5, 0.7, retrans=0.1, seed=1),
        fig3_row(2.0, 0.5, 0.9, retrans=0.2, link=10e6, seed=2),
        fig3_row(2.0, 0.5, 0.0, retrans=0.9, seed=3, status="failed"),
        fig3_row(2.0, 0.5, 0.0, retrans=0.9, seed=4, status="missing"),
    )
    points = {k: v for k, v in FIG3.items() if k != (2.0, 0.5)}
    found = verdicts(analyse(fig3, fig3_results(tmp_path, points, extra)))
    assert found["g = 2, R = 0.5: BBR dominates"] == ("80%", True)
    assert found["g = 2, R = 0.5: BBR's loss ratio"] == ("15.00 %", True)


def test_fig3_missing_points_fail_their_claims(tmp_path: Path) -> None:
    missing = {(2.0, 0.5), (2.0, 2.0), (1.0, 16.0)}
    points = {k: v for k, v in FIG3.items() if k not in missing}
    assert verdicts(analyse(fig3, fig3_results(tmp_path, points))) == {
        "g = 2: BBR's share falls as R grows (0.5 → 16)": ("– → 80% → 70% → – → 30%", False),
        "g = 2: BBR's share below the model's converge point": (
            "R 2: – vs 75%, R 16: 30% vs 53%",
            False,
        ),
        "g = 2, R = 0.5: BBR dominates": ("–", False),
        "g = 2, R = 0.5: BBR's loss ratio": ("–", False),
        "g = 1: BBR can hardly compete at any R": (
            "R 0.5: 10%, R 0.8: 10%, R 1: 10%, R 2: 10%, R 16: –",
            False,
        ),
        "R = 16: BBR gains more goodput with increasing g (1 → 4)": (
            "– → 20% → 30% → 40% → 50%",
            False,
        ),
    }
