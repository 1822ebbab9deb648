"""The `bloatlab` command: output, exit codes, and nothing written on bad input."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from bloatlab import Result, cli

SCENARIO = """
name = "cli-test"
seed = 1
duration = "2s"
[bottleneck]
rate = "10Mbps"
rtt = "40ms"
[[flow]]
name = "bbr"
cc = "bbr"
[[flow]]
name = "cubic"
cc = "cubic"
start = "1s"
"""


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_core_module: ModuleType) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SCENARIO)
    return tmp_path


def test_run_writes_results_and_prints_a_summary(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "s.toml", "-o", "out"]) == 0
    assert sorted(p.name for p in (workdir / "out").iterdir()) == [
        "flows.parquet",
        "queue.parquet",
        "samples.parquet",
        "summary.json",
    ]
    printed = capsys.readouterr().out
    assert "cli-test (seed 1)" in printed
    assert "bbr" in printed and "cubic" in printed
    assert "5.00 Mb/s" in printed  # goodput
    assert "60.0 ms" in printed  # RTT p50
    assert "utilisation 97.0 %" in printed
    assert "queue delay p50 12.0 ms" in printed


def test_run_defaults_to_results_slash_name(workdir: Path) -> None:
    assert cli.main(["run", "s.toml"]) == 0
    assert (workdir / "results" / "cli-test" / "summary.json").is_file()


def test_scenario_argument_is_always_a_path(workdir: Path) -> None:
    (workdir / "rate=10").mkdir()
    (workdir / "rate=10" / "s.toml").write_text(SCENARIO)
    assert cli.main(["run", "rate=10/s.toml", "-o", "out"]) == 0


def test_run_with_plot_writes_overview_png(workdir: Path) -> None:
    assert cli.main(["run", "s.toml", "-o", "out", "--plot"]) == 0
    assert (workdir / "out" / "overview.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_applies_sets_and_seed(workdir: Path, fake_core_module: ModuleType) -> None:
    argv = ["run", "s.toml", "-o", "out", "--set", "flow.cubic.cc=reno", "--seed", "5"]
    assert cli.main(argv) == 0
    summary = json.loads((workdir / "out" / "summary.json").read_text())
    assert summary["seed"] == 5
    assert summary["scenario"]["flow"][1]["cc"] == {"kind": "reno"}


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["--set", "bottleneck.rate=fast"], ["bottleneck.rate", "'fast'", "Mbps"]),
        (["--set", "bottleneck.colour=red"], ["bottleneck.colour", "unknown field", "rate"]),
        (["--set", "flow.vidoe.cc=bbr"], ["flow.vidoe.cc", "'vidoe'", "'bbr', 'cubic'"]),
        (["--set", "flow.bbr.cc=vegas"], ["flow.bbr.cc", "'vegas'", "'bbr'"]),
        (["--set", "bottleneck.trace=missing.down"], ["bottleneck.trace", "missing.down"]),
        (["--set", "seed"], ["seed", "key=value"]),
    ],
)
@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_input_exits_2_naming_the_field_and_writes_nothing(
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    argv: list[str],
    names: list[str],
) -> None:
    assert cli.main([command, "s.toml", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    for name in names:
        assert name in captured.err
    assert sorted(p.name for p in workdir.iterdir()) == ["s.toml"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [(None, "scenario file not found"), ("name = ", "is not valid TOML")],
)
def test_unreadable_scenario_exits_2(
    workdir: Path, capsys: pytest.CaptureFixture[str], content: str | None, expected: str
) -> None:
    if content is not None:
        (workdir / "bad.toml").write_text(content)
    assert cli.main(["run", "bad.toml", "-o", "out"]) == 2
    assert expected in capsys.readouterr().err
    assert not (workdir / "out").exists()


def test_other_failures_exit_1(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(scenario_json: str) -> None:
        raise RuntimeError("core exploded")

    monkeypatch.setattr("fake_core.simulate", broken)
    assert cli.main(["run", "s.toml", "-o", "out"]) == 1
    assert "core exploded" in capsys.readouterr().err
    assert not (workdir / "out").exists()


def test_validate_prints_the_resolved_scenario(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["validate", "s.toml", "--set", "bottleneck.rate=25Mbps"]) == 0
    resolved = json.loads(capsys.readouterr().out)
    assert resolved["bottleneck"]["rate_bps"] == 25_000_000


def test_usage_errors_exit_2(workdir: Path) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["run"])
    assert e.value.code == 2


def test_help_states_the_exit_statuses_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["bench", "--help"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Exit status: 0 done; 2 bad input (the message names the field or option" in text
    assert "1 any other failure; 130 interrupted." in text
    assert "`sweep` exits with 1 when a run failed (the others are kept), `reproduce` when" in text
    assert "runs per benchmark, the best kept (default 3)" in text


CHILD = """
import signal, sys, time
from pathlib import Path
# A terminal's Ctrl-C: a job started with `&` by a non-interactive shell (as CI may run us)
# inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler.
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, {tests!r})
import fake_core

def slow_simulate(scenario_json):
    Path("started").touch()
    time.sleep(60)  # like the core: blocking, with the GIL released

fake_core.simulate = slow_simulate
sys.modules["bloatlab._core"] = fake_core
from bloatlab.cli import main
sys.exit(main(["run", "s.toml", "-o", "out"]))
"""


def test_ctrl_c_during_a_run_exits_130_at_once_and_writes_nothing(workdir: Path) -> None:
    tests = str(Path(__file__).parents[1])
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(tests=tests)],
        cwd=workdir,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (workdir / "started").exists():
            assert child.poll() is None, child.stderr.read() if child.stderr else ""
            assert time.monotonic() < deadline, "the run never started"
            time.sleep(0.05)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=10)
    finally:
        child.kill()
    assert child.returncode == 130
    assert "interrupted; nothing written" in err
    assert sorted(p.name for p in workdir.iterdir()) == ["s.toml", "started"]


def test_the_printed_summary_is_one_aligned_line_per_flow_and_one_for_the_bottleneck() -> None:
    summary = {
        "name": "s",
        "seed": 3,
        "flows": {
            "video": {"goodput_bps": 12.3456e6, "rtt_p50_s": 0.0421, "retrans_ratio": 0.0123},
            "b": {"goodput_bps": None, "rtt_p50_s": True, "retrans_ratio": 0},
        },
        "bottleneck": {"utilisation": 0.987, "queue_delay_p50_s": 0.0025, "drop_rate": 0.0004},
    }
    stats = {"sim_time_s": 60.0, "wall_time_s": 0.25}
    text = cli.format_summary(Result(summary, {}, stats=stats), Path("results/s"))
    assert text.splitlines() == [
        "s (seed 3): 60.0 s simulated in 0.25 s, 240x real time",
        "  flow       goodput    RTT p50   retrans",
        "  video   12.35 Mb/s    42.1 ms    1.23 %",
        "  b                -          -    0.00 %",
        "  bottleneck: utilisation 98.7 %, queue delay p50 2.5 ms, drop rate 0.04 %",
        "  results: results/s",
    ]
    # no speed for a run that took no time, no times without both, a 4-wide column for no flows
    instant = cli.format_summary(Result(summary, {}, stats={"sim_time_s": 1, "wall_time_s": 0}))
    assert instant.splitlines()[0] == "s (seed 3): 1.0 s simulated in 0.00 s"
    bare = cli.format_summary(Result({"name": "n"}, {}, stats={"sim_time_s": 1.0}))
    assert bare.splitlines()[:2] == ["n (seed None)", "  flow      goodput    RTT p50   retrans"]
    assert bare.splitlines()[2] == "  bottleneck: utilisation -, queue delay p50 -, drop rate -"
    assert cli.format_summary(Result({}, {})).startswith("run (seed None)\n")


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("www21 fig 4/5", "www21_fig_4_5"),
        ("..hidden..", "hidden"),
        ("a.b-c_d", "a.b-c_d"),
        ("", "from-file"),
        (3, "from-file"),
        ("...", "run"),
    ],
)
def test_a_runs_folder_is_named_after_the_scenario_in_safe_characters(
    name: object, folder: str
) -> None:
    assert cli._folder_name(name, Path("scenarios/from-file.toml")) == folder
