"""`bloatlab compare`: per-metric differences of two runs, or of matching rows of two sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bloatlab
from bloatlab import cli
from bloatlab.compare import compare, format_comparison
from bloatlab.sweep import Sweep, run_sweep

SCENARIO = {
    "name": "cmp",
    "duration": "3s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
}


def test_two_runs_differ_metric_by_metric(tmp_path: Path) -> None:
    a = bloatlab.simulate(SCENARIO).write(tmp_path / "a")
    b = bloatlab.simulate(SCENARIO, overrides={"bottleneck.rate": "20Mbps"}).write(tmp_path / "b")
    result = compare(a, b)
    by_name = {m["metric"]: m for m in result["metrics"]}
    goodput = by_name["flows.a.goodput_bps"]
    assert goodput["diff"] == pytest.approx(goodput["b"] - goodput["a"])
    assert goodput["rel"] == pytest.approx(goodput["diff"] / goodput["a"])
    text = format_comparison(result)
    assert "flows.a.goodput_bps" in text and "Mb/s" in text and "%" in text


def test_a_run_compared_with_itself_has_no_differences(tmp_path: Path) -> None:
    a = bloatlab.simulate(SCENARIO).write(tmp_path / "a")
    assert compare(a, a)["metrics"] == []
    assert "no differences" in format_comparison(compare(a, a))
    assert compare(a, a, changed_only=False)["metrics"]


def test_metric_patterns_narrow_the_comparison(tmp_path: Path) -> None:
    a = bloatlab.simulate(SCENARIO).write(tmp_path / "a")
    b = bloatlab.simulate(SCENARIO, overrides={"flow.a.cc": "cubic"}).write(tmp_path / "b")
    result = compare(a, b, patterns=["bottleneck.*"], changed_only=False)
    names = {m["metric"] for m in result["metrics"]}
    assert names and all(n.startswith("bottleneck.") for n in names)


def test_two_sweeps_compare_row_by_matching_parameters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {"scenario": SCENARIO, "grid": {"bottleneck.rate": ["5Mbps", "10Mbps", "20Mbps"]}}
    run_sweep(Sweep.from_dict(doc), tmp_path / "a", workers=0, progress=False)
    other = {**doc, "set": {"bottleneck.rtt": "40ms"}}
    other["grid"] = {"bottleneck.rate": ["10Mbps", "20Mbps", "40Mbps"]}
    run_sweep(Sweep.from_dict(other), tmp_path / "b", workers=0, progress=False)
    result = compare(tmp_path / "a", tmp_path / "b", patterns=["bottleneck.*"])
    assert result["matched_on"] == ["bottleneck.rate", "seed"]
    assert [r["params"]["bottleneck.rate"] for r in result["rows"]] == ["10Mbps", "20Mbps"]
    assert (result["only_in_a"], result["only_in_b"]) == (1, 1)
    assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert len(printed["rows"]) == 2


def test_a_run_and_a_sweep_do_not_compare(tmp_path: Path) -> None:
    a = bloatlab.simulate(SCENARIO).write(tmp_path / "a")
    run_sweep(Sweep.from_dict({"scenario": SCENARIO}), tmp_path / "s", workers=0, progress=False)
    with pytest.raises(ValueError, match="cannot compare a run"):
        compare(a, tmp_path / "s")
    assert cli.main(["compare", str(a), str(tmp_path / "nothing")]) == 1
