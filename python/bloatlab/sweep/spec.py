"""Sweep files: a base scenario, a grid and zips over dotted keys, seeds; and their expansion.

    name = "buffers"                       # optional; default: the file's stem
    base = "../demo.toml"                  # relative to this file; or an inline [scenario]
    seeds = 3                              # seeds 1..3, or a list [1, 5, 9]; default: base's seed
    [set]                                  # optional: fixed overrides for every run
    duration = "20s"
    [grid]                                 # Cartesian product
    "bottleneck.queue.limit" = ["0.5BDP", "1BDP", "4BDP"]
    "flow.bbr.cc" = ["bbr", { kind = "bbr", cwnd_gain = 1.5 }]
    [zip]                                  # varied together (equal lengths); [[zip]] for several
    "bottleneck.rate" = ["40Mbps", "80Mbps"]
    "bottleneck.rtt" = ["50ms", "25ms"]

Keys are the dotted keys of `bloatlab run --set` (flows addressed by name or index); values are
used as TOML gives them. Quoted keys and nested tables (`[grid.bottleneck]`) mean the same.
A run is one point of grid × zips × seeds.
"""

from __future__ import annotations

import copy
import itertools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from ..scenario import PATH_FIELDS, _resolve_paths, is_path, load_scenario, read_toml

_TOP_LEVEL = {"name", "base", "scenario", "seeds", "set", "grid", "zip", "description"}
_RESERVED = {"seed", "name"}  # vary seeds with `seeds`; the name only labels results


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the swept parameters (dotted key → value) and the seed."""

    params: dict[str, Any]
    seed: int


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep: `base` is a scenario document with its paths made absolute."""

    name: str
    base: dict[str, Any]
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [1])
    fixed: dict[str, Any] = field(default_factory=dict)
    description: str = ""

    @property
    def parameters(self) -> list[str]:
        """The swept keys, grid first, in file order."""
        return [*self.grid, *(key for group in self.zips for key in group)]

    def points(self) -> list[Point]:
        """Every run: grid × zips × seeds, the last grid key varying fastest, seeds innermost."""
        axes: list[list[dict[str, Any]]] = [
            [{key: value} for value in values] for key, values in self.grid.items()
        ]
        for group in self.zips:
            keys = list(group)
            axes.append(
                [dict(zip(keys, row, strict=True)) for row in zip(*group.values(), strict=True)]
            )
        points: list[Point] = []
        for combo in itertools.product(*axes):
            params: dict[str, Any] = {}
            for part in combo:
                params.update(part)
            points.extend(Point(dict(params), seed) for seed in self.seeds)
        return points

    def to_dict(self) -> dict[str, Any]:
        """A self-contained sweep document (inline scenario), as `Sweep.from_dict` reads it."""
        doc: dict[str, Any] = {"name": self.name, "seeds": list(self.seeds)}
        if self.description:
            doc["description"] = self.description
        doc["scenario"] = self.base
        if self.fixed:
            doc["set"] = dict(self.fixed)
        if self.grid:
            doc["grid"] = dict(self.grid)
        if self.zips:
            doc["zip"] = [dict(group) for group in self.zips]
        return doc

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Sweep:
        file = Path(path)
        doc = read_toml(file, "sweep")
        return cls.from_dict(doc, base_dir=file.absolute().parent, default_name=file.stem)

    @classmethod
    def from_dict(
        cls,
        doc: Mapping[str, Any],
        *,
        base_dir: str | os.PathLike[str] | None = None,
        default_name: str = "sweep",
    ) -> Sweep:
        """Parse a sweep document; relative paths in it resolve against `base_dir` (or cwd)."""
        folder = Path(base_dir) if base_dir is not None else Path.cwd()
        unknown = sorted(set(doc) - _TOP_LEVEL)
        if unknown:
            raise ScenarioError(
                unknown[0], f"unknown sweep field; allowed: {', '.join(sorted(_TOP_LEVEL))}"
            )
        base = _base(doc, folder)
        grid = _axes(doc.get("grid", {}), "grid", folder)
        zip_doc = doc.get("zip", [])
        groups = [zip_doc] if isinstance(zip_doc, Mapping) else zip_doc
        if not isinstance(groups, list):
            raise ScenarioError("zip", "must be a table, or an array of tables ([[zip]])")
        zips = []
        for i, group in enumerate(groups):
            where = "zip" if isinstance(zip_doc, Mapping) else f"zip[{i}]"
            axes = _axes(group, where, folder)
            lengths = {key: len(values) for key, values in axes.items()}
            if len(set(lengths.values())) > 1:
                listed = ", ".join(f"{k} has {n}" for k, n in lengths.items())
                raise ScenarioError(where, f"keys varied together need equal lengths: {listed}")
            if axes:
                zips.append(axes)
        fixed = _fixed(doc.get("set", {}), folder)
        seen: dict[str, str] = {}
        for where, keys in [
            ("set", fixed),
            ("grid", grid),
            *((f"zip[{i}]", g) for i, g in enumerate(zips)),
        ]:
            for key in keys:
                if key in seen:
                    raise ScenarioError(key, f"given in both {seen[key]} and {where}")
                seen[key] = where
        name = doc.get("name", default_name)
        if not isinstance(name, str) or not name:
            raise ScenarioError("name", f"must be a non-empty string, not {name!r}")
        description = doc.get("description", "")
        if not isinstance(description, str):
            raise ScenarioError("description", "must be a string")
        seeds = _seeds(doc.get("seeds"), base)
        return cls(name, base, grid, zips, seeds, fixed, description)


def _base(doc: Mapping[str, Any], folder: Path) -> dict[str, Any]:
    if ("base" in doc) == ("scenario" in doc):
        raise ScenarioError(
            "base", 'give exactly one of `base = "scenario.toml"` and an inline [scenario] table'
        )
    if "base" in doc:
        if not isinstance(doc["base"], str):
            raise ScenarioError("base", "must be a path to a scenario file")
        return dict(load_scenario(folder / doc["base"]))
    inline = doc["scenario"]
    if not isinstance(inline, Mapping):
        raise ScenarioError("scenario", "must be a table")
    # its paths are relative to the sweep file, not to where the sweep is run from
    scenario = copy.deepcopy(dict(inline))
    _resolve_paths(scenario, folder, check=False)
    return dict(load_scenario(scenario))


def _axes(table: Any, where: str, folder: Path) -> dict[str, list[Any]]:
    """Dotted key → list of values, flattening nested tables until a list is reached."""
    if not isinstance(table, Mapping):
        raise ScenarioError(where, "must be a table of dotted keys to lists of values")
    axes: dict[str, list[Any]] = {}
    for key, values in _flatten(table, ""):
        if not isinstance(values, list) or not values:
            raise ScenarioError(
                f"{where}.{key}", f"must be a non-empty list of values, not {values!r}"
            )
        _check_key(key)
        axes[key] = [_absolute_path(key, v, folder) for v in values]
    return axes


def _fixed(table: Any, folder: Path) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise ScenarioError("set", "must be a table of dotted keys to values")
    fixed = {}
    for key, value in _flatten(table, ""):
        _check_key(key)
        fixed[key] = _absolute_path(key, value, folder)
    return fixed


def _flatten(table: Mapping[str, Any], prefix: str) -> list[tuple[str, Any]]:
    """(dotted key, value) pairs. A quoted dotted key (`"flow.bbr.cc"`) holds a value as it
    is; a table under a plain key (`[set.bottleneck]`) is a namespace, flattened to its leaves.
    """
    items: list[tuple[str, Any]] = []
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and "." not in key:
            items.extend(_flatten(value, f"{dotted}."))
        else:
            items.append((dotted, value))
    return items


def _check_key(key: str) -> None:
    if key in _RESERVED:
        hint = "use `seeds = N` or a list" if key == "seed" else "the base scenario names runs"
        raise ScenarioError(key, f"cannot be swept: {hint}")


def _absolute_path(key: str, value: Any, folder: Path) -> Any:
    """Path-valued fields given in a sweep file are relative to that file."""
    parts = key.split(".")
    for pattern in PATH_FIELDS:
        wanted = pattern.split(".")
        same_shape = len(wanted) == len(parts)
        if same_shape and all(w in ("*", p) for w, p in zip(wanted, parts, strict=True)):
            return str(folder / Path(value).expanduser()) if is_path(pattern, value) else value
    return value


def _seeds(value: Any, base: Mapping[str, Any]) -> list[int]:
    if value is None:
        seed = base.get("seed", 1)
        if not _is_seed(seed):
            raise ScenarioError(
                "seed",
                f"the base scenario's seed {seed!r}: allowed an integer ≥ 0 (or set `seeds`)",
            )
        return [seed]
    if isinstance(value, bool):
        raise ScenarioError("seeds", f"must be a count or a list of seeds, not {value!r}")
    if isinstance(value, int):
        if value < 1:
            raise ScenarioError("seeds", f"{value} runs per point: allowed ≥ 1")
        return list(range(1, value + 1))
    if isinstance(value, list) and value and all(_is_seed(s) for s in value):
        if len(set(value)) != len(value):
            raise ScenarioError("seeds", f"{value} repeats a seed")
        return list(value)
    raise ScenarioError(
        "seeds", f"must be a count ≥ 1 or a non-empty list of integers ≥ 0, not {value!r}"
    )


def _is_seed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def label(value: Any) -> str:
    """A value as it would be written in a sweep file (TOML inline), for tables and legends."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return f"{value:.1f}"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k} = {_quoted(v)}" for k, v in value.items())
        return f"{{{inner}}}"
    if isinstance(value, list):
        return "[" + ", ".join(_quoted(v) for v in value) + "]"
    return str(value)


def _quoted(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else label(value)
