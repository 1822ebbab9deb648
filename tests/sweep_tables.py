"""Hand-made sweep results for unit tests of code that reads sweeps (the reproductions' claims):
rows in, the `SweepResults` a finished sweep folder would load, without running anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from bloatlab.sweep.table import SweepResults

Row = Mapping[str, Any]


def sweep_results(
    folder: Path,
    name: str,
    rows: Sequence[Row],
    *,
    missing: Any = None,
    groups: Callable[[Row], Any] = lambda row: {},
) -> SweepResults:
    """A sweep called `name` at `folder` holding `rows`: runs `<name>-<i>`, done and seed 1 unless
    their row says otherwise (a row's own `run` key is kept), a column a row lacks holding
    `missing` (null as `build_table` writes it, or NaN), and each run's groups of flows."""
    runs = [
        {"run": f"{name}-{i}", "status": "done", "seed": 1, **row} for i, row in enumerate(rows)
    ]
    columns = dict.fromkeys(column for run in runs for column in run)
    table = pa.Table.from_pylist([{c: run.get(c, missing) for c in columns} for run in runs])
    manifest = {
        "name": name,
        "parameters": [],
        "runs_dir": "runs",
        "runs": [{"key": run["run"], "groups": groups(run)} for run in runs],
    }
    return SweepResults(folder, manifest, table)


def unfinished(results: Mapping[str, SweepResults]) -> dict[str, SweepResults]:
    """The same sweeps with every run failed."""
    out = {}
    for name, result in results.items():
        table = result.table
        status = pa.array(["failed"] * table.num_rows)
        table = table.set_column(table.column_names.index("status"), "status", status)
        out[name] = SweepResults(result.folder, result.manifest, table)
    return out
