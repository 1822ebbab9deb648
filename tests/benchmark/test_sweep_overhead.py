"""What the sweep machinery costs per run, against the simulations themselves:
`pytest -m benchmark -s tests/benchmark/test_sweep_overhead.py`.

The same 24 runs (1–2 BBR + 2 CUBIC, 80 Mb/s, 25 ms, 300 s: AICT'19's runs, about 1 s of
simulation each) are run three ways:

* `loop`: `bloatlab.simulate(...)` one after another, then `Result.write` — what a script
  without the sweep machinery would do;
* `sweep --workers 1`: the sweep machinery with one worker process (the other core is free for
  the sweep process), so its wall time is the simulations plus everything the machinery adds;
* `sweep` (all cores): the default.

Overhead = (sweep wall - Σ simulate) / Σ simulate with one worker, where Σ simulate is the
time the worker spent in the simulation proper (core + Arrow tables). It splits into fixed
costs (planning, starting the worker, rebuilding the table) and per-run ones (serialising to
Parquet, sending the files back, storing them atomically while the worker runs the next).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import ModuleType

import bloatlab
from bloatlab.sweep import Sweep, plan, run_sweep
from bloatlab.sweep.executor import default_workers

SWEEP = {
    "name": "overhead",
    "seeds": 3,
    "scenario": {
        "name": "overhead",
        "duration": "300s",
        "bottleneck": {
            "rate": "80Mbps",
            "rtt": "25ms",
            "queue": {"kind": "droptail", "limit": "1BDP"},
        },
        "flow": [
            {"name": "bbr", "cc": "bbr", "count": 2, "app": {"kind": "bulk"}},
            {"name": "cubic", "cc": "cubic", "count": 2, "app": {"kind": "bulk"}},
        ],
        "telemetry": {"interval": "100ms", "rate_samples": False},
    },
    "grid": {
        "bottleneck.queue.limit": ["0.5BDP", "1BDP", "2BDP", "4BDP"],
        "flow.bbr.count": [1, 2],
    },
}


def test_sweep_machinery_overhead(core: ModuleType, tmp_path: Path) -> None:
    sweep = Sweep.from_dict(SWEEP)
    runs = plan(sweep)
    documents = [run.task.scenario_json for run in runs]
    n = len(runs)

    from bloatlab import _native
    from bloatlab.result import Result

    Result.from_core(_native.simulate(documents[0]))  # warm up (lazy imports)
    start = time.perf_counter()
    simulate_s = 0.0
    for i, doc in enumerate(documents):
        began = time.perf_counter()
        result = Result.from_core(_native.simulate(doc))
        simulate_s += time.perf_counter() - began
        result.write(tmp_path / "loop" / str(i))
    loop_s = time.perf_counter() - start

    one = run_sweep(sweep, tmp_path / "one", workers=1, progress=False)
    assert (one.executed, one.failed) == (n, 0)
    every = run_sweep(sweep, tmp_path / "all", progress=False)
    assert (every.executed, every.failed) == (n, 0)

    overhead = one.wall_s - one.simulate_s
    serialise = one.worker_s - one.simulate_s
    fixed = one.wall_s - one.worker_s  # planning, worker start-up, IPC waits, the table
    print()
    print(
        f"sweep machinery, {n} runs, load average {os.getloadavg()[0]:.1f} on "
        f"{default_workers()} cores"
    )
    print(
        f"  loop (simulate + write, this process): {loop_s:6.2f} s "
        f"(simulate {simulate_s:.2f} s = {simulate_s / n * 1e3:.0f} ms/run)"
    )
    for label, o in (("sweep --workers 1", one), (f"sweep, {default_workers()} workers", every)):
        print(
            f"  {label:<22} wall {o.wall_s:6.2f} s; in workers: simulate {o.simulate_s:.2f} s, "
            f"serialise {o.worker_s - o.simulate_s:.2f} s; in the sweep process: plan "
            f"{o.plan_s:.2f} s, store {o.store_s:.2f} s, table {o.table_s:.2f} s"
        )
    print(
        f"  overhead (--workers 1): {overhead:.2f} s = {overhead / one.simulate_s:.1%} of the "
        f"simulation time: per run {serialise / n * 1e3:.1f} ms serialising in the worker "
        f"(+ {one.store_s / n * 1e3:.1f} ms storing in the sweep process, overlapped); fixed "
        f"{fixed:.2f} s (plan {one.plan_s:.2f} s, table {one.table_s:.2f} s, the rest worker "
        f"start-up and waits)"
    )
    print(
        f"  speed-up over the loop with {default_workers()} workers: {loop_s / every.wall_s:.2f}×"
    )
    per_run = overhead
    assert per_run > 0
    assert bloatlab.__version__
