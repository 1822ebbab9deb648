"""The benchmark figures, measured in-process on the fake core (the real runs are in
tests/benchmark/)."""

from __future__ import annotations

from types import ModuleType

import pytest

import bloatlab
from bloatlab import bench, cli


@pytest.mark.parametrize("name", sorted(bench.BENCHMARKS))
def test_benchmark_scenarios_are_valid(fake_core_module: ModuleType, name: str) -> None:
    bloatlab.resolve(bench.BENCHMARKS[name])


def test_measure_reports_speed_and_memory(fake_core_module: ModuleType) -> None:
    report = bench.measure("bbr-cubic-8flows-60s", repeat=2)
    assert report["sim_s"] == 60
    assert report["wall_s"] > 0
    assert report["realtime_factor"] == pytest.approx(60 / report["wall_s"])
    assert report["packets_per_s"] == pytest.approx(500 / report["wall_s"])
    assert report["peak_rss_mib"] >= report["baseline_rss_mib"] > 0
    table = bench.format_table([report])
    assert "bbr-cubic-8flows-60s" in table
    assert "peak RSS MiB" in table


@pytest.mark.parametrize("repeat", ["0", "-2"])
def test_a_repeat_below_one_is_refused_before_measuring(
    repeat: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # it used to measure once without a word
    assert cli.main(["bench", "--repeat", repeat]) == 2
    assert f"--repeat: {repeat}: allowed ≥ 1" in capsys.readouterr().err
