"""The overview figure renders from any result, with or without telemetry."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pyarrow as pa

import bloatlab
from bloatlab.plots import overview_figure, save_overview

SCENARIO = """
name = "plot"
duration = "5s"
[bottleneck]
rate = "20Mbps"
rtt = "40ms"
[[flow]]
name = "bbr"
cc = "bbr"
[[flow]]
name = "cubic"
cc = "cubic"
start = "2s"
"""

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_overview_is_a_png_with_a_panel_per_quantity(
    fake_core_module: ModuleType, tmp_path: Path
) -> None:
    result = bloatlab.simulate(SCENARIO)
    figure = overview_figure(result)
    axes = [*figure.axes, *(twin for ax in figure.axes for twin in ax.child_axes)]
    labels = [ax.get_ylabel() for ax in axes]
    for label in [
        "throughput (Mb/s)",
        "packets",
        "bw estimate (Mb/s)",
        "smoothed RTT (ms)",
        "queue backlog",
        "backlog (BDP)",
        "CC state",
    ]:
        assert label in labels
    path = tmp_path / "overview.png"
    save_overview(result, path)
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert len(data) > 20_000


def test_throughput_follows_delivered_bytes(fake_core_module: ModuleType) -> None:
    figure = overview_figure(bloatlab.simulate(SCENARIO))
    throughput = next(ax for ax in figure.axes if ax.get_ylabel() == "throughput (Mb/s)")
    lines = {line.get_label(): line for line in throughput.get_lines()}
    bbr = np.asarray(lines["bbr"].get_ydata())
    assert np.allclose(bbr[len(bbr) // 2 :], 10, rtol=0.05)  # the fake gives each flow half
    assert np.allclose(lines["bottleneck"].get_ydata(), 20)


def test_overview_of_a_run_without_telemetry_still_renders(tmp_path: Path) -> None:
    result = bloatlab.Result(summary={"name": "empty"}, tables={"flows": pa.table({})})
    save_overview(result, tmp_path / "o.png")
    assert (tmp_path / "o.png").read_bytes()[:8] == PNG_MAGIC
