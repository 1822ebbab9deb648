"""Scenario documents built in Python (for sweeps, paper modules and tests): a dumbbell
bottleneck and bulk flows, in the scenario language's own field names and unit strings."""

from __future__ import annotations

from typing import Any

# Timing noise of a real host — timer slack, interrupt moderation, softirq scheduling — adds a
# few tens of µs to every packet of the papers' testbeds. The paper reproductions model it as
# `bottleneck.jitter`. It matters to BBR: min_rtt is refreshed by any sample *at or below* it,
# and a noiseless simulated path repeats the base RTT to the nanosecond whenever the queue
# drains, so min_rtt would never expire and PROBE_RTT would never run where Linux's does.
HOST_JITTER = "50us"


def dumbbell(
    rate: str,
    rtt: str,
    limit: str,
    flows: list[dict[str, Any]],
    duration: str,
    *,
    name: str | None = None,
    burst: str | None = None,
    window: tuple[str, str] | None = None,
    interval: str = "100ms",
    samples: bool = False,
    jitter: str | None = None,
) -> dict[str, Any]:
    """One drop-tail bottleneck (`limit`), shaped by a token bucket when `burst` is given,
    and the given flows; `window` is the summary's (start, end)."""
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
    if jitter:
        bottleneck["jitter"] = jitter
    named = {"name": name} if name is not None else {}
    return {
        **named,
        "duration": duration,
        "bottleneck": bottleneck,
        "flow": flows,
        "telemetry": telemetry,
    }


def bulk(name: str, cc: Any, count: int = 1, **extra: Any) -> dict[str, Any]:
    """`count` bulk flows named `name` (or `name-0` …) running `cc`; `extra` flow fields."""
    return {"name": name, "cc": cc, "app": {"kind": "bulk"}, "count": count, **extra}
