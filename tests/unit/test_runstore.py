"""Run keys are stable hashes of what is simulated; the run store writes folders atomically."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bloatlab
from bloatlab import store
from bloatlab.runstore import RunStore, StoreBusyError, run_key

SCENARIO = {
    "name": "k",
    "duration": "2s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
}


def key_of(scenario: object, **kwargs: object) -> str:
    return run_key(bloatlab.resolve(scenario, **kwargs), "1.0")  # type: ignore[arg-type]


def test_the_key_of_a_resolved_scenario_is_pinned() -> None:
    # Changing the hash breaks every existing store: do it only on purpose.
    resolved = {
        "bottleneck": {"rate_bps": 10_000_000, "rtt_ns": 20_000_000},
        "duration_ns": 2_000_000_000,
        "flow": [{"cc": {"kind": "bbr"}, "name": "a", "start_ns": 0}],
        "name": "k",
        "seed": 0,
    }
    assert run_key(resolved, "1.0") == "ee739def3b325e16"
    assert run_key(dict(reversed(resolved.items())), "1.0") == "ee739def3b325e16"
    # names beyond ASCII are hashed as their \u escapes; input files as their bytes' SHA-256
    assert run_key({"flow": [{"name": "vidéo"}], "name": "k"}, "1.0") == "e0622824ff175e83"


def test_spelling_and_key_order_do_not_change_the_key() -> None:
    reordered = {
        "flow": [{"app": {"kind": "bulk"}, "cc": "bbr", "name": "a"}],
        "bottleneck": {"rtt": "20ms", "rate": "10000Kbps"},
        "duration": "2000ms",
        "name": "k",
    }
    assert key_of(reordered) == key_of(SCENARIO)
    assert key_of(SCENARIO, overrides={"bottleneck.rate": "10Mbps"}) == key_of(SCENARIO)


def test_what_changes_the_simulation_changes_the_key() -> None:
    base = key_of(SCENARIO)
    assert key_of(SCENARIO, seed=2) != base
    assert key_of(SCENARIO, overrides={"bottleneck.rate": "11Mbps"}) != base
    assert key_of(SCENARIO, overrides={"flow.a.cc": "cubic"}) != base
    resolved = bloatlab.resolve(SCENARIO)
    assert run_key(resolved, "1.0") != run_key(resolved, "1.1")


def test_the_key_is_the_same_in_another_process() -> None:
    code = (
        "import json, sys; from bloatlab.runstore import run_key; "
        "print(run_key(json.loads(sys.argv[1]), '1.0'))"
    )
    resolved = bloatlab.resolve(SCENARIO)
    keys = {
        subprocess.run(
            [sys.executable, "-c", code, json.dumps(resolved)],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(seed)},
        ).stdout.strip()
        for seed in (1, 2)
    }
    assert keys == {run_key(resolved, "1.0")}


def test_input_files_count_by_content_not_by_path(tmp_path: Path) -> None:
    a, b = tmp_path / "a.down", tmp_path / "moved" / "a.down"
    b.parent.mkdir()
    a.write_text("1\n2\n")
    b.write_text("1\n2\n")
    resolved = {"bottleneck": {"trace": str(a)}}
    moved = {"bottleneck": {"trace": str(b)}}
    assert run_key(resolved, "1") == run_key(moved, "1")
    b.write_text("1\n3\n")
    assert run_key(resolved, "1") != run_key(moved, "1")
    a.write_bytes(b"0 0\n1 10\n")
    assert run_key(resolved, "1.0") == "1548a5a56612a781"


def test_run_json_is_the_meta_under_the_key_and_says_whether_the_run_is_done(
    tmp_path: Path,
) -> None:
    runs = RunStore(tmp_path)
    meta = {"status": "failed", "error": "débit: trop élevé"}
    folder = runs.write("k1", {"summary.json": b"{}"}, meta)
    text = (folder / "run.json").read_text(encoding="utf-8")
    assert text == json.dumps({"key": "k1", **meta}, indent=2, ensure_ascii=False) + "\n"
    assert "débit" in text
    assert runs.meta("k1") == {"key": "k1", **meta}
    assert (runs.state("k1"), runs.summary("k1")) == ("failed", {})
    runs.write("k2", {}, {"status": "done"})
    assert (runs.state("k2"), runs.summary("k2"), runs.state("k3")) == ("done", None, None)
    with pytest.raises(ValueError, match=r"^run\.json is written from `meta`$"):
        runs.write("k4", {"run.json": b"{}"}, {})


def test_a_run_folder_is_complete_or_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = RunStore(tmp_path / "runs")
    runs.write("k1", {"summary.json": b"{}"}, {"status": "done"})
    assert runs.state("k1") == "done"
    assert runs.meta("k1") == {"key": "k1", "status": "done"}

    def crash(folder: Path, fill: object) -> Path:
        (tmp_path / "runs" / ".k2.tmp-0000").mkdir()
        (tmp_path / "runs" / ".k2.tmp-0000" / "summary.json").write_text("{")
        raise KeyboardInterrupt

    monkeypatch.setattr("bloatlab.runstore.write_folder", crash)
    with pytest.raises(KeyboardInterrupt):
        runs.write("k2", {"summary.json": b"{}"}, {"status": "done"})
    assert runs.state("k2") is None
    monkeypatch.undo()
    with runs.writing():  # the next writer sweeps up what the crash left
        assert sorted(p.name for p in runs.root.iterdir()) == [".lock", "k1"]


def test_one_writer_at_a_time(tmp_path: Path) -> None:
    runs = RunStore(tmp_path)
    with runs.writing():
        script = (
            "import sys; from bloatlab.runstore import RunStore, StoreBusyError\n"
            "try:\n    RunStore(sys.argv[1]).writing().__enter__()\n"
            "except StoreBusyError:\n    sys.exit(3)\n"
        )
        other = subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False)
        assert other.returncode == 3
    with runs.writing():
        pass
    assert StoreBusyError.__doc__


def test_write_file_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sweep.parquet"
    store.write_file(path, b"old")

    def fail(fd: int) -> None:
        raise OSError("EIO")

    monkeypatch.setattr(store.os, "fsync", fail)
    with pytest.raises(OSError):
        store.write_file(path, b"new, half written")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.parquet"]
