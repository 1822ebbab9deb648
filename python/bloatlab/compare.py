"""`bloatlab compare A B`: metric differences between two runs or two sweeps.

Runs (folders with `summary.json`): every per-flow and bottleneck summary metric, A beside B,
with B - A and (B - A) / |A|. Sweeps (folders with `sweep.json`): the same for every pair of
rows with equal swept parameters (those both sweeps vary) and seed. Metrics that did not
change are left out unless asked for.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .analysis.metrics import flatten_summary
from .analysis.units import metric_axis
from .errors import ScenarioError
from .results_folder import folder_kind
from .runstore import SUMMARY_FILE
from .sweep.table import SweepResults


def compare(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    patterns: Sequence[str] | None = None,
    changed_only: bool = True,
) -> dict[str, Any]:
    """The comparison as a JSON-ready dict (NaN as None)."""
    kinds = (folder_kind(Path(a), "A"), folder_kind(Path(b), "B"))
    if kinds[0] != kinds[1]:
        raise ScenarioError("B", f"cannot compare a {kinds[0]} ({a}) with a {kinds[1]} ({b})")
    if kinds[0] == "run":
        left, right = _run_metrics(Path(a)), _run_metrics(Path(b))
        return {
            "kind": "run",
            "a": str(a),
            "b": str(b),
            "metrics": _differences(left, right, patterns, changed_only),
        }
    return _compare_sweeps(Path(a), Path(b), patterns, changed_only)


def _run_metrics(folder: Path) -> dict[str, float]:
    summary = json.loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    return flatten_summary(summary)


def _compare_sweeps(
    a: Path, b: Path, patterns: Sequence[str] | None, changed_only: bool
) -> dict[str, Any]:
    left, right = SweepResults.load(a), SweepResults.load(b)
    keys = [p for p in left.parameters if p in right.parameters]
    metrics = [m for m in left.metrics if m in set(right.metrics)]

    def index(results: SweepResults) -> dict[tuple[Any, ...], dict[str, Any]]:
        return {
            (*(row[p] for p in keys), row["seed"]): row
            for row in results.rows()
            if row["status"] == "done"
        }

    rows_a, rows_b = index(left), index(right)
    rows = []
    for match in (k for k in rows_a if k in rows_b):
        ra, rb = rows_a[match], rows_b[match]
        diffs = _differences(
            {m: ra[m] for m in metrics}, {m: rb[m] for m in metrics}, patterns, changed_only
        )
        rows.append(
            {
                "params": dict(zip(keys, match[:-1], strict=True)),
                "seed": match[-1],
                "run_a": ra["run"],
                "run_b": rb["run"],
                "metrics": diffs,
            }
        )
    return {
        "kind": "sweep",
        "a": str(a),
        "b": str(b),
        "matched_on": [*keys, "seed"],
        "rows": rows,
        "only_in_a": len(rows_a.keys() - rows_b.keys()),
        "only_in_b": len(rows_b.keys() - rows_a.keys()),
    }


def _differences(
    a: dict[str, Any],
    b: dict[str, Any],
    patterns: Sequence[str] | None,
    changed_only: bool,
) -> list[dict[str, Any]]:
    names = list(a) + [m for m in b if m not in a]
    if patterns:
        names = [m for m in names if any(fnmatch.fnmatchcase(m, p) for p in patterns)]
    out = []
    for name in names:
        va, vb = _number(a.get(name)), _number(b.get(name))
        if changed_only and va == vb:
            continue
        diff = vb - va if va is not None and vb is not None else None
        rel = diff / abs(va) if diff is not None and va else None
        out.append({"metric": name, "a": va, "b": vb, "diff": diff, "rel": rel})
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def format_comparison(comparison: dict[str, Any]) -> str:
    """The comparison as text tables."""
    lines = [f"A: {comparison['a']}", f"B: {comparison['b']}"]
    if comparison["kind"] == "run":
        lines.extend(_metric_lines(comparison["metrics"], ""))
        return "\n".join(lines)
    lines.append(
        f"{len(comparison['rows'])} rows matched on {', '.join(comparison['matched_on'])}; "
        f"{comparison['only_in_a']} only in A, {comparison['only_in_b']} only in B"
    )
    for row in comparison["rows"]:
        where = ", ".join([*(f"{k}={v}" for k, v in row["params"].items()), f"seed {row['seed']}"])
        lines.append("")
        lines.append(where)
        lines.extend(_metric_lines(row["metrics"], "  "))
    return "\n".join(lines)


def _metric_lines(metrics: list[dict[str, Any]], indent: str) -> list[str]:
    if not metrics:
        return [f"{indent}no differences"]
    head = ("metric", "A", "B", "B - A", "relative")
    rows = [head]
    for m in metrics:
        axis = metric_axis(m["metric"])
        rows.append(
            (
                m["metric"],
                _value(m["a"], axis.scale, axis.unit),
                _value(m["b"], axis.scale, axis.unit),
                _value(m["diff"], axis.scale, axis.unit, signed=True),
                "–" if m["rel"] is None else f"{m['rel'] * 100:+.1f} %",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return [
        indent
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]


def _value(value: float | None, scale: float, unit: str, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    scaled = value * scale
    text = f"{scaled:+.4g}" if signed else f"{scaled:.4g}"
    return f"{text} {unit}" if unit else text
