"""Loading scenarios: files, TOML text, dicts, and file paths inside them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bloatlab import Scenario, ScenarioError, load_scenario

REPO = Path(__file__).parents[2]

DEMO = """
name = "t"
seed = 1
[bottleneck]
rate = "25Mbps"
rtt = "40ms"
[[flow]]
name = "bbr"
cc = "bbr"
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def with_trace(trace: str) -> str:
    return DEMO.replace('rtt = "40ms"', f'rtt = "40ms"\ntrace = "{trace}"')


def test_loads_a_file_into_plain_dicts(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path / "s.toml", DEMO))
    assert isinstance(scenario, Scenario)
    assert scenario["bottleneck"] == {"rate": "25Mbps", "rtt": "40ms"}
    assert scenario["flow"] == [{"name": "bbr", "cc": "bbr"}]


def test_accepts_a_path_given_as_str_and_toml_text(tmp_path: Path) -> None:
    path = write(tmp_path / "s.toml", DEMO)
    assert load_scenario(str(path)) == load_scenario(DEMO)


def test_copies_a_dict_so_the_caller_s_is_untouched() -> None:
    original = {"name": "x", "flow": [{"name": "a", "cc": "bbr"}]}
    scenario = load_scenario(original, ["flow.a.cc=cubic"])
    assert scenario["flow"][0]["cc"] == "cubic"
    assert original["flow"][0]["cc"] == "bbr"


def test_to_json_is_the_document_as_json() -> None:
    scenario = load_scenario(DEMO)
    assert json.loads(scenario.to_json()) == scenario
    # compact, and a TOML date (which JSON has not) as its text, for the core to refuse by name
    dated = load_scenario('name = "t"\nseed = 1\nwhen = 2026-11-24')
    assert dated.to_json() == '{"name":"t","seed":1,"when":"2026-11-24"}'


@pytest.mark.parametrize(
    ("toml", "path", "value"),
    [
        ('[[flow]]\ncc = { kind = "bbr", cwnd_gain = nan }', "flow[0].cc.cwnd_gain", "nan"),
        ("[bottleneck]\nloss = inf", "bottleneck.loss", "inf"),
        ("x = [1.0, -inf]", "x[1]", "-inf"),
    ],
)
def test_a_toml_nan_or_inf_is_refused_naming_its_field(toml: str, path: str, value: str) -> None:
    # JSON has no such numbers; the core would otherwise see text it cannot read
    with pytest.raises(ScenarioError) as e:
        load_scenario(toml).to_json()
    assert (e.value.path, e.value.message) == (
        path,
        f"{value} is not a finite number: allowed finite numbers",
    )


def test_relative_trace_is_resolved_against_the_scenario_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = write(tmp_path / "exp" / "traces" / "x.down", "1\n")
    path = write(tmp_path / "exp" / "s.toml", with_trace("traces/x.down"))
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    assert load_scenario(path)["bottleneck"]["trace"] == str(trace)


def test_absolute_trace_is_kept(tmp_path: Path) -> None:
    trace = write(tmp_path / "x.down", "1\n")
    path = write(tmp_path / "elsewhere" / "s.toml", with_trace(str(trace)))
    assert load_scenario(path)["bottleneck"]["trace"] == str(trace)


def test_missing_trace_names_the_field_and_the_path(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as e:
        load_scenario(write(tmp_path / "s.toml", with_trace("traces/nope.down")))
    assert e.value.path == "bottleneck.trace"
    assert "traces/nope.down" in str(e.value)
    assert str(e.value).startswith("bottleneck.trace: ")


def test_trace_given_as_override_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = write(tmp_path / "here" / "y.down", "1\n")
    path = write(tmp_path / "exp" / "s.toml", DEMO)
    monkeypatch.chdir(tmp_path / "here")
    assert load_scenario(path, ["bottleneck.trace=y.down"])["bottleneck"]["trace"] == str(trace)


def with_video(video: str) -> str:
    return DEMO.replace('cc = "bbr"', f'cc = "bbr"\napp = {{ kind = "dash", video = "{video}" }}')


def test_a_movie_file_is_resolved_against_the_scenario_folder_and_a_video_name_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    movie = write(tmp_path / "exp" / "movies" / "m.json", "{}")
    monkeypatch.chdir(tmp_path)  # not the scenario's folder
    app = load_scenario(write(tmp_path / "exp" / "s.toml", with_video("movies/m.json")))
    assert app["flow"][0]["app"]["video"] == str(movie)
    # "www21" is a built-in video, even with a file of that name beside the scenario
    write(tmp_path / "exp" / "www21", "")
    app = load_scenario(write(tmp_path / "exp" / "t.toml", with_video("www21")))
    assert app["flow"][0]["app"]["video"] == "www21"
    with pytest.raises(ScenarioError) as e:
        load_scenario(write(tmp_path / "exp" / "u.toml", with_video("movies/nope.json")))
    assert e.value.path == "flow.0.app.video"
    assert "movies/nope.json" in e.value.message
    # every flow's, past one that names a built-in video
    two = (
        with_video("bbb")
        + '[[flow]]\nname = "b"\napp = { kind = "dash", video = "movies/m.json" }\n'
    )
    app = load_scenario(write(tmp_path / "exp" / "v.toml", two))
    assert [f["app"]["video"] for f in app["flow"]] == ["bbb", str(movie)]


def test_an_override_may_replace_a_trace_the_file_names_but_does_not_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "exp" / "s.toml", with_trace("traces/not-yet.down"))
    trace = write(tmp_path / "here" / "y.down", "1\n")
    monkeypatch.chdir(tmp_path / "here")
    assert load_scenario(path, ["bottleneck.trace=y.down"])["bottleneck"]["trace"] == str(trace)


def test_unreadable_or_malformed_input_is_an_error_about_the_whole_file(tmp_path: Path) -> None:
    (tmp_path / "dir.toml").mkdir()
    with pytest.raises(ScenarioError, match=r"^cannot read scenario file '.*dir\.toml': ") as e:
        load_scenario(tmp_path / "dir.toml")
    assert e.value.path == ""
    with pytest.raises(ScenarioError, match=r"^scenario is not valid TOML: ") as e:
        load_scenario("name = \n")
    assert e.value.path == ""


def test_missing_scenario_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"^scenario file not found: .*nope\.toml") as e:
        load_scenario(tmp_path / "nope.toml")
    assert e.value.path == ""


def test_malformed_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.toml", 'name = "x"\nseed = \n')
    with pytest.raises(ScenarioError, match=r"bad.toml' is not valid TOML: .*line 2"):
        load_scenario(path)


# Scenario files; sweep files (scenarios/sweeps/) are checked in test_sweep_spec.py.
SHIPPED = sorted(p for p in (REPO / "scenarios").rglob("*.toml") if "sweeps" not in p.parts)


@pytest.mark.parametrize("path", SHIPPED, ids=str)
def test_shipped_scenarios_load_and_resolve(path: Path) -> None:
    import bloatlab

    scenario = load_scenario(path)
    assert scenario["name"]
    assert scenario["flow"]
    resolved = bloatlab.resolve(path)
    assert resolved["name"] == scenario["name"]
