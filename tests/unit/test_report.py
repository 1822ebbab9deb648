"""Reports: self-contained HTML (PNG data URIs), the PNGs beside it, panels chosen by the data."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bloatlab
from bloatlab import cli
from bloatlab.report import write_report
from bloatlab.sweep import Sweep, run_sweep

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SCENARIO = {
    "name": "report",
    "duration": "3s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [
        {"name": "bbr", "cc": "bbr", "app": {"kind": "bulk"}},
        {"name": "cubic", "cc": "cubic", "app": {"kind": "bulk"}, "start": "1s"},
    ],
}


def embedded_pngs(page: Path) -> list[bytes]:
    html = page.read_text()
    assert "http://" not in html and "https://" not in html  # self-contained
    return [base64.b64decode(d) for d in re.findall(r'src="data:image/png;base64,([^"]+)"', html)]


def test_a_run_report_embeds_its_plots_and_writes_them_beside_it(tmp_path: Path) -> None:
    folder = bloatlab.simulate(SCENARIO).write(tmp_path / "run")
    page = write_report(folder)
    assert page == folder / "report.html"
    images = embedded_pngs(page)
    assert len(images) >= 6
    assert all(image.startswith(PNG_MAGIC) for image in images)
    files = sorted((folder / "report_files").glob("*.png"))
    assert [f.read_bytes() for f in files] == images
    html = page.read_text()
    assert "Throughput per flow" in html and "Congestion-control state timeline" in html
    assert "Video quality" not in html  # no segments.parquet


def segments(count: int = 40) -> pa.Table:
    """A made-up DASH download log with the documented columns (no flow, track, abandoned)."""
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


def test_a_run_with_segments_gets_the_video_panel(tmp_path: Path) -> None:
    folder = bloatlab.simulate(SCENARIO).write(tmp_path / "run")
    pq.write_table(segments(), folder / "segments.parquet")
    html = write_report(folder).read_text()
    assert 'alt="Video quality and player buffer"' in html


def test_without_rate_samples_the_cdfs_use_the_telemetry(tmp_path: Path) -> None:
    folder = bloatlab.simulate(SCENARIO).write(tmp_path / "run")
    (folder / "samples.parquet").unlink()
    html = write_report(folder, tmp_path / "elsewhere.html").read_text()
    assert "CDF of RTT" in html
    assert "telemetry column srtt_s" in html
    assert (tmp_path / "elsewhere_files").is_dir()


def test_a_sweep_report_plots_metrics_against_the_numeric_parameter(tmp_path: Path) -> None:
    sweep = Sweep.from_dict(
        {
            "scenario": SCENARIO,
            "grid": {"flow.bbr.cc": ["bbr", "reno"], "bottleneck.rate": ["5Mbps", "10Mbps"]},
            "zip": {"flow.cubic.cc": ["cubic", "nope"]},
            "seeds": 2,
        }
    )
    run_sweep(sweep, tmp_path, workers=0, progress=False)
    page = write_report(tmp_path)
    html = page.read_text()
    assert "x axis: <code>bottleneck.rate</code>" in html
    assert "one line per <code>flow.bbr.cc</code>" in html  # flow.cubic.cc=nope never ran
    assert len(embedded_pngs(page)) >= 3
    assert "8 failed" in html and "nope" in html  # the failed runs and their errors
    narrowed = write_report(tmp_path, tmp_path / "one.html", metrics=["bottleneck.drop_rate"])
    assert len(embedded_pngs(narrowed)) == 1


def test_the_x_axis_is_the_numeric_parameter_with_most_values(tmp_path: Path) -> None:
    grid = {"bottleneck.rate": ["5Mbps", "10Mbps"], "bottleneck.rtt": ["10ms", "20ms", "40ms"]}
    sweep = Sweep.from_dict({"scenario": SCENARIO, "grid": grid})
    run_sweep(sweep, tmp_path, workers=0, progress=False)
    html = write_report(tmp_path).read_text()
    assert "x axis: <code>bottleneck.rtt</code>" in html
    assert "one line per <code>bottleneck.rate</code>" in html
    chosen = write_report(tmp_path, tmp_path / "by-rate.html", x="bottleneck.rate").read_text()
    assert "x axis: <code>bottleneck.rate</code>" in chosen


def test_report_options_are_checked(tmp_path: Path) -> None:
    sweep = Sweep.from_dict({"scenario": SCENARIO, "grid": {"bottleneck.rate": ["5Mbps"]}})
    run_sweep(sweep, tmp_path, workers=0, progress=False)
    assert cli.main(["report", str(tmp_path), "--metric", "no.such"]) == 2
    assert cli.main(["report", str(tmp_path), "--x", "flow.bbr.cc"]) == 2
    assert cli.main(["report", str(tmp_path / "missing")]) == 2  # bad input


def test_sweep_options_on_a_run_folder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # they used to be ignored without a word
    folder = bloatlab.simulate(SCENARIO).write(tmp_path / "run")
    assert cli.main(["report", str(folder), "--metric", "bottleneck.drop_rate"]) == 2
    assert "--metric: only for a sweep folder" in capsys.readouterr().err
    assert cli.main(["report", str(folder), "--x", "seed"]) == 2
    assert "--x: only for a sweep folder" in capsys.readouterr().err
    assert not (folder / "report.html").exists()


@pytest.mark.parametrize(
    ("missing", "gone", "kept"),
    [
        ("flows.parquet", "Congestion window and inflight", "Bottleneck queue backlog"),
        ("queue.parquet", "Bottleneck queue backlog", "Congestion window and inflight"),
    ],
)
def test_a_run_without_a_table_still_reports_without_its_panels(
    tmp_path: Path, missing: str, gone: str, kept: str
) -> None:
    folder = bloatlab.simulate(SCENARIO).write(tmp_path / "run")
    (folder / missing).unlink()
    page = write_report(folder)
    assert embedded_pngs(page)
    html = page.read_text()
    assert gone not in html
    assert kept in html
