"""Documented defaults are the ones that run: the constants table in each congestion-control,
ABR and dash.js-profile file's header (`| Name | Value | Unit | …`) and the README's list of
algorithm parameters, against the parameters `bloatlab validate` echoes."""

from __future__ import annotations

import math
import re
import tomllib
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import bloatlab

REPO = Path(__file__).parents[2]
CC = REPO / "crates" / "core" / "src" / "cc"
DASH = REPO / "crates" / "core" / "src" / "app" / "dash"

# Each algorithm's header tables, in the order they apply: a later file's rows override an
# earlier one's (bbr3 and bbr2-quic are BBRv2's table overlaid by their presets' rows).
HEADERS = {
    "reno": ["reno.rs"],
    "cubic": ["cubic.rs"],
    "cubic-quic": ["cubic_quic.rs"],
    "bbr": ["bbr/mod.rs"],
    "bbr2": ["bbr2/mod.rs"],
    "bbr3": ["bbr2/mod.rs", "bbr2/params.rs"],
    "bbr2-quic": ["bbr2/mod.rs", "bbr2/params.rs"],
    "bbr-s": ["bbr_s.rs"],
    "bbr2-s": ["bbr2_s.rs"],
    "bbr-shallow": ["bbr_shallow.rs"],
    "obbr": ["obbr/mod.rs"],
    "b3r": ["b3r.rs"],
}
# A preset's rows in a shared file carry its prefix; rows of another preset's are not its own.
PRESET_PREFIX = {"bbr3": "V3_", "bbr2-quic": "QUIC_"}
PRESET_PREFIXES = tuple(PRESET_PREFIX.values())
# Constants whose parameter has another name.
PARAMETER_OF = {
    "CWND_MIN_TARGET": "min_cwnd",
    "HIGH_GAIN@bbr2-quic": "startup_pacing_gain",
    "STARTUP_RECOVERY_GAIN@bbr2-quic": "startup_recovery_pacing_gain",
}


def minimal(cc: str = "cubic", app: dict[str, Any] | None = None) -> dict[str, Any]:
    """The smallest scenario: one flow, a bulk transfer unless `app` says otherwise."""
    return {
        "duration": "10s",
        "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
        "flow": [{"name": "f", "cc": cc, "app": app or {"kind": "bulk"}}],
    }


def echoed(kind: str) -> dict[str, Any]:
    """The algorithm's own parameters as the core resolves them (a base's are the base's)."""
    cc: dict[str, Any] = bloatlab.resolve(minimal(cc=kind))["flows"][0]["cc"]
    return {k: v for k, v in cc.items() if not isinstance(v, dict) and k != "kind"}


def number(text: str) -> float | None:
    """`739/256`, `2^20`, `10 000`, `1.2 Mb/s`, `0.5`; None for anything else."""
    text = re.sub(r"[\s\u2009\u202f]", "", text)
    scale = 1e6 if text.endswith("Mb/s") else 1.0
    text = text.removesuffix("Mb/s")
    if m := re.fullmatch(r"(\d+)\^(\d+)", text):
        return float(int(m[1]) ** int(m[2])) * scale
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)", text):  # 739/256, 1/1.3
        return float(Fraction(m[1]) / Fraction(m[2])) * scale
    try:
        return float(Fraction(text)) * scale
    except ValueError:
        return None


def value(text: str) -> Any:
    """A documented value as a comparable one; None when it is prose, not a value."""
    text = text.strip().strip("`")
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if text in ("true", "on"):
        return True
    if text in ("false", "off"):
        return False
    if m := re.fullmatch(r"\[(.*)\]", text):  # a list: [1.25, 0.75, 1, …]
        items = [number(item) for item in m[1].split(",")]
        return None if None in items else items
    if m := re.fullmatch(r"((?:\d+,)*\d+)×(\d+) ?/(\d+)", text):  # 320,192,256×6 /256
        first = [int(n) for n in m[1].split(",")]
        return [n / int(m[3]) for n in first + [first[-1]] * (int(m[2]) - 1)]
    if "=" in text:  # "512/256 = 2", "2 + 1/4 = 2.25": the plain value after the last "="
        text = text.rsplit("=", 1)[1]
    text = re.split(r"≈|\(", text)[0]  # "739/256 ≈ 2.887", "0 (infinite)": the exact value
    return number(text)


def same(documented: Any, running: Any) -> bool:
    if isinstance(documented, list):
        return len(documented) == len(running) and all(
            same(d, r) for d, r in zip(documented, running, strict=True)
        )
    if isinstance(documented, float) and not isinstance(running, bool):
        return math.isclose(documented, float(running), rel_tol=1e-9)
    return bool(documented == running)


def header_rows(path: Path) -> list[tuple[str, str, str]]:
    """(Name, Value, Unit) of every `| Name | Value | Unit | …` table in the file's header."""
    rows, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip().removeprefix("//!").strip()
        if not line.lstrip().startswith("//!") or not text.startswith("|"):
            inside = False
        elif re.match(r"\|\s*Name\s*\|\s*Value\s*\|", text):
            inside = True
        elif inside and not re.fullmatch(r"[|\-\s]+", text):
            cells = [cell.strip() for cell in text.strip("|").split("|")]
            rows.append((cells[0].strip("`"), cells[1], cells[2]))
    return rows


def documented_in_headers(kind: str, parameters: dict[str, Any]) -> dict[str, Any]:
    documented: dict[str, Any] = {}
    prefix = PRESET_PREFIX.get(kind, "")
    for file in HEADERS[kind]:
        for name, text, _ in header_rows(CC / file):
            if name.startswith(PRESET_PREFIXES):
                if not prefix or not name.startswith(prefix):
                    continue
                name = name.removeprefix(prefix)
            key = PARAMETER_OF.get(f"{name}@{kind}", PARAMETER_OF.get(name, name.lower()))
            parsed = value(text)
            if key in parameters and parsed is not None:
                documented[key] = parsed
    return documented


@pytest.mark.parametrize("kind", HEADERS)
def test_a_header_table_gives_the_defaults_that_run(core: ModuleType, kind: str) -> None:
    parameters = echoed(kind)
    documented = documented_in_headers(kind, parameters)
    wrong = {
        key: (text, parameters[key])
        for key, text in documented.items()
        if not same(text, parameters[key])
    }
    assert not wrong, f"{kind}: header value, running value: {wrong}"
    # not vacuous: reno has no parameters, b3r only its host switch, BBR Shallow one constant
    assert len(documented) >= {"reno": 0, "b3r": 0, "bbr-shallow": 1}.get(kind, 2), documented


def readme_parameters() -> list[tuple[str, str, str]]:
    """(algorithm, parameter, documented value) from the README's algorithm parameters."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("Algorithm parameters (every Linux constant")[1].split("\n## ")[0]
    found = []
    for bullet in re.split(r"\n\* ", section)[1:]:
        bullet = " ".join(bullet.split())
        kind = re.match(r"`([a-z0-9-]+)`", bullet)
        assert kind, bullet[:40]
        pair = r"`([a-z_0-9]+)` / `([a-z_0-9]+)` \(([^()/]+) / ([^()/]+)\)"  # `a` / `b` (1 / 2)
        for p in re.finditer(pair, bullet):
            found += [(kind[1], p[1], p[3]), (kind[1], p[2], p[4])]
        bullet = re.sub(pair, "", bullet)
        for p in re.finditer(
            r"`([a-z_0-9]+)` \((`\"[^\"]+\"`|\[[^\]]*\]|[^\s,;:)]+(?: Mb/s)?)", bullet
        ):
            found.append((kind[1], p[1], p[2]))
    return found


def test_the_readme_gives_the_defaults_that_run(core: ModuleType) -> None:
    compared, wrong = 0, []
    parameters = {kind: echoed(kind) for kind in HEADERS}
    for kind, key, text in readme_parameters():
        documented = value(text)
        if key not in parameters[kind] or documented is None:
            continue
        compared += 1
        if not same(documented, parameters[kind][key]):
            wrong.append((kind, key, text, parameters[kind][key]))
    assert not wrong, f"README value, running value: {wrong}"
    assert compared >= 60


DASH_APP = {"kind": "dash", "video": "www21"}


def dash_echo(abr: str, profile: str) -> dict[str, Any]:
    scenario = minimal(app={**DASH_APP, "abr": abr, "profile": profile})
    app: dict[str, Any] = bloatlab.resolve(scenario)["flows"][0]["app"]
    return app


def in_unit(text: str, unit: str) -> Any:
    """A header value in its table's unit as the echo gives it (durations in seconds)."""
    documented = value(text)
    if isinstance(documented, float) and unit == "ms":
        return documented / 1000
    return documented


def running(echoed_value: Any) -> Any:
    """An echoed value, a duration ("0.5s") in seconds."""
    if isinstance(echoed_value, str) and (m := re.fullmatch(r"([\d.]+)s", echoed_value)):
        return float(m[1])
    return echoed_value


# The ABR rules with constants of their own (`abr = { kind = …, … }`) and the files whose
# "(profile)" rows document the dash.js profile's fields; profile.rs documents them all.
ABR_FILES = {
    "bba": "bba.rs",
    "rb": "rb.rs",
    "festive": "festive.rs",
    "robust_mpc": "robust_mpc.rs",
}
PROFILE_FILES = [
    "profile.rs",
    "abr/abandon.rs",
    "abr/dynamic.rs",
    "abr/insufficient_buffer.rs",
    "abr/switch_history.rs",
]
PROFILES = ("v3", "v5")  # the tables' "a / b" columns


def test_each_abr_rules_header_gives_the_defaults_that_run(core: ModuleType) -> None:
    compared, wrong = 0, []
    for abr, file in ABR_FILES.items():
        parameters = dash_echo(abr, "v3")["abr"]
        for name, text, unit in header_rows(DASH / "abr" / file):
            key = name.split("`")[0].strip().lower()
            documented = in_unit(text, unit)
            if key in parameters and documented is not None:
                compared += 1
                if not same(documented, running(parameters[key])):
                    wrong.append((abr, key, text, parameters[key]))
    assert not wrong, f"header value, running value: {wrong}"
    assert compared >= 10


def profile_rows() -> list[tuple[str, str, str, str]]:
    """(file, field, value, unit) of every profile row; `a_{x,y}_b` with "1, 2" is two rows."""
    rows = []
    for file in PROFILE_FILES:
        for name, text, unit in header_rows(DASH / file):
            key = name.removeprefix("(profile)").strip().strip("`")
            if m := re.fullmatch(r"(\w*)\{(\w+),(\w+)\}(\w*)", key):
                for part, value_text in zip((m[2], m[3]), text.split(", "), strict=True):
                    rows.append((file, f"{m[1]}{part}{m[4]}", value_text, unit))
            else:
                rows.append((file, key, text, unit))
    return rows


def test_the_profile_headers_give_each_profiles_defaults(core: ModuleType) -> None:
    profiles = {p: dash_echo("dynamic", p)["profile"] for p in PROFILES}
    compared, wrong = 0, []
    for file, key, text, unit in profile_rows():
        per_profile = text.split(" / ") if " / " in text else [text] * 2
        for profile, part in zip(PROFILES, per_profile, strict=True):
            documented = in_unit(part, unit)
            if key in profiles[profile] and documented is not None:
                compared += 1
                if not same(documented, running(profiles[profile][key])):
                    wrong.append((file, profile, key, part, profiles[profile][key]))
    assert not wrong, f"header value, running value: {wrong}"
    assert compared >= 90


def reference_defaults() -> list[tuple[str, str, Any]]:
    """(table, field, default) for every row of the README's scenario reference whose default
    is a TOML value (`"1Gbps"`, `{ kind = "none" }`, `1`); "required" or prose is left out."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Scenario reference")[1].split("\n## ")[0]
    table, rows = "", []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 3:
            continue
        if heading := re.fullmatch(r"\*\*`(.+)`\*\*", cells[0]):
            table = heading[1]
            continue
        field = re.fullmatch(r"`([a-z_]+)`", cells[0])
        default = re.fullmatch(r"`(.+)`", cells[2])
        if field and default:
            try:
                parsed = tomllib.loads(f"value = {default[1]}")["value"]
            except tomllib.TOMLDecodeError:
                continue
            rows.append((table, field[1], parsed))
    return rows


def for_table(table: str) -> dict[str, Any]:
    """The smallest scenario with a flow of the table's kind (a DASH one for the player's)."""
    return minimal(app=dict(DASH_APP) if table.startswith("app") else None)


def with_field(table: str, field: str, default: Any) -> dict[str, Any]:
    scenario = for_table(table)
    if table == "":
        target = scenario
    elif table == "[bottleneck]":
        target = scenario["bottleneck"]
    elif table == "[[flow]]":
        target = scenario["flow"][0]
    elif table == "[telemetry]":
        target = scenario["telemetry"] = {}
    else:
        target = scenario["flow"][0]["app"]
    target[field] = default
    return scenario


def test_a_field_left_out_takes_the_default_the_scenario_reference_gives(
    core: ModuleType,
) -> None:
    rows = reference_defaults()
    wrong = []
    for table, field, default in rows:
        if bloatlab.resolve(with_field(table, field, default)) != bloatlab.resolve(
            for_table(table)
        ):
            wrong.append((table, field, default))
    assert not wrong, f"setting the documented default changes the scenario: {wrong}"
    tables = {table for table, _, _ in rows}
    assert tables == {"", "[bottleneck]", "[[flow]]", 'app = { kind = "dash", ... }', "[telemetry]"}
    assert len(rows) >= 25
