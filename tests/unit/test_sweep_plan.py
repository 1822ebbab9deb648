"""Planning a sweep: each point's scenario resolved by the core, its run key and rough cost, and
a failed run, keyed by what was asked for, where a point's scenario is invalid."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bloatlab import _native
from bloatlab.runstore import KEY_LENGTH, run_key
from bloatlab.sweep import Sweep, plan

BASE = {
    "name": "plan",
    "duration": "2s",
    "bottleneck": {"rate": "12Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "count": 2, "app": {"kind": "bulk"}}],
}


def test_a_valid_point_runs_its_resolved_scenario_under_its_key() -> None:
    sweep = Sweep.from_dict(
        {"scenario": BASE, "grid": {"bottleneck.rate": ["12Mbps", "24Mbps"]}, "seeds": [4]}
    )
    runs = plan(sweep, core_version="v-test")
    assert [run.point.params["bottleneck.rate"] for run in runs] == ["12Mbps", "24Mbps"]
    for run, mbps in zip(runs, [12, 24], strict=True):
        assert run.error is None
        doc = json.loads(run.task.scenario_json)
        assert doc["seed"] == 4 and doc["bottleneck"]["rate"] == f"{mbps}Mbps"
        resolved = json.loads(_native.resolve(run.task.scenario_json))
        assert run.key == run.task.key == run_key(resolved, "v-test")
        assert run.task.core_version == "v-test"
        # packets, roughly: 2 s at 12 Mb/s is 2000 of 12000 bits
        assert run.task.cost == pytest.approx(2 * mbps * 1e6 / 12_000, rel=1e-12)
        assert run.groups == {"a": ["a-0", "a-1"]}
    # the key names the core that computes it
    assert plan(sweep, core_version="v-other")[0].key != runs[0].key
    assert plan(sweep)[0].task.core_version == _native.version()


def test_a_runs_cost_takes_a_traces_mean_rate_and_a_minute_without_a_duration(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "t.log"
    trace.write_text("0 0\n1 6\n2 18\n")  # 12 Mb/s on average
    on_trace = {**BASE, "bottleneck": {"trace": str(trace), "rtt": "20ms"}}
    [run] = plan(Sweep.from_dict({"scenario": on_trace}))
    assert run.task.cost == pytest.approx(2 * 12e6 / 12_000, rel=1e-12)
    endless = {k: v for k, v in BASE.items() if k != "duration"}
    endless["flow"] = [{"name": "a", "cc": "bbr", "app": {"kind": "bulk", "bytes": "1MB"}}]
    [run] = plan(Sweep.from_dict({"scenario": endless}))
    assert run.task.cost == pytest.approx(60 * 12e6 / 12_000, rel=1e-12)


def _failed_key(version: str, asked: str) -> str:
    return "x" + hashlib.sha256(f"{version}\n{asked}".encode()).hexdigest()[: KEY_LENGTH - 1]


def test_an_invalid_point_is_a_failed_run_keyed_by_what_was_asked() -> None:
    sweep = Sweep.from_dict(
        {"scenario": BASE, "grid": {"bottleneck.rate": ["12Mbps", "fast"]}, "seeds": [1, 2]}
    )
    runs = plan(sweep, core_version="v-test")
    assert [run.error is None for run in runs] == [True, True, False, False]
    for run in runs[2:]:
        assert run.error is not None and run.error.startswith("bottleneck.rate: ")
        # the core refused the document: the document is what was asked for
        asked = json.loads(run.task.scenario_json)
        assert (asked["seed"], asked["bottleneck"]["rate"]) == (run.point.seed, "fast")
        assert run.key == _failed_key("v-test", run.task.scenario_json)
        assert len(run.key) == KEY_LENGTH
        assert (run.task.core_version, run.task.cost, run.groups) == ("v-test", 0.0, {})
    assert runs[2].key != runs[3].key  # one failed run per seed


def test_a_point_that_cannot_even_be_applied_is_keyed_by_the_base_and_overrides() -> None:
    sweep = Sweep.from_dict({"scenario": BASE, "grid": {"flow.nobody.cc": ["cubic"]}})
    [run] = plan(sweep, core_version="v-test")
    assert run.error is not None and "nobody" in run.error
    asked = json.dumps(
        {"base": sweep.base, "set": {"flow.nobody.cc": "cubic"}, "seed": 1}, default=str
    )
    assert (run.task.scenario_json, run.key) == (asked, _failed_key("v-test", asked))
