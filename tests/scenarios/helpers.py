"""Scenario tests' parallel runs (the scenario builders are `bloatlab.builders`)."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import bloatlab


def run_all(scenarios: Iterable[dict[str, Any]]) -> list[bloatlab.Result]:
    """Runs scenarios on two threads (the core releases the GIL while simulating)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(bloatlab.simulate, scenarios))
