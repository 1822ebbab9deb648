"""Human names and axis units for summary metrics, from the snake_case unit suffixes."""

from __future__ import annotations

import re
from dataclasses import dataclass

_WORDS = {
    "rtt": "RTT",
    "bdp": "BDP",
    "bw": "bandwidth",
    "est": "estimate",
    "p10": "p10",
    "jain": "Jain",
    "retrans": "retransmission",
    "abr": "ABR",
}
_PERCENT = re.compile(r"(ratio|rate|fraction|utilisation|share)$")


@dataclass(frozen=True)
class Axis:
    """How to show a metric: multiply by `scale`, label `name (unit)`; `owner` is the flow,
    group or `bottleneck` it belongs to."""

    owner: str
    name: str
    unit: str
    scale: float

    @property
    def label(self) -> str:
        return f"{self.name} ({self.unit})" if self.unit else self.name

    @property
    def title(self) -> str:
        return f"{self.owner}: {self.name}" if self.owner else self.name


def metric_axis(metric: str) -> Axis:
    """`groups.bbr.goodput_bps` → Axis("bbr", "goodput", "Mb/s", 1e-6)."""
    parts = metric.split(".")
    leaf = parts[-1]
    owner = ""
    if parts[0] == "groups" and len(parts) >= 3:
        owner = ".".join(parts[1:-1])
    elif parts[0] == "flows" and len(parts) >= 3:
        owner = "flow " + ".".join(parts[1:-1])
    elif len(parts) >= 2:
        owner = ".".join(parts[:-1])
    base, unit, scale = leaf, "", 1.0
    if len(parts) >= 3 and parts[-2] == "state_time_fraction":
        owner = owner.removesuffix(".state_time_fraction")
        return Axis(owner, f"time in {leaf}", "%", 100.0)
    if leaf == "capacity_fraction":
        return Axis(owner, "share of link capacity", "%", 100.0)
    if leaf.endswith("_bps"):
        base, unit, scale = leaf[:-4], "Mb/s", 1e-6
    elif leaf.endswith("_s"):
        base, unit, scale = leaf[:-2], "ms", 1e3
    elif leaf.endswith("_bytes"):
        base, unit, scale = leaf[:-6], "MB", 1e-6
    elif leaf.endswith("_bdp"):
        base, unit = leaf[:-4], "BDP"
    elif leaf.endswith("_pkts"):
        base, unit = leaf[:-5], "packets"
    elif _PERCENT.search(leaf):
        unit, scale = "%", 100.0
    words = " ".join(_WORDS.get(w, w) for w in base.split("_"))
    if leaf == "completion_time_s" or leaf == "active_s" or leaf.endswith("duration_s"):
        unit, scale = "s", 1.0
    return Axis(owner, words, unit, scale)


_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*$")


def numeric_values(values: list[object]) -> tuple[list[float], str] | None:
    """Numbers behind parameter values (`0.5BDP`, `40Mbps`, `2`) if they share one unit."""
    numbers: list[float] = []
    units = set()
    for value in values:
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float):
            numbers.append(float(value))
            units.add("")
            continue
        match = _NUMBER_UNIT.match(str(value))
        if not match:
            return None
        numbers.append(float(match.group(1)))
        units.add(match.group(2))
    if len(units) != 1:
        return None
    return numbers, units.pop()
