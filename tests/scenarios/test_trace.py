"""A DASH session over a throughput trace (`scenarios/dash-over-trace.toml`): the link follows
the trace, and so does what the player measures."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import bloatlab
from bloatlab.plots import overview_figure

SCENARIO = Path(__file__).parents[2] / "scenarios" / "dash-over-trace.toml"
PHASE_MBPS = [8.0, 2.0, 5.0, 1.2]  # traces/steps.log: 30 s each, repeated every 120 s
PAYLOAD = 1448 / 1500  # of each 1500-byte delivery opportunity
OVERRIDES_BBR = {"duration": "40s", "flow.video.cc": "bbr"}


def test_segments_arrive_at_the_rate_of_the_trace_phase_they_are_fetched_in(
    core: ModuleType,
) -> None:
    result = bloatlab.simulate(SCENARIO)
    trace = result.summary["scenario"]["bottleneck"]["trace"]
    assert trace["format"] == "pensieve"
    assert trace["period_ns"] == 120e9
    assert trace["mean_rate_bps"] == pytest.approx(np.mean(PHASE_MBPS) * 1e6, rel=1e-6)
    segments = result.to_pandas("segments")
    phase = (segments["request_t"] % 120 // 30).astype(int)
    medians = segments.groupby(phase)["throughput_bps"].median() / 1e6
    for i, mbps in enumerate(PHASE_MBPS):
        payload = mbps * PAYLOAD
        assert medians[i] <= payload * 1.02, f"phase {i}: {medians[i]:.2f} Mb/s > {payload:.2f}"
    # the slow phases keep the link busy for a whole segment, so a segment measures the link
    for i in (1, 3):
        payload = PHASE_MBPS[i] * PAYLOAD
        assert medians[i] == pytest.approx(payload, rel=0.1), f"phase {i}"
    # and the fast ones, whose short downloads include slow start, still measure faster
    assert medians[0] > medians[2] > medians[1] > medians[3]
    assert result.summary["flows"]["video"]["playback_complete"]


def test_the_overview_marks_the_traces_mean_and_leaves_out_an_estimate_cubic_lacks(
    core: ModuleType,
) -> None:
    result = bloatlab.simulate(SCENARIO, overrides={"duration": "40s"})
    figure = overview_figure(result)
    labels = [ax.get_ylabel() for ax in figure.axes]
    assert "bw estimate (Mb/s)" not in labels, "CUBIC has no bandwidth estimate"
    throughput = figure.axes[labels.index("throughput (Mb/s)")]
    lines = {line.get_label(): line for line in throughput.get_lines()}
    assert np.allclose(lines["trace mean"].get_ydata(), np.mean(PHASE_MBPS))
    bbr = overview_figure(bloatlab.simulate(SCENARIO, overrides=OVERRIDES_BBR))
    assert "bw estimate (Mb/s)" in [ax.get_ylabel() for ax in bbr.axes]
