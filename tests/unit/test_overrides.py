"""`--set a.b=c` overrides: dotted keys, flows by name or index, TOML literal values."""

from __future__ import annotations

from typing import Any

import pytest

from bloatlab import ScenarioError, load_scenario
from bloatlab.scenario import parse_literal, parse_override

BASE = """
name = "t"
seed = 1
[bottleneck]
rate = "25Mbps"
queue = { kind = "droptail", limit = "4BDP" }
[[flow]]
name = "video"
cc = "cubic"
[[flow]]
name = "bulk"
cc = "reno"
"""


def with_sets(*sets: str) -> dict[str, Any]:
    return load_scenario(BASE, list(sets))


def test_sets_a_top_level_field() -> None:
    assert with_sets("seed=7")["seed"] == 7


def test_sets_a_nested_field() -> None:
    scenario = with_sets("bottleneck.rate=10Mbps", "bottleneck.queue.limit=100pkts")
    assert scenario["bottleneck"]["rate"] == "10Mbps"
    assert scenario["bottleneck"]["queue"] == {"kind": "droptail", "limit": "100pkts"}


def test_creates_missing_tables() -> None:
    scenario = with_sets("bottleneck.shaper.burst=1MB", "telemetry.interval=ack")
    assert scenario["bottleneck"]["shaper"] == {"burst": "1MB"}
    assert scenario["telemetry"] == {"interval": "ack"}


def test_addresses_a_flow_by_name() -> None:
    scenario = with_sets("flow.bulk.cc=bbr")
    assert [f["cc"] for f in scenario["flow"]] == ["cubic", "bbr"]


def test_addresses_a_flow_by_index() -> None:
    scenario = with_sets("flow.0.cc=bbr", "flow.1.start=10s")
    assert scenario["flow"][0]["cc"] == "bbr"
    assert scenario["flow"][1]["start"] == "10s"


def test_replaces_a_whole_flow() -> None:
    scenario = with_sets('flow.video={name="video", cc="bbr", count=2}')
    assert scenario["flow"][0] == {"name": "video", "cc": "bbr", "count": 2}


def test_a_field_inside_a_kind_string_turns_it_into_a_table() -> None:
    scenario = with_sets("flow.video.cc.cwnd_gain=1.5")
    assert scenario["flow"][0]["cc"] == {"kind": "cubic", "cwnd_gain": 1.5}


def test_a_field_inside_a_profile_name_makes_it_the_base_of_a_table() -> None:
    # a profile's table form is overrides on a `base` preset; `kind` there is an unknown field
    scenario = with_sets(
        'flow.video.app={kind="dash", profile="v5"}', 'flow.video.app.profile.stall_threshold="1s"'
    )
    assert scenario["flow"][0]["app"]["profile"] == {"base": "v5", "stall_threshold": "1s"}


def test_unknown_flow_names_the_key_and_lists_the_flows() -> None:
    with pytest.raises(ScenarioError) as e:
        with_sets("flow.vidoe.cc=bbr")
    message = str(e.value)
    assert e.value.path == "flow.vidoe.cc"
    assert message.startswith("flow.vidoe.cc: ")
    assert "'vidoe'" in message
    assert "'video', 'bulk'" in message
    assert "0..1" in message


def test_index_past_the_last_flow_is_an_error() -> None:
    with pytest.raises(ScenarioError, match="no flow named '2'"):
        with_sets("flow.2.cc=bbr")


def test_flow_override_without_any_flows_is_an_error() -> None:
    with pytest.raises(ScenarioError, match=r"flow names are none \(indices none\)$"):
        load_scenario('name = "x"', ["flow.video.cc=bbr"])


def test_field_inside_a_number_is_an_error() -> None:
    with pytest.raises(ScenarioError, match=r"^seed.x: 'seed' is 1, not a table"):
        with_sets("seed.x=1")
    # the error names the field that is not a table, however deep
    with pytest.raises(ScenarioError, match=r"^flow.video.count.x: 'flow.video.count' is 2,"):
        with_sets("flow.video.count=2", "flow.video.count.x=1")


@pytest.mark.parametrize(
    ("bad", "path", "message"),
    [
        ("seed", "", "override 'seed' is not of the form key=value (e.g. seed=2)"),
        ("=3", "", "override '=3' is not of the form key=value (e.g. seed=2)"),
        ("flow..cc=bbr", "flow..cc", "empty segment in dotted key"),
    ],
)
def test_malformed_override_is_an_error(bad: str, path: str, message: str) -> None:
    with pytest.raises(ScenarioError) as e:
        with_sets(bad)
    assert (e.value.path, e.value.message) == (path, message)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.01", 0.01),
        ("3", 3),
        ("true", True),
        ('"x"', "x"),
        ('"3"', "3"),
        ('{kind="bbr", cwnd_gain=2}', {"kind": "bbr", "cwnd_gain": 2}),
        ('[{at="40s", rate="5Mbps"}]', [{"at": "40s", "rate": "5Mbps"}]),
        ("25Mbps", "25Mbps"),
        ("8BDP", "8BDP"),
        ("bbr", "bbr"),
        ("ack", "ack"),
        ("2024-01-01", "2024-01-01"),
        ("", ""),
    ],
)
def test_values_are_toml_literals_else_strings(text: str, value: Any) -> None:
    assert parse_literal(text) == value
    assert type(parse_literal(text)) is type(value)


def test_override_splits_at_the_first_equals_sign() -> None:
    assert parse_override("name=a=b") == ("name", "a=b")
    assert parse_override(" seed = 2 ") == ("seed", 2)


def test_one_override_may_be_given_as_a_string() -> None:
    assert load_scenario(BASE, "seed=2")["seed"] == 2


def test_mapping_overrides_are_used_as_given() -> None:
    scenario = load_scenario(BASE, {"seed": "3", "flow.video.cc": {"kind": "bbr"}})
    assert scenario["seed"] == "3"
    assert scenario["flow"][0]["cc"] == {"kind": "bbr"}
