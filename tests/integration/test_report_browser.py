"""Run and sweep reports open in headless Chromium with every plot decoded and non-empty;
screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import bloatlab
from bloatlab.errors import ScenarioError
from bloatlab.report import write_report
from bloatlab.sweep import Sweep, run_sweep
from browser import image_sizes, is_blank, screenshot

REPO = Path(__file__).parents[2]


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
    # A DASH player (segments.parquet: the quality and buffer panel) beside a bulk flow.
    scenario = {
        "name": "report-dash",
        "duration": "40s",
        "bottleneck": {
            "rate": "10Mbps",
            "rtt": "40ms",
            "shaper": {"kind": "tbf", "burst": "100KB"},
            "queue": {"kind": "droptail", "limit": "4BDP"},
        },
        "flow": [
            {"name": "video", "cc": "bbr", "app": {"kind": "dash", "video": "www21"}},
            {"name": "bulk", "cc": "cubic", "start": "10s", "app": {"kind": "bulk"}},
        ],
    }
    folder = bloatlab.simulate(scenario).write(tmp_path / "dash")
    assert (folder / "segments.parquet").is_file()
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
    with pytest.raises(ScenarioError, match=r"^PATH: .* is neither a run folder"):
        write_report(tmp_path)
