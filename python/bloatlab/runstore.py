"""The run store: one results folder per run, named by a hash of what was simulated.

    runs/
      .lock                    held (flock) by the one process writing this store
      3f9c0a1e52b7d4c8/        a finished run: run.json, summary.json, <table>.parquet
      8e21d0c4a9f3b617/        a failed run: run.json with its error

A run's key is a hash of its resolved scenario (defaults filled, units canonical, input files
by content) and the core's version, so a sweep finds a finished run whatever sweep, file or
spelling asked for it, and a new core version recomputes everything. Folders are written
atomically (`store.write_folder`): a folder that exists is complete; a crash leaves at most a
hidden `.<key>.tmp-*` sibling, which the next writer removes.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from .store import remove_leftovers, write_folder

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
KEY_LENGTH = 16  # hex digits: 64 bits, no collision in any plausible store

State = Literal["done", "failed"]


def run_key(resolved: Mapping[str, Any], core_version: str) -> str:
    """The key of a run: a hash of the resolved scenario (input files by content) + version."""
    doc = {"core": core_version, "scenario": _by_content(resolved)}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_LENGTH]


def _by_content(node: Any) -> Any:
    """`node` with every string naming an existing file (a trace, a video manifest) replaced
    by a hash of the file's bytes: moving a project keeps its keys, editing a trace does not.
    """
    if isinstance(node, Mapping):
        return {key: _by_content(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_by_content(value) for value in node]
    if isinstance(node, str) and os.path.isabs(node) and os.path.isfile(node):
        with open(node, "rb") as f:
            return "sha256:" + hashlib.file_digest(f, "sha256").hexdigest()
    return node


class StoreBusyError(RuntimeError):
    """Another process is writing the same run store."""


class RunStore:
    """Run folders under `root`, keyed by `run_key`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).absolute()

    def folder(self, key: str) -> Path:
        return self.root / key

    def meta(self, key: str) -> dict[str, Any] | None:
        """The run's `run.json`, or None if there is no (complete) folder for it."""
        try:
            text = (self.folder(key) / RUN_FILE).read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        meta: dict[str, Any] = json.loads(text)
        return meta

    def state(self, key: str) -> State | None:
        meta = self.meta(key)
        if meta is None:
            return None
        return "done" if meta.get("status") == "done" else "failed"

    def summary(self, key: str) -> dict[str, Any] | None:
        try:
            text = (self.folder(key) / SUMMARY_FILE).read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return None
        summary: dict[str, Any] = json.loads(text)
        return summary

    def write(self, key: str, files: Mapping[str, bytes], meta: Mapping[str, Any]) -> Path:
        """Create or replace the run's folder with `files` and `run.json` (= `meta`), atomically."""
        if RUN_FILE in files:
            raise ValueError(f"{RUN_FILE} is written from `meta`")

        def fill(folder: Path) -> None:
            for name, data in files.items():
                (folder / name).write_bytes(data)
            text = json.dumps({"key": key, **meta}, indent=2, ensure_ascii=False) + "\n"
            (folder / RUN_FILE).write_text(text, encoding="utf-8")

        return write_folder(self.folder(key), fill)

    @contextmanager
    def writing(self) -> Iterator[RunStore]:
        """Hold the store's lock, after removing what interrupted writes left behind.

        One process writes a store at a time; the lock is released when the process ends,
        however it ends (it is an flock on `root/.lock`). Raises `StoreBusyError` if held.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreBusyError(
                    f"another bloatlab process is writing {self.root}; wait for it to finish"
                ) from None
            remove_leftovers(self.root)
            yield self
        finally:
            os.close(fd)  # releases the lock
