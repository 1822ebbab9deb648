"""Time series from a run folder: rates per group of flows, loss and backlog over fixed bins."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow.compute as pc
import pyarrow.parquet as pq

Array = npt.NDArray[np.float64]


def bins(start: float, end: float, width: float) -> Array:
    """Bin edges from `start` to `end` (whole bins only)."""
    count = int(np.floor((end - start) / width + 1e-9))
    return np.asarray(start + width * np.arange(count + 1), dtype=np.float64)


def group_rates(
    folder: str | os.PathLike[str],
    groups: Mapping[str, Sequence[str]],
    edges: Array,
    column: str = "delivered_bytes",
) -> dict[str, Array]:
    """Bits/s of each group of flows in each bin, from the cumulative byte `column` of
    flows.parquet (payload delivered by default), interpolated at the bin edges."""
    table = pq.read_table(Path(folder) / "flows.parquet", columns=["t", "flow", column])
    names = table.column("flow").cast("string")
    rates: dict[str, Array] = {}
    for group, members in groups.items():
        total = np.zeros(len(edges))
        for member in members:
            rows = table.filter(pc.equal(names, member))
            if rows.num_rows == 0:
                continue
            t = rows.column("t").to_numpy()
            cumulative = rows.column(column).to_numpy().astype(np.float64)
            total += np.interp(edges, t, cumulative, left=0.0)
        rates[group] = np.diff(total) * 8 / np.diff(edges)
    return rates


def group_mean(
    folder: str | os.PathLike[str],
    groups: Mapping[str, Sequence[str]],
    edges: Array,
    column: str,
) -> dict[str, Array]:
    """The mean of a per-flow telemetry column (e.g. `srtt_s`) over each group and bin."""
    table = pq.read_table(Path(folder) / "flows.parquet", columns=["t", "flow", column])
    names = np.asarray(table.column("flow").cast("string").to_pylist())
    t = table.column("t").to_numpy()
    values = table.column(column).to_numpy().astype(np.float64)
    which = np.digitize(t, edges) - 1
    out: dict[str, Array] = {}
    for group, members in groups.items():
        mask = np.isin(names, list(members)) & (which >= 0) & (which < len(edges) - 1)
        sums = np.bincount(which[mask], weights=values[mask], minlength=len(edges) - 1)
        counts = np.bincount(which[mask], minlength=len(edges) - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[group] = np.asarray(sums / counts, dtype=np.float64)
    return out


def queue_series(folder: str | os.PathLike[str], edges: Array) -> dict[str, Any]:
    """Per bin: loss rate (drops / arrivals at the bottleneck) and mean backlog in bytes."""
    table = pq.read_table(Path(folder) / "queue.parquet")
    t = table.column("t").to_numpy()
    drops = np.interp(edges, t, table.column("drops").to_numpy().astype(np.float64))
    arrivals = np.interp(edges, t, table.column("arrivals").to_numpy().astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = np.diff(drops) / np.diff(arrivals)
    backlog = table.column("backlog_bytes").to_numpy().astype(np.float64)
    which = np.digitize(t, edges) - 1
    inside = (which >= 0) & (which < len(edges) - 1)
    sums = np.bincount(which[inside], weights=backlog[inside], minlength=len(edges) - 1)
    counts = np.bincount(which[inside], minlength=len(edges) - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_backlog = sums / counts
    return {"loss": np.nan_to_num(loss), "backlog_bytes": mean_backlog, "t": t, "raw": backlog}


def crossing(xs: Sequence[float], a: Sequence[float], b: Sequence[float]) -> float | None:
    """The first x (linear interpolation between grid points) where `a` stops exceeding `b`."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    x = np.asarray(xs, dtype=np.float64)
    order = np.argsort(x)
    x, diff = x[order], diff[order]
    for i in range(1, len(x)):
        if diff[i - 1] > 0 >= diff[i]:
            return float(x[i - 1] + (x[i] - x[i - 1]) * diff[i - 1] / (diff[i - 1] - diff[i]))
    return None


def switches(values: Array) -> int:
    """How often the sign of `values` changes (zeros and NaN skipped)."""
    signs = np.sign(values[np.isfinite(values) & (values != 0)])
    return int(np.count_nonzero(signs[1:] != signs[:-1]))
