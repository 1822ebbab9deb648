"""ATC'23 Fig. 9 (BBR and oBBR-μ, 40/10 Mb/s every 10 s): how fast the estimate follows a
drop, retransmitted bytes and goodput, at their edges, with seeds and missing runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from atc23_tables import FIG9, analyse, fig9_results, fig9_row, passed, verdicts

from bloatlab.reproduce.atc23 import fig9
from bloatlab.reproduce.atc23._common import CCAS
from bloatlab.sweep.spec import label


def test_fig9_claims_are_computed_from_the_estimates_and_the_bytes(tmp_path: Path) -> None:
    findings = analyse(fig9, fig9_results(tmp_path, FIG9))
    assert verdicts(findings) == {
        "oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's": (
            "2.0 s vs 6.0 s (medians of 2 and 2 drops)",  # the drops at 10 and 30 s of a 40 s fetch
            True,
        ),
        "oBBR-1: time to follow the drop": ("2.0 s", True),
        "BBR: time to follow the drop": ("6.0 s", True),
        "oBBR-1 retransmits less than BBR": ("BBR 2.0 % vs oBBR-1 1.0 %", True),
        "BBR's retransmitted bytes over oBBR-1's": ("2.00×", True),  # 20 MB / 10 MB, ±0.836
        "BBR and oBBR-1 reach almost the same goodput": ("30.0 vs 28.0 Mb/s", True),
    }
    notes = [c.note for c in findings.claims]
    assert notes[0] == "also oBBR-0.5 2.0 s, oBBR-0.75 3.0 s"  # medians of 1.5, 2.5 and 3, 3
    assert notes[3] == (
        "retransmission ratios of BBR, oBBR-0.5, oBBR-0.75, oBBR-1: 2.0 %, 0.5 %, 0.8 %, 1.0 %"
    )


def test_fig9_pools_the_drops_of_every_seed_and_ignores_unfinished_runs(tmp_path: Path) -> None:
    # BBR's drops over two seeds, 5, 7 and 6, 10 s: median 6.5 s; bytes 20 and 30 MB: 25 MB,
    # 2.5× oBBR-1's. The failed run has no folder to read.
    rows = [
        *FIG9[1:],
        fig9_row("BBR", [5.0, 7.0], retrans=20e6, goodput=30e6, seed=1),
        fig9_row("BBR", [6.0, 10.0], retrans=30e6, goodput=30e6, seed=2),
        fig9_row("BBR", [0.0, 0.0], retrans=0.0, goodput=0.0, seed=3, status="failed"),
    ]
    found = verdicts(analyse(fig9, fig9_results(tmp_path, rows)))
    assert found["oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's"] == (
        "2.0 s vs 6.5 s (medians of 2 and 4 drops)",  # every seed's drops
        True,
    )
    assert found["BBR's retransmitted bytes over oBBR-1's"] == ("2.50×", True)
    assert found["BBR and oBBR-1 reach almost the same goodput"] == ("30.0 vs 28.0 Mb/s", True)


@pytest.mark.parametrize(
    ("cca", "follow", "claim", "holds"),
    [
        ("oBBR-1", 3.0, "oBBR-1: time to follow the drop", True),
        ("oBBR-1", 3.5, "oBBR-1: time to follow the drop", False),
        ("BBR", 3.0, "BBR: time to follow the drop", True),
        ("BBR", 2.5, "BBR: time to follow the drop", False),
        ("BBR", 9.0, "BBR: time to follow the drop", True),
        ("BBR", 9.5, "BBR: time to follow the drop", False),
        ("BBR", 2.0, "oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's", False),
    ],
)
def test_fig9_follow_times_hold_at_their_edges(
    tmp_path: Path, cca: str, follow: float, claim: str, holds: bool
) -> None:
    rows = [row for row in FIG9 if row["flow.sender.cc"] != label(CCAS[cca])]
    rows.append(fig9_row(cca, [follow, follow]))
    assert passed(analyse(fig9, fig9_results(tmp_path, rows)), claim) is holds


@pytest.mark.parametrize(
    ("bbr_bytes", "holds"),
    [(29e6, True), (29.5e6, False), (12.6e6, True), (12.5e6, False)],  # 2.09 × (1 ± 0.4)
)
def test_fig9_bytes_ratio_is_within_40_percent_of_the_papers(
    tmp_path: Path, bbr_bytes: float, holds: bool
) -> None:
    rows = [fig9_row("BBR", [6.0, 6.0], retrans=bbr_bytes, goodput=30e6), *FIG9[1:]]
    findings = analyse(fig9, fig9_results(tmp_path, rows))
    assert passed(findings, "BBR's retransmitted bytes over oBBR-1's") is holds


def test_fig9_equal_bytes_do_not_count_as_retransmitting_less(tmp_path: Path) -> None:
    rows = [fig9_row("BBR", [6.0, 6.0], retrans=10e6, goodput=30e6), *FIG9[1:]]
    found = verdicts(analyse(fig9, fig9_results(tmp_path, rows)))
    assert found["oBBR-1 retransmits less than BBR"] == ("BBR 1.0 % vs oBBR-1 1.0 %", False)


@pytest.mark.parametrize(
    ("obbr", "holds"),
    [(27e6, True), (26.9e6, False), (33e6, True), (33.1e6, False)],  # BBR's 30 Mb/s ± 10 %
)
def test_fig9_goodputs_are_within_10_percent_of_bbrs(
    tmp_path: Path, obbr: float, holds: bool
) -> None:
    rows = [*FIG9[:3], fig9_row("oBBR-1", [2.0, 2.0], retrans=10e6, goodput=obbr)]
    findings = analyse(fig9, fig9_results(tmp_path, rows))
    assert passed(findings, "BBR and oBBR-1 reach almost the same goodput") is holds


@pytest.mark.parametrize(
    ("low", "ours"),
    [
        # 1.5 × the 10 Mb/s payload: 1.5 × 10 Mb/s × 1252 / (1252 + 52) = 14.40 Mb/s; followed at
        # the switch and 1 s after it: median 0.5 s
        (1.5 * (10e6 * 1252 / 1304), "0.5 s"),
        (15e6, "10.0 s"),  # above 1.5× the payload: never followed
    ],
)
def test_fig9_a_drop_is_followed_from_the_switch_to_the_first_estimate_within_1_5_times(
    tmp_path: Path, low: float, ours: str
) -> None:
    rows = [*FIG9[:3], fig9_row("oBBR-1", [0.0, 1.0], low=low)]
    found = verdicts(analyse(fig9, fig9_results(tmp_path, rows)))
    assert found["oBBR-1: time to follow the drop"][0] == ours


def test_fig9_a_fetch_without_an_end_counts_its_drops_until_the_cap(tmp_path: Path) -> None:
    # No completion time: the session is the 600 s cap, drops at 10, 30, …, 590 s (30, each with
    # its whole 10 s low period before 600 s). The series stops at 40 s: 28 drops are never
    # followed (10 s each), so the median is 10 s.
    rows = [fig9_row("BBR", [6.0, 6.0], retrans=20e6, goodput=30e6, end=math.nan), *FIG9[1:]]
    found = verdicts(analyse(fig9, fig9_results(tmp_path, rows)))
    assert found["oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's"] == (
        "2.0 s vs 10.0 s (medians of 2 and 30 drops)",
        True,
    )
    assert found["BBR: time to follow the drop"] == ("10.0 s", False)


def test_fig9_without_bbr_runs_there_are_no_drops_to_count(tmp_path: Path) -> None:
    found = verdicts(analyse(fig9, fig9_results(tmp_path, FIG9[1:])))
    claim = "oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's"
    assert found[claim] == ("2.0 s vs – s (medians of 2 and 0 drops)", False)


def test_fig9_a_missing_algorithm_fails_its_claims(tmp_path: Path) -> None:
    found = verdicts(analyse(fig9, fig9_results(tmp_path, FIG9[:3])))
    assert found == {
        "oBBR-1's estimate follows a 40 → 10 Mb/s drop faster than BBR's": (
            "– s vs 6.0 s (medians of 0 and 2 drops)",
            False,
        ),
        "oBBR-1: time to follow the drop": ("– s", False),
        "BBR: time to follow the drop": ("6.0 s", True),
        "oBBR-1 retransmits less than BBR": ("BBR 2.0 % vs oBBR-1 –", False),
        "BBR's retransmitted bytes over oBBR-1's": ("–×", False),
        "BBR and oBBR-1 reach almost the same goodput": ("30.0 vs – Mb/s", False),
    }


def test_fig9_an_obbr_that_retransmits_nothing_is_judged(tmp_path: Path) -> None:
    rows = [*FIG9[:3], fig9_row("oBBR-1", [2.0, 2.0], retrans=0.0, goodput=28e6)]
    found = verdicts(analyse(fig9, fig9_results(tmp_path, rows)))
    # Nothing retransmitted: "less" holds, and the ratio is undefined, so "2.09×" fails.
    assert found["oBBR-1 retransmits less than BBR"][1] is True
    assert found["BBR's retransmitted bytes over oBBR-1's"] == ("–×", False)
