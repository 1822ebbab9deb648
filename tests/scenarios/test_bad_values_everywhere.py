"""Every field of every shipped scenario, given each of a set of bad values, either still
validates or is refused with a `ScenarioError` that names that field: never another
exception, never an error about some other field, never serde's words for a Rust type.

The fields are each scenario's own (every leaf of its TOML) and, for every flow, every
parameter of its algorithm, its ABR rule and its dash.js profile, as the core echoes them.
Each value is set as `--set` sets it (`load_scenario`'s overrides, which turn a setting given
by name into its table). About 36 000 cases in a few seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bloatlab.errors import ScenarioError
from bloatlab.run import resolve
from bloatlab.scenario import load_scenario

SCENARIOS = sorted(
    p for p in (Path(__file__).parents[2] / "scenarios").rglob("*.toml") if "sweeps" not in p.parts
)

# Wrong types, out-of-range numbers, numbers TOML has and JSON not, malformed units.
BAD_VALUES: list[Any] = [
    -1, 0, 1, 2**31, 2**32, 2**53, 2**63 - 1, 2**63, 2**64, -(2**63),
    1e308, -1e308, 1e-300, 0.5, -0.5, float("nan"), float("inf"), float("-inf"),
    "", "abc", "10", "-1s", "0s", "1e999s", "1e999Mbps", "0Mbps", "-5KB", "1e30KB", "NaNs",
    "inf ms", "1ns", "18446744073709551616B", "0.0000001ns", "1 BDP", "0BDP", "-1BDP",
    "1e20BDP", True, False, [], {}, [1, 2], ["a"], {"kind": "x"},
]  # fmt: skip

# serde's and Rust's own words, which a user should never have to read
JARGON = re.compile(r"expected value|string or map|variant identifier|map with a single key|"
                    r"expected struct|\b(f64|u32|u64|usize)\b")  # fmt: skip

Path_ = tuple[str | int, ...]

# what a flow's `abr` and `profile` are when the file leaves them out (`cc` is required)
DEFAULT_SETTING = {"cc": None, "abr": "dynamic", "profile": "v3"}


def _leaves(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*at, key))
    elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        for i, item in enumerate(value):
            yield from _leaves(item, (*at, i))
    else:
        yield at


def _setting_fields(doc: dict[str, Any]) -> Iterator[tuple[Path_, str]]:
    """(table path, field) for every parameter of each flow's cc, abr and profile."""
    resolved = resolve(doc)["flows"]
    first = 0  # a flow with `count` resolves to that many, in the TOML's order
    for i, flow in enumerate(doc["flow"]):
        echoed = resolved[first]
        first += int(flow.get("count", 1))
        tables: list[tuple[Path_, dict[str, Any]]] = [(("flow", i, "cc"), echoed["cc"])]
        if echoed["app"]["kind"] == "dash":
            tables += [
                (("flow", i, "app", "abr"), echoed["app"]["abr"]),
                (("flow", i, "app", "profile"), echoed["app"]["profile"]),
            ]
        for at, table in tables:
            yield from ((at, field) for field in table if field != "kind")


def _setting_change(doc: dict[str, Any], at: Path_, field: str, value: Any) -> dict[str, Any]:
    """The overrides that set `field` in the setting at `at` (turned into its table by the
    override, as `--set` does), starting from its default where the file leaves it out."""
    parent: Any = doc
    for key in at[:-1]:
        parent = parent[key]
    start = {} if at[-1] in parent else {_dotted(at): DEFAULT_SETTING[at[-1]]}
    return {**start, _dotted((*at, field)): value}


def _dotted(at: Path_) -> str:
    """The override key of a path: `flow.0.cc.cwnd_gain`."""
    return ".".join(map(str, at))


def _written(at: Path_) -> str:
    """The path as the core writes it: `flow[0].cc.cwnd_gain`."""
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in at).lstrip(".")


def _names(error: ScenarioError, field: Path_) -> bool:
    """The error is about `field`: at its path or inside the value given there, at the table
    holding it with the message starting with the field, or (a rule between fields) with the
    field in its message."""
    want = _written(field)
    lead = re.match(r"^([A-Za-z_][\w.\[\]]*)(: | = | must| is)", error.message)
    named = {error.path} | ({f"{error.path}.{lead.group(1)}"} if lead else set())
    return (
        want in named
        # inside the value given: an element of a list (`app.page[0]`), a field of a table
        # (oBBR's `bbr = { kind = "x" }`: `bbr.kind`)
        or any(n.startswith((f"{want}[", f"{want}.")) for n in named)
        # a rule between fields names this one, as a list of every field does not
        or (str(field[-1]) in error.message and "expected one of" not in error.message)
    )


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_a_bad_value_anywhere_is_refused_naming_its_field(scenario: Path) -> None:
    doc = dict(load_scenario(scenario))
    changes: list[tuple[Path_, dict[str, Any]]] = [
        (at, {_dotted(at): v}) for at in _leaves(doc) for v in BAD_VALUES
    ]
    changes += [
        ((*at, field), _setting_change(doc, at, field, v))
        for at, field in _setting_fields(doc)
        for v in BAD_VALUES
    ]
    refused = 0
    wrong: list[str] = []
    for field, overrides in changes:
        try:
            resolve(doc, overrides=overrides)
        except ScenarioError as e:
            refused += 1
            if not _names(e, field) or JARGON.search(e.message):
                wrong.append(f"{_written(field)}: {e}")
    assert not wrong, f"{len(wrong)} errors that do not name their field plainly:\n" + "\n".join(
        wrong[:20]
    )
    # the set is bad enough that most values are refused (not a test that cannot fail)
    assert refused > len(changes) / 2, (refused, len(changes))
