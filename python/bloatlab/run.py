"""Running scenarios on the simulation core."""

from __future__ import annotations

import json
from typing import Any

from . import _native
from .result import Result
from .scenario import Overrides, Scenario, ScenarioSource, load_scenario


def simulate(
    scenario: ScenarioSource, *, overrides: Overrides | None = None, seed: int | None = None
) -> Result:
    """Run one scenario (a path, TOML text or dict) and return its `Result`.

    `overrides` are `"a.b=c"` strings or a `{dotted key: value}` mapping (see
    `load_scenario`); `seed` replaces the scenario's seed. Raises `ScenarioError` on bad
    input. The core releases the GIL while it runs, so threads can run scenarios in parallel.
    """
    doc = _prepare(scenario, overrides, seed)
    return Result.from_core(_native.simulate(doc.to_json()))


def resolve(
    scenario: ScenarioSource, *, overrides: Overrides | None = None, seed: int | None = None
) -> dict[str, Any]:
    """Validate a scenario and return it resolved: defaults filled, units as numbers."""
    doc = _prepare(scenario, overrides, seed)
    resolved: dict[str, Any] = json.loads(_native.resolve(doc.to_json()))
    return resolved


def _prepare(scenario: ScenarioSource, overrides: Overrides | None, seed: int | None) -> Scenario:
    doc = load_scenario(scenario, overrides)
    if seed is not None:
        doc["seed"] = seed
    return doc
