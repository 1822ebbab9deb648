"""Sweep files: grid and zip expansion, seeds, paths, and field-named errors."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from bloatlab import ScenarioError
from bloatlab.sweep import Sweep
from bloatlab.sweep.spec import label

BASE = {
    "name": "base",
    "duration": "2s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
}


def sweep(**fields: object) -> Sweep:
    return Sweep.from_dict({"scenario": BASE, **fields})


def test_grid_is_the_cartesian_product_with_the_last_key_fastest_and_seeds_innermost() -> None:
    s = sweep(
        grid={"bottleneck.rate": ["10Mbps", "20Mbps"], "flow.a.cc": ["bbr", "cubic", "reno"]},
        seeds=2,
    )
    points = s.points()
    assert len(points) == 2 * 3 * 2
    assert [(p.params["bottleneck.rate"], p.params["flow.a.cc"], p.seed) for p in points[:4]] == [
        ("10Mbps", "bbr", 1),
        ("10Mbps", "bbr", 2),
        ("10Mbps", "cubic", 1),
        ("10Mbps", "cubic", 2),
    ]
    assert len({(tuple(p.params.items()), p.seed) for p in points}) == len(points)
    assert s.parameters == ["bottleneck.rate", "flow.a.cc"]


def test_zip_varies_keys_together_and_multiplies_with_the_grid() -> None:
    s = sweep(
        grid={"flow.a.cc": ["bbr", "cubic"]},
        zip={
            "bottleneck.rate": ["10Mbps", "40Mbps", "80Mbps"],
            "bottleneck.rtt": ["5ms", "10ms", "20ms"],
        },
    )
    points = s.points()
    assert len(points) == 2 * 3
    pairs = {(p.params["bottleneck.rate"], p.params["bottleneck.rtt"]) for p in points}
    assert pairs == {("10Mbps", "5ms"), ("40Mbps", "10ms"), ("80Mbps", "20ms")}


def test_several_zip_groups_multiply_with_each_other() -> None:
    s = sweep(
        zip=[
            {"bottleneck.rate": ["10Mbps", "20Mbps"], "bottleneck.rtt": ["5ms", "10ms"]},
            {"flow.a.cc": ["bbr", "cubic"], "flow.a.start": ["0s", "1s"]},
        ]
    )
    assert len(s.points()) == 4


def test_nested_tables_mean_the_same_as_quoted_dotted_keys() -> None:
    nested = sweep(grid={"bottleneck": {"queue": {"limit": ["1BDP", "2BDP"]}}})
    quoted = sweep(grid={"bottleneck.queue.limit": ["1BDP", "2BDP"]})
    assert nested.points() == quoted.points()


def test_table_values_are_values_not_namespaces() -> None:
    shallow = {"kind": "bbr", "cwnd_gain": 1.5}
    s = sweep(grid={"flow.a.cc": ["bbr", shallow]})
    assert [p.params["flow.a.cc"] for p in s.points()] == ["bbr", shallow]
    assert sweep(set={"flow.a.cc": shallow}).fixed == {"flow.a.cc": shallow}


def test_seeds_count_list_and_default() -> None:
    assert sweep(seeds=3).seeds == [1, 2, 3]
    assert sweep(seeds=[0]).seeds == [0]
    assert sweep(seeds=[7, 9]).seeds == [7, 9]
    assert Sweep.from_dict({"scenario": {**BASE, "seed": 5}}).seeds == [5]
    assert len(sweep(seeds=[7, 9]).points()) == 2


def test_no_grid_is_one_point_per_seed() -> None:
    assert [p.seed for p in sweep(seeds=2).points()] == [1, 2]
    assert sweep(seeds=2).points()[0].params == {}


@pytest.mark.parametrize(
    ("fields", "path", "words"),
    [
        ({"grid": {"bottleneck.rate": "10Mbps"}}, "grid.bottleneck.rate", "non-empty list"),
        ({"grid": {"bottleneck.rate": []}}, "grid.bottleneck.rate", "non-empty list"),
        ({"zip": {"a.b": [1, 2], "c.d": [1]}}, "zip", "equal lengths"),
        ({"grid": {"seed": [1, 2]}}, "seed", "seeds"),
        ({"seeds": 0}, "seeds", "allowed ≥ 1"),
        ({"seeds": [1, 1]}, "seeds", "repeats"),
        ({"seeds": "3"}, "seeds", "count"),
        ({"seeds": True}, "seeds", "must be a count or a list of seeds, not True"),
        ({"seeds": [1, -1]}, "seeds", "integers ≥ 0"),
        ({"scenario": {**BASE, "seed": "x"}}, "seed", "seed 'x': allowed an integer ≥ 0"),
        ({"scenario": {**BASE, "seed": -1}}, "seed", "seed -1: allowed an integer ≥ 0"),
        ({"scenario": {**BASE, "seed": True}}, "seed", "seed True: allowed an integer ≥ 0"),
        ({"seeds": [1, True]}, "seeds", "integers ≥ 0"),
        ({"seeds": []}, "seeds", "non-empty list"),
        ({"colour": "red"}, "colour", "unknown sweep field"),
        ({"grid": 3}, "grid", "must be a table of dotted keys to lists of values"),
        ({"zip": "rate"}, "zip", "must be a table, or an array of tables ([[zip]])"),
        ({"zip": [{"a.b": [1]}, {"c.d": [1, 2], "e.f": [1]}]}, "zip[1]", "c.d has 2, e.f has 1"),
        ({"set": ["x"]}, "set", "must be a table of dotted keys to values"),
        ({"set": {"name": "x"}}, "name", "cannot be swept: the base scenario names runs"),
        ({"grid": {"seed": [1]}}, "seed", "cannot be swept: use `seeds = N` or a list"),
        ({"name": ""}, "name", "must be a non-empty string, not ''"),
        ({"name": 3}, "name", "must be a non-empty string, not 3"),
        ({"description": 3}, "description", "must be a string"),
        ({"scenario": "s.toml"}, "scenario", "must be a table"),
        (
            {"grid": {"bottleneck.rate": ["1Mbps"]}, "set": {"bottleneck.rate": "2Mbps"}},
            "bottleneck.rate",
            "given in both set and grid",
        ),
        ({"zip": {"a.b": "x"}}, "zip.a.b", "non-empty list"),
    ],
)
def test_bad_sweeps_name_the_field(fields: dict[str, object], path: str, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        sweep(**fields)
    assert e.value.path == path
    assert words in e.value.message
    assert str(e.value) == f"{path}: {e.value.message}"


def test_needs_exactly_one_base() -> None:
    with pytest.raises(ScenarioError, match=r"^base: give exactly one of `base = "):
        Sweep.from_dict({"grid": {}})
    with pytest.raises(ScenarioError, match=r"^base: give exactly one"):
        Sweep.from_dict({"base": "x.toml", "scenario": BASE})
    with pytest.raises(ScenarioError, match=r"^base: must be a path to a scenario file$"):
        Sweep.from_dict({"base": 3})


def test_base_file_and_trace_paths_are_relative_to_the_sweep_file(tmp_path: Path) -> None:
    (tmp_path / "scenarios").mkdir()
    (tmp_path / "scenarios" / "s.toml").write_text(
        'name = "s"\n[bottleneck]\nrate = "1Mbps"\n[[flow]]\nname = "a"\ncc = "bbr"\n'
    )
    (tmp_path / "sweeps").mkdir()
    file = tmp_path / "sweeps" / "w.toml"
    file.write_text(
        'base = "../scenarios/s.toml"\n[grid]\n"bottleneck.trace" = ["../traces/a.down"]\n'
    )
    s = Sweep.from_file(file)
    assert s.name == "w"
    assert s.base["bottleneck"]["rate"] == "1Mbps"
    [point] = s.points()
    assert point.params["bottleneck.trace"] == str(tmp_path / "sweeps" / "../traces/a.down")


def test_a_movie_file_in_a_sweep_is_relative_to_the_sweep_file(tmp_path: Path) -> None:
    dash = {**BASE, "flow": [{"name": "v", "cc": "bbr", "app": {"kind": "dash", "video": "bbb"}}]}
    s = Sweep.from_dict(
        {"scenario": dash, "grid": {"flow.v.app.video": ["m.json", "www21", 5]}},
        base_dir=tmp_path,
    )
    videos = [p.params["flow.v.app.video"] for p in s.points()]
    # a name stays a name, and what is no path at all is left for the core to refuse
    assert videos == [str(tmp_path / "m.json"), "www21", 5]


def test_an_inline_scenarios_trace_is_relative_to_the_sweep_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "sweeps" / "traces" / "a.log"
    trace.parent.mkdir(parents=True)
    trace.write_text("0 0\n1 10\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    inline = {**BASE, "bottleneck": {"trace": "traces/a.log", "rtt": "20ms"}}
    s = Sweep.from_dict({"scenario": inline}, base_dir=tmp_path / "sweeps")
    assert s.base["bottleneck"]["trace"] == str(trace)
    assert inline["bottleneck"]["trace"] == "traces/a.log"  # the caller's table is untouched
    missing = {**BASE, "bottleneck": {"trace": "traces/b.log"}}
    with pytest.raises(
        ScenarioError, match=r"^bottleneck\.trace: file not found: '.*/sweeps/traces/b\.log'"
    ):
        Sweep.from_dict({"scenario": missing}, base_dir=tmp_path / "sweeps")


def test_traces_in_set_and_zip_are_relative_to_the_sweep_file(tmp_path: Path) -> None:
    s = Sweep.from_dict(
        {
            "scenario": BASE,
            "set": {"bottleneck.trace": "a.log"},
            "zip": {"flow.a.cc": ["bbr"], "bottleneck.rtt": ["5ms"]},
        },
        base_dir=tmp_path,
    )
    assert s.fixed == {"bottleneck.trace": str(tmp_path / "a.log")}
    s = Sweep.from_dict(
        {"scenario": BASE, "zip": {"bottleneck.trace": ["b.log"]}}, base_dir=tmp_path
    )
    assert s.zips == [{"bottleneck.trace": [str(tmp_path / "b.log")]}]


def test_missing_sweep_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="sweep file not found"):
        Sweep.from_file(tmp_path / "nope.toml")


def test_to_dict_round_trips() -> None:
    s = sweep(grid={"flow.a.cc": ["bbr", "cubic"]}, zip={"bottleneck.rate": ["1Mbps"]}, seeds=2)
    again = Sweep.from_dict(s.to_dict())
    assert again == s
    described = sweep(name="n", description="why", set={"bottleneck.rtt": "5ms"})
    doc = described.to_dict()
    assert (doc["name"], doc["description"], doc["set"]) == ("n", "why", {"bottleneck.rtt": "5ms"})
    assert Sweep.from_dict(doc) == described
    # what is empty is left out
    assert set(sweep().to_dict()) == {"name", "seeds", "scenario"}


def test_a_sweep_is_named_after_its_file_or_sweep_and_runs_the_bases_seed() -> None:
    s = sweep()
    assert (s.name, s.description, s.seeds) == ("sweep", "", [1])
    assert Sweep.from_dict({"scenario": BASE}, default_name="w").name == "w"


def test_labels_read_like_the_sweep_file() -> None:
    assert label("0.5BDP") == "0.5BDP"
    assert label(2) == "2"
    assert label(1.5) == "1.5"
    assert label(True) == "true"
    assert label({"kind": "bbr", "cwnd_gain": 1.5}) == '{kind = "bbr", cwnd_gain = 1.5}'
    assert label(False) == "false"
    assert label(2.0) == "2.0"
    assert label(["a", 1, [True]]) == '["a", 1, [true]]'
    assert label(datetime.date(2026, 11, 24)) == "2026-11-24"  # anything else: its text


SWEEPS = sorted((Path(__file__).parents[2] / "scenarios" / "sweeps").glob("*.toml"))


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.name)
def test_shipped_sweeps_plan_without_errors(path: Path) -> None:
    from bloatlab.sweep import plan

    runs = plan(Sweep.from_file(path))
    assert runs
    assert [run.error for run in runs] == [None] * len(runs)
    assert len({run.key for run in runs}) == len(runs)
