"""Results folders are written atomically: all or nothing, old results kept until replaced."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pyarrow.parquet as pq
import pytest

import bloatlab
from bloatlab import store

SCENARIO = """
name = "w"
duration = "2s"
[bottleneck]
rate = "10Mbps"
[[flow]]
name = "a"
cc = "bbr"
"""


@pytest.fixture
def result(fake_core_module: ModuleType) -> bloatlab.Result:
    return bloatlab.simulate(SCENARIO)


def siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir())


def old_results(folder: Path) -> dict[str, bytes]:
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text('{"old": true}')
    (folder / "flows.parquet").write_bytes(b"old parquet")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_writes_summary_and_one_parquet_per_table(result: bloatlab.Result, tmp_path: Path) -> None:
    out = result.write(tmp_path / "runs" / "w")
    assert sorted(p.name for p in out.iterdir()) == [
        "flows.parquet",
        "queue.parquet",
        "samples.parquet",
        "summary.json",
    ]
    assert json.loads((out / "summary.json").read_text()) == result.summary
    assert pq.read_table(out / "flows.parquet").equals(result.flows)
    assert siblings(out) == ["w"]


def test_replaces_an_existing_folder(result: bloatlab.Result, tmp_path: Path) -> None:
    out = tmp_path / "w"
    old_results(out)
    (out / "stale.txt").write_text("from an older version")
    result.write(out)
    assert json.loads((out / "summary.json").read_text()) == result.summary
    assert not (out / "stale.txt").exists()
    assert siblings(out) == ["w"]


def test_replaces_without_renameat2_too(
    result: bloatlab.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "_exchange", lambda a, b: False)
    out = tmp_path / "w"
    old_results(out)
    result.write(out)
    assert json.loads((out / "summary.json").read_text()) == result.summary
    assert siblings(out) == ["w"]


@pytest.mark.parametrize("crash", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_a_crash_mid_write_keeps_the_old_folder_and_leaves_no_partial_one(
    result: bloatlab.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: BaseException
) -> None:
    out = tmp_path / "w"
    before = old_results(out)
    written: list[str] = []
    real_write_table = pq.write_table

    def write_then_crash(table: object, where: Path, **kwargs: object) -> None:
        if written:  # the first table is written completely, then the crash comes
            raise crash
        real_write_table(table, where, **kwargs)
        written.append(str(where))

    monkeypatch.setattr(pq, "write_table", write_then_crash)
    with pytest.raises(type(crash)):
        result.write(out)
    assert written, "the crash should come after part of the new folder was written"
    assert contents(out) == before
    assert siblings(out) == ["w"]


def test_a_crash_on_first_write_leaves_nothing(
    result: bloatlab.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(folder: Path) -> None:
        (folder / "summary.json").write_text("{")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.write_folder(tmp_path / "new", crash)
    assert list(tmp_path.iterdir()) == []


def test_a_crash_while_swapping_keeps_the_old_folder(
    result: bloatlab.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def exchange_fails(a: Path, b: Path) -> bool:
        raise OSError("EIO")

    monkeypatch.setattr(store, "_exchange", exchange_fails)
    out = tmp_path / "w"
    before = old_results(out)
    with pytest.raises(OSError, match="EIO"):
        result.write(out)
    assert contents(out) == before
    assert siblings(out) == ["w"]


def test_a_failed_rename_without_renameat2_puts_the_old_folder_back(
    result: bloatlab.Result, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "_exchange", lambda a, b: False)
    out = tmp_path / "w"
    before = old_results(out)
    real_rename = Path.rename

    def rename(self: Path, target: Path) -> Path:
        if self.name.startswith(".w.tmp-") and Path(target) == out and not out.exists():
            raise KeyboardInterrupt  # after the old folder was moved aside
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        result.write(out)
    assert contents(out) == before
    assert siblings(out) == ["w"]


def test_refuses_to_replace_a_file(result: bloatlab.Result, tmp_path: Path) -> None:
    (tmp_path / "w").write_text("not a folder")
    with pytest.raises(FileExistsError):
        result.write(tmp_path / "w")
    assert siblings(tmp_path / "w") == ["w"]


def test_on_linux_a_replacement_is_one_exchange_of_the_two_folders(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x").write_text("in a")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "y").write_text("in b")
    assert store._exchange(tmp_path / "a", tmp_path / "b")
    assert contents(tmp_path / "a") == {"y": b"in b"}
    assert contents(tmp_path / "b") == {"x": b"in a"}
    # nothing to swap with: no exchange, and nothing moved
    assert not store._exchange(tmp_path / "a", tmp_path / "none")
    assert contents(tmp_path / "a") == {"y": b"in b"}


def test_a_folder_or_file_is_written_under_parents_that_do_not_exist_yet(tmp_path: Path) -> None:
    out = store.write_folder(tmp_path / "p" / "q" / "r", lambda f: (f / "s").write_text("t"))
    assert contents(out) == {"s": b"t"}
    assert store.write_file(tmp_path / "u" / "v" / "w", b"x").read_bytes() == b"x"


def test_leftovers_of_interrupted_writes_are_removed_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / ".a.tmp-0001").mkdir()
    (tmp_path / ".a.tmp-0001" / "summary.json").write_text("{")
    (tmp_path / ".b.old-0002").mkdir()
    (tmp_path / ".c.tmp-0003").write_text("half a file")
    target = tmp_path / "kept"
    target.mkdir()
    (target / "f").write_text("kept")
    (tmp_path / ".d.tmp-0004").symlink_to(target)
    for name in ("a", ".hidden", "x.tmp-0005"):  # results, and names no write leaves
        (tmp_path / name).mkdir()
    removed = store.remove_leftovers(tmp_path)
    assert sorted(p.name for p in removed) == [
        ".a.tmp-0001",
        ".b.old-0002",
        ".c.tmp-0003",
        ".d.tmp-0004",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".hidden", "a", "kept", "x.tmp-0005"]
    assert contents(target) == {"f": b"kept"}  # a link is removed, not what it points to
    assert store.remove_leftovers(tmp_path / "no such folder") == []
