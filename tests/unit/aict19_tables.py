"""Hand-made sweep tables for the AICT'19 reproduction's tests (test_aict19_claims.py and
test_aict19_figures.py beside this module; no simulation): rows in, the `SweepResults` a finished
sweep folder would load, each run's folder holding tiny `flows.parquet` and `queue.parquet` files
with only the columns the figures read. Shares are fractions of an 80 Mb/s link, loss rates
fractions of the packets that arrived.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bloatlab.reproduce.aict19._common import BBR_LABEL
from bloatlab.sweep.table import SweepResults
from sweep_tables import sweep_results

CAPACITY_BPS = 80e6
BDP_BYTES = 250_000  # 80 Mb/s × 25 ms
GROUPS = {"bbr": ["bbr-0", "bbr-1"], "cubic": ["cubic-0", "cubic-1"]}
SHALLOW = '{kind = "bbr-shallow", kernel = "4.17"}'  # how sweep tables name BBR Shallow


# ----- builders --------------------------------------------------------------------------------


def evenly(switches: int) -> list[float]:
    """Times of `switches` lead changes evenly spaced over the analysis window, 120–240 s."""
    return [120.0 + 120.0 / switches * (i + 0.5) for i in range(switches)]


def sweep(
    folder: Path, rows: Sequence[Mapping[str, Any]], lead_changes: Sequence[float] = evenly(12)
) -> SweepResults:
    """A sweep of `rows` (done, seed 1 unless they say otherwise), each run's folder holding a
    2 BBR + 2 CUBIC run whose groups swap the lead at `lead_changes` (or the row's)."""
    table = [{c: v for c, v in row.items() if c != "lead_changes"} for row in rows]
    results = sweep_results(folder, folder.name, table, groups=lambda run: GROUPS)
    for run, row in zip(results.rows(), rows, strict=True):
        write_run(results.run_folder(run["run"]), row.get("lead_changes", lead_changes))
    return results


def write_run(folder: Path, lead_changes: Sequence[float]) -> None:
    """flows.parquet and queue.parquet of 240 s in which BBR (60 Mb/s) and CUBIC (20 Mb/s) swap
    rates at the times `lead_changes`; BBR leads first."""
    folder.mkdir(parents=True)
    dt = 0.1
    t = np.linspace(0.0, 240.0, 2401)
    bbr_leads = np.searchsorted(lead_changes, t, side="right") % 2 == 0
    per_flow_bps = {
        "bbr": np.where(bbr_leads, 30e6, 10e6),
        "cubic": np.where(bbr_leads, 10e6, 30e6),
    }
    flows: dict[str, list[Any]] = {"t": [], "flow": [], "delivered_bytes": [], "srtt_s": []}
    for group, members in GROUPS.items():
        delivered = np.concatenate([[0.0], np.cumsum(per_flow_bps[group][:-1] * dt / 8)])
        for name in members:
            flows["t"] += list(t)
            flows["flow"] += [name] * len(t)
            flows["delivered_bytes"] += list(delivered)
            flows["srtt_s"] += [0.03] * len(t)
    pq.write_table(pa.table(flows), folder / "flows.parquet")
    queue = {
        "t": t,
        "arrivals": 1000.0 * t,
        "drops": 10.0 * t,
        "backlog_bytes": np.full(len(t), 1.2 * BDP_BYTES),
    }
    pq.write_table(pa.table(queue), folder / "queue.parquet")


def queue_row(mean_bdp: float, p90_bdp: float, **more: Any) -> dict[str, Any]:
    return {
        "bottleneck.backlog_mean_bdp": mean_bdp,
        "bottleneck.backlog_p90_bdp": p90_bdp,
        "bottleneck.bdp_bytes": BDP_BYTES,
        **more,
    }


def loss_row(
    buffer: float, drop_rate: float, *, flows: int = 2, cc: str = BBR_LABEL, **more: Any
) -> dict[str, Any]:
    return {
        "bottleneck.queue.limit": f"{buffer:g}BDP",
        "flow.bbr.count": flows,
        "bottleneck.rate": "80Mbps",  # swept, as every rate of Fig. 7's grid
        "flow.bbr.cc": cc,
        "bottleneck.drop_rate": drop_rate,
        **more,
    }


def share_row(buffer: float, bbr: float, cubic: float, **more: Any) -> dict[str, Any]:
    return {
        "bottleneck.queue.limit": f"{buffer:g}BDP",
        "groups.bbr.goodput_bps": bbr * CAPACITY_BPS,
        "groups.cubic.goodput_bps": cubic * CAPACITY_BPS,
        "bottleneck.capacity_bps": CAPACITY_BPS,
        "bottleneck.bdp_bytes": BDP_BYTES,
        **more,
    }


def shares(points: Mapping[float, tuple[float, float]]) -> list[dict[str, Any]]:
    """A share row per buffer from {buffer: (BBR share, CUBIC share)}."""
    return [share_row(b, bbr, cubic) for b, (bbr, cubic) in points.items()]


FAILED: dict[str, Any] = {"status": "failed"}


def sync_sweep(
    folder: Path,
    rates_bps: Sequence[float] = (20e6, 19e6, 21e6, 20e6),
    entries: Sequence[Sequence[float]] = ((27.0, 37.0, 47.0, 57.0),) * 4,
    **row: Any,
) -> SweepResults:
    """Fig. 4's sweep: one run of flows bbr1 … bbr4 delivering at `rates_bps` from 0 s, each in
    PROBE_RTT for 0.2 s from each of its `entries`, rows every 0.1 s for 60 s."""
    results = sweep_results(folder, "aict19-fig4", [dict(row)])
    run = results.run_folder(results.rows()[0]["run"])
    run.mkdir(parents=True)
    t = np.round(np.arange(0.0, 60.05, 0.1), 3)
    flows: dict[str, list[Any]] = {"t": [], "flow": [], "delivered_bytes": [], "cc_state": []}
    for i, (rate, starts) in enumerate(zip(rates_bps, entries, strict=True)):
        inside = np.zeros(len(t), dtype=bool)
        for start in starts:
            inside |= (t >= start) & (t < start + 0.2)
        flows["t"] += list(t)
        flows["flow"] += [f"bbr{i + 1}"] * len(t)
        flows["delivered_bytes"] += list(rate * t / 8)
        flows["cc_state"] += ["PROBE_RTT" if x else "PROBE_BW" for x in inside]
    pq.write_table(pa.table(flows), run / "flows.parquet")
    return results
