"""The sweep engine on the real core: process pool and Dask give the inline results bit for bit;
a sweep killed with SIGKILL at a random moment resumes with every run present exactly once; a
worker that dies fails only its own run."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
import pytest

from bloatlab.sweep import Sweep, plan, run_sweep
from bloatlab.sweep.executor import run_local

SWEEP_TOML = """
name = "engine"
seeds = 2

[scenario]
name = "engine"
duration = "20s"
bottleneck = { rate = "50Mbps", rtt = "30ms", queue = { kind = "droptail", limit = "1BDP" } }
telemetry = { interval = "50ms" }

[[scenario.flow]]
name = "test"
cc = "bbr"
app = { kind = "bulk" }

[[scenario.flow]]
name = "other"
cc = "cubic"
start = "1s"
app = { kind = "bulk" }

[grid]
"bottleneck.queue.limit" = ["0.5BDP", "2BDP", "8BDP"]
"flow.test.cc" = ["bbr", "cubic", { kind = "bbr", cwnd_gain = 1.5 }]
"""


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sweep") / "engine.toml"
    path.write_text(SWEEP_TOML)
    return path


@pytest.fixture(scope="module")
def reference(sweep_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sweep run one run after another in this process."""
    if not _core_built():
        pytest.skip("bloatlab._core is not built")
    out = tmp_path_factory.mktemp("inline")
    outcome = run_sweep(Sweep.from_file(sweep_file), out, workers=0, progress=False)
    assert outcome.failed == 0
    return out


def _core_built() -> bool:
    from conftest import real_core

    return real_core() is not None


def run_files(folder: Path) -> dict[str, dict[str, bytes]]:
    """key → {file name → bytes} of every run folder, without run.json (times, hosts)."""
    return {
        run.name: {f.name: f.read_bytes() for f in sorted(run.iterdir()) if f.name != "run.json"}
        for run in sorted((folder / "runs").iterdir())
        if not run.name.startswith(".")
    }


def assert_same_runs(folder: Path, reference: Path) -> None:
    ours, theirs = run_files(folder), run_files(reference)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key].keys() == theirs[key].keys(), key
        for name in theirs[key]:
            assert ours[key][name] == theirs[key][name], f"{key}/{name} differs"


def test_the_process_pool_gives_the_inline_results_bit_for_bit(
    core: ModuleType, sweep_file: Path, reference: Path, tmp_path: Path
) -> None:
    outcome = run_sweep(Sweep.from_file(sweep_file), tmp_path, workers=2, progress=False)
    assert (outcome.total, outcome.executed, outcome.failed) == (18, 18, 0)
    assert_same_runs(tmp_path, reference)
    assert len(pq.read_table(tmp_path / "sweep.parquet")) == 18


def test_a_dask_local_cluster_gives_the_local_results_bit_for_bit(
    core: ModuleType, sweep_file: Path, reference: Path, tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        outcome = run_sweep(
            Sweep.from_file(sweep_file), tmp_path, dask=cluster.scheduler_address, progress=False
        )
        hosts = {
            json.loads((tmp_path / "runs" / key / "run.json").read_text())["host"]
            for key in run_files(tmp_path)
        }
    assert (outcome.executed, outcome.failed) == (18, 0)
    assert all(str(os.getpid()) not in host for host in hosts), "ran on the cluster's workers"
    assert_same_runs(tmp_path, reference)


@pytest.mark.parametrize("attempt", range(3))
def test_a_sweep_killed_at_a_random_moment_resumes_with_every_run_exactly_once(
    core: ModuleType, sweep_file: Path, reference: Path, tmp_path: Path, attempt: int
) -> None:
    out = tmp_path / "out"
    command = [sys.executable, "-m", "bloatlab.cli", "sweep", str(sweep_file), "-o", str(out)]
    child = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not _stored(out) and time.monotonic() < deadline:  # the first run is being stored
        time.sleep(0.005)
    delay = random.Random().uniform(0.0, 0.5)  # the sweep stores runs for about half a second
    time.sleep(delay)
    os.killpg(child.pid, signal.SIGKILL)  # the sweep and its workers, as a killed job
    child.wait()
    stored_before = len(_stored(out))
    partial = [p.name for p in (out / "runs").iterdir() if ".tmp-" in p.name]
    print(
        f"killed {delay:.3f} s after the first run was stored: {stored_before} of 18 stored, "
        f"{len(partial)} half-written"
    )

    resumed = subprocess.run([*command, "-q"], capture_output=True, text=True, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({18 - stored_before} computed, {stored_before} already stored)" in resumed.stdout

    leftovers = [p.name for p in (out / "runs").iterdir() if p.name.startswith(".")]
    assert leftovers == [".lock"], "no half-written folder is left"
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []
    rows = pq.read_table(out / "sweep.parquet").to_pylist()
    assert len(rows) == 18
    assert len({row["run"] for row in rows}) == 18
    assert {row["status"] for row in rows} == {"done"}
    assert_same_runs(out, reference)


def test_a_worker_that_dies_fails_only_its_own_run(core: ModuleType, sweep_file: Path) -> None:
    long_run = Sweep.from_dict(
        {
            "scenario": json.loads(plan(Sweep.from_file(sweep_file))[0].task.scenario_json),
            "set": {"duration": "600s", "bottleneck.rate": "200Mbps"},
        }
    )
    tasks = [run.task for run in plan(long_run)] + [
        run.task for run in plan(Sweep.from_file(sweep_file))[:3]
    ]

    def kill_the_worker_soon() -> None:
        time.sleep(1.0)
        for child in multiprocessing.active_children():
            if child.name == "bloatlab-sweep-worker":
                os.kill(child.pid or 0, signal.SIGKILL)

    killer = threading.Thread(target=kill_the_worker_soon)
    killer.start()
    outcomes = list(run_local(tasks, workers=1))
    killer.join()
    by_key = {o.key: o for o in outcomes}
    assert len(outcomes) == 4
    died = by_key[tasks[0].key]
    assert not died.ok
    assert died.error is not None and "killed by signal 9" in died.error
    assert all(by_key[t.key].ok for t in tasks[1:])


def _stored(out: Path) -> list[str]:
    try:
        return [p.name for p in (out / "runs").iterdir() if not p.name.startswith(".")]
    except FileNotFoundError:
        return []
