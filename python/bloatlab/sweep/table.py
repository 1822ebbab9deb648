"""A sweep folder: its manifest (`sweep.json`) and its table (`sweep.parquet`).

    DIR/sweep.json      the sweep (inline scenario), core version, and every planned run:
                        key, swept parameters, seed, flow groups
    DIR/sweep.parquet   one row per planned run: `run` (key), `seed`, one column per swept
                        parameter, `status` (done | failed | missing), `error`, `wall_s`,
                        then the flattened summary metrics (`bottleneck.drop_rate`,
                        `flows.<name>.goodput_bps`, `groups.<name>.capacity_fraction`, …)
    DIR/runs/<key>/     the run folders (`bloatlab.runstore`)

The table is rebuilt from the run folders, so it is always what the folders hold.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ..analysis.metrics import flatten_summary
from ..runstore import SUMMARY_FILE, RunStore
from ..store import write_file
from .plan import PlannedRun
from .spec import Sweep, label

MANIFEST = "sweep.json"
TABLE = "sweep.parquet"
FORMAT = 1
FIXED_COLUMNS = ("run", "seed", "status", "error", "wall_s")


def write_manifest(
    folder: Path, sweep: Sweep, runs: Sequence[PlannedRun], runs_dir: Path, core_version: str
) -> dict[str, Any]:
    try:
        where = os.path.relpath(runs_dir, folder)
    except ValueError:  # another drive
        where = str(runs_dir)
    manifest = {
        "format": FORMAT,
        "name": sweep.name,
        "description": sweep.description,
        "core_version": core_version,
        "parameters": sweep.parameters,
        "runs_dir": where,
        "sweep": sweep.to_dict(),
        "runs": [
            {
                "key": run.key,
                "seed": run.point.seed,
                "params": run.point.params,
                "groups": run.groups,
                "error": run.error,
            }
            for run in runs
        ],
    }
    text = json.dumps(manifest, indent=1, default=str) + "\n"
    write_file(folder / MANIFEST, text.encode("utf-8"))
    return manifest


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    path = Path(folder) / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{folder} is not a sweep folder: no {MANIFEST}") from None
    return manifest


def runs_folder(folder: str | os.PathLike[str], manifest: Mapping[str, Any]) -> Path:
    return (Path(folder) / str(manifest.get("runs_dir", "runs"))).resolve()


def build_table(folder: str | os.PathLike[str], manifest: Mapping[str, Any]) -> pa.Table:
    """The sweep's table from its run folders (a row per planned run, in plan order)."""
    store = RunStore(runs_folder(folder, manifest))
    parameters: list[str] = list(manifest["parameters"])
    rows: list[dict[str, Any]] = []
    metric_names: dict[str, None] = {}  # insertion-ordered set
    for run in manifest["runs"]:
        meta = store.meta(run["key"])
        status = "missing" if meta is None else str(meta.get("status", "failed"))
        error = run.get("error") or (meta or {}).get("error")
        timing = (meta or {}).get("timing", {})
        metrics: dict[str, float] = {}
        if status == "done":
            summary = store.summary(run["key"])
            if summary is None:
                status, error = "failed", f"the run folder has no {SUMMARY_FILE}"
            else:
                metrics = flatten_summary(summary, run.get("groups"))
        for name in metrics:
            if name not in parameters and name not in FIXED_COLUMNS:
                metric_names.setdefault(name)
        rows.append(
            {
                "run": run["key"],
                "seed": run["seed"],
                "params": run["params"],
                "status": status,
                "error": error,
                "wall_s": float(timing.get("simulate_s", math.nan)),
                "metrics": metrics,
            }
        )
    columns: dict[str, pa.Array] = {
        "run": pa.array([r["run"] for r in rows], pa.string()),
        "seed": pa.array([r["seed"] for r in rows], pa.int64()),
    }
    for name in parameters:
        columns[name] = parameter_column([r["params"].get(name) for r in rows])
    columns["status"] = pa.array([r["status"] for r in rows], pa.string())
    columns["error"] = pa.array([r["error"] for r in rows], pa.string())
    columns["wall_s"] = pa.array([r["wall_s"] for r in rows], pa.float64())
    for name in metric_names:
        columns[name] = pa.array([r["metrics"].get(name, math.nan) for r in rows], pa.float64())
    table = pa.table(columns) if rows else _empty(parameters)
    schema_meta: dict[str | bytes, str | bytes] = {
        b"bloatlab.sweep": str(manifest.get("name", "")).encode(),
        b"bloatlab.parameters": json.dumps(parameters).encode(),
    }
    return table.replace_schema_metadata(schema_meta)


def _empty(parameters: list[str]) -> pa.Table:
    fields = [pa.field("run", pa.string()), pa.field("seed", pa.int64())]
    fields += [pa.field(p, pa.string()) for p in parameters]
    fields += [pa.field(c, pa.string()) for c in ("status", "error")]
    fields.append(pa.field("wall_s", pa.float64()))
    return pa.schema(fields).empty_table()


def parameter_column(values: list[Any]) -> pa.Array:
    """Numbers stay numbers; anything else (units, tables, mixtures) becomes its TOML label."""
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.array(values, pa.bool_())
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.array(values, pa.int64())
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return pa.array([None if v is None else float(v) for v in values], pa.float64())
    return pa.array([None if v is None else label(v) for v in values], pa.string())


def write_table(folder: str | os.PathLike[str], table: pa.Table) -> Path:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return write_file(Path(folder) / TABLE, sink.getvalue())


@dataclass(frozen=True)
class SweepResults:
    """A finished (or partly finished) sweep folder, for analysis and reports."""

    folder: Path
    manifest: dict[str, Any]
    table: pa.Table

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> SweepResults:
        """The sweep at `folder`; its table from `sweep.parquet`, rebuilt if that is missing."""
        path = Path(folder)
        manifest = read_manifest(path)
        try:
            table = pq.read_table(path / TABLE)
        except FileNotFoundError:
            table = build_table(path, manifest)
        return cls(path, manifest, table)

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.folder.name))

    @property
    def parameters(self) -> list[str]:
        return [p for p in self.manifest["parameters"] if p in self.table.column_names]

    @property
    def metrics(self) -> list[str]:
        fixed = {*FIXED_COLUMNS, *self.manifest["parameters"]}
        return [c for c in self.table.column_names if c not in fixed]

    def rows(self) -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self.table.to_pylist()
        return rows

    def groups(self, key: str) -> dict[str, list[str]]:
        """The run's groups of flows (the `[[flow]]` entries) → their flows' names."""
        for run in self.manifest["runs"]:
            if run["key"] == key:
                return dict(run.get("groups") or {})
        raise KeyError(f"no run {key} in sweep {self.name}")

    def run_folder(self, key: str) -> Path:
        return runs_folder(self.folder, self.manifest) / key
