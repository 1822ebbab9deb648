"""`Result`: one simulation's summary and columnar tables, and its results folder."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .runstore import SUMMARY_FILE
from .store import write_folder

if TYPE_CHECKING:
    import pandas

# Dictionary indices are stored as int32: Arrow's recommended signed index type, which every
# reader (pandas, polars, DuckDB, Parquet round trips) accepts.
_INDEX_TYPE = np.int32

# Tables only some runs have (segments: DASH flows); not written when empty.
OPTIONAL_TABLES = frozenset({"segments"})


@dataclass(frozen=True)
class Result:
    """The outcome of `bloatlab.simulate`.

    `summary` is the parsed `summary.json` (resolved scenario, per-flow and bottleneck
    statistics). `tables` maps each table name (`flows`, `queue`, `samples`, and any the core
    adds) to a `pyarrow.Table`; dictionary-coded columns (`flow`, `cc_state`) are Arrow
    dictionary arrays of their names. `stats` is the core's run statistics (events,
    peak_pending_events; packets put on the wire and of them packets_received by a host,
    packets_dropped at the bottleneck and packets_in_network at the end; sim_time_s,
    wall_time_s).
    """

    summary: dict[str, Any]
    tables: Mapping[str, pa.Table]
    dictionaries: Mapping[str, list[str]] = field(default_factory=dict)
    stats: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_core(cls, raw: Mapping[str, Any]) -> Result:
        """Build from the dict `bloatlab._core.simulate` returns (no per-row Python objects)."""
        dictionaries = {name: list(values) for name, values in raw["dictionaries"].items()}
        tables = {
            name: table_from_columns(columns, dictionaries)
            for name, columns in raw["tables"].items()
        }
        return cls(
            summary=json.loads(raw["summary"]),
            tables=tables,
            dictionaries=dictionaries,
            stats=dict(raw["stats"]),
        )

    @property
    def flows(self) -> pa.Table:
        return self.table("flows")

    @property
    def queue(self) -> pa.Table:
        return self.table("queue")

    @property
    def samples(self) -> pa.Table:
        return self.table("samples")

    @property
    def segments(self) -> pa.Table:
        """DASH segment downloads (empty when the run has no DASH flow)."""
        return self.table("segments")

    def table(self, name: str) -> pa.Table:
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"no table {name!r}; tables are {sorted(self.tables)}") from None

    def to_pandas(self, name: str) -> pandas.DataFrame:
        """Table `name` as a pandas DataFrame (needs pandas: `pip install bloatlab[pandas]`)."""
        return self.table(name).to_pandas()

    def write(self, out_dir: str | os.PathLike[str], *, plot: bool = False) -> Path:
        """Write `summary.json` and `<table>.parquet` (and `overview.png` if `plot`) atomically.

        The folder appears, or replaces an existing one, only once every file is complete.
        """

        def fill(folder: Path) -> None:
            for name, data in self.files().items():
                (folder / name).write_bytes(data)
            if plot:
                from .plots.overview import save_overview

                save_overview(self, folder / "overview.png")

        return write_folder(out_dir, fill)

    def files(self) -> dict[str, bytes]:
        """The results folder's files as bytes: `summary.json` and `<table>.parquet`.

        `write` stores exactly these; sweeps compute them on a worker (a process or a Dask
        worker) and store them on the machine that holds the results.
        """
        files = {SUMMARY_FILE: (json.dumps(self.summary, indent=2) + "\n").encode("utf-8")}
        for name, table in self.tables.items():
            if name in OPTIONAL_TABLES and table.num_rows == 0:
                continue
            sink = io.BytesIO()
            pq.write_table(table, sink)
            files[f"{name}.parquet"] = sink.getvalue()
        return files


def table_from_columns(
    columns: Mapping[str, Any], dictionaries: Mapping[str, list[str]]
) -> pa.Table:
    """A `pyarrow.Table` from 1-D numpy columns; columns named in `dictionaries` hold codes."""
    arrays: dict[str, pa.Array] = {}
    for name, values in columns.items():
        values = np.asarray(values)
        if values.ndim != 1:
            raise ValueError(f"column {name!r} is {values.ndim}-D; columns must be 1-D")
        if name in dictionaries:
            arrays[name] = pa.DictionaryArray.from_arrays(
                pa.array(values.astype(_INDEX_TYPE, copy=False)),
                pa.array(dictionaries[name], type=pa.string()),
            )
        else:
            arrays[name] = pa.array(values)
    return pa.table(arrays)


# Columns holding names, stored as Arrow dictionaries.
_NAME_COLUMNS = ("flow", "cc_state")


def load_result(folder: str | os.PathLike[str]) -> Result:
    """Read a results folder (`summary.json` and `<table>.parquet`) back into a `Result`.

    Name columns (`flow`, `cc_state`) are re-coded against one name list per column, so
    codes mean the same in every table (Parquet keeps only the names a file uses). The
    core's run statistics are not stored; `stats` is empty.
    """
    root = Path(folder)
    try:
        summary: dict[str, Any] = json.loads((root / SUMMARY_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{root} is not a results folder: no {SUMMARY_FILE}") from None
    raw = {path.stem: pq.read_table(path) for path in sorted(root.glob("*.parquet"))}
    scenario_flows = summary.get("scenario", {}).get("flows", [])
    in_order = [f["name"] for f in scenario_flows if isinstance(f, dict) and "name" in f]
    names: dict[str, list[str]] = {"flow": in_order or list(summary.get("flows", {}))}
    for table in raw.values():
        for column in _NAME_COLUMNS:
            if column in table.column_names:
                known = names.setdefault(column, [])
                values = table.column(column).cast(pa.string()).unique().to_pylist()
                known.extend(v for v in values if v is not None and v not in known)
    tables = {name: _recode(table, names) for name, table in raw.items()}
    return Result(summary=summary, tables=tables, dictionaries=names)


def _recode(table: pa.Table, names: Mapping[str, list[str]]) -> pa.Table:
    import pyarrow.compute as pc

    for column in _NAME_COLUMNS:
        if column not in table.column_names:
            continue
        text = table.column(column).cast(pa.string()).combine_chunks()
        codes = pc.index_in(text, value_set=pa.array(names[column], pa.string()))
        array = pa.DictionaryArray.from_arrays(
            codes.cast(pa.int32()), pa.array(names[column], pa.string())
        )
        table = table.set_column(table.column_names.index(column), column, array)
    return table
