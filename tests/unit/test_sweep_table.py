"""A sweep folder's table, rebuilt from its manifest and run folders: a row per planned run in
plan order, parameter columns typed from their values, a run's status and error, its metrics."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from bloatlab.runstore import RunStore
from bloatlab.sweep import Sweep, plan
from bloatlab.sweep.table import (
    MANIFEST,
    TABLE,
    SweepResults,
    build_table,
    parameter_column,
    runs_folder,
    write_manifest,
)


@pytest.mark.parametrize(
    ("values", "kind", "stored"),
    [
        ([True, None, False], pa.bool_(), [True, None, False]),
        ([1, None, 3], pa.int64(), [1, None, 3]),
        ([1, 2.5, None], pa.float64(), [1.0, 2.5, None]),
        # a boolean among numbers is no number: every value as the sweep file writes it
        ([True, 1], pa.string(), ["true", "1"]),
        (["5Mbps", {"kind": "bbr"}, None], pa.string(), ["5Mbps", '{kind = "bbr"}', None]),
        ([None, None], pa.string(), [None, None]),
    ],
)
def test_a_parameter_column_keeps_numbers_and_labels_the_rest(
    values: list[Any], kind: pa.DataType, stored: list[Any]
) -> None:
    column = parameter_column(values)
    assert column.type == kind
    assert column.to_pylist() == stored


def _run(key: str, rate: str, error: str | None = None) -> dict[str, Any]:
    return {"key": key, "seed": 1, "params": {"rate": rate}, "groups": {"a": ["a"]}, "error": error}


MANIFEST_DOC: dict[str, Any] = {
    "name": "t",
    "parameters": ["rate"],
    "runs_dir": "store",
    "runs": [
        _run("k1", "5Mbps"),
        _run("k2", "10Mbps"),
        _run("k3", "bad", error="rate: not a rate"),  # never run
        _run("k4", "20Mbps"),  # its folder lost summary.json
        _run("k5", "40Mbps"),  # failed
        _run("k6", "80Mbps"),  # run.json without a status
    ],
}


def _summary(goodput: float, **flow: float) -> bytes:
    doc = {"bottleneck": {"utilisation": 0.5}, "flows": {"a": {"goodput_bps": goodput, **flow}}}
    return json.dumps(doc).encode()


def _sweep_folder(tmp_path: Path) -> Path:
    store = RunStore(tmp_path / "store")
    done = {"status": "done", "timing": {"simulate_s": 0.25}}
    store.write("k1", {"summary.json": _summary(1e6)}, done)
    store.write("k2", {"summary.json": _summary(2e6, rtt_mean_s=0.1)}, {"status": "done"})
    store.write("k4", {}, done)
    store.write("k5", {}, {"status": "failed", "error": "boom"})
    store.write("k6", {}, {})
    return tmp_path


def test_the_table_has_a_row_per_planned_run_with_its_status_error_and_metrics(
    tmp_path: Path,
) -> None:
    table = build_table(_sweep_folder(tmp_path), MANIFEST_DOC)
    assert table.column_names[:6] == ["run", "seed", "rate", "status", "error", "wall_s"]
    rows = table.to_pylist()
    assert [(r["run"], r["status"], r["error"]) for r in rows] == [
        ("k1", "done", None),
        ("k2", "done", None),
        ("k3", "missing", "rate: not a rate"),
        ("k4", "failed", "the run folder has no summary.json"),
        ("k5", "failed", "boom"),
        ("k6", "failed", None),
    ]
    assert rows[0]["wall_s"] == 0.25 and math.isnan(rows[1]["wall_s"])
    # metrics in the order they first appear; NaN where a run has none
    assert table.column_names[6:] == [
        "bottleneck.utilisation",
        "flows.a.goodput_bps",
        "groups.a.flows",
        "groups.a.goodput_bps",
        "flows.a.rtt_mean_s",
        "groups.a.rtt_mean_s",
    ]
    assert table.column("groups.a.goodput_bps").to_pylist()[:2] == [1e6, 2e6]
    assert math.isnan(rows[0]["flows.a.rtt_mean_s"]) and rows[1]["flows.a.rtt_mean_s"] == 0.1
    assert all(math.isnan(r["flows.a.goodput_bps"]) for r in rows[2:])
    assert table.schema.metadata == {b"bloatlab.sweep": b"t", b"bloatlab.parameters": b'["rate"]'}


def test_a_sweep_with_no_runs_has_the_fixed_and_parameter_columns(tmp_path: Path) -> None:
    table = build_table(tmp_path, {"parameters": ["rate"], "runs": []})
    assert table.num_rows == 0
    assert table.column_names == ["run", "seed", "rate", "status", "error", "wall_s"]
    assert table.schema.metadata[b"bloatlab.sweep"] == b""


def test_a_sweep_folder_without_its_table_rebuilds_it_from_the_run_folders(
    tmp_path: Path,
) -> None:
    folder = _sweep_folder(tmp_path)
    (folder / MANIFEST).write_text(json.dumps(MANIFEST_DOC))
    assert not (folder / TABLE).exists()
    results = SweepResults.load(folder)
    rebuilt = build_table(folder, MANIFEST_DOC)
    assert results.table.schema.equals(rebuilt.schema, check_metadata=True)
    # (NaN is not equal to itself, so compare the rows as text)
    assert json.dumps(results.table.to_pylist()) == json.dumps(rebuilt.to_pylist())
    assert results.name == "t" and results.parameters == ["rate"]
    assert results.run_folder("k1") == tmp_path / "store" / "k1"


def test_the_manifest_records_the_sweep_its_runs_and_where_they_are(tmp_path: Path) -> None:
    sweep = Sweep.from_dict(
        {
            "name": "m",
            "description": "why",
            "scenario": {
                "duration": "1s",
                "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
                "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
            },
            "grid": {"bottleneck.rate": ["10Mbps", "nope"]},
        }
    )
    runs = plan(sweep, core_version="v")
    written = write_manifest(tmp_path / "s", sweep, runs, tmp_path / "shared" / "runs", "v")
    on_disk = json.loads((tmp_path / "s" / MANIFEST).read_text(encoding="utf-8"))
    assert on_disk == written
    assert (on_disk["format"], on_disk["name"], on_disk["description"]) == (1, "m", "why")
    assert (on_disk["core_version"], on_disk["parameters"]) == ("v", ["bottleneck.rate"])
    assert on_disk["runs_dir"] == "../shared/runs"  # relative: the two move together
    assert runs_folder(tmp_path / "s", on_disk) == tmp_path / "shared" / "runs"
    assert on_disk["sweep"] == sweep.to_dict()
    assert [(r["key"], r["params"], r["error"] is None) for r in on_disk["runs"]] == [
        (runs[0].key, {"bottleneck.rate": "10Mbps"}, True),
        (runs[1].key, {"bottleneck.rate": "nope"}, False),
    ]
    assert on_disk["runs"][0]["groups"] == {"a": ["a"]}
    # a manifest that does not say where its runs are keeps them beside it
    assert runs_folder(tmp_path / "s", {}) == tmp_path / "s" / "runs"
