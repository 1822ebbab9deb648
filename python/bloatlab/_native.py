"""Access to the compiled core, `bloatlab._core`, and translation of its errors.

The core is looked up in `sys.modules` on every call rather than bound at import time, so
that `import bloatlab` works before the extension is built and tests can swap in a fake.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from .errors import ScenarioError

# What the Python front end needs from the extension (see `_core.pyi`).
CONTRACT = ("version", "ScenarioError", "resolve", "simulate")


def core() -> ModuleType:
    """The extension module; a clear error if it is not built or lacks part of the contract."""
    try:
        module = importlib.import_module("bloatlab._core")
    except ImportError as e:
        raise RuntimeError(
            "the simulation core bloatlab._core is not built; run `make build-dev`"
        ) from e
    missing = [name for name in CONTRACT if not hasattr(module, name)]
    if missing:
        raise RuntimeError(
            f"bloatlab._core does not provide {', '.join(missing)}; "
            "rebuild it with `make build-dev` from a checkout whose core implements them"
        )
    return module


@contextmanager
def scenario_errors(module: ModuleType) -> Iterator[None]:
    """Re-raise the core's `ScenarioError` as `bloatlab.ScenarioError`."""
    try:
        yield
    except module.ScenarioError as e:
        raise ScenarioError.from_core(e) from e


def resolve(scenario_json: str) -> str:
    module = core()
    with scenario_errors(module):
        return str(module.resolve(scenario_json))


def simulate(scenario_json: str) -> dict[str, object]:
    module = core()
    with scenario_errors(module):
        return dict(module.simulate(scenario_json))


def version() -> str:
    return str(core().version())
