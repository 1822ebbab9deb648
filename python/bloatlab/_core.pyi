# Typed stubs for the Rust extension `bloatlab._core` (crates/py). Checked by `make stubtest`.
from typing import Any, TypedDict

import numpy.typing as npt

__all__ = ["ScenarioError", "resolve", "simulate", "version"]

class _Output(TypedDict):
    summary: str
    tables: dict[str, dict[str, npt.NDArray[Any]]]
    dictionaries: dict[str, list[str]]
    stats: dict[str, int | float]

class ScenarioError(ValueError):
    """Bad scenario input. `str(e)` is `"<dotted.field.path>: <message>"`."""

def version() -> str:
    """The simulation core's version."""

def resolve(scenario_json: str) -> str:
    """Validate a scenario (JSON text of the TOML document), fill defaults, convert units.

    Returns the resolved scenario as canonical JSON text. Raises `ScenarioError`.
    """

def simulate(scenario_json: str) -> _Output:
    """Run a scenario with the GIL released. Raises `ScenarioError` on bad input.

    `tables` maps table name to `{column: 1-D array}`; `flow` and `cc_state` columns hold
    codes into `dictionaries`.
    """
