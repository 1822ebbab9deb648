"""Scenario documents: load TOML, resolve file paths, apply `--set a.b=c` overrides.

Python does not validate the schema; the Rust core does (`_core.resolve`), so there is one
source of truth for field names, units and defaults. This module only turns a file, TOML
text or dict into the JSON the core reads:

* relative paths in path fields (`bottleneck.trace`, a flow's `app.video` when it names a
  Sabre movie file) are resolved against the folder of the scenario file; relative paths
  given as overrides, against the current directory, like any other command-line argument;
* overrides address fields by dotted keys. Arrays of tables are addressed by the `name` of
  an element or by index, so `flow.video.cc=bbr` and `flow.0.cc=bbr` both work. Override
  values are TOML literals when they parse as one (`0.01`, `true`, `"x"`, `{kind="bbr"}`)
  and plain strings otherwise (`25Mbps`). Setting a field inside a field that is a plain
  `kind` string (`flow.video.cc.cwnd_gain=2` where `cc = "bbr"`) turns it into the table
  form `{kind = "bbr", cwnd_gain = 2}`; a dash.js profile's name becomes its `base`
  (`{base = "v5", stall_threshold = "0.3s"}`).
"""

from __future__ import annotations

import copy
import datetime
import json
import math
import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from .errors import ScenarioError

# Fields holding a file path, as dotted keys (`*` stands for every element of an array), with
# the ending that makes a value a path: a `video` is a built-in name ("www21", "bbb") unless it
# is a Sabre movie file, which the core knows by its ".json".
PATH_FIELDS = {"bottleneck.trace": "", "flow.*.app.video": ".json"}
# The key a name becomes in its field's table form (`cc = "bbr"` is `{kind = "bbr"}`), where
# it is not `kind`: a dash.js profile is a table of overrides on its `base` preset.
NAME_KEYS = {"profile": "base"}
# Top-level arrays of tables, whose elements overrides address by `name` (or index).
ARRAYS_OF_TABLES = ("flow",)

ScenarioSource = str | os.PathLike[str] | Mapping[str, Any]
Overrides = Iterable[str] | Mapping[str, Any]


class Scenario(dict[str, Any]):
    """A scenario document: TOML tables as plain dicts, paths resolved, overrides applied."""

    def to_json(self) -> str:
        """The document as JSON text for `bloatlab._core`.

        Raises `ScenarioError` naming the field of a `nan` or `inf` (TOML has them, JSON not).
        """
        for path, value in _floats(self):
            if not math.isfinite(value):
                raise ScenarioError(path, f"{value} is not a finite number: allowed finite numbers")
        # TOML dates have no JSON form: pass them as text and let the core name the field.
        return json.dumps(self, separators=(",", ":"), default=str, allow_nan=False)


def _floats(value: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """Every float in a document with its field path, as the core writes paths (`flow[0].cc`)."""
    if isinstance(value, float):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _floats(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _floats(item, f"{path}[{i}]")


def load_scenario(source: ScenarioSource, overrides: Overrides | None = None) -> Scenario:
    """Load a scenario from a file path, TOML text or a dict, and apply `overrides`.

    A `str` is TOML text if it contains a newline or `=`, else a path. `overrides` is
    either `"a.b=c"` strings (values parsed as TOML literals when possible, as on the
    command line) or a mapping of dotted keys to Python values (used as they are).
    Raises `ScenarioError` for a missing file, malformed TOML, or a bad override.
    """
    if isinstance(source, Mapping):
        doc = copy.deepcopy(dict(source))
    elif isinstance(source, str) and ("\n" in source or "=" in source):
        doc = _parse_toml(source, "scenario")
    else:
        file = Path(source)
        doc = read_toml(file, "scenario")
        _resolve_paths(doc, file.absolute().parent, check=False)
    for key, value in _override_items(overrides):
        set_field(doc, key, value)
    _resolve_paths(doc, Path.cwd(), check=True)
    return Scenario(doc)


def parse_override(text: str) -> tuple[str, Any]:
    """Split `"a.b=c"` into the key and the value parsed as a TOML literal, else a string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError("", f"override '{text}' is not of the form key=value (e.g. seed=2)")
    return key, parse_literal(raw.strip())


def parse_literal(text: str) -> Any:
    """`text` as a TOML value (`0.01`, `true`, `"x"`, `{kind="bbr"}`), or as-is if it is none."""
    if "\n" in text:
        return text
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text
    # `2024-01-01` parses as a date, which no scenario field is; keep the text.
    return text if isinstance(value, datetime.date | datetime.time) else value


def set_field(doc: dict[str, Any], key: str, value: Any) -> None:
    """Set the field at dotted `key` to `value`, creating tables on the way."""
    parts = key.split(".")
    if not all(parts):
        raise ScenarioError(key, "empty segment in dotted key")
    node: Any = doc
    for depth, part in enumerate(parts):
        slot: int | str = part
        if isinstance(node, list):
            slot = _element_index(node, part, key, ".".join(parts[:depth]))
        elif part not in node:
            node[part] = [] if depth == 0 and part in ARRAYS_OF_TABLES else {}
        if depth == len(parts) - 1:
            node[slot] = value
        else:
            node[slot] = _table_at(node[slot], key, ".".join(parts[: depth + 1]))
            node = node[slot]


def _table_at(value: Any, key: str, where: str) -> Any:
    """The container to descend into at `where`; a name becomes its table form
    (`{kind = ...}`, a profile's `{base = ...}`)."""
    if isinstance(value, dict | list):
        return value
    if isinstance(value, str):
        return {NAME_KEYS.get(where.rsplit(".", 1)[-1], "kind"): value}
    raise ScenarioError(key, f"'{where}' is {value!r}, not a table, so it has no fields to set")


def _element_index(items: list[Any], part: str, key: str, where: str) -> int:
    """The index of the element of `items` named `part`, or `part` read as an index."""
    names = [item.get("name") for item in items if isinstance(item, dict)]
    for index, item in enumerate(items):
        if isinstance(item, dict) and item.get("name") == part:
            return index
    if part.isdecimal() and int(part) < len(items):
        return int(part)
    listed = ", ".join(repr(n) for n in names if n is not None) or "none"
    indices = f"0..{len(items) - 1}" if items else "none"
    raise ScenarioError(
        key, f"no {where} named {part!r}; {where} names are {listed} (indices {indices})"
    )


def _override_items(overrides: Overrides | None) -> Iterator[tuple[str, Any]]:
    if overrides is None:
        return
    if isinstance(overrides, Mapping):
        yield from overrides.items()
    elif isinstance(overrides, str):
        yield parse_override(overrides)
    else:
        for text in overrides:
            yield parse_override(text)


def read_toml(file: Path, what: str) -> dict[str, Any]:
    """The TOML document in `file` (a `what` file: "scenario", "sweep"), or a `ScenarioError`
    saying it is missing, unreadable or not TOML."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("", f"{what} file not found: '{file}'") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError("", f"cannot read {what} file '{file}': {e}") from None
    return _parse_toml(text, f"'{file}'")


def _parse_toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"{origin} is not valid TOML: {e}") from None


def _resolve_paths(doc: dict[str, Any], base: Path, *, check: bool) -> None:
    """Make the path fields of `doc` absolute against `base`; if `check`, they must exist."""
    for pattern in PATH_FIELDS:
        for container, field, dotted in _fields_matching(doc, pattern.split("."), ""):
            given = container[field]
            if not is_path(pattern, given):
                continue  # a name, or not a path: the core will say what is wrong with it
            path = base / Path(given).expanduser()
            container[field] = str(path)
            if check and not path.is_file():
                raise ScenarioError(dotted, f"file not found: '{given}' (looked for {path})")


def is_path(pattern: str, value: Any) -> bool:
    """Whether `value`, given for the path field `pattern`, names a file."""
    return isinstance(value, str) and value.endswith(PATH_FIELDS[pattern])


def _fields_matching(
    node: Any, parts: list[str], prefix: str
) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(table, field, dotted key) for each field of `node` at the dotted `parts`."""
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(node, list):
            for i, item in enumerate(node):
                yield from _fields_matching(item, rest, f"{prefix}{i}.")
        return
    if not isinstance(node, dict) or head not in node:
        return
    if rest:
        yield from _fields_matching(node[head], rest, f"{prefix}{head}.")
    else:
        yield node, head, f"{prefix}{head}"
