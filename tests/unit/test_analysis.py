"""The analysis helpers the sweeps and reproductions compute their numbers with, on tables small
enough to check by hand: summary rows and flow groups (`analysis/metrics.py`), time series
from a run folder's parquet files (`analysis/timeseries.py`), and the names and units plots
give metrics and parameters (`analysis/units.py`)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bloatlab.analysis.metrics import flatten_summary, flow_groups
from bloatlab.analysis.timeseries import (
    bins,
    crossing,
    group_mean,
    group_rates,
    queue_series,
    switches,
)
from bloatlab.analysis.units import Axis, metric_axis, numeric_values

# --- metrics ---------------------------------------------------------------------------------


def test_flow_groups_name_each_entrys_flows_as_the_core_expands_them() -> None:
    scenario = {
        "flow": [
            {"name": "bbr", "count": 3},
            {"name": "cubic"},
            {"count": 2},  # unnamed: the core calls it flow<index>
            "not a table",
            {"name": "zero", "count": 0},  # not a usable count: one flow
            {"name": "half", "count": 1.5},
            {"name": "one", "count": 1},
        ]
    }
    assert flow_groups(scenario) == {
        "bbr": ["bbr-0", "bbr-1", "bbr-2"],
        "cubic": ["cubic"],
        "flow2": ["flow2-0", "flow2-1"],
        "zero": ["zero"],
        "half": ["half"],
        "one": ["one"],
    }
    assert flow_groups({}) == {}


def _flow(**values: Any) -> dict[str, Any]:
    return {"cc": "bbr", "state_time_fraction": {"STARTUP": 0.1}, **values}


SUMMARY: dict[str, Any] = {
    "bottleneck": {
        "capacity_bps": 10e6,
        "utilisation": 0.9,
        "topology": "dumbbell",
        "ecn": True,
        "window": {"start_s": 2},
    },
    "flows": {
        "bbr-0": _flow(
            goodput_bps=4e6,
            throughput_bps=5e6,
            bytes_delivered=1000,
            bytes_retransmitted=100,
            retrans_ratio=0.1,
            rtt_mean_s=0.1,
            bw_est_mean_bps=None,
            only_here=1,
        ),
        "bbr-1": _flow(
            goodput_bps=2e6,
            throughput_bps=3e6,
            bytes_delivered=3000,
            bytes_retransmitted=0,
            retrans_ratio=0.0,
            rtt_mean_s=0.3,
            bw_est_mean_bps=7e6,
        ),
        "c": {"goodput_bps": None},
    },
}


def test_a_summary_flattens_to_its_numbers_under_dotted_names() -> None:
    row = flatten_summary(SUMMARY)
    assert row["bottleneck.capacity_bps"] == 10e6
    assert row["bottleneck.window.start_s"] == 2.0
    assert isinstance(row["bottleneck.window.start_s"], float)
    assert row["flows.bbr-0.state_time_fraction.STARTUP"] == 0.1
    assert math.isnan(row["flows.c.goodput_bps"])  # None: not applicable
    # text and booleans are not metrics
    assert "bottleneck.topology" not in row
    assert "bottleneck.ecn" not in row
    assert "flows.bbr-0.cc" not in row
    assert not any(k.startswith("groups.") for k in row)
    assert flatten_summary({}) == {}


def test_a_group_sums_bytes_and_rates_and_averages_the_rest() -> None:
    row = flatten_summary(SUMMARY, {"bbr": ["bbr-0", "bbr-1", "bbr-2"], "gone": ["zz"]})
    group = {k.removeprefix("groups.bbr."): v for k, v in row.items() if k.startswith("groups.")}
    assert group == {
        "flows": 2.0,  # bbr-2 is not in the summary
        "goodput_bps": 6e6,
        "throughput_bps": 8e6,
        "bytes_delivered": 4000.0,
        "bytes_retransmitted": 100.0,
        # recomputed from the sums (100 / 4000), not the mean of 0.1 and 0
        "retrans_ratio": pytest.approx(0.025),
        "rtt_mean_s": pytest.approx(0.2),
        "bw_est_mean_bps": 7e6,  # the mean of the flows that have one
        "capacity_fraction": pytest.approx(0.8),  # 8 Mb/s on the wire of 10 Mb/s
        "only_here": 1.0,  # missing from bbr-1: the mean of the one flow that has it
    }
    # text (`cc`) and tables (`state_time_fraction`) are not averaged


def test_a_group_without_deliveries_capacity_or_any_value_keeps_the_means() -> None:
    summary = {
        "bottleneck": {"utilisation": 0.0},
        "flows": {
            "a-0": {"bytes_delivered": 0, "retrans_ratio": 0.2, "rtt_mean_s": None},
            "a-1": {"bytes_delivered": 0, "retrans_ratio": 0.4, "rtt_mean_s": None},
        },
    }
    row = flatten_summary(summary, {"a": ["a-0", "a-1"]})
    assert row["groups.a.retrans_ratio"] == pytest.approx(0.3)
    assert math.isnan(row["groups.a.rtt_mean_s"])
    assert "groups.a.capacity_fraction" not in row
    # one byte is a delivery; no byte or rate keys at all give no ratio, and a share of NaN
    one_byte = {"flows": {"a": {"bytes_delivered": 1, "bytes_retransmitted": 1}}}
    assert flatten_summary(one_byte, {"a": ["a"]})["groups.a.retrans_ratio"] == 1.0
    unknown = {"flows": {"a": {"bytes_delivered": 10}}}
    assert math.isnan(flatten_summary(unknown, {"a": ["a"]})["groups.a.retrans_ratio"])
    bare = {"bottleneck": {"capacity_bps": 1.0}, "flows": {"a": {"rtt_mean_s": 0.1}}}
    row = flatten_summary(bare, {"a": ["a"]})
    assert "groups.a.retrans_ratio" not in row
    assert math.isnan(row["groups.a.capacity_fraction"])
    stopped = {"bottleneck": {"capacity_bps": 0}, "flows": {"a": {"throughput_bps": 5.0}}}
    assert "groups.a.capacity_fraction" not in flatten_summary(stopped, {"a": ["a"]})
    slow = {"bottleneck": {"capacity_bps": 1}, "flows": {"a": {"throughput_bps": 0.5}}}
    assert flatten_summary(slow, {"a": ["a"]})["groups.a.capacity_fraction"] == 0.5


# --- time series -----------------------------------------------------------------------------


def test_bins_are_whole_and_survive_float_rounding() -> None:
    assert bins(0.0, 1.0, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert bins(2.0, 3.1, 0.5).tolist() == [2.0, 2.5, 3.0]  # the last half-bin is dropped
    # 0.3 / 0.1 is 2.9999999999999996 in floating point: still three bins
    assert len(bins(0.0, 0.3, 0.1)) == 4


def _write(path: Path, columns: dict[str, list[Any]]) -> Path:
    pq.write_table(pa.table(columns), path)
    return path.parent


def _flows(tmp_path: Path) -> Path:
    # cumulative bytes, each flow's rows in time order: a at 0, 1, 2 s; b from -0.5 s;
    # c first seen at 0.5 s with 400 bytes delivered; `srtt_s` sampled irregularly
    return _write(
        tmp_path / "flows.parquet",
        {
            "t": [0.0, 1.0, 2.0, -0.5, 0.5, 1.5, 3.0, 0.5, 1.5],
            "flow": ["a", "a", "a", "b", "b", "b", "a", "c", "c"],
            "delivered_bytes": [0, 1000, 3000, 0, 0, 500, 3000, 400, 800],
            "sent_bytes": [0, 2000, 4000, 0, 0, 500, 4000, 400, 800],
            "srtt_s": [0.1, 0.2, 0.3, 9.0, 0.4, 0.5, 9.0, 0.0, 0.0],
        },
    )


def test_group_rates_interpolate_the_cumulative_bytes_at_the_edges(tmp_path: Path) -> None:
    folder = _flows(tmp_path)
    edges = np.array([0.0, 1.0, 2.0])
    groups = {"a": ["a"], "ab": ["a", "b"], "none": ["zzz"], "za": ["zzz", "a"], "c": ["c"]}
    rates = group_rates(folder, groups, edges)
    # a: 1000 then 2000 bytes a second
    assert rates["a"].tolist() == [8000.0, 16000.0]
    # b: nothing before its first row, 250 bytes by 1 s, its last value (500) after 1.5 s
    assert rates["ab"].tolist() == [8000.0 + 2000.0, 16000.0 + 2000.0]
    assert rates["none"].tolist() == [0.0, 0.0]
    assert rates["za"].tolist() == rates["a"].tolist()  # a member with no rows is skipped
    # c: nothing before its first row (not its first value), 600 bytes by 1 s, 800 by 2 s
    assert rates["c"].tolist() == [4800.0, 1600.0]
    # rates are per second of bin, and any cumulative column can be read
    half = group_rates(folder, {"a": ["a"]}, np.array([0.0, 0.5, 1.0]), column="sent_bytes")
    assert half["a"].tolist() == [16000.0, 16000.0]


def test_group_mean_averages_a_column_over_the_rows_inside_each_bin(tmp_path: Path) -> None:
    folder = _flows(tmp_path)
    edges = np.array([0.0, 1.0, 2.0, 3.0])
    means = group_mean(folder, {"a": ["a"], "ab": ["a", "b"]}, edges, "srtt_s")
    # a: 0.1 in [0, 1), 0.2 in [1, 2), 0.3 in [2, 3); its row at 3.0 is past the last edge
    assert means["a"].tolist() == pytest.approx([0.1, 0.2, 0.3])
    # ab: b's 0.4 and 0.5 join; its row at -0.5 s is before the first edge
    assert means["ab"].tolist() == pytest.approx([0.25, 0.35, 0.3])
    empty = group_mean(folder, {"b": ["b"]}, edges, "srtt_s")["b"]
    assert empty[:2].tolist() == pytest.approx([0.4, 0.5])
    assert math.isnan(empty[2])  # no row of b in [2, 3)


def test_queue_series_gives_each_bins_loss_rate_and_mean_backlog(tmp_path: Path) -> None:
    folder = _write(
        tmp_path / "queue.parquet",
        {
            "t": [0.0, 0.5, 1.0, 1.5, 2.0, 2.5],
            "arrivals": [0, 50, 100, 100, 100, 300],
            "drops": [0, 0, 10, 10, 10, 20],
            "backlog_bytes": [0, 1000, 3000, 5000, 0, 9000],
        },
    )
    series = queue_series(folder, np.array([0.0, 1.0, 2.0, 3.0, 4.0]))
    # [0, 1): 10 drops of 100 arrivals; [1, 2): no arrival, so no loss rather than 0 / 0;
    # [2, 3): 10 of 200 (the last row, 2.5 s, is as far as the counters go)
    assert series["loss"].tolist() == [0.1, 0.0, pytest.approx(0.05), 0.0]
    # mean of the rows inside each bin: (0 + 1000) / 2, (3000 + 5000) / 2, (0 + 9000) / 2,
    # and none in [3, 4)
    backlog = series["backlog_bytes"]
    assert backlog[:3].tolist() == [500.0, 4000.0, 4500.0]
    assert len(backlog) == 4 and math.isnan(backlog[3])
    # rows before the first edge or at and past the last are in no bin
    assert queue_series(folder, np.array([0.5, 1.5]))["backlog_bytes"].tolist() == [2000.0]
    assert series["t"].tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert series["raw"].tolist() == [0.0, 1000.0, 3000.0, 5000.0, 0.0, 9000.0]


def test_crossing_is_where_a_first_stops_exceeding_b() -> None:
    # a - b: 2, 2, -1, 3, -3 at x = 0, 1, 2, 3, 4 (given out of order)
    xs = [3.0, 0.0, 2.0, 1.0, 4.0]
    a = [4.0, 3.0, 0.0, 3.0, 0.0]
    b = [1.0, 1.0, 1.0, 1.0, 3.0]
    # from 2 to -1 between x = 1 and 2: two thirds of the way
    assert crossing(xs, a, b) == pytest.approx(5 / 3)
    # reaching b counts as no longer exceeding it
    assert crossing([0.0, 1.0], [2.0, 1.0], [1.0, 1.0]) == 1.0
    # rising through b is not the crossing, and the grid does not wrap around
    assert crossing([0, 1, 2, 3], [0.0, 2.0, 0.5, 3.0], [1.0] * 4) == pytest.approx(5 / 3)
    # a that only touches b never exceeded it; a above b throughout has no crossing
    assert crossing([0.0, 1.0], [1.0, 0.0], [1.0, 1.0]) is None
    assert crossing([0.0, 1.0], [2.0, 2.0], [1.0, 1.0]) is None
    assert crossing([0.0], [2.0], [1.0]) is None


def test_switches_count_sign_changes_skipping_zeros_and_nan() -> None:
    assert switches(np.array([1.0, -1.0, 0.0, math.nan, -2.0, 3.0])) == 2
    assert switches(np.array([1.0, 2.0, 0.0, 5.0])) == 0
    assert switches(np.array([1.0, 1.0, -1.0, -1.0])) == 1
    assert switches(np.array([])) == 0


# --- units -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "axis"),
    [
        ("groups.bbr.goodput_bps", Axis("bbr", "goodput", "Mb/s", 1e-6)),
        ("groups.a.b.retrans_ratio", Axis("a.b", "retransmission ratio", "%", 100.0)),
        ("groups.bbr.capacity_fraction", Axis("bbr", "share of link capacity", "%", 100.0)),
        ("groups.x", Axis("groups", "x", "", 1.0)),
        ("flows.a-0.rtt_p50_s", Axis("flow a-0", "RTT p50", "ms", 1e3)),
        ("flows.a.b.backlog_bytes", Axis("flow a.b", "backlog", "MB", 1e-6)),
        ("flows.a.bw_est_mean_bps", Axis("flow a", "bandwidth estimate mean", "Mb/s", 1e-6)),
        ("flows.a.jain_index", Axis("flow a", "Jain index", "", 1.0)),
        ("flows.a.completion_time_s", Axis("flow a", "completion time", "s", 1.0)),
        ("flows.a.active_s", Axis("flow a", "active", "s", 1.0)),
        ("flows.x", Axis("flows", "x", "", 1.0)),
        ("dash.stall_duration_s", Axis("dash", "stall duration", "s", 1.0)),
        ("bottleneck.drop_rate", Axis("bottleneck", "drop rate", "%", 100.0)),
        ("bottleneck.backlog_mean_bdp", Axis("bottleneck", "backlog mean", "BDP", 1.0)),
        ("bottleneck.queue_limit_pkts", Axis("bottleneck", "queue limit", "packets", 1.0)),
        ("bottleneck.window.start_s", Axis("bottleneck.window", "start", "ms", 1e3)),
        ("utilisation", Axis("", "utilisation", "%", 100.0)),
        ("flows.a.state_time_fraction.PROBE_BW", Axis("flow a", "time in PROBE_BW", "%", 100.0)),
        ("groups.g.state_time_fraction.DRAIN", Axis("g", "time in DRAIN", "%", 100.0)),
        ("x.state_time_fraction.STARTUP", Axis("x", "time in STARTUP", "%", 100.0)),
    ],
)
def test_a_metrics_name_gives_its_owner_words_unit_and_scale(metric: str, axis: Axis) -> None:
    assert metric_axis(metric) == axis


def test_an_axis_label_and_title_leave_out_what_is_empty() -> None:
    assert metric_axis("groups.bbr.goodput_bps").label == "goodput (Mb/s)"
    assert metric_axis("groups.bbr.goodput_bps").title == "bbr: goodput"
    assert metric_axis("flows.a.jain_index").label == "Jain index"
    assert metric_axis("utilisation").title == "utilisation"


def test_parameter_values_are_numeric_when_they_share_a_unit() -> None:
    assert numeric_values(["0.5BDP", "1BDP", "8BDP"]) == ([0.5, 1.0, 8.0], "BDP")
    assert numeric_values([2, 4, 8]) == ([2.0, 4.0, 8.0], "")
    assert numeric_values(["40Mbps", "1Gbps"]) is None
    assert numeric_values(["bbr", "cubic"]) is None
