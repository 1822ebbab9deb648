"""The wiring of `bloatlab sweep`, `report`, `reproduce` and `compare`: each option reaches the
library call it names, with the documented defaults, and each outcome reaches the terminal and
the exit status. The library calls are replaced by recorders, so nothing is simulated here (the
commands' real runs are in test_sweep_run.py, test_report.py, test_reproduce.py and
test_compare.py)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bloatlab import cli, compare, report, reproduce, sweep
from bloatlab.sweep import SweepOutcome

Calls = list[tuple[tuple[Any, ...], dict[str, Any]]]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def recorder(calls: Calls, result: Any) -> Any:
    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return result

    return record


# ----- reproduce ---------------------------------------------------------------------------


@dataclass
class FakeReproduction:
    passed: bool
    failed_runs: int

    def text(self) -> str:
        return "the claims table"


def reproduce_calls(
    monkeypatch: pytest.MonkeyPatch, outcome: FakeReproduction | None = None
) -> Calls:
    calls: Calls = []
    result = outcome or FakeReproduction(passed=True, failed_runs=0)
    monkeypatch.setattr(reproduce, "reproduce", recorder(calls, result))
    return calls


def test_reproduce_defaults_to_the_full_protocol_in_results_reproduce(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = reproduce_calls(monkeypatch)
    assert cli.main(["reproduce", "aict19"]) == 0
    assert calls == [
        (
            ("aict19",),
            {
                "mode": "full",
                "out_dir": Path("results/reproduce/aict19-full"),
                "workers": None,
                "dask": None,
                "progress": True,
            },
        )
    ]
    assert capsys.readouterr().out == "the claims table\n"


def test_reproduce_forwards_its_options(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = reproduce_calls(monkeypatch)
    assert cli.main(["reproduce", "www21", "--quick", "--workers", "3", "-q"]) == 0
    assert cli.main(["reproduce", "www21", "--full", "--dask", "tcp://h:8786", "-o", "x"]) == 0
    assert [kwargs for _, kwargs in calls] == [
        {
            "mode": "quick",
            "out_dir": Path("results/reproduce/www21-quick"),
            "workers": 3,
            "dask": None,
            "progress": False,
        },
        {
            "mode": "full",
            "out_dir": Path("x"),
            "workers": None,
            "dask": "tcp://h:8786",
            "progress": True,
        },
    ]


@pytest.mark.parametrize(
    ("passed", "failed_runs", "code"), [(True, 0, 0), (False, 0, 1), (True, 2, 1), (False, 1, 1)]
)
def test_reproduce_exits_1_when_a_claim_or_a_run_failed(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, passed: bool, failed_runs: int, code: int
) -> None:
    reproduce_calls(monkeypatch, FakeReproduction(passed, failed_runs))
    assert cli.main(["reproduce", "aict19", "--quick"]) == code


@pytest.mark.parametrize(
    "argv",
    [
        ["reproduce", "aict19", "--quick", "--full"],
        ["reproduce", "aict19", "--workers", "2", "--dask", "tcp://h:1"],
        ["reproduce", "aict19", "--workers", "two"],
    ],
)
def test_reproduce_usage_errors_exit_2_before_running(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    calls = reproduce_calls(monkeypatch)
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2 and calls == []


# ----- report ------------------------------------------------------------------------------


def test_report_forwards_path_output_metrics_and_x(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: Calls = []
    monkeypatch.setattr(report, "write_report", recorder(calls, Path("out/page.html")))
    assert cli.main(["report", "sweepdir"]) == 0
    assert capsys.readouterr().out == "report: out/page.html\n"
    argv = ["report", "s", "-o", "p.html", "--metric", "a.b", "--metric", "c.d", "--x", "k"]
    assert cli.main(argv) == 0
    assert calls == [
        ((Path("sweepdir"), None), {"metrics": None, "x": None}),
        ((Path("s"), Path("p.html")), {"metrics": ["a.b", "c.d"], "x": "k"}),
    ]


# ----- compare -----------------------------------------------------------------------------


COMPARISON = {"kind": "run", "a": "a", "b": "b", "metrics": [{"metric": "x", "rel": math.nan}]}


def test_compare_forwards_patterns_and_lists_only_changes_by_default(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: Calls = []
    monkeypatch.setattr(compare, "compare", recorder(calls, COMPARISON))
    monkeypatch.setattr(compare, "format_comparison", lambda c: f"table of {c['kind']}")
    assert cli.main(["compare", "a", "b"]) == 0
    assert capsys.readouterr().out == "table of run\n"
    assert (
        cli.main(["compare", "a", "b", "--metric", "bottleneck.*", "--metric", "x", "--all"]) == 0
    )
    assert calls == [
        ((Path("a"), Path("b")), {"patterns": None, "changed_only": True}),
        ((Path("a"), Path("b")), {"patterns": ["bottleneck.*", "x"], "changed_only": False}),
    ]


def test_compare_json_is_strict_json(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # NaN is not JSON: compare() gives None for it, and printing refuses one that slipped by
    clean = {"kind": "run", "a": "a", "b": "b", "metrics": [{"metric": "x", "path": Path("p")}]}
    monkeypatch.setattr(compare, "compare", lambda *a, **k: clean)
    assert cli.main(["compare", "a", "b", "--json"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed) == {**clean, "metrics": [{"metric": "x", "path": "p"}]}
    assert printed.startswith('{\n  "kind": "run",')  # indented by two
    monkeypatch.setattr(compare, "compare", lambda *a, **k: COMPARISON)
    assert cli.main(["compare", "a", "b", "--json"]) == 1
    assert "Out of range float values are not JSON compliant" in capsys.readouterr().err


# ----- sweep -------------------------------------------------------------------------------


SWEEP_FILE = """
name = "my sweep/1"
seeds = 1
[scenario]
duration = "1s"
[scenario.bottleneck]
rate = "10Mbps"
rtt = "20ms"
[[scenario.flow]]
name = "a"
cc = "bbr"
app = { kind = "bulk" }
[grid]
"flow.a.cc" = ["bbr", "cubic"]
"""


def sweep_calls(monkeypatch: pytest.MonkeyPatch, outcome: SweepOutcome) -> Calls:
    calls: Calls = []
    monkeypatch.setattr(sweep, "run_sweep", recorder(calls, outcome))
    return calls


def outcome(failed: int = 0, executed: int = 2) -> SweepOutcome:
    errors = {f"k{i:02}": f"error {i}" for i in range(failed)}
    return SweepOutcome(
        Path("out"),
        Path("out/sweep.parquet"),
        total=2,
        executed=executed,
        failed=failed,
        wall_s=1.25,
        simulate_s=2.5,
        core_s=2.0,
        worker_s=3.0,
        errors=errors,
    )


def test_sweep_defaults_to_results_slash_its_safe_name_and_forwards_its_options(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workdir / "s.toml").write_text(SWEEP_FILE)
    calls = sweep_calls(monkeypatch, outcome())
    assert cli.main(["sweep", "s.toml"]) == 0
    assert cli.main(["sweep", "s.toml", "-o", "here", "--dask", "tcp://h:1", "-q"]) == 0
    (first_args, first), (second_args, second) = calls
    assert (first_args[1], first) == (
        Path("results/my_sweep_1"),
        {"workers": None, "dask": None, "progress": True},
    )
    assert (second_args[1], second) == (
        Path("here"),
        {"workers": None, "dask": "tcp://h:1", "progress": False},
    )
    out = capsys.readouterr().out.splitlines()
    assert (
        out[3]
        == "sweep my sweep/1: 2 runs (2 computed, 0 already stored), 0 failed, 1.2 s on Dask at tcp://h:1"
    )
    assert out[4:] == [
        "  simulation 2.5 s (core 2.0 s), worker time 3.0 s",
        "  results: out/sweep.parquet",
    ]


def test_sweep_set_fixes_a_field_of_every_run(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (workdir / "s.toml").write_text(SWEEP_FILE)
    calls = sweep_calls(monkeypatch, outcome())
    assert cli.main(["sweep", "s.toml", "--set", "duration=2s", "--set", "flow.a.start=1s"]) == 0
    [(args, _)] = calls
    assert args[0].fixed == {"duration": "2s", "flow.a.start": "1s"}
    assert args[0].parameters == ["flow.a.cc"]


def test_sweep_lists_ten_failures_and_exits_1_when_any_failed(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workdir / "s.toml").write_text(SWEEP_FILE)
    sweep_calls(monkeypatch, outcome(failed=11))
    assert cli.main(["sweep", "s.toml"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"  failed k{i:02}: error {i}" for i in range(10)] + [
        "  … and 1 more (see sweep.parquet)"
    ]
    sweep_calls(monkeypatch, outcome(failed=10))
    assert cli.main(["sweep", "s.toml"]) == 1
    assert len(capsys.readouterr().err.splitlines()) == 10  # all listed, no "… and"
    sweep_calls(monkeypatch, outcome(failed=2, executed=0))
    assert cli.main(["sweep", "s.toml"]) == 1  # not 2: that is bad input, where nothing ran
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("  simulation")] == []  # nothing computed


def test_sweep_forwards_its_worker_count_and_names_the_default(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bloatlab.sweep import executor

    (workdir / "s.toml").write_text(SWEEP_FILE)
    calls = sweep_calls(monkeypatch, outcome())
    monkeypatch.setattr(executor, "default_workers", lambda: 7)
    assert cli.main(["sweep", "s.toml", "--workers", "3"]) == 0
    assert cli.main(["sweep", "s.toml"]) == 0
    assert [kwargs["workers"] for _, kwargs in calls] == [3, None]
    first, second = (line for line in capsys.readouterr().out.splitlines() if "runs (" in line)
    assert first.endswith(" s on 3 workers") and second.endswith(" s on 7 workers")


def test_a_dry_run_lists_runs_not_yet_stored_as_to_run(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workdir / "s.toml").write_text(SWEEP_FILE)
    calls = sweep_calls(monkeypatch, outcome())
    assert cli.main(["sweep", "s.toml", "--dry-run"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == 2
    for line, cc in zip(listing, ("bbr", "cubic"), strict=True):
        assert re.fullmatch(rf"[0-9a-f]{{16}}  to run   flow\.a\.cc={cc}, seed 1", line)
    assert calls == [] and not (workdir / "results").exists()


def test_a_dry_run_says_why_a_run_is_invalid(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (workdir / "s.toml").write_text(SWEEP_FILE.replace('"flow.a.cc"', '"flow.b.cc"'))
    sweep_calls(monkeypatch, outcome())
    assert cli.main(["sweep", "s.toml", "--dry-run"]) == 0
    for line in capsys.readouterr().out.splitlines():
        assert re.fullmatch(
            r"x[0-9a-f]{15}  invalid  flow\.b\.cc=\w+, seed 1: flow\.b\.cc: no flow named 'b'.*",
            line,
        )


def test_a_dry_run_tells_a_stored_run_from_a_failed_one(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bloatlab.runstore import RunStore

    (workdir / "s.toml").write_text(SWEEP_FILE)
    sweep_calls(monkeypatch, outcome())
    keys = [run.key for run in sweep.plan(sweep.Sweep.from_file(workdir / "s.toml"))]
    store = RunStore(workdir / "out" / "runs")
    store.write(keys[0], {}, {"status": "done"})
    store.write(keys[1], {}, {"status": "failed", "error": "boom"})
    assert cli.main(["sweep", "s.toml", "-o", "out", "--dry-run"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in listing] == [[keys[0], "done"], [keys[1], "failed"]]


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("My Sweep/é", "My_Sweep_"),
        ("..hidden.", "hidden"),
        ("...", "sweep"),
        ("a.b-c_D", "a.b-c_D"),
        ("X-ray.", "X-ray"),  # only dots are stripped from the ends
    ],
)
def test_a_sweeps_default_folder_is_its_name_in_safe_characters(name: str, folder: str) -> None:
    from bloatlab.commands import _safe

    assert _safe(name) == folder


def test_reproduce_without_a_paper_names_the_papers(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["reproduce", "--quick"]) == 2
    assert capsys.readouterr().err == (
        "bloatlab: error: PAPER: name a paper: " + ", ".join(reproduce.available()) + "\n"
    )


# ----- bench and validate ------------------------------------------------------------------


def test_bench_forwards_repeat_and_prints_a_table_or_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bloatlab import bench

    calls: Calls = []
    reports = [{"name": "b", "wall_s": 0.5}]
    monkeypatch.setattr(bench, "run_all", recorder(calls, reports))
    monkeypatch.setattr(bench, "format_table", lambda r: f"table of {r[0]['name']}")
    assert cli.main(["bench"]) == 0
    assert capsys.readouterr().out == "table of b\n"
    assert cli.main(["bench", "--repeat", "1", "--json"]) == 0  # one run is enough
    assert capsys.readouterr().out == json.dumps(reports, indent=2) + "\n"
    assert calls == [((), {"repeat": 3}), ((), {"repeat": 1})]


def test_validate_applies_the_seed(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (workdir / "s.toml").write_text(
        'duration = "1s"\n[bottleneck]\nrate = "10Mbps"\nrtt = "20ms"\n'
        '[[flow]]\nname = "a"\ncc = "bbr"\napp = { kind = "bulk" }\n'
    )
    assert cli.main(["validate", "s.toml", "--seed", "5"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed)["seed"] == 5
    assert printed.startswith('{\n  "')  # indented by two
