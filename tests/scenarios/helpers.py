"""Small helpers for scenario tests: scenario builders and parallel runs."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import bloatlab


def dumbbell(
    rate: str,
    rtt: str,
    limit: str,
    flows: list[dict[str, Any]],
    duration: str,
    *,
    burst: str | None = None,
    window: tuple[str, str] | None = None,
    interval: str = "100ms",
    samples: bool = False,
) -> dict[str, Any]:
    """A scenario dict for one bottleneck and the given flows."""
    telemetry: dict[str, Any] = {"interval": interval, "rate_samples": samples}
    if window:
        telemetry["summary_start"], telemetry["summary_end"] = window
    bottleneck: dict[str, Any] = {
        "rate": rate,
        "rtt": rtt,
        "queue": {"kind": "droptail", "limit": limit},
    }
    if burst:
        bottleneck["shaper"] = {"kind": "tbf", "burst": burst}
    return {"duration": duration, "bottleneck": bottleneck, "flow": flows, "telemetry": telemetry}


def bulk(name: str, cc: Any, count: int = 1, **extra: Any) -> dict[str, Any]:
    return {"name": name, "cc": cc, "app": {"kind": "bulk"}, "count": count, **extra}


def run_all(scenarios: Iterable[dict[str, Any]]) -> list[bloatlab.Result]:
    """Runs scenarios on two threads (the core releases the GIL while simulating)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(bloatlab.simulate, scenarios))
