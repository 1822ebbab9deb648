"""Run and sweep reports open in headless Chromium with every plot decoded and non-empty;
screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bloatlab
from bloatlab.report import write_report
from bloatlab.sweep import Sweep, run_sweep
from browser import image_sizes, is_blank, screenshot

REPO = Path(__file__).parents[2]


def segments(count: int = 40) -> pa.Table:
    """A made-up DASH download log in the segments.parquet schema the video app will write."""
    rng = np.random.default_rng(1)
    index = np.arange(count)
    level = np.clip(np.cumsum(rng.integers(-1, 2, count)), 0, 5)
    bitrate = np.array([0.4, 0.8, 1.5, 2.5, 4.0, 6.0])[level] * 1e6
    request = index * 4.0 + rng.uniform(0, 0.5, count)
    last = request + rng.uniform(0.5, 3.5, count)
    buffer = np.clip(np.cumsum(rng.uniform(-2.0, 4.0, count)), 0, 30)
    return pa.table(
        {
            "index": index,
            "level": level,
            "bitrate_bps": bitrate,
            "bytes": (bitrate * 4 / 8).astype(np.int64),
            "request_t": request,
            "first_byte_t": request + 0.05,
            "last_byte_t": last,
            "throughput_bps": bitrate * 4 / (last - request),
            "abr_estimate_bps": bitrate * rng.uniform(0.8, 1.4, count),
            "buffer_s": buffer,
            "stall": buffer == 0,
        }
    )


def check_page(page: Path, name: str, expected_plots: int) -> None:
    sizes = image_sizes(page)
    assert len(sizes) == expected_plots
    for width, height, complete in sizes:
        assert complete and width > 0 and height > 0
    shot = screenshot(page, name)
    assert not is_blank(shot)
    pngs = sorted(page.with_name(f"{page.stem}_files").glob("*.png"))
    assert len(pngs) == expected_plots
    for png in pngs:
        assert not is_blank(png), f"{png.name} is blank"


def test_a_run_report_renders_every_panel_in_chromium(core: ModuleType, tmp_path: Path) -> None:
    result = bloatlab.simulate(REPO / "scenarios" / "demo.toml", overrides={"duration": "20s"})
    folder = result.write(tmp_path / "demo")
    pq.write_table(segments(), folder / "segments.parquet")
    page = write_report(folder)
    html = page.read_text()
    for title in (
        "Throughput per flow",
        "Congestion window and inflight",
        "Bandwidth estimate against the true rate",
        "Round-trip time",
        "Bottleneck queue backlog",
        "Congestion-control state timeline",
        "CDF of RTT",
        "CDF of delivery-rate samples",
        "Video quality and player buffer",
    ):
        assert f'alt="{title}"' in html, title
    check_page(page, "run-report", expected_plots=9)


def test_a_sweep_report_renders_every_metric_in_chromium(core: ModuleType, tmp_path: Path) -> None:
    sweep = Sweep.from_file(REPO / "scenarios" / "sweeps" / "first-sweep.toml")
    sweep = Sweep.from_dict({**sweep.to_dict(), "set": {"duration": "15s"}, "seeds": 2})
    outcome = run_sweep(sweep, tmp_path / "sweep", progress=False)
    assert outcome.failed == 0
    page = write_report(tmp_path / "sweep")
    html = page.read_text()
    assert "one line per <code>flow.test.cc</code>" in html
    assert "bottleneck.queue.limit (BDP)" not in html  # axes are in the PNGs, not the text
    plots = html.count("<img ")
    assert plots >= 10
    check_page(page, "sweep-report", expected_plots=plots)


def test_report_rejects_a_folder_that_is_neither(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="neither a run folder"):
        write_report(tmp_path)
