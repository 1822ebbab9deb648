"""BBR2-S's percentile filter on a clean path: BBRv2's 1 % pacing margin drags it down.

BBRv2 paces 1 % below its estimate (`bbr_pacing_margin_percent`, also in `bbr2s.c`). With the
max filter that costs nothing: the next probe's samples restore the maximum. BBR2-S reads the
86th smallest of its last 100 samples instead, and while it cruises those samples are its own
pacing rate, so the estimate sinks by about the margin every history's worth of ACKs until the
next probe lifts it. One bulk flow, 25 Mb/s, 100 ms, 10 MB buffer, no token bucket, 50 s
measured.
"""

from __future__ import annotations

import numpy as np
from helpers import run_all

import bloatlab
from bloatlab.builders import HOST_JITTER, bulk, dumbbell

PAYLOAD_BPS = 25e6 * 1448 / 1500  # what a bandwidth estimate converges to on this link
NO_MARGIN = {"kind": "bbr2-s", "base": {"pacing_margin_percent": 0}}


def _runs(*ccs: object) -> list[bloatlab.Result]:
    return run_all(
        dumbbell(
            "25Mbps",
            "100ms",
            "10MB",
            [bulk("f", cc)],
            "60s",
            window=("10s", "60s"),
            jitter=HOST_JITTER,
        )
        for cc in ccs
    )


def _share(r: bloatlab.Result) -> float:
    return r.summary["flows"]["f"]["bw_est_mean_bps"] / PAYLOAD_BPS


def _falling_while_cruising(r: bloatlab.Result) -> float:
    """Share of 100 ms steps inside PROBE_BW_CRUISE in which the estimate went down."""
    df = r.flows.to_pandas()
    state = df["cc_state"].astype(str).to_numpy()
    bw = df["bw_est_bps"].to_numpy()
    steps = [
        bw[i] < bw[i - 1]
        for i in range(1, len(df))
        if state[i] == state[i - 1] == "PROBE_BW_CRUISE"
    ]
    return float(np.mean(steps))


def test_the_pacing_margin_pulls_bbr2_s_below_the_link() -> None:
    bbr2, bbr2_s, no_margin = _runs("bbr2", "bbr2-s", NO_MARGIN)
    assert _share(bbr2_s) <= 0.95, f"BBR2-S estimates {_share(bbr2_s):.3f} of the link"
    assert _share(no_margin) >= 0.98, f"without the margin {_share(no_margin):.3f}"
    assert _share(bbr2) >= 0.98, f"BBR2's max filter {_share(bbr2):.3f}"
    assert _falling_while_cruising(bbr2_s) >= 0.8
    assert _falling_while_cruising(no_margin) <= 0.5
