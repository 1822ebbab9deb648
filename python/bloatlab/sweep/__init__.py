"""Sweeps: many runs of one scenario over a grid of parameters and seeds, resumable.

>>> from bloatlab.sweep import Sweep, run_sweep
>>> outcome = run_sweep(Sweep.from_file("scenarios/sweeps/first-sweep.toml"), "results/first")
>>> outcome.failed, outcome.table_path

`run_sweep` plans every run (validating and resolving its scenario, which gives its key), keeps
the runs the store already holds, executes the rest on an executor (this process, a local
process pool, or a Dask cluster), stores each run's folder atomically as it arrives (this
process is the only writer), and rebuilds `sweep.parquet`. Killed at any moment, a re-run
computes only what is missing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__, _native
from ..runstore import RunStore
from .executor import default_workers, run_dask, run_inline, run_local
from .plan import PlannedRun, Task, plan
from .progress import Progress
from .spec import Point, Sweep, label
from .table import (
    MANIFEST,
    TABLE,
    SweepResults,
    build_table,
    write_manifest,
    write_table,
)
from .worker import Outcome, execute

__all__ = [
    "MANIFEST",
    "TABLE",
    "Outcome",
    "PlannedRun",
    "Point",
    "Sweep",
    "SweepOutcome",
    "SweepResults",
    "Task",
    "default_workers",
    "execute",
    "label",
    "plan",
    "run_sweep",
    "run_sweeps",
]


@dataclass
class SweepOutcome:
    """What a `run_sweep` call did. Times in seconds; `simulate_s` sums the runs it executed."""

    folder: Path
    table_path: Path
    total: int = 0  # planned runs (points × seeds)
    cached: int = 0  # already in the store
    executed: int = 0
    failed: int = 0  # failed runs in the sweep (this call's and invalid scenarios)
    wall_s: float = 0.0
    simulate_s: float = 0.0
    core_s: float = 0.0
    worker_s: float = 0.0
    # Where this process spent its time: planning (validate, resolve, hash), storing run
    # folders (atomic writes, fsync), rebuilding the table(s). Shared by sweeps run together.
    plan_s: float = 0.0
    store_s: float = 0.0
    table_s: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)  # key → error
    timings: dict[str, dict[str, float]] = field(default_factory=dict)  # key → run times


def run_sweep(
    sweep: Sweep,
    out_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    dask: str | None = None,
    runs_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> SweepOutcome:
    """Run every missing run of `sweep` into `out_dir` and rebuild its `sweep.parquet`.

    `workers`: local worker processes (default: all cores; 0 runs in this process). `dask`:
    the address (or scheduler file) of a dask.distributed scheduler, instead of local
    workers. `runs_dir`: where run folders live (default `out_dir/runs`); sweeps may share
    one, so a run two sweeps need is computed once. Failed runs are recorded (`run.json` with
    the error) and retried by the next call.
    """
    folder = Path(out_dir).absolute()
    runs = Path(runs_dir) if runs_dir is not None else folder / "runs"
    [outcome] = run_sweeps(
        [(sweep, folder)], runs, workers=workers, dask=dask, progress=progress, label=sweep.name
    )
    return outcome


def run_sweeps(
    jobs: Sequence[tuple[Sweep, str | os.PathLike[str]]],
    runs_dir: str | os.PathLike[str],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: bool = True,
    label: str = "sweep",
) -> list[SweepOutcome]:
    """Several sweeps (sweep, folder) sharing one run store, executed as one batch of runs
    (one pool, no idle cores between sweeps); each folder gets its own `sweep.parquet`."""
    start = time.perf_counter()
    store = RunStore(runs_dir)
    version = _native.version()
    planned = [(Path(out).absolute(), sweep, plan(sweep, version)) for sweep, out in jobs]
    plan_s = time.perf_counter() - start
    store_s = 0.0
    outcomes = [
        SweepOutcome(folder, folder / TABLE, total=len(runs)) for folder, _, runs in planned
    ]
    timings: dict[str, dict[str, float]] = {}  # key → timing of the runs executed now
    with store.writing():
        manifests = []
        todo: dict[str, PlannedRun] = {}
        for (folder, sweep, runs), outcome in zip(planned, outcomes, strict=True):
            folder.mkdir(parents=True, exist_ok=True)
            manifests.append(write_manifest(folder, sweep, runs, store.root, version))
            valid = {r.key for r in runs if r.error is None}
            for run in runs:
                if run.error is not None:
                    if store.state(run.key) is None:
                        store.write(run.key, {}, _failure_meta(run, run.error, None, version))
                elif run.key not in todo and store.state(run.key) != "done":
                    todo[run.key] = run
            outcome.cached = len(valid - todo.keys())
        tasks = sorted((r.task for r in todo.values()), key=lambda t: -t.cost)
        bar = Progress([t.cost for t in tasks], label, enabled=progress)
        stored = len({r.key for _, _, runs in planned for r in runs if r.error is None}) - len(todo)
        if stored:
            bar.note(f"{label}: {stored} runs already in {store.root}")
        try:
            for result in _execute(tasks, workers, dask):
                run = todo[result.key]
                if result.ok:
                    began = time.perf_counter()
                    store.write(result.key, result.files, _done_meta(result, version))
                    store_s += time.perf_counter() - began
                    timings[result.key] = result.timing
                else:
                    error = result.error or "unknown error"
                    meta = _failure_meta(run, error, result.traceback, version)
                    store.write(result.key, {}, meta | {"host": result.host})
                    bar.note(f"run {result.key} ({describe(run.point)}) failed: {error}")
                bar.advance(result.ok, run.task.cost)
        finally:
            bar.close()
            began = time.perf_counter()
            for (folder, _, _), manifest in zip(planned, manifests, strict=True):
                write_table(folder, build_table(folder, manifest))
            table_s = time.perf_counter() - began
    executed_keys = set(todo)
    wall = time.perf_counter() - start
    for (folder, _, runs), outcome in zip(planned, outcomes, strict=True):
        rows = SweepResults.load(folder).rows()
        failed = [row for row in rows if row["status"] != "done"]
        outcome.failed = len(failed)
        outcome.errors = {row["run"]: str(row["error"]) for row in failed}
        mine = {r.key for r in runs}
        outcome.executed = len(mine & executed_keys)
        outcome.timings = {key: timings[key] for key in sorted(mine & timings.keys())}
        outcome.wall_s = wall
        outcome.plan_s, outcome.store_s, outcome.table_s = plan_s, store_s, table_s
        for key in mine & timings.keys():
            outcome.simulate_s += timings[key]["simulate_s"]
            outcome.core_s += timings[key]["core_s"]
            outcome.worker_s += timings[key]["worker_s"]
    return outcomes


def _execute(tasks: Sequence[Task], workers: int | None, dask: str | None) -> Iterator[Outcome]:
    if not tasks:
        return iter(())
    if dask is not None:
        return run_dask(tasks, dask)
    if workers == 0:
        return run_inline(tasks)
    return run_local(tasks, workers)


def describe(point: Point) -> str:
    parts = [f"{key}={label(value)}" for key, value in point.params.items()]
    return ", ".join([*parts, f"seed {point.seed}"])


def _done_meta(result: Outcome, version: str) -> dict[str, Any]:
    return {
        "status": "done",
        "core_version": version,
        "bloatlab_version": __version__,
        "timing": result.timing,
        "host": result.host,
    }


def _failure_meta(run: PlannedRun, error: str, trace: str | None, version: str) -> dict[str, Any]:
    return {
        "status": "failed",
        "error": error,
        "traceback": trace,
        "core_version": version,
        "bloatlab_version": __version__,
        "params": run.point.params,
        "seed": run.point.seed,
        "scenario": _parsed(run.task.scenario_json),
    }


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
