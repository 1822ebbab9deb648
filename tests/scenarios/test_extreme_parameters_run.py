"""Whatever the core accepts, it can run: every numeric or duration parameter of every
congestion control, ABR rule and dash.js profile, set to an extreme value, is either refused by
validation or simulated without a panic (a panic reaches Python as
`pyo3_runtime.PanicException`).

This found CUBIC panicking on `hystart_delay_min_us > hystart_delay_max_us`, which
validation now refuses.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bloatlab.errors import ScenarioError
from bloatlab.run import resolve, simulate

EXTREMES = [0, 1, 2**32 - 1, 1e9, 1e-9]
DURATION_EXTREMES = ["0s", "1ns", "1000000s"]  # for fields the core echoes as "0.5s"

CCAS = ["cubic", "cubic-quic", "bbr", "bbr2", "bbr3", "bbr2-quic", "bbr-s", "bbr2-s",
        "bbr-shallow", "obbr", "b3r"]  # fmt: skip
# THROUGHPUT, BOLA and DYNAMIC take their constants from the dash.js profile
ABRS = ["bba", "rb", "festive", "robust_mpc"]


def _bulk(cc: Any) -> dict[str, Any]:
    """Two bulk flows, the second joining later, through a 1-BDP buffer with random loss, long
    enough for BBR's PROBE_RTT (10 s)."""
    return {
        "name": "extreme",
        "duration": "12s",
        "bottleneck": {
            "rate": "10Mbps",
            "rtt": "20ms",
            "loss": 0.01,
            "queue": {"kind": "droptail", "limit": "1BDP"},
        },
        "telemetry": {"rate_samples": False},
        "flow": [
            {"name": "a", "cc": cc, "app": {"kind": "bulk"}},
            {"name": "b", "cc": cc, "app": {"kind": "bulk"}, "start": "0.5s"},
        ],
    }


def _dash(abr: Any, profile: Any = "v3") -> dict[str, Any]:
    """A DASH session over a link that drops to a quarter of its rate midway."""
    return {
        "name": "extreme",
        "duration": "30s",
        "bottleneck": {
            "rate": "8Mbps",
            "rtt": "40ms",
            "queue": {"kind": "droptail", "limit": "2BDP"},
            "schedule": [{"at": "10s", "rate": "2Mbps"}],
        },
        "telemetry": {"rate_samples": False},
        "flow": [
            {
                "name": "v",
                "cc": "bbr",
                "app": {"kind": "dash", "video": "bbb", "abr": abr, "profile": profile},
            }
        ],
    }


def _extremes(table: dict[str, Any], at: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """(field, extreme value) for the numbers and durations of a table and of the tables
    within it (oBBR's `bbr`, BBR-S's `base`)."""
    cases: list[tuple[tuple[str, ...], Any]] = []
    for key, value in table.items():
        field = (*at, key)
        if isinstance(value, dict):
            cases += _extremes(value, field)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            cases += [(field, v) for v in EXTREMES]
        elif isinstance(value, str) and re.fullmatch(r"[0-9.e+-]+s", value):
            cases += [(field, v) for v in DURATION_EXTREMES]
    return cases


def _run_each(scenario: dict[str, Any], settings: list[str]) -> tuple[int, int]:
    """Each extreme of the settings at `settings` (dotted keys, one per flow), set as `--set`
    sets it: (accepted and run, refused); any other outcome fails the test."""
    echoed = resolve(scenario)["flows"][0]
    for key in settings[0].split(".")[2:]:
        echoed = echoed[key]
    ran = refused = 0
    for field, value in _extremes(echoed):
        overrides = {".".join((at, *field)): value for at in settings}
        try:
            resolve(scenario, overrides=overrides)
        except ScenarioError:
            refused += 1
            continue
        simulate(scenario, overrides=overrides)  # raises PanicException if the core panics
        ran += 1
    return ran, refused


@pytest.mark.parametrize("cc", CCAS)
def test_every_accepted_algorithm_parameter_runs(cc: str) -> None:
    ran, _ = _run_each(_bulk(cc), ["flow.a.cc", "flow.b.cc"])
    assert ran > 0


@pytest.mark.parametrize("abr", ABRS)
def test_every_accepted_abr_parameter_runs(abr: str) -> None:
    ran, _ = _run_each(_dash(abr), ["flow.v.app.abr"])
    assert ran > 0


@pytest.mark.parametrize("base", ["v3", "v4", "v5"])
def test_every_accepted_profile_constant_runs(base: str) -> None:
    ran, _ = _run_each(_dash("dynamic", base), ["flow.v.app.profile"])
    assert ran > 0
