"""The AICT'19 reproduction's claims, worked out by hand from small sweep tables (no simulation).

Each sweep is a `SweepResults` over hand-made rows; the run folders hold tiny `flows.parquet`
and `queue.parquet` files with only the columns the figures read. Shares are fractions of an
80 Mb/s link, loss rates fractions of the packets that arrived.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from aict19_tables import (
    FAILED,
    SHALLOW,
    evenly,
    loss_row,
    queue_row,
    share_row,
    shares,
    sweep,
    sync_sweep,
)

from bloatlab.builders import HOST_JITTER
from bloatlab.reproduce import aict19
from bloatlab.reproduce._base import Claim, Findings
from bloatlab.reproduce.aict19._common import (
    BBR_CC,
    BBR_LABEL,
    BUFFERS_SHARES_QUICK,
    BUFFERS_TABLE_I,
    FLOWS,
    MINUTE,
    RATES,
    STEADY,
    bdp,
    buffer_label,
)
from bloatlab.sweep.table import SweepResults
from figure_data import drawn, line, lines
from sweep_tables import sweep_results, unfinished

PNG = b"\x89PNG"


def claims(findings: Findings) -> dict[str, Claim]:
    """The claims by "<figure> <claim>"."""
    return {f"{c.figure} {c.claim}": c for c in findings.claims}


def verdict(claim: Claim) -> tuple[str, bool]:
    return claim.ours, claim.passed


# A typical quick reproduction: every claim holds but BBR's loss at 1 BDP and BBR Shallow's
# loss at 1 BDP. Failed runs carry values that would break every claim they entered.
FIG10 = {
    0.5: (0.8, 0.15),
    1.0: (0.7, 0.25),
    2.0: (0.6, 0.35),
    4.0: (0.5, 0.4),
    6.0: (0.4, 0.5),  # BBR - CUBIC: +0.1 at 4 BDP, -0.1 at 6: they cross half way, at 5 BDP
    8.0: (0.3, 0.6),
}
FIG12 = {
    0.5: (0.7, 0.25),
    1.0: (0.6, 0.35),
    2.0: (0.5, 0.45),  # +0.05 at 2 BDP, -0.15 at 4: 2 + 2 × 0.05 / 0.2 = 2.5 BDP
    4.0: (0.4, 0.55),
    8.0: (0.3, 0.6),
}


@pytest.fixture(scope="module")
def typical(tmp_path_factory: pytest.TempPathFactory) -> dict[str, SweepResults]:
    root = tmp_path_factory.mktemp("aict19")
    fig10 = [
        *shares(FIG10),
        share_row(0.5, 0.9, 0.15, seed=2),
        share_row(1.75, 0.6, 0.35, seed=2, lead_changes=evenly(3)),
        share_row(1.75, 0.6, 0.35),
        share_row(8.0, 0.9, 0.05, **FAILED),
    ]
    fig11 = [
        *(loss_row(b, v, cc=BBR_LABEL) for b, v in ((0.5, 0.11), (1.0, 0.06), (2.0, 0.001))),
        *(loss_row(b, v, cc=SHALLOW) for b, v in ((0.5, 0.08), (1.0, 0.06), (2.0, 0.0))),
    ]
    return {
        "fig4": sync_sweep(root / "fig4"),
        "fig5-bbr": sweep(
            root / "fig5-bbr",
            [
                queue_row(1.0, 1.4),
                queue_row(1.4, 1.8, seed=2),
                queue_row(9.0, 9.0, seed=3, **FAILED),
            ],
        ),
        "fig5-cubic": sweep(root / "fig5-cubic", [queue_row(6.5, 7.5)]),
        "fig7": sweep(
            root / "fig7",
            [
                loss_row(0.5, 0.10),
                loss_row(0.5, 0.12, flows=4),
                loss_row(1.0, 0.08),
                loss_row(1.0, 0.09, flows=4),
                loss_row(2.0, 0.004),
                loss_row(2.0, 0.006, flows=4),
                loss_row(2.0, 0.5, **FAILED),
            ],
        ),
        "fig10": sweep(root / "fig10", fig10),
        "fig11": sweep(root / "fig11", fig11),
        "fig12": sweep(root / "fig12", shares(FIG12)),
    }


# ----- Fig. 4: 4 staggered BBR flows ------------------------------------------------------------

SHARE = "Fig. 4 4 staggered BBR flows, 80 Mb/s: each flow's share from 30 s"
TOGETHER = "Fig. 4 they enter PROBE_RTT together from 30 s, every 10 s"


def test_probe_rtt_entries_and_their_synchrony(tmp_path: Path) -> None:
    entries = ((5.0, 27.0, 37.0), (27.2, 37.0), (26.9, 37.1), (27.0, 36.8))
    results = sync_sweep(tmp_path, entries=entries)
    found = aict19.fig4.probe_rtt_entries(
        results.run_folder(results.rows()[0]["run"]), ["bbr1", "bbr2"]
    )
    assert found == {"bbr1": [5.0, 27.0, 37.0], "bbr2": [27.2, 37.0]}
    all_four = {f"bbr{i + 1}": list(e) for i, e in enumerate(entries)}
    # from 30 s: 37.0, 37.0, 37.1, 36.8; the farthest pair bbr3–bbr4, 0.3 s; one entry each
    assert aict19.fig4.synchrony(all_four, 30.0) == (pytest.approx(0.3), [])
    # from 20 s also 27.0, 27.2, 26.9, 27.0 (bbr2–bbr3 0.3 s); each flow's interval
    spread, intervals = aict19.fig4.synchrony(all_four, 20.0)
    assert spread == pytest.approx(0.3)
    assert intervals == pytest.approx([10.0, 9.8, 10.2, 9.8])
    assert aict19.fig4.synchrony({"bbr1": [31.0], "bbr2": []}, 30.0)[0] == math.inf
    # a flow's own extra entries count too, whichever flow has them
    extra = {"bbr1": [27.0, 37.0], "bbr2": [27.0, 35.0, 37.0, 45.0]}
    assert aict19.fig4.synchrony(extra, 30.0) == (pytest.approx(8.0), [2.0, 8.0])


def test_fig4_on_a_typical_run(typical: dict[str, SweepResults]) -> None:
    found = claims(aict19.analyse(typical, "quick"))
    assert verdict(found[SHARE]) == ("19.0–21.0 Mb/s", True)
    assert verdict(found[TOGETHER]) == ("within 0.00 s of each other; every 10.0–10.0 s", True)


@pytest.mark.parametrize(
    ("rates", "entries", "claim", "holds"),
    [
        ((15e6, 25e6, 20e6, 20e6), None, SHARE, True),  # 20 Mb/s ± 25 %
        ((14.9e6, 25e6, 20e6, 20e6), None, SHARE, False),
        ((15e6, 25.1e6, 20e6, 20e6), None, SHARE, False),
        (None, ((30.0, 40.0, 50.0),) * 3 + ((30.5, 40.0, 50.0),), TOGETHER, True),
        (None, ((30.0, 40.0, 50.0),) * 3 + ((30.6, 40.0, 50.0),), TOGETHER, False),
        (None, ((30.0, 42.0, 54.0),) * 4, TOGETHER, True),  # every 8–12 s
        (None, ((30.0, 42.1, 54.2),) * 4, TOGETHER, False),
        (None, ((30.0, 37.9, 46.0),) * 4, TOGETHER, False),
        (None, ((35.0,),) * 4, TOGETHER, False),  # one entry: no interval
    ],
)
def test_fig4_holds_at_the_edges_of_its_tolerances(
    tmp_path: Path,
    rates: tuple[float, ...] | None,
    entries: tuple[tuple[float, ...], ...] | None,
    claim: str,
    holds: bool,
) -> None:
    options: dict[str, Any] = {}
    if rates is not None:
        options["rates_bps"] = rates
    if entries is not None:
        options["entries"] = entries
    found = claims(aict19.fig4.analyse({"fig4": sync_sweep(tmp_path, **options)}, "quick"))
    assert found[claim].passed is holds


def test_fig4_draws_each_flows_throughput_and_the_fair_share(tmp_path: Path) -> None:
    with drawn(aict19.fig4) as figures:
        aict19.fig4.analyse({"fig4": sync_sweep(tmp_path)}, "quick")
    [ax] = figures[0].axes
    first = line(ax, "flow 1")
    assert len(first.x) == 120 and first.y == pytest.approx([20.0] * 120)
    assert line(ax, "flow 3").y == pytest.approx([21.0] * 120)


# ----- Fig. 6 and 8: 0.5 BDP --------------------------------------------------------------------


def write_loss_run(folder: Path, loss: float, bins_with_loss: int) -> None:
    """queue.parquet every 0.25 s for 240 s: 1000 arrivals/s, of which `loss` dropped in the
    first `bins_with_loss` half-second bins of minutes 2–4 and none otherwise."""
    folder.mkdir(parents=True)
    t = np.arange(0, 240.25, 0.25)
    lossy = (t > 120) & (t <= 120 + 0.5 * bins_with_loss)
    drops = np.cumsum(np.where(lossy, 250.0 * loss, 0.0))
    table = {"t": t, "arrivals": 1000.0 * t, "drops": drops, "backlog_bytes": np.zeros(len(t))}
    pq.write_table(pa.table(table), folder / "queue.parquet")


def fig6_results(tmp_path: Path, loss: float, bins_with_loss: int) -> dict[str, SweepResults]:
    """Fig. 7's sweep with the 4-flow 80 Mb/s run at 0.5 BDP dropping `loss` in that many
    bins, and, to be left out, a 2-flow run at 0.5 BDP and a 4-flow one at 40 Mb/s."""
    rows = [
        loss_row(0.5, 0.0, flows=4, run="four"),
        loss_row(0.5, 0.0, flows=2, run="two"),
        loss_row(0.5, 0.0, flows=4, run="slow", **{"bottleneck.rate": "40Mbps"}),
    ]
    results = sweep_results(tmp_path, "fig7", rows)
    write_loss_run(results.run_folder("four"), loss, bins_with_loss)
    for run in ("two", "slow"):
        write_loss_run(results.run_folder(run), 0.0, 0)
    return {"fig7": results}


def test_fig6_on_a_typical_sweep_reads_the_4_flow_80_mbps_run_at_0_5_bdp(
    typical: dict[str, SweepResults],
) -> None:
    found = claims(aict19.analyse(typical, "quick"))
    # write_run's queue: 10 of 1000 arrivals dropped every second, so 1 % in every bin
    assert verdict(found["Fig. 6 4 BBR, 0.5 BDP: loss averages over 10 %"]) == ("1.00 %", False)
    assert verdict(found["Fig. 6 4 BBR, 0.5 BDP: loss persists"]) == (
        "100 % of half-second bins with loss",
        True,
    )


@pytest.mark.parametrize(
    ("loss", "bins_with_loss", "claim", "holds"),
    [
        (0.0601, 240, "Fig. 6 4 BBR, 0.5 BDP: loss averages over 10 %", True),  # 10 % less 40 %
        (0.0599, 240, "Fig. 6 4 BBR, 0.5 BDP: loss averages over 10 %", False),
        (0.2, 216, "Fig. 6 4 BBR, 0.5 BDP: loss persists", True),  # 90 % of 240
        (0.2, 215, "Fig. 6 4 BBR, 0.5 BDP: loss persists", False),
    ],
)
def test_fig6_holds_at_the_edges_of_its_tolerances(
    tmp_path: Path, loss: float, bins_with_loss: int, claim: str, holds: bool
) -> None:
    found = claims(aict19.fig6.analyse(fig6_results(tmp_path, loss, bins_with_loss), "quick"))
    assert found[claim].passed is holds


def test_fig8_on_a_typical_sweep_reads_the_0_5_bdp_runs(typical: dict[str, SweepResults]) -> None:
    found = claims(aict19.analyse(typical, "quick"))
    # seeds 1 and 2 at 0.5 BDP: BBR 0.8 and 0.9, CUBIC 0.15 and 0.15; no drop rate recorded
    assert verdict(
        found["Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: CUBIC's throughput much lower than BBR's"]
    ) == (
        "CUBIC 15% vs BBR 85% of the link (minutes 2–4)",
        True,
    )
    assert verdict(found["Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6"]) == (
        "– (minutes 2–4)",
        False,
    )


@pytest.mark.parametrize(
    ("bbr", "cubic", "drop_rate", "claim", "holds"),
    [
        (
            0.8,
            0.4,
            0.1,
            "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: CUBIC's throughput much lower than BBR's",
            True,
        ),
        (
            0.8,
            0.41,
            0.1,
            "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: CUBIC's throughput much lower than BBR's",
            False,
        ),
        (
            0.8,
            0.1,
            0.0601,
            "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6",
            True,
        ),  # 10 % ± 40 %
        (0.8, 0.1, 0.0599, "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6", False),
        (0.8, 0.1, 0.1399, "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6", True),
        (0.8, 0.1, 0.1401, "Fig. 8 2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6", False),
    ],
)
def test_fig8_holds_at_the_edges_of_its_tolerances(
    tmp_path: Path, bbr: float, cubic: float, drop_rate: float, claim: str, holds: bool
) -> None:
    rows = [
        share_row(0.5, bbr, cubic, **{"bottleneck.drop_rate": drop_rate}),
        share_row(1.0, 0.1, 0.9, **{"bottleneck.drop_rate": 0.5}),  # another buffer: left out
    ]
    found = claims(aict19.fig8.analyse({"fig10": sweep(tmp_path / "fig10", rows)}, "quick"))
    assert found[claim].passed is holds


# ----- Fig. 5 ----------------------------------------------------------------------------------


def test_the_standing_queue_is_the_mean_over_seeds_of_the_runs_that_finished(
    typical: dict[str, SweepResults],
) -> None:
    found = claims(aict19.fig5.analyse(typical, "quick"))
    # (1.0 + 1.4) / 2 = 1.2 BDP, p90 (1.4 + 1.8) / 2 = 1.6; the failed seed 3 (9 BDP) is ignored
    claim = found["Fig. 5 4 BBR, 80 Mb/s, 8 BDP buffer: standing queue"]
    assert verdict(claim) == ("1.20 BDP (p90 1.60)", True)
    cubic = found["Fig. 5 1 CUBIC, 8 BDP buffer: fills the queue"]
    assert verdict(cubic) == ("mean 6.50, p90 7.50 BDP", True)
    assert "Fig. 5 2/4/8 BBR × 40/80/120 Mb/s: standing queue" not in found  # full mode only


@pytest.mark.parametrize(
    ("standing", "cubic_p90", "passed"),
    [(0.99, 6.99, False), (1.0, 7.0, True), (1.5, 7.0, True), (1.51, 6.99, False)],
)
def test_the_standing_queue_holds_from_1_to_1_5_bdp_and_cubic_from_a_p90_of_7_bdp(
    tmp_path: Path, standing: float, cubic_p90: float, passed: bool
) -> None:
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", [queue_row(standing, 2.0)]),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(5.0, cubic_p90)]),
    }
    found = claims(aict19.fig5.analyse(results, "quick"))
    assert found["Fig. 5 4 BBR, 80 Mb/s, 8 BDP buffer: standing queue"].passed is passed
    assert found["Fig. 5 1 CUBIC, 8 BDP buffer: fills the queue"].passed is passed


def test_the_full_standing_queue_claim_checks_each_flow_count_and_rate(
    tmp_path: Path, typical: dict[str, SweepResults]
) -> None:
    def combo(flows: int, rate: str, mean_bdp: float, seed: int = 1) -> dict[str, Any]:
        return queue_row(
            mean_bdp, 2.0, seed=seed, **{"flow.bbr.count": flows, "bottleneck.rate": rate}
        )

    bbr = [
        combo(2, "40Mbps", 1.0),
        combo(4, "80Mbps", 1.4),
        combo(4, "80Mbps", 1.6, seed=2),  # 4 flows at 80 Mb/s: (1.4 + 1.6) / 2 = 1.5
        combo(8, "120Mbps", 1.51),
        combo(8, "80Mbps", 0.9),  # 80 Mb/s or 4 flows alone is not the 4-flow, 80 Mb/s point
        combo(4, "40Mbps", 1.2),
        combo(8, "40Mbps", 3.0, seed=2) | FAILED,
    ]
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", bbr),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(5.0, 8.0)]),
    }
    found = claims(aict19.analyse({**typical, **results}, "full"))
    assert verdict(found["Fig. 5 4 BBR, 80 Mb/s, 8 BDP buffer: standing queue"]) == (
        "1.50 BDP (p90 2.00)",
        True,
    )
    each = found["Fig. 5 2/4/8 BBR × 40/80/120 Mb/s: standing queue"]
    assert verdict(each) == ("0.90–1.51 BDP over 5 of 9 combinations", False)
    # in grid order; 2 flows at 80 and 120 Mb/s, 4 at 120 and 8 at 40 (failed) did not run
    assert each.note == (
        "outside, or not run: 2 flows 80Mbps, 2 flows 120Mbps, 4 flows 120Mbps, "
        "8 flows 40Mbps, 8 flows 80Mbps, 8 flows 120Mbps"
    )


def test_the_full_standing_queue_claim_holds_with_every_combination_inside(
    tmp_path: Path,
) -> None:
    bbr = [
        queue_row(1.2, 2.0, **{"flow.bbr.count": n, "bottleneck.rate": rate})
        for n in FLOWS
        for rate in RATES
    ]
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", bbr),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(5.0, 8.0)]),
    }
    each = claims(aict19.fig5.analyse(results, "full"))[
        "Fig. 5 2/4/8 BBR × 40/80/120 Mb/s: standing queue"
    ]
    assert (each.passed, each.note) == (True, "")


def test_the_full_standing_queue_claim_fails_without_a_finished_run(tmp_path: Path) -> None:
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", [queue_row(1.2, 2.0) | FAILED]),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(5.0, 8.0)]),
    }
    each = claims(aict19.fig5.analyse(results, "full"))[
        "Fig. 5 2/4/8 BBR × 40/80/120 Mb/s: standing queue"
    ]
    assert verdict(each) == ("no finished run of 9 combinations", False)


@pytest.mark.filterwarnings("ignore:No artists with labels found:UserWarning")  # empty legend
def test_the_queue_claims_fail_without_a_finished_run_and_the_figure_is_still_drawn(
    tmp_path: Path,
) -> None:
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", [queue_row(1.2, 1.5, **FAILED)]),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(8.0, 8.0, **FAILED)]),
    }
    found = aict19.fig5.analyse(results, "quick")
    assert [verdict(c) for c in found.claims] == [
        ("– BDP (p90 –)", False),
        ("mean –, p90 – BDP", False),
    ]
    assert [f.name for f in found.figures] == ["fig5"]


def test_the_queue_figure_draws_the_first_seed(tmp_path: Path) -> None:
    results = {
        "fig5-bbr": sweep(tmp_path / "bbr", [queue_row(1.2, 1.5, seed=2), queue_row(1.2, 1.5)]),
        "fig5-cubic": sweep(tmp_path / "cubic", [queue_row(6.0, 7.5, seed=3), queue_row(6.0, 7.5)]),
    }
    for source in results.values():  # only seed 1 has time series: drawing seed 2 or 3 fails
        for row in source.rows():
            if row["seed"] != 1:
                for name in ("flows.parquet", "queue.parquet"):
                    (source.run_folder(row["run"]) / name).unlink()
    assert [f.name for f in aict19.fig5.analyse(results, "quick").figures] == ["fig5"]


# ----- Fig. 7 ----------------------------------------------------------------------------------


def test_the_loss_is_the_mean_over_flow_counts_and_seeds_of_the_runs_that_finished(
    typical: dict[str, SweepResults],
) -> None:
    found = claims(aict19.fig7.analyse(typical, "quick"))
    # 0.5 BDP: (10 + 12) / 2 = 11 %, the paper's 11 %; 1 BDP: (8 + 9) / 2 = 8.5 %, 55 % above
    # the paper's 5.5 % (more than 40 %); 2 BDP: (0.4 + 0.6) / 2 = 0.5 %, not the failed 50 %.
    at_half = found["Fig. 7 BBR loss at 0.5 BDP"]
    assert (*verdict(at_half), at_half.paper, at_half.tolerance) == (
        "11.00 %",
        True,
        "≈11 %",
        "±40% relative",
    )
    assert verdict(found["Fig. 7 BBR loss at 1 BDP"]) == ("8.50 %", False)
    assert verdict(found["Fig. 7 BBR loss at 2 BDP"]) == ("0.50 %", True)
    falls = found["Fig. 7 loss falls as the buffer grows to 2 BDP"]
    assert verdict(falls) == ("11.0 % → 8.5 % → 0.5 %", True)


@pytest.mark.parametrize(
    ("loss", "expected"),
    [
        pytest.param(
            # 0.5 BDP: (15 + 15.8) / 2 = 15.4 % = 11 % × 1.4; 1 BDP: 3.3 % = 5.5 % × 0.6
            {0.5: [0.15, 0.158], 1.0: [0.033], 2.0: [0.0099], 4.0: [0.01]},
            {
                "BBR loss at 0.5 BDP": ("15.40 %", True),
                "BBR loss at 1 BDP": ("3.30 %", True),
                "BBR loss at 2 BDP": ("0.99 %", True),
                "BBR loss at 4 BDP": ("1.00 %", False),
                "loss falls as the buffer grows to 2 BDP": ("15.4 % → 3.3 % → 1.0 %", True),
            },
            id="at the bounds",
        ),
        pytest.param(
            {0.5: [0.1541], 1.0: [0.0329], 2.0: [0.0329]},
            {
                "BBR loss at 0.5 BDP": ("15.41 %", False),
                "BBR loss at 1 BDP": ("3.29 %", False),
                "BBR loss at 2 BDP": ("3.29 %", False),
                "loss falls as the buffer grows to 2 BDP": ("15.4 % → 3.3 % → 3.3 %", False),
            },
            id="just beyond",
        ),
        pytest.param(
            {2.0: [0.02], 1.0: [0.01], 0.5: [0.2]},  # rises with the buffer, rows out of order
            {
                "BBR loss at 0.5 BDP": ("20.00 %", False),
                "BBR loss at 1 BDP": ("1.00 %", False),
                "BBR loss at 2 BDP": ("2.00 %", False),
                "loss falls as the buffer grows to 2 BDP": ("20.0 % → 1.0 % → 2.0 %", False),
            },
            id="rising",
        ),
        pytest.param(
            {1.0: [0.055], 2.0: [0.0]},
            {
                "BBR loss at 0.5 BDP": ("–", False),
                "BBR loss at 1 BDP": ("5.50 %", True),
                "BBR loss at 2 BDP": ("0.00 %", True),
                "loss falls as the buffer grows to 2 BDP": ("– → 5.5 % → 0.0 %", False),
            },
            id="a missing point",
        ),
    ],
)
def test_the_loss_is_within_40_percent_of_the_papers_and_under_1_percent_from_2_bdp(
    tmp_path: Path, loss: dict[float, list[float]], expected: dict[str, tuple[str, bool]]
) -> None:
    rows = [loss_row(b, v, seed=s) for b, values in loss.items() for s, v in enumerate(values, 1)]
    found = aict19.fig7.analyse({"fig7": sweep(tmp_path / "fig7", rows)}, "quick")
    assert {c.claim: verdict(c) for c in found.claims} == expected


def test_the_loss_cannot_fall_over_a_single_buffer(tmp_path: Path) -> None:
    found = aict19.fig7.analyse({"fig7": sweep(tmp_path / "fig7", [loss_row(2.0, 0.0)])}, "quick")
    assert not claims(found)["Fig. 7 loss falls as the buffer grows to 2 BDP"].passed


def test_a_loss_sweep_without_a_finished_run_fails_its_claims(tmp_path: Path) -> None:
    failed = sweep(tmp_path / "fig7", [loss_row(0.5, 0.11, **FAILED)])
    found = aict19.fig7.analyse({"fig7": failed}, "quick")
    assert {c.ours for c in found.claims} == {"–", "– → – → –"}
    assert not any(c.passed for c in found.claims)


# ----- Fig. 9 ----------------------------------------------------------------------------------


def test_the_cycles_are_counted_on_the_first_seed_at_1_75_bdp(
    typical: dict[str, SweepResults],
) -> None:
    found = claims(aict19.fig9.analyse(typical, "quick"))
    # 12 switches in 120 s: 6 cycles of 2 × 120 / 12 = 20 s (seed 2 has 3 switches: 80 s);
    # sweep() gives each run 12 lead changes unless the row says otherwise
    claim = found["Fig. 9 2 BBR + 2 CUBIC at 1.75 BDP alternate dominance"]
    assert verdict(claim) == ("12 switches in 120 s (period ≈20 s)", True)


@pytest.mark.parametrize(
    ("switches", "expected"),
    [
        (25, ("25 switches in 120 s (period ≈10 s)", False)),  # 240 / 25 = 9.6 s
        (24, ("24 switches in 120 s (period ≈10 s)", True)),  # 240 / 24 = 10 s
        (8, ("8 switches in 120 s (period ≈30 s)", True)),  # 240 / 8 = 30 s
        (7, ("7 switches in 120 s (period ≈34 s)", False)),  # 240 / 7 = 34.3 s
        (0, ("0 switches in 120 s (period ≈inf s)", False)),
    ],
)
def test_the_cycle_period_holds_from_10_to_30_s(
    tmp_path: Path, switches: int, expected: tuple[str, bool]
) -> None:
    fig10 = sweep(
        tmp_path / "fig10", [share_row(1.75, 0.5, 0.4)], evenly(switches) if switches else []
    )
    found = aict19.fig9.analyse({"fig10": fig10}, "quick")
    assert [verdict(c) for c in found.claims] == [expected]
    assert [f.name for f in found.figures] == ["fig9"]


def test_lead_changes_shorter_than_the_2_s_smoothing_are_not_cycles(tmp_path: Path) -> None:
    # CUBIC leads for one half-second bin at 150 s: in the 4-bin mean BBR still leads by
    # (3 × 40 - 40) / 4 = 20 Mb/s, so the 12 lead changes stay 12 switches
    changes = sorted([*evenly(12), 150.0, 150.5])
    fig10 = sweep(tmp_path / "fig10", [share_row(1.75, 0.5, 0.4)], changes)
    found = aict19.fig9.analyse({"fig10": fig10}, "quick")
    assert [c.ours for c in found.claims] == ["12 switches in 120 s (period ≈20 s)"]


def test_the_cycle_claim_fails_without_a_1_75_bdp_run(tmp_path: Path) -> None:
    fig10 = sweep(tmp_path / "fig10", [share_row(1.75, 0.5, 0.4, **FAILED), share_row(2, 0.5, 0.4)])
    found = aict19.fig9.analyse({"fig10": fig10}, "quick")
    assert [(c.claim, c.ours, c.passed) for c in found.claims] == [
        ("2 BBR + 2 CUBIC at 1.75 BDP alternate dominance", "no finished run at 1.75 BDP", False)
    ]


# ----- Fig. 10 and Fig. 12: shares -------------------------------------------------------------


def test_shares_are_means_over_seeds_by_buffer_of_the_runs_that_finished(tmp_path: Path) -> None:
    rows = [
        share_row(2.0, 0.5, 0.3),
        share_row(0.5, 0.6, 0.2),
        share_row(0.5, 0.7, 0.3, seed=2),
        share_row(0.5, 0.0, 0.9, **FAILED),
    ]
    bbr, cubic, done = aict19._shares.by_buffer(sweep(tmp_path / "s", rows))
    # 0.5 BDP: BBR (0.6 + 0.7) / 2, CUBIC (0.2 + 0.3) / 2; ordered by buffer
    assert list(bbr) == list(cubic) == [0.5, 2.0]
    assert bbr == pytest.approx({0.5: 0.65, 2.0: 0.5})
    assert cubic == pytest.approx({0.5: 0.25, 2.0: 0.3})
    assert len(done) == 3


def test_the_fig10_claims_on_a_typical_sweep(typical: dict[str, SweepResults]) -> None:
    found = claims(aict19.fig10.analyse(typical, "quick"))
    # BBR at 0.5 BDP: seeds 0.8 and 0.9 → 85 %; the failed 8 BDP run (BBR 90 %) is ignored
    dominates = found["Fig. 10 BBR takes more than CUBIC below 1.5 BDP"]
    assert verdict(dominates) == ("BBR 70%–85%, CUBIC ≤ 25%", True)
    cross = found["Fig. 10 BBR and CUBIC shares cross"]
    assert (*verdict(cross), cross.tolerance) == ("5.0 BDP", True, "3–7 BDP")
    large = found["Fig. 10 CUBIC takes more than BBR in large buffers"]
    assert verdict(large) == ("CUBIC 60% vs BBR 30% at 8 BDP", True)


def test_the_fig12_claims_on_a_typical_sweep(typical: dict[str, SweepResults]) -> None:
    found = claims(aict19.fig12.analyse(typical, "quick"))
    assert "Fig. 12 BBR Shallow takes more than CUBIC below 1.5 BDP" not in found
    cross = found["Fig. 12 BBR Shallow and CUBIC shares cross"]
    assert (*verdict(cross), cross.tolerance) == ("2.5 BDP", True, "2–4.5 BDP")
    large = found["Fig. 12 CUBIC takes more than BBR Shallow in large buffers"]
    assert verdict(large) == ("CUBIC 60% vs BBR Shallow 30% at 8 BDP", True)
    moves = found["Fig. 12 the fair-share buffer moves down with BBR Shallow"]
    assert verdict(moves) == ("5.0 → 2.5 BDP", True)


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        # equal shares at 3 BDP: the crossing is that buffer
        ({1.0: (0.7, 0.2), 3.0: (0.5, 0.5), 8.0: (0.3, 0.6)}, ("3.0 BDP", True)),
        ({1.0: (0.7, 0.2), 7.0: (0.45, 0.45), 8.0: (0.3, 0.6)}, ("7.0 BDP", True)),
        # +0.1 at 2 BDP, -0.1 at 3: half way
        ({1.0: (0.7, 0.2), 2.0: (0.5, 0.4), 3.0: (0.4, 0.5)}, ("2.5 BDP", False)),
        ({1.0: (0.7, 0.2), 7.0: (0.5, 0.4), 8.0: (0.4, 0.5)}, ("7.5 BDP", False)),
        ({1.0: (0.7, 0.2), 8.0: (0.6, 0.3)}, ("no crossing", False)),
    ],
)
def test_the_shares_cross_between_3_and_7_bdp(
    points: dict[float, tuple[float, float]], expected: tuple[str, bool]
) -> None:
    bbr = {b: s[0] for b, s in points.items()}
    cubic = {b: s[1] for b, s in points.items()}
    found, cross = aict19._shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    assert verdict(claims(Findings(found))["Fig. 10 BBR and CUBIC shares cross"]) == expected
    assert (cross is None) == (expected[0] == "no crossing")


def test_bbr_must_take_more_than_cubic_at_each_buffer_below_1_5_bdp() -> None:
    bbr = {0.5: 0.7, 1.0: 0.5, 1.5: 0.3, 8.0: 0.3}
    cubic = {0.5: 0.2, 1.0: 0.5, 1.5: 0.6, 8.0: 0.3}  # equal at 1 BDP; 1.5 BDP is not below
    found, _ = aict19._shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    by_name = claims(Findings(found))
    dominates = by_name["Fig. 10 BBR takes more than CUBIC below 1.5 BDP"]
    assert verdict(dominates) == ("BBR 50%–70%, CUBIC ≤ 50%", False)
    large = by_name["Fig. 10 CUBIC takes more than BBR in large buffers"]
    assert verdict(large) == ("CUBIC 30% vs BBR 30% at 8 BDP", False)  # equal is not more
    cubic[1.0] = 0.49
    found, _ = aict19._shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    assert claims(Findings(found))["Fig. 10 BBR takes more than CUBIC below 1.5 BDP"].passed


def test_cubic_must_take_more_at_8_bdp_not_at_the_largest_buffer_that_ran() -> None:
    # the 8 BDP run failed: CUBIC leading at 6 BDP does not stand in for the paper's 8 BDP
    bbr, cubic = {1.0: 0.7, 6.0: 0.3}, {1.0: 0.2, 6.0: 0.6}
    found, _ = aict19._shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    large = claims(Findings(found))["Fig. 10 CUBIC takes more than BBR in large buffers"]
    assert verdict(large) == ("no finished run at 8 BDP", False)


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        # +0.1 at 4 BDP, -0.1 at 5 BDP: 4.5 BDP, the upper bound, and below Fig. 10's 5.0
        (
            {1.0: (0.6, 0.3), 4.0: (0.5, 0.4), 5.0: (0.4, 0.5), 8.0: (0.3, 0.6)},
            {"shares cross": ("4.5 BDP", True), "moves down": ("5.0 → 4.5 BDP", True)},
        ),
        (
            {1.0: (0.6, 0.3), 2.0: (0.45, 0.45), 8.0: (0.3, 0.6)},
            {"shares cross": ("2.0 BDP", True), "moves down": ("5.0 → 2.0 BDP", True)},
        ),
        # Fig. 10's own shares: the same buffer is not lower, and 5 BDP is beyond 4.5
        (FIG10, {"shares cross": ("5.0 BDP", False), "moves down": ("5.0 → 5.0 BDP", False)}),
        (
            {1.0: (0.6, 0.3), 8.0: (0.6, 0.3)},
            {"shares cross": ("no crossing", False), "moves down": ("no crossing", False)},
        ),
    ],
)
def test_bbr_shallows_shares_cross_from_2_to_4_5_bdp_and_below_bbrs(
    tmp_path: Path, points: dict[float, tuple[float, float]], expected: dict[str, tuple[str, bool]]
) -> None:
    results = {
        "fig10": sweep(tmp_path / "fig10", shares(FIG10)),
        "fig12": sweep(tmp_path / "fig12", shares(points)),
    }
    found = claims(aict19.fig12.analyse(results, "quick"))
    cross = found["Fig. 12 BBR Shallow and CUBIC shares cross"]
    moves = found["Fig. 12 the fair-share buffer moves down with BBR Shallow"]
    assert {"shares cross": verdict(cross), "moves down": verdict(moves)} == expected


def test_bbr_shallow_does_not_move_the_fair_share_buffer_when_bbrs_shares_never_cross(
    tmp_path: Path,
) -> None:
    results = {
        "fig10": sweep(tmp_path / "fig10", shares({1.0: (0.6, 0.3), 8.0: (0.6, 0.3)})),
        "fig12": sweep(tmp_path / "fig12", shares(FIG12)),
    }
    moves = claims(aict19.fig12.analyse(results, "quick"))
    assert verdict(moves["Fig. 12 the fair-share buffer moves down with BBR Shallow"]) == (
        "no crossing",
        False,
    )


def test_the_dominance_claim_fails_without_a_run_below_1_5_bdp() -> None:
    bbr, cubic = {2.0: 0.6, 8.0: 0.3}, {2.0: 0.3, 8.0: 0.6}
    found, _ = aict19._shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    assert not claims(Findings(found))["Fig. 10 BBR takes more than CUBIC below 1.5 BDP"].passed


# ----- Fig. 11 ---------------------------------------------------------------------------------


def test_bbr_shallow_must_lose_less_than_bbr_at_each_buffer_up_to_1_bdp(
    typical: dict[str, SweepResults],
) -> None:
    found = claims(aict19.fig11.analyse(typical, "quick"))
    assert verdict(found["Fig. 11 BBR Shallow loses less than BBR at 0.5 BDP"]) == (
        "8.00 % vs 11.00 %",
        True,
    )
    # equal loss is not less
    assert verdict(found["Fig. 11 BBR Shallow loses less than BBR at 1 BDP"]) == (
        "6.00 % vs 6.00 %",
        False,
    )
    assert "Fig. 11 BBR Shallow loses less than BBR at 2 BDP" not in found


def test_bbr_shallow_fails_where_its_run_is_missing(tmp_path: Path) -> None:
    rows = [
        loss_row(0.5, 0.11, cc=BBR_LABEL),
        loss_row(0.5, 0.01, seed=2, cc=BBR_LABEL),  # mean 6 %
        loss_row(0.5, 0.05, cc=SHALLOW),
        loss_row(0.5, 0.0, seed=2, cc=SHALLOW, **FAILED),
        loss_row(1.0, 0.06, cc=BBR_LABEL),
    ]
    found = aict19.fig11.analyse({"fig11": sweep(tmp_path / "fig11", rows)}, "quick")
    assert [verdict(c) for c in found.claims] == [
        ("5.00 % vs 6.00 %", True),
        ("– vs 6.00 %", False),
    ]


# ----- figures and protocol --------------------------------------------------------------------


def test_every_figure_of_the_paper_is_drawn(typical: dict[str, SweepResults]) -> None:
    figures = aict19.analyse(typical, "quick").figures
    assert [(f.name, f.title.split(":")[0]) for f in figures] == [
        ("fig4", "Fig. 4"),
        ("fig5", "Fig. 5"),
        ("fig6", "Fig. 6"),
        ("fig7", "Fig. 7"),
        ("fig8", "Fig. 8"),
        ("fig9", "Fig. 9"),
        ("fig10", "Fig. 10"),
        ("fig11", "Fig. 11"),
        ("fig12", "Fig. 12"),
    ]
    assert all(f.png.startswith(PNG) and f.paper_shows for f in figures)


@pytest.mark.filterwarnings("ignore:No artists with labels found")  # empty plots
def test_with_every_run_failed_each_claim_fails_without_a_number(
    typical: dict[str, SweepResults],
) -> None:
    found = aict19.analyse(unfinished(typical), "full")
    assert found.claims and [c.claim for c in found.claims if c.passed] == []
    assert [c.ours + c.note for c in found.claims if "nan" in c.ours + c.note] == []  # but "–"
    assert len(found.figures) == 8  # all but Fig. 9, which draws the run at 1.75 BDP


def test_buffers_are_labelled_in_bdp_and_read_back() -> None:
    assert buffer_label(0.25) == "0.25BDP"
    assert bdp(buffer_label(1.75)) == 1.75
    assert bdp("8BDP") == 8.0


def test_the_quick_protocol_is_a_shorter_subset_of_the_full_one() -> None:
    full = {e.name: e.sweep for e in aict19.experiments("full")}
    quick = {e.name: e.sweep for e in aict19.experiments("quick")}
    assert quick["fig5-bbr"].grid == {} and quick["fig5-bbr"].base["flow"][0]["count"] == 4
    assert full["fig5-bbr"].grid == {
        "flow.bbr.count": FLOWS,
        "bottleneck.rate": RATES,
    }
    assert full["fig5-cubic"].base["flow"][0]["cc"] == "cubic"
    for name in ("fig5-bbr", "fig5-cubic"):
        assert full[name].base["duration"] == "300s" and quick[name].base["duration"] == "120s"
        assert full[name].base["bottleneck"]["queue"]["limit"] == "8BDP"
        assert full[name].base["telemetry"]["summary_start"] == "60s"
    assert full["fig7"].grid == {
        "bottleneck.queue.limit": [buffer_label(b) for b in BUFFERS_TABLE_I],
        "flow.bbr.count": FLOWS,
        "bottleneck.rate": RATES,
    }
    assert quick["fig7"].grid["bottleneck.queue.limit"] == ["0.5BDP", "1BDP", "2BDP"]
    assert quick["fig11"].grid["bottleneck.queue.limit"] == ["0.5BDP", "1BDP", "2BDP"]
    assert full["fig11"].grid["bottleneck.queue.limit"] == [
        buffer_label(b) for b in BUFFERS_TABLE_I if b <= 2.0
    ]
    for name in ("fig10", "fig12"):
        assert [f["cc"] for f in full[name].base["flow"]] == [BBR_CC, "cubic"]
        assert quick[name].grid["bottleneck.queue.limit"] == [
            buffer_label(b) for b in BUFFERS_SHARES_QUICK
        ]
        assert len(full[name].grid["bottleneck.queue.limit"]) == 13
        assert quick[name].base["duration"] == "240s"
    flows = {
        "fig4": [(f"bbr{i}", 1) for i in range(1, 5)],
        "fig5-bbr": [("bbr", 4)],
        "fig5-cubic": [("cubic", 1)],
        "fig7": [("bbr", 2)],
        "fig10": [("bbr", 2), ("cubic", 2)],
        "fig11": [("bbr", 2)],
        "fig12": [("bbr", 2), ("cubic", 2)],
    }
    for name, sweep_ in quick.items():
        assert sweep_.seeds == [1] and full[name].seeds == (
            [1] if name == "fig5-cubic" else [1, 2, 3]
        )
        assert [(f["name"], f["count"]) for f in sweep_.base["flow"]] == flows[name]
        assert all(f.get("tso") is True for f in sweep_.base["flow"])
        bottleneck = sweep_.base["bottleneck"]
        assert (bottleneck["rate"], bottleneck["rtt"], bottleneck["jitter"]) == (
            "80Mbps",
            "25ms",
            HOST_JITTER,
        )
        if name == "fig4":  # the whole run: the claims take their own window (30–60 s)
            assert "summary_start" not in sweep_.base["telemetry"]
            continue
        window = sweep_.base["telemetry"]["summary_start"], sweep_.base["telemetry"]["summary_end"]
        assert window == (MINUTE if name.startswith("fig5") else STEADY)
    # Fig. 4 (§III): 4 BBR flows with staggered starts (2 s apart, our choice), 60 s, 8 BDP
    sync = full["fig4"].base
    assert [f["start"] for f in sync["flow"]] == ["0s", "2s", "4s", "6s"]
    assert (sync["duration"], sync["bottleneck"]["queue"]["limit"]) == ("60s", "8BDP")
    assert quick["fig4"].base == sync


def test_fig6_draws_the_half_second_loss_of_the_4_flow_run_and_the_papers_10_percent(
    tmp_path: Path,
) -> None:
    with drawn(aict19.fig6) as figures:
        aict19.fig6.analyse(fig6_results(tmp_path, 0.2, 120), "quick")
    [ax] = figures[0].axes
    [series] = lines(ax, unlabelled=True)[:1]
    # 240 bins over minutes 2–4, centred; 20 % in the first 120, none after
    assert series.x[0] == 120.25 and series.x[-1] == 239.75 and len(series.x) == 240
    assert series.y == pytest.approx([20.0] * 120 + [0.0] * 120)
    assert line(ax, "paper: ≈10 %").y == [10.0, 10.0]


def test_fig8_draws_each_groups_throughput_over_the_first_minute(tmp_path: Path) -> None:
    rows = [share_row(0.5, 0.75, 0.25), share_row(0.5, 0.9, 0.05, seed=2)]
    with drawn(aict19.fig8) as figures:
        aict19.fig8.analyse({"fig10": sweep(tmp_path / "fig10", rows)}, "quick")
    [ax] = figures[0].axes
    bbr, cubic = line(ax, "BBR"), line(ax, "CUBIC")
    # the lowest seed's run (aict19_tables.write_run): BBR leads at 60 of 80 Mb/s until the
    # first lead change (at 125 s), so 75 % and 25 % over 0–60 s, in 120 half-second bins
    assert len(bbr.x) == 120 and bbr.x[0] == 0.25
    assert bbr.y == pytest.approx([75.0] * 120) and cubic.y == pytest.approx([25.0] * 120)
