"""run_sweep in this process: the table, resuming, and failures that do not stop the sweep."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import bloatlab
from bloatlab import _native, cli
from bloatlab.sweep import Sweep, SweepResults, Task, execute, run_sweep

BASE = {
    "name": "unit-sweep",
    "duration": "1s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "count": 2, "app": {"kind": "bulk"}}],
    "telemetry": {"interval": "100ms"},
}


# A run's `host` when it ran in this process: host name and process id.
THIS_PROCESS = f"{socket.gethostname()}:{os.getpid()}"


def make(**fields: Any) -> Sweep:
    doc = {"scenario": BASE, "grid": {"bottleneck.rate": ["10Mbps", "20Mbps"]}, "seeds": 2}
    return Sweep.from_dict({**doc, **fields})


def sweep_rows(folder: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(folder / "sweep.parquet").to_pylist()
    return rows


def same_results(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """Equal rows, apart from the run times; NaN equals NaN."""

    def text(rows: list[dict[str, Any]]) -> str:
        return json.dumps([{k: v for k, v in r.items() if k != "wall_s"} for r in rows])

    return text(a) == text(b)


def test_a_sweep_stores_every_run_and_a_row_per_run(tmp_path: Path) -> None:
    out = run_sweep(make(), tmp_path, workers=0, progress=False)
    assert (out.total, out.executed, out.cached, out.failed) == (4, 4, 0, 0)
    rows = sweep_rows(tmp_path)
    assert [(r["bottleneck.rate"], r["seed"]) for r in rows] == [
        ("10Mbps", 1),
        ("10Mbps", 2),
        ("20Mbps", 1),
        ("20Mbps", 2),
    ]
    assert {r["status"] for r in rows} == {"done"}
    assert len({r["run"] for r in rows}) == 4
    for row in rows:
        folder = tmp_path / "runs" / row["run"]
        summary = json.loads((folder / "summary.json").read_text())
        assert row["flows.a-0.goodput_bps"] == summary["flows"]["a-0"]["goodput_bps"]
        assert row["groups.a.goodput_bps"] == pytest.approx(
            summary["flows"]["a-0"]["goodput_bps"] + summary["flows"]["a-1"]["goodput_bps"]
        )
        assert row["groups.a.flows"] == 2
        assert (folder / "flows.parquet").is_file()
        assert json.loads((folder / "run.json").read_text())["status"] == "done"
    manifest = json.loads((tmp_path / "sweep.json").read_text())
    assert [r["key"] for r in manifest["runs"]] == [r["run"] for r in rows]


def test_a_second_run_computes_nothing_and_a_lost_run_is_recomputed(tmp_path: Path) -> None:
    run_sweep(make(), tmp_path, workers=0, progress=False)
    first = sweep_rows(tmp_path)
    again = run_sweep(make(), tmp_path, workers=0, progress=False)
    assert (again.executed, again.cached) == (0, 4)
    lost = first[1]["run"]
    shutil.rmtree(tmp_path / "runs" / lost)
    partly = run_sweep(make(), tmp_path, workers=0, progress=False)
    assert (partly.executed, partly.cached) == (1, 3)
    assert same_results(sweep_rows(tmp_path), first)


def test_a_bigger_sweep_reuses_the_runs_it_shares(tmp_path: Path) -> None:
    run_sweep(make(), tmp_path, workers=0, progress=False)
    bigger = make(grid={"bottleneck.rate": ["10Mbps", "20Mbps", "30Mbps"]})
    out = run_sweep(bigger, tmp_path, workers=0, progress=False)
    assert (out.executed, out.cached) == (2, 4)
    assert len(sweep_rows(tmp_path)) == 6


def test_sweeps_can_share_a_run_store(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run_sweep(make(), tmp_path / "one", runs_dir=runs, workers=0, progress=False)
    other = run_sweep(
        make(name="other", seeds=[2]), tmp_path / "two", runs_dir=runs, workers=0, progress=False
    )
    assert (other.executed, other.cached) == (0, 2)
    assert SweepResults.load(tmp_path / "two").run_folder(sweep_rows(tmp_path / "two")[0]["run"])


def test_an_invalid_point_is_recorded_as_failed_and_the_rest_runs(tmp_path: Path) -> None:
    s = make(grid={"flow.a.cc": ["bbr", "nope"]}, seeds=1)
    out = run_sweep(s, tmp_path, workers=0, progress=False)
    assert (out.total, out.failed) == (2, 1)
    good, bad = sweep_rows(tmp_path)
    assert good["status"] == "done"
    assert bad["status"] == "failed"
    assert "flow" in bad["error"] and "nope" in bad["error"]
    meta = json.loads((tmp_path / "runs" / bad["run"] / "run.json").read_text())
    assert meta["status"] == "failed"
    assert meta["params"] == {"flow.a.cc": "nope"}
    assert meta["error"] == bad["error"]


def test_a_run_that_fails_while_simulating_is_recorded_and_retried_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bloatlab.sweep import worker

    real = worker._native.simulate

    def flaky(scenario_json: str) -> dict[str, object]:
        if '"20Mbps"' in scenario_json:
            raise RuntimeError("the core fell over")
        return real(scenario_json)

    monkeypatch.setattr(worker._native, "simulate", flaky)
    out = run_sweep(make(), tmp_path, workers=0, progress=False)
    assert (out.executed, out.failed) == (4, 2)
    rows = sweep_rows(tmp_path)
    assert [r["status"] for r in rows] == ["done", "done", "failed", "failed"]
    assert rows[2]["error"] == "RuntimeError: the core fell over"
    meta = json.loads((tmp_path / "runs" / rows[2]["run"] / "run.json").read_text())
    assert "Traceback" in meta["traceback"]
    assert (meta["host"], meta["core_version"]) == (
        THIS_PROCESS,
        _native.version(),
    )

    monkeypatch.setattr(worker._native, "simulate", real)
    retry = run_sweep(make(), tmp_path, workers=0, progress=False)
    assert (retry.executed, retry.cached, retry.failed) == (2, 2, 0)
    assert {r["status"] for r in sweep_rows(tmp_path)} == {"done"}


def test_parameter_columns_keep_numbers_and_label_the_rest(tmp_path: Path) -> None:
    shallow = {"kind": "bbr", "cwnd_gain": 1.5}
    s = make(grid={"flow.a.count": [1, 3], "flow.a.cc": ["bbr", shallow]}, seeds=1)
    run_sweep(s, tmp_path, workers=0, progress=False)
    table = pq.read_table(tmp_path / "sweep.parquet")
    assert str(table.schema.field("flow.a.count").type) == "int64"
    assert (
        table.column("flow.a.cc").to_pylist()
        == [
            "bbr",
            '{kind = "bbr", cwnd_gain = 1.5}',
        ]
        * 2
    )
    assert json.loads(table.schema.metadata[b"bloatlab.parameters"]) == [
        "flow.a.count",
        "flow.a.cc",
    ]


def test_the_cli_exits_1_when_runs_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "s.toml"
    file.write_text(
        'seeds = 1\n[scenario]\nduration = "1s"\n'
        '[scenario.bottleneck]\nrate = "10Mbps"\nrtt = "20ms"\n'
        '[[scenario.flow]]\nname = "a"\ncc = "bbr"\napp = { kind = "bulk" }\n'
        '[grid]\n"flow.a.cc" = ["bbr", "nope", "neither", "cubic"]\n'
    )
    where = ["-o", str(tmp_path / "out")]
    code = cli.main(["sweep", str(file), *where, "--workers", "0", "-q"])
    assert code == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert re.fullmatch(
        r"sweep s: 4 runs \(2 computed, 0 already stored\), 2 failed, [\d.]+ s on this process",
        lines[0],
    )
    assert re.fullmatch(r"  simulation [\d.]+ s \(core [\d.]+ s\), worker time [\d.]+ s", lines[1])
    assert lines[2:] == [f"  results: {tmp_path / 'out' / 'sweep.parquet'}"]
    failed = err.splitlines()
    assert len(failed) == 2 and all(re.match(r"  failed x[0-9a-f]{15}: flow", e) for e in failed)
    assert "nope" in err and "neither" in err
    # again: nothing computed, so no simulation line
    cli.main(["sweep", str(file), *where, "--workers", "0", "-q"])
    again = capsys.readouterr().out.splitlines()
    assert "4 runs (0 computed, 2 already stored), 2 failed" in again[0]
    assert again[1].startswith("  results: ")
    assert cli.main(["sweep", str(file), *where, "--dry-run"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in listing] == ["done", "invalid", "invalid", "done"]
    assert re.fullmatch(r"[0-9a-f]{16}  done     flow\.a\.cc=bbr, seed 1", listing[0])
    # bad options name themselves
    assert cli.main(["sweep", str(file), *where, "--set", "flow.a.cc=reno"]) == 2
    assert "flow.a.cc: is swept; --set cannot also fix it" in capsys.readouterr().err
    assert cli.main(["sweep", str(file), *where, "--workers", "-1"]) == 2
    assert "--workers: -1: allowed ≥ 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("workers", "text"),
    [(0, "this process"), (1, "1 worker"), (3, "3 workers"), (None, "2 workers")],
)
def test_the_cli_says_where_a_sweep_ran(workers: int | None, text: str) -> None:
    from bloatlab.commands import _workers_text

    assert _workers_text(workers, cores=2) == text


def test_a_bad_sweep_file_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    file = tmp_path / "s.toml"
    file.write_text('base = "missing.toml"\n')
    assert cli.main(["sweep", str(file), "-o", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()


def test_run_json_records_who_computed_a_run_and_how_long_it_took(tmp_path: Path) -> None:
    out = run_sweep(make(grid={"flow.a.cc": ["bbr", "nope"]}), tmp_path, workers=0, progress=False)
    rows = sweep_rows(tmp_path)
    assert sorted(out.timings) == sorted(r["run"] for r in rows if r["status"] == "done")
    for row in rows[:2]:
        meta = json.loads((tmp_path / "runs" / row["run"] / "run.json").read_text())
        timing = out.timings[row["run"]]
        assert meta == {
            "key": row["run"],
            "status": "done",
            "core_version": _native.version(),
            "bloatlab_version": bloatlab.__version__,
            "timing": timing,
            "host": THIS_PROCESS,  # workers=0
        }
        assert 0 < timing["core_s"] <= timing["simulate_s"] < timing["worker_s"]
        assert timing["worker_s"] == pytest.approx(timing["simulate_s"] + timing["serialise_s"])
        assert row["wall_s"] == timing["simulate_s"]
    # the sweep's times sum its runs'
    for name in ("simulate_s", "core_s", "worker_s"):
        total = sum(t[name] for t in out.timings.values())
        assert getattr(out, name) == pytest.approx(total, rel=1e-12)
    assert min(out.plan_s, out.store_s, out.table_s) > 0
    assert out.plan_s + out.store_s + out.table_s < out.wall_s < 60
    assert (out.folder, out.table_path) == (tmp_path, tmp_path / "sweep.parquet")
    for row in rows[2:]:
        meta = json.loads((tmp_path / "runs" / row["run"] / "run.json").read_text())
        assert meta["scenario"]["flow"][0]["cc"] == "nope"  # what was asked, parsed
        del meta["scenario"]
        assert meta == {
            "key": row["run"],
            "status": "failed",
            "error": row["error"],
            "traceback": None,
            "core_version": _native.version(),
            "bloatlab_version": bloatlab.__version__,
            "params": {"flow.a.cc": "nope"},
            "seed": row["seed"],
        }
    assert out.errors == {r["run"]: r["error"] for r in rows[2:]}


def test_a_worker_with_another_core_refuses_the_task() -> None:
    outcome = execute(Task("k", "{}", "0.0-elsewhere"))
    assert not outcome.ok and outcome.traceback is None and outcome.files == {}
    assert outcome.error == (
        f"this worker's core is version {_native.version()}, the sweep's is 0.0-elsewhere: "
        "install the same bloatlab on every worker"
    )
    assert outcome.host == THIS_PROCESS


def test_the_longest_runs_start_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bloatlab.sweep import worker

    real = worker._native.simulate
    order: list[str] = []

    def recording(scenario_json: str) -> dict[str, object]:
        order.append(json.loads(scenario_json)["bottleneck"]["rate"])
        return real(scenario_json)

    monkeypatch.setattr(worker._native, "simulate", recording)
    grid = {"bottleneck.rate": ["10Mbps", "40Mbps", "20Mbps"]}
    run_sweep(make(grid=grid, seeds=1), tmp_path, workers=0, progress=False)
    assert order == ["40Mbps", "20Mbps", "10Mbps"]  # cost: simulated packets
