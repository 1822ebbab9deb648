"""`bloatlab compare`: per-metric differences of two runs, or of matching rows of two sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bloatlab
from bloatlab import Result, cli
from bloatlab.compare import compare, format_comparison
from bloatlab.errors import ScenarioError
from bloatlab.sweep import Sweep, run_sweep
from bloatlab.sweep.table import SweepResults

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
    doc = {
        "scenario": SCENARIO,
        "grid": {"bottleneck.rate": ["5Mbps", "10Mbps", "20Mbps"], "flow.a.initial_cwnd": [10]},
        "seeds": [3],
    }
    run_sweep(Sweep.from_dict(doc), tmp_path / "a", workers=0, progress=False)
    other = {**doc, "set": {"bottleneck.rtt": "40ms"}}
    other["grid"] = {"bottleneck.rate": ["10Mbps", "20Mbps", "40Mbps"], "flow.a.initial_cwnd": [10]}
    run_sweep(Sweep.from_dict(other), tmp_path / "b", workers=0, progress=False)
    result = compare(tmp_path / "a", tmp_path / "b", patterns=["bottleneck.*"])
    assert result["matched_on"] == ["bottleneck.rate", "flow.a.initial_cwnd", "seed"]
    assert [r["params"]["bottleneck.rate"] for r in result["rows"]] == ["10Mbps", "20Mbps"]
    assert (result["only_in_a"], result["only_in_b"]) == (1, 1)
    assert (result["kind"], result["a"], result["b"]) == (
        "sweep",
        str(tmp_path / "a"),
        str(tmp_path / "b"),
    )
    for row in result["rows"]:
        assert row["seed"] == 3 and row["params"]["flow.a.initial_cwnd"] == 10
        assert SweepResults.load(tmp_path / "a").run_folder(row["run_a"]).is_dir()
        assert SweepResults.load(tmp_path / "b").run_folder(row["run_b"]).is_dir()
        names = [m["metric"] for m in row["metrics"]]
        # the RTT doubled: the BDP changed, the capacity did not
        assert "bottleneck.bdp_bytes" in names and "bottleneck.capacity_bps" not in names
        assert all(n.startswith("bottleneck.") for n in names)
    every = compare(tmp_path / "a", tmp_path / "b", changed_only=False)["rows"][0]["metrics"]
    names = [m["metric"] for m in every]
    assert "bottleneck.capacity_bps" in names and "flows.a.goodput_bps" in names
    assert "wall_s" not in names  # the host's time, not the run's
    assert cli.main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert len(printed["rows"]) == 2


def test_a_run_and_a_sweep_do_not_compare(tmp_path: Path) -> None:
    a = bloatlab.simulate(SCENARIO).write(tmp_path / "a")
    run_sweep(Sweep.from_dict({"scenario": SCENARIO}), tmp_path / "s", workers=0, progress=False)
    with pytest.raises(ValueError, match="cannot compare a run"):
        compare(a, tmp_path / "s")
    with pytest.raises(ValueError, match=r"cannot compare a sweep \(.*\) with a run"):
        compare(tmp_path / "s", a)
    assert cli.main(["compare", str(a), str(tmp_path / "nothing")]) == 2  # bad input


def test_differences_keep_a_then_bs_metrics_and_say_none_where_a_side_has_none(
    tmp_path: Path,
) -> None:
    a = Result(
        {
            "bottleneck": {"capacity_bps": 1e7, "utilisation": 0.5},
            "flows": {
                "x": {
                    "goodput_bps": 4e6,
                    "rtt_mean_s": None,
                    "bw_est_mean_bps": None,
                    "rto_events": 0,
                    "only_a": 1,
                }
            },
        },
        {},
    ).write(tmp_path / "a")
    b = Result(
        {
            "bottleneck": {"capacity_bps": 1e7, "utilisation": 0.75},
            "flows": {
                "x": {
                    "goodput_bps": 4e6,
                    "rtt_mean_s": 0.1,
                    "bw_est_mean_bps": None,
                    "rto_events": 3,
                    "only_b": 2,
                }
            },
        },
        {},
    ).write(tmp_path / "b")
    assert compare(a, b) == {
        "kind": "run",
        "a": str(a),
        "b": str(b),
        "metrics": [
            {"metric": "bottleneck.utilisation", "a": 0.5, "b": 0.75, "diff": 0.25, "rel": 0.5},
            # not applicable in A: no difference to give
            {"metric": "flows.x.rtt_mean_s", "a": None, "b": 0.1, "diff": None, "rel": None},
            # from nothing: no relative change
            {"metric": "flows.x.rto_events", "a": 0.0, "b": 3.0, "diff": 3.0, "rel": None},
            {"metric": "flows.x.only_a", "a": 1.0, "b": None, "diff": None, "rel": None},
            {"metric": "flows.x.only_b", "a": None, "b": 2.0, "diff": None, "rel": None},
        ],
    }
    # everything, the unchanged too, when asked; None on both sides counts as unchanged
    every = [m["metric"] for m in compare(a, b, changed_only=False)["metrics"]]
    assert every == [
        "bottleneck.capacity_bps",
        "bottleneck.utilisation",
        "flows.x.goodput_bps",
        "flows.x.rtt_mean_s",
        "flows.x.bw_est_mean_bps",
        "flows.x.rto_events",
        "flows.x.only_a",
        "flows.x.only_b",
    ]
    with pytest.raises(ScenarioError, match=r"^B: no such folder: .*nothing$"):
        compare(a, tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match=r"^A: .*empty is neither a run folder \(summary"):
        compare(tmp_path / "empty", a)


def test_a_run_comparison_prints_one_aligned_table_in_each_metrics_unit() -> None:
    comparison = {
        "kind": "run",
        "a": "runs/a",
        "b": "runs/b",
        "metrics": [
            {"metric": "flows.a.goodput_bps", "a": 4e6, "b": 5e6, "diff": 1e6, "rel": 0.25},
            {
                "metric": "bottleneck.backlog_p50_bytes",
                "a": 2e6,
                "b": None,
                "diff": None,
                "rel": None,
            },
            {"metric": "flows.a.jain_index", "a": 0.5, "b": 0.25, "diff": -0.25, "rel": -0.5},
        ],
    }
    assert format_comparison(comparison).splitlines() == [
        "A: runs/a",
        "B: runs/b",
        "metric                             A       B    B - A  relative",
        "flows.a.goodput_bps           4 Mb/s  5 Mb/s  +1 Mb/s   +25.0 %",
        "bottleneck.backlog_p50_bytes    2 MB       –        –         –",
        "flows.a.jain_index               0.5    0.25    -0.25   -50.0 %",
    ]


def test_a_sweep_comparison_prints_a_table_per_matched_row() -> None:
    comparison = {
        "kind": "sweep",
        "a": "sa",
        "b": "sb",
        "matched_on": ["bottleneck.rate", "seed"],
        "only_in_a": 1,
        "only_in_b": 2,
        "rows": [
            {"params": {"bottleneck.rate": "10Mbps"}, "seed": 1, "metrics": []},
            {
                "params": {"bottleneck.rate": "20Mbps"},
                "seed": 2,
                "metrics": [
                    {
                        "metric": "bottleneck.utilisation",
                        "a": 0.5,
                        "b": 0.25,
                        "diff": -0.25,
                        "rel": -0.5,
                    }
                ],
            },
        ],
    }
    assert format_comparison(comparison).splitlines() == [
        "A: sa",
        "B: sb",
        "2 rows matched on bottleneck.rate, seed; 1 only in A, 2 only in B",
        "",
        "bottleneck.rate=10Mbps, seed 1",
        "  no differences",
        "",
        "bottleneck.rate=20Mbps, seed 2",
        "  metric                     A     B  B - A  relative",
        "  bottleneck.utilisation  50 %  25 %  -25 %   -50.0 %",
    ]
