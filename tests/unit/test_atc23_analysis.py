"""The ATC'23 reproduction's pure pieces: the §3.1 model, the rate schedule, the drop timer and
the declared protocol (no simulation)."""

from __future__ import annotations

import numpy as np
import pytest

from bloatlab.reproduce.atc23 import experiments, fig3, fig9
from bloatlab.reproduce.atc23._common import CCAS, cca_name, retransmission_ratio


def test_the_model_gives_the_papers_converge_points() -> None:
    # g = 2, R = 16: the loss-based flows hold 15/32 of the buffer, BBR the rest.
    assert fig3.model_p(2.0, 16.0) == pytest.approx(15 / 32)
    assert fig3.model_bbr(2.0, 16.0) == pytest.approx(17 / 32)
    # g = 1: BBR gets nothing whatever the buffer; g = 2 below 1 BDP: BBR takes all.
    assert fig3.model_bbr(1.0, 4.0) == 0.0
    assert fig3.model_bbr(2.0, 0.5) == 1.0


def test_the_schedule_alternates_every_ten_seconds() -> None:
    steps = fig9.schedule(40)
    assert steps == [
        {"at": "10s", "rate": "10Mbps"},
        {"at": "20s", "rate": "40Mbps"},
        {"at": "30s", "rate": "10Mbps"},
        {"at": "40s", "rate": "40Mbps"},
    ]


def test_a_drop_is_followed_when_the_estimate_is_within_1_5_times_the_new_rate() -> None:
    t = np.arange(0, 50, 0.05)
    estimate = np.full_like(t, 38e6)
    estimate[(t >= 12.5) & (t < 20)] = 9.6e6  # first drop followed after 2.5 s
    times = fig9.follow_times(t, estimate, end=50.0)  # drops at 10 and 30 s
    assert times == [pytest.approx(2.5), 10.0]  # the second never: counted as 10 s
    assert fig9.follow_times(t, estimate, end=25.0) == [pytest.approx(2.5)]


def test_the_retransmission_ratio_counts_resends_among_the_sent_bytes_per_flow() -> None:
    # The testbed's log: resend / send, where send counts the resends too. A flow that
    # delivered 100 bytes and resent 25 sent 125: 20 %, where retransmitted / delivered is 25 %.
    row = {"flows.sender.bytes_sent": 125.0, "flows.sender.bytes_retransmitted": 25.0}
    assert retransmission_ratio(row, ["sender"]) == pytest.approx(0.2)
    # A group of flows: the mean of its flows' ratios (Fig. 8's "per flow"), not the pooled
    # ratio (130 / 500 = 26 %); the other flows of the run do not count.
    row = {
        "flows.cca-0.bytes_sent": 100.0,
        "flows.cca-0.bytes_retransmitted": 10.0,
        "flows.cca-1.bytes_sent": 400.0,
        "flows.cca-1.bytes_retransmitted": 120.0,
        "flows.rival.bytes_sent": 50.0,
        "flows.rival.bytes_retransmitted": 50.0,
    }
    assert retransmission_ratio(row, ["cca-0", "cca-1"]) == pytest.approx((0.1 + 0.3) / 2)
    assert np.isnan(retransmission_ratio(row, []))


def test_the_algorithms_are_named_back_from_their_sweep_labels() -> None:
    for name, cc in CCAS.items():
        assert cca_name(cc) == name
    label = '{kind = "obbr", mu = 0.75, bbr = {artifact_base = true}}'
    assert cca_name(label) == "oBBR-0.75"


def test_the_experiments_follow_the_papers_protocol() -> None:
    full = {e.name: e.sweep for e in experiments("full")}
    quick = {e.name: e.sweep for e in experiments("quick")}
    assert set(full) == set(quick)
    assert full["fig3"].seeds == [1, 2, 3] and quick["fig3"].seeds == [1]
    assert len(full["fig3"].points()) == 13 * 3  # g ∈ {1, 2} × 5 R, and g 1.5/3/4 at R 16
    assert len(full["fig7"].points()) == 9 * 3 * 2 * 3  # algorithms × loss × settings × seeds
    assert full["fig8"].grid["flow.cca.count"] == [1, 2, 3, 4, 5]
    assert full["fig8"].base["flow"][0]["app"]["bytes"] == "1GB"
    assert full["fig12"].base["duration"] == "240s"
    g_max = full["fig12-g-max"]  # the sensitivity: oBBR-μ with the paper's g_max against BBR
    obbr, rival = (f["cc"] for f in g_max.base["flow"])
    assert obbr["g_max"] == 2.0 and cca_name(rival) == "BBR"
    assert g_max.grid["flow.obbr.cc.mu"] == [0.5, 0.75, 1.0]
    bottleneck = full["fig9"].base["bottleneck"]
    assert bottleneck["queue"]["limit"] == "300KB" and bottleneck["shaper"]["burst"] == "100KB"
