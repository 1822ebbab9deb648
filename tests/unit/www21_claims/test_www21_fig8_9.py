"""WWW'21 Fig. 8/9: BBR's RTT samples and bandwidth estimates, pooled over the finished
runs' folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from www21_tables import claims, fig8_9_runs, judged, sample_run, sweep

from bloatlab.reproduce.www21 import fig8_9


def test_fig8_9_claims_pool_the_samples_of_the_finished_runs(tmp_path: Path) -> None:
    found = claims(fig8_9, {"fig8-9": sweep(fig8_9_runs(tmp_path), folder=tmp_path)})
    assert judged(found) == {
        # the finite RTTs at 10 MB, 0.5 0.6 0.7 0.9 s: median 0.65 s, 6.5 × 100 ms
        "median RTT at 10 MB, × propagation delay": ("7×", "6.5×", "≥ 3×", True),
        # of 0.1 0.105 0.2 0.11 0.3 s, three are within 110 ms
        "RTT samples at the propagation delay, 100 KB": (
            "≈70 %",
            "60%",
            "≥ 50 % within 10 %",
            True,
        ),
        # the finite estimates at 10 MB, 50 75 100 Mb/s: median 75, 3 × 25 Mb/s
        "median bandwidth estimate at 10 MB, × link rate": ("≈3×", "3.0×", "2–4.5×", True),
        # of 25 30 20 40 50 Mb/s, three are within 20 % of 25
        "estimates near the link rate at 100 KB": ("≈70 %", "60%", "≥ 50 % within 20 %", True),
    }
    assert [c.figure for c in found.values()] == ["Fig. 8", "Fig. 8", "Fig. 9", "Fig. 9"]


@pytest.mark.parametrize(
    ("buffer", "rtt_s", "bw_est_bps", "claim", "ours", "passed"),
    [
        (
            "100KB",
            [1.1 * 0.1, 0.111],  # 10 % over the propagation delay is within, 111 ms is not
            [25e6],
            "RTT samples at the propagation delay, 100 KB",
            "50%",
            True,
        ),
        (
            "100KB",
            [0.11, 0.111, 0.2],
            [25e6],
            "RTT samples at the propagation delay, 100 KB",
            "33%",
            False,
        ),
        ("100KB", [0.1], [30e6, 30.1e6], "estimates near the link rate at 100 KB", "50%", True),
        (
            "100KB",
            [0.1],
            [20e6, 19.9e6, 30.1e6],
            "estimates near the link rate at 100 KB",
            "33%",
            False,
        ),
        ("10MB", [0.31], [75e6], "median RTT at 10 MB, × propagation delay", "3.1×", True),
        ("10MB", [0.29], [75e6], "median RTT at 10 MB, × propagation delay", "2.9×", False),
        ("10MB", [0.5], [50e6], "median bandwidth estimate at 10 MB, × link rate", "2.0×", True),
        ("10MB", [0.5], [49e6], "median bandwidth estimate at 10 MB, × link rate", "2.0×", False),
        ("10MB", [0.5], [112.5e6], "median bandwidth estimate at 10 MB, × link rate", "4.5×", True),
        ("10MB", [0.5], [113e6], "median bandwidth estimate at 10 MB, × link rate", "4.5×", False),
    ],
)
def test_fig8_9_verdicts_on_each_side_of_the_tolerance(
    tmp_path: Path,
    buffer: str,
    rtt_s: list[float],
    bw_est_bps: list[float],
    claim: str,
    ours: str,
    passed: bool,
) -> None:
    run = sample_run(tmp_path, "a", buffer, rtt_s, bw_est_bps)
    found = claims(fig8_9, {"fig8-9": sweep([run], folder=tmp_path)})
    assert (found[claim].ours, found[claim].passed) == (ours, passed)
