"""`Result`: one simulation's summary and columnar tables, and its results folder."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

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
    dictionary arrays of their names. `stats` is the core's run statistics (events, packets,
    sim_time_s, wall_time_s).
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
            with open(folder / "summary.json", "w", encoding="utf-8") as f:
                json.dump(self.summary, f, indent=2)
                f.write("\n")
            for name, table in self.tables.items():
                if name in OPTIONAL_TABLES and table.num_rows == 0:
                    continue
                pq.write_table(table, folder / f"{name}.parquet")
            if plot:
                from .plots.overview import save_overview

                save_overview(self, folder / "overview.png")

        return write_folder(out_dir, fill)


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
