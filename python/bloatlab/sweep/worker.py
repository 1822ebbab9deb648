"""What a worker does with a task: simulate, serialise the results folder's files, time it.

A worker never raises for a failed run: the error comes back as an `Outcome`, so one bad run
cannot stop a sweep, whichever executor runs it.
"""

from __future__ import annotations

import os
import socket
import time
import traceback
from dataclasses import dataclass, field

from .. import _native
from ..result import Result
from .plan import Task


@dataclass(frozen=True)
class Outcome:
    """A task's result: the files of its folder, or its error. `timing` is in seconds:
    `core_s` the core's own run time, `simulate_s` all of `bloatlab.simulate` (core + Arrow
    tables), `serialise_s` making the files, `worker_s` the whole task on the worker.
    """

    key: str
    ok: bool
    files: dict[str, bytes] = field(default_factory=dict)
    error: str | None = None
    traceback: str | None = None
    timing: dict[str, float] = field(default_factory=dict)
    host: str = ""

    @classmethod
    def failure(cls, key: str, error: str, trace: str | None = None) -> Outcome:
        return cls(key, False, error=error, traceback=trace, host=_where())


def execute(task: Task) -> Outcome:
    """Run `task` here and return its outcome (never raises for a failed run)."""
    start = time.perf_counter()
    try:
        version = _native.version()
        if version != task.core_version:
            return Outcome.failure(
                task.key,
                f"this worker's core is version {version}, the sweep's is {task.core_version}: "
                "install the same bloatlab on every worker",
            )
        raw = _native.simulate(task.scenario_json)
        result = Result.from_core(raw)
        simulated = time.perf_counter()
        files = result.files()
        done = time.perf_counter()
    except Exception as e:
        return Outcome.failure(task.key, f"{type(e).__name__}: {e}", traceback.format_exc())
    core = result.stats.get("wall_time_s")
    timing = {
        "core_s": float(core) if isinstance(core, int | float) else simulated - start,
        "simulate_s": simulated - start,
        "serialise_s": done - simulated,
        "worker_s": done - start,
    }
    return Outcome(task.key, True, files, timing=timing, host=_where())


def _where() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"
