"""Summary metrics as one flat row: `bottleneck.<m>`, `flows.<name>.<m>`, `groups.<name>.<m>`.

`groups` aggregate the flows one `[[flow]]` entry makes (`count = 4` gives `bbr-0` … `bbr-3`,
the group `bbr`), so a sweep that varies the number of flows still has one column per
algorithm: bytes and rates are summed, `retrans_ratio` is recomputed from the sums,
`capacity_fraction` is the group's wire throughput over the bottleneck capacity, anything
else is the mean over the group's flows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

# Group metrics that add up over flows.
_SUMS = (
    "goodput_bps",
    "throughput_bps",
    "bytes_delivered",
    "bytes_sent",
    "bytes_retransmitted",
    "packets_dropped",
    "rto_events",
    "recovery_events",
    "loss_probes",
)


def flow_groups(scenario: Mapping[str, Any]) -> dict[str, list[str]]:
    """Group name → its flows' names, from a scenario document (before the core expands it)."""
    groups: dict[str, list[str]] = {}
    for i, flow in enumerate(scenario.get("flow", [])):
        if not isinstance(flow, Mapping):
            continue
        name = str(flow.get("name", f"flow{i}"))
        count = flow.get("count", 1)
        count = count if isinstance(count, int) and count >= 1 else 1
        groups[name] = [name] if count == 1 else [f"{name}-{j}" for j in range(count)]
    return groups


def flatten_summary(
    summary: Mapping[str, Any], groups: Mapping[str, Sequence[str]] | None = None
) -> dict[str, float]:
    """Every numeric summary value under its dotted name; None (not applicable) becomes NaN."""
    row: dict[str, float] = {}
    _flatten(summary.get("bottleneck", {}), "bottleneck.", row)
    flows: Mapping[str, Any] = summary.get("flows", {})
    for name, flow in flows.items():
        _flatten(flow, f"flows.{name}.", row)
    capacity = _number(summary.get("bottleneck", {}).get("capacity_bps"))
    for group, members in (groups or {}).items():
        present = [flows[m] for m in members if isinstance(flows.get(m), Mapping)]
        if present:
            row.update(_group(group, present, capacity))
    return row


def _flatten(node: Any, prefix: str, row: dict[str, float]) -> None:
    if not isinstance(node, Mapping):
        return
    for key, value in node.items():
        if isinstance(value, Mapping):
            _flatten(value, f"{prefix}{key}.", row)
        elif value is None:
            row[f"{prefix}{key}"] = math.nan
        elif isinstance(value, int | float) and not isinstance(value, bool):
            row[f"{prefix}{key}"] = float(value)


def _group(name: str, flows: list[Mapping[str, Any]], capacity: float) -> dict[str, float]:
    prefix = f"groups.{name}."
    keys = [k for k in flows[0] if all(_is_number_or_none(f.get(k)) for f in flows)]
    row = {f"{prefix}flows": float(len(flows))}
    for key in keys:
        values = [_number(f.get(key)) for f in flows]
        if key in _SUMS:
            row[prefix + key] = math.fsum(values)
        else:
            finite = [v for v in values if not math.isnan(v)]
            row[prefix + key] = math.fsum(finite) / len(finite) if finite else math.nan
    delivered = row.get(f"{prefix}bytes_delivered", math.nan)
    retransmitted = row.get(f"{prefix}bytes_retransmitted", math.nan)
    if delivered > 0:
        row[f"{prefix}retrans_ratio"] = retransmitted / delivered
    throughput = row.get(f"{prefix}throughput_bps", math.nan)
    if capacity > 0:
        row[f"{prefix}capacity_fraction"] = throughput / capacity
    return row


def _is_number_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _number(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return math.nan
