"""From sweep points to tasks: each point's scenario, validated and resolved, and its run key."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from .. import _native
from ..analysis.metrics import flow_groups
from ..errors import ScenarioError
from ..runstore import KEY_LENGTH, run_key
from ..scenario import load_scenario
from .spec import Point, Sweep


@dataclass(frozen=True)
class Task:
    """One run to execute: what a worker needs, and nothing from the client's file system.

    `scenario_json` is the document `bloatlab.simulate` would send to the core; input files
    it names (traces) must be readable at the same path on the worker.
    """

    key: str
    scenario_json: str
    core_version: str
    cost: float = 0.0  # a rough relative cost (simulated packets), to start long runs first


@dataclass(frozen=True)
class PlannedRun:
    """A point of the sweep and the run that computes it (or why it cannot be run)."""

    point: Point
    task: Task
    groups: dict[str, list[str]] = field(default_factory=dict)
    error: str | None = None  # the scenario is invalid: recorded as a failed run

    @property
    def key(self) -> str:
        return self.task.key


def plan(sweep: Sweep, core_version: str | None = None) -> list[PlannedRun]:
    """Every point's task. A point whose scenario is invalid gets a failed run, not an error."""
    version = core_version if core_version is not None else _native.version()
    runs = []
    for point in sweep.points():
        overrides = {**sweep.fixed, **point.params}
        scenario_json = ""
        try:
            doc = load_scenario(sweep.base, overrides)
            doc["seed"] = point.seed
            scenario_json = doc.to_json()
            resolved: dict[str, Any] = json.loads(_native.resolve(scenario_json))
        except ScenarioError as e:
            # Invalid: keyed by what was asked for, with an `x` no real key starts with.
            asked = scenario_json or json.dumps(
                {"base": sweep.base, "set": overrides, "seed": point.seed}, default=str
            )
            digest = hashlib.sha256(f"{version}\n{asked}".encode()).hexdigest()
            task = Task("x" + digest[: KEY_LENGTH - 1], asked, version)
            runs.append(PlannedRun(point, task, error=str(e)))
            continue
        task = Task(run_key(resolved, version), scenario_json, version, _cost(resolved))
        runs.append(PlannedRun(point, task, flow_groups(doc)))
    return runs


def _cost(resolved: dict[str, Any]) -> float:
    """Simulated packets, roughly: duration × bottleneck rate (a trace's mean rate)."""
    duration = resolved.get("duration_ns") or 60e9  # a run without one ends with its flows
    bottleneck = resolved["bottleneck"]
    rate = bottleneck.get("rate_bps") or bottleneck["trace"]["mean_rate_bps"]
    return float(duration) / 1e9 * float(rate) / 12_000
