"""Speed and memory of the simulator: `pytest -m benchmark -s` (same as `bloatlab bench`)."""

from __future__ import annotations

from types import ModuleType

from bloatlab import bench


def test_benchmarks(core: ModuleType) -> None:
    reports = bench.run_all(repeat=3)
    print()
    print(bench.format_table(reports))
    for report in reports:
        assert report["sim_s"] > 0
        assert report["packets"] > 0
        assert report["realtime_factor"] > 0
