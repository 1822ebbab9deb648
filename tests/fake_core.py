"""A test double for `bloatlab._core`: the documented contract, tiny synthetic results.

It checks field names against the scenario language and parses units well enough to raise
`ScenarioError` the way the core does (`"<dotted.path>: <message>"`); its numbers are made
up. It is for the Python front end's unit tests only and never ships.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

calls: list[tuple[str, str]] = []  # (function, scenario_json) per call, for assertions

STATES = ["STARTUP", "DRAIN", "PROBE_BW", "PROBE_RTT", "OPEN", "RECOVERY"]
_FIELDS = {
    "": {"name", "seed", "duration", "bottleneck", "telemetry", "flow"},
    "bottleneck": {"rate", "rtt", "line_rate", "shaper", "queue", "loss", "schedule", "trace"},
    "flow": {"name", "cc", "start", "stop", "count", "extra_rtt", "app"},
}
_UNITS = {
    "rate": {"bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9},
    "time": {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9},
}


class ScenarioError(ValueError):
    pass


def version() -> str:
    return "0.0.0+fake"


def resolve(scenario_json: str) -> str:
    calls.append(("resolve", scenario_json))
    return json.dumps(_resolve(json.loads(scenario_json)), sort_keys=True)


def simulate(scenario_json: str) -> dict[str, Any]:
    calls.append(("simulate", scenario_json))
    scenario = _resolve(json.loads(scenario_json))
    names = [flow["name"] for flow in scenario["flow"]]
    duration = scenario["duration_ns"] / 1e9
    t = np.round(np.arange(0.0, duration + 1e-9, 0.1), 9)
    rate = scenario["bottleneck"]["rate_bps"]
    share = rate / max(len(names), 1)
    flows = []
    for code, flow in enumerate(scenario["flow"]):
        active = t >= flow["start_ns"] / 1e9
        delivered = np.cumsum(np.where(active, share * 0.1 / 8, 0.0))
        bbr = flow["cc"]["kind"] == "bbr"
        state = np.where(t < 1.0, 0, np.where(t < 1.2, 1, 2)) if bbr else np.full(len(t), 4)
        flows.append(
            {
                "t": t,
                "flow": np.full(len(t), code, dtype=np.uint16),
                "cc_state": state.astype(np.uint8),
                "cwnd_pkts": (10 + 40 * active).astype(np.uint32),
                "inflight_pkts": (8 + 35 * active).astype(np.uint32),
                "pacing_rate_bps": np.where(bbr, share * 1.25, np.nan) * np.ones(len(t)),
                "delivery_rate_bps": np.where(active, share, 0.0),
                "srtt_s": np.full(len(t), scenario["bottleneck"]["rtt_ns"] / 1e9 * 1.5),
                "min_rtt_s": np.full(len(t), scenario["bottleneck"]["rtt_ns"] / 1e9),
                "bw_est_bps": np.where(active, share, 0.0),
                "delivered_bytes": delivered.astype(np.uint64),
                "retransmitted_bytes": np.zeros(len(t), dtype=np.uint64),
                "lost_pkts": np.zeros(len(t), dtype=np.uint64),
            }
        )
    flow_columns = {c: np.concatenate([f[c] for f in flows]) for c in flows[0]} if flows else {}
    queue = {
        "t": t,
        "backlog_bytes": (np.abs(np.sin(t)) * 50_000).astype(np.uint64),
        "backlog_pkts": (np.abs(np.sin(t)) * 33).astype(np.uint32),
        "drops": np.zeros(len(t), dtype=np.uint64),
        "tokens_bytes": np.full(len(t), 1e6),
    }
    samples = {
        "t": t[:4],
        "flow": np.zeros(4, dtype=np.uint16),
        "rate_bps": np.full(4, share),
        "app_limited": np.array([True, False, False, False]),
        "rtt_s": np.full(4, 0.05),
    }
    summary = {
        "name": scenario.get("name", ""),
        "seed": scenario["seed"],
        "version": version(),
        "scenario": scenario,
        "duration_s": duration,
        "flows": {
            name: {"goodput_bps": share, "rtt_p50_s": 0.06, "retrans_ratio": 0.001}
            for name in names
        },
        "bottleneck": {"utilisation": 0.97, "drop_rate": 0.0, "queue_delay_p50_s": 0.012},
    }
    return {
        "summary": json.dumps(summary),
        "tables": {"flows": flow_columns, "queue": queue, "samples": samples},
        "dictionaries": {"flow": names, "cc_state": STATES},
        "stats": {
            "events": 1000,
            "peak_pending_events": 40,
            "packets": 500,
            "packets_received": 490,
            "packets_dropped": 10,
            "packets_in_network": 0,
            "sim_time_s": duration,
            "wall_time_s": 0.01,
        },
    }


def _resolve(doc: dict[str, Any]) -> dict[str, Any]:
    _check_fields(doc, "", "")
    bottleneck = doc.get("bottleneck", {})
    _check_fields(bottleneck, "bottleneck", "bottleneck.")
    if "trace" in bottleneck:
        try:
            open(bottleneck["trace"]).close()
        except OSError as e:
            raise ScenarioError(
                f"bottleneck.trace: cannot read {bottleneck['trace']!r}: {e}"
            ) from None
    resolved: dict[str, Any] = {
        "name": doc.get("name", ""),
        "seed": doc.get("seed", 0),
        "duration_ns": _unit(doc.get("duration", "10s"), "time", "duration"),
        "bottleneck": {
            "rate_bps": _unit(bottleneck.get("rate", "10Mbps"), "rate", "bottleneck.rate"),
            "rtt_ns": _unit(bottleneck.get("rtt", "40ms"), "time", "bottleneck.rtt"),
        },
        "flow": [],
    }
    for i, flow in enumerate(doc.get("flow", [])):
        _check_fields(flow, "flow", f"flow.{flow.get('name', i)}.")
        cc = flow.get("cc", "cubic")
        kind = cc if isinstance(cc, str) else cc.get("kind")
        if kind not in ("reno", "cubic", "bbr"):
            raise ScenarioError(
                f"flow.{flow.get('name', i)}.cc: unknown congestion control {kind!r}; "
                "expected one of 'reno', 'cubic', 'bbr'"
            )
        count = flow.get("count", 1)
        names = [flow["name"]] if count == 1 else [f"{flow['name']}-{k}" for k in range(count)]
        start = _unit(flow.get("start", "0s"), "time", f"flow.{flow['name']}.start")
        for name in names:
            resolved["flow"].append({"name": name, "cc": {"kind": kind}, "start_ns": start})
    return resolved


def _check_fields(table: dict[str, Any], kind: str, prefix: str) -> None:
    for key in table:
        if key not in _FIELDS[kind]:
            allowed = ", ".join(sorted(_FIELDS[kind]))
            raise ScenarioError(f"{prefix}{key}: unknown field {key!r}; expected one of {allowed}")


def _unit(value: Any, kind: str, path: str) -> int:
    match = re.fullmatch(r"([0-9.]+)\s*([A-Za-z]+)", str(value))
    if not match or match.group(2) not in _UNITS[kind]:
        allowed = ", ".join(_UNITS[kind])
        raise ScenarioError(
            f"{path}: {value!r} is not a {kind}; expected a number and one of {allowed}"
        )
    return int(float(match.group(1)) * _UNITS[kind][match.group(2)])
