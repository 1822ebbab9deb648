"""`Result`: the core's columns become Arrow tables; dictionary-coded columns keep their names."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import bloatlab
from bloatlab import Result, ScenarioError
from bloatlab.result import load_result

SCENARIO = """
name = "r"
seed = 4
duration = "3s"
[bottleneck]
rate = "20Mbps"
rtt = "40ms"
[[flow]]
name = "a"
cc = "bbr"
[[flow]]
name = "b"
cc = "cubic"
count = 2
"""


def raw_output(fake: ModuleType, **changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = fake.simulate(bloatlab.load_scenario(SCENARIO).to_json())
    raw.update(changes)
    return raw


def test_simulate_returns_tables_per_kind(fake_core_module: ModuleType) -> None:
    result = bloatlab.simulate(SCENARIO)
    assert isinstance(result, Result)
    for table in (result.flows, result.queue, result.samples):
        assert isinstance(table, pa.Table)
        assert table.num_rows > 0
    assert result.summary["name"] == "r"
    assert result.stats["packets"] == 500


def test_flow_and_cc_state_are_dictionary_columns(fake_core_module: ModuleType) -> None:
    flows = bloatlab.simulate(SCENARIO).flows
    for column in ("flow", "cc_state"):
        assert pa.types.is_dictionary(flows.schema.field(column).type)
    assert set(flows.column("flow").to_pylist()) == {"a", "b-0", "b-1"}
    assert set(flows.column("cc_state").to_pylist()) <= set(fake_core_module.STATES)
    assert "PROBE_BW" in flows.column("cc_state").to_pylist()


def test_numeric_columns_keep_their_types_and_nan(fake_core_module: ModuleType) -> None:
    flows = bloatlab.simulate(SCENARIO).flows
    assert flows.schema.field("cwnd_pkts").type == pa.uint32()
    assert flows.schema.field("delivered_bytes").type == pa.uint64()
    pacing = flows.column("pacing_rate_bps")
    assert pacing.null_count == 0  # NaN means unpaced; it is a value, not a missing row
    assert np.isnan(pacing.to_numpy()).any()


def test_the_fake_core_answers_in_the_real_core_s_shape(core: ModuleType) -> None:
    """The test double's run statistics are the real core's, and its tables, dictionaries
    and columns a subset of the real ones (it leaves out what the unit tests do not read)."""
    import fake_core

    bulk = SCENARIO.replace('cc = "bbr"', 'cc = "bbr"\napp = { kind = "bulk" }')
    bulk = bulk.replace("count = 2", 'count = 2\napp = { kind = "bulk" }')
    scenario = bloatlab.load_scenario(bulk).to_json()
    real, fake = core.simulate(scenario), fake_core.simulate(scenario)
    assert fake.keys() == real.keys()
    assert fake["stats"].keys() == real["stats"].keys()
    assert fake["dictionaries"].keys() <= real["dictionaries"].keys()
    for name, columns in fake["tables"].items():
        assert columns.keys() <= real["tables"][name].keys(), name


def test_numeric_columns_share_memory_with_the_core_s_arrays() -> None:
    t = np.linspace(0, 1, 1000)
    table = bloatlab.result.table_from_columns({"t": t}, {})
    assert table.column("t").chunk(0).buffers()[1].address == t.ctypes.data


def test_extra_columns_and_tables_come_through(fake_core_module: ModuleType) -> None:
    raw = raw_output(fake_core_module)
    n = len(raw["tables"]["queue"]["t"])
    raw["tables"]["queue"]["ecn_marks"] = np.arange(n, dtype=np.uint64)
    raw["tables"]["probe"] = {"t": np.array([0.5]), "owd_s": np.array([0.02])}
    result = Result.from_core(raw)
    assert result.queue.column("ecn_marks").to_pylist() == list(range(n))
    assert result.table("probe").column_names == ["t", "owd_s"]


def test_codes_outside_the_dictionary_are_rejected(fake_core_module: ModuleType) -> None:
    raw = raw_output(fake_core_module)
    raw["tables"]["samples"]["flow"] = np.full(4, 99, dtype=np.uint16)
    with pytest.raises(pa.ArrowException):
        Result.from_core(raw)


def test_unknown_table_name_lists_the_tables(fake_core_module: ModuleType) -> None:
    with pytest.raises(KeyError, match="tables are"):
        bloatlab.simulate(SCENARIO).table("segments")


def test_to_pandas_gives_categorical_flow_names(fake_core_module: ModuleType) -> None:
    pytest.importorskip("pandas")
    frame = bloatlab.simulate(SCENARIO).to_pandas("flows")
    assert str(frame["flow"].dtype) == "category"
    assert set(frame["flow"]) == {"a", "b-0", "b-1"}


def test_seed_and_overrides_reach_the_core(fake_core_module: ModuleType) -> None:
    bloatlab.simulate(SCENARIO, overrides=["flow.a.cc=reno"], seed=9)
    sent = json.loads(fake_core_module.calls[-1][1])
    assert sent["seed"] == 9
    assert sent["flow"][0]["cc"] == "reno"


def test_core_errors_become_scenario_errors_with_the_field_path(
    fake_core_module: ModuleType,
) -> None:
    with pytest.raises(ScenarioError) as e:
        bloatlab.simulate(SCENARIO, overrides=["bottleneck.rate=fast"])
    assert e.value.path == "bottleneck.rate"
    assert "'fast'" in e.value.message
    assert isinstance(e.value.__cause__, fake_core_module.ScenarioError)
    assert isinstance(e.value, ValueError)


def test_resolve_returns_the_resolved_scenario(fake_core_module: ModuleType) -> None:
    resolved = bloatlab.resolve(SCENARIO, seed=2)
    assert resolved["seed"] == 2
    assert resolved["bottleneck"]["rate_bps"] == 20_000_000


def test_a_core_without_the_contract_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "bloatlab._core", ModuleType("bloatlab._core"))
    with pytest.raises(RuntimeError, match="does not provide version, ScenarioError"):
        bloatlab.simulate(SCENARIO)


READ_BACK = """
name = "back"
duration = "3s"
[bottleneck]
rate = "20Mbps"
rtt = "40ms"
[[flow]]
name = "zeta"
cc = "bbr"
app = { kind = "bulk" }
[[flow]]
name = "alpha"
cc = "cubic"
app = { kind = "dash", video = "bbb", abr = "throughput" }
"""


def _codes(table: pa.Table) -> pa.Array:
    return table.column("flow").combine_chunks().indices


def test_a_written_result_reads_back_with_its_flows_in_scenario_order(
    core: ModuleType, tmp_path: Path
) -> None:
    result = bloatlab.simulate(READ_BACK)
    out = result.write(tmp_path / "run")
    assert (out / "summary.json").read_bytes() == (
        json.dumps(result.summary, indent=2) + "\n"
    ).encode()
    back = load_result(out)
    assert back.summary == result.summary
    # the scenario's order, not the order of a name list or of the alphabet
    assert back.dictionaries["flow"] == result.dictionaries["flow"] == ["zeta", "alpha"]
    assert sorted(back.tables) == ["flows", "queue", "samples", "segments"]
    for name, table in result.tables.items():
        again = back.table(name)
        assert again.column_names == table.column_names
        for column in ("flow", "cc_state"):
            if column in table.column_names:
                assert again.column(column).type == pa.dictionary(pa.int32(), pa.string())
                assert (
                    again.column(column)
                    .cast(pa.string())
                    .equals(table.column(column).cast(pa.string()))
                )
        # a flow's code means the same flow as the core's
        if "flow" in table.column_names:
            assert _codes(again).equals(_codes(table))
    # states are named as in the files: the ones the run visited
    assert set(back.dictionaries["cc_state"]) <= set(result.dictionaries["cc_state"])


def test_an_empty_segments_table_is_not_written_and_a_folder_needs_its_summary(
    core: ModuleType, tmp_path: Path
) -> None:
    bulk_only = READ_BACK.replace('"dash", video = "bbb", abr = "throughput"', '"bulk"')
    files = bloatlab.simulate(bulk_only).files()
    assert sorted(files) == ["flows.parquet", "queue.parquet", "samples.parquet", "summary.json"]
    with pytest.raises(FileNotFoundError, match=r"is not a results folder: no summary\.json"):
        load_result(tmp_path)
