"""Results folders written atomically.

A results folder is built in a temporary sibling (`.<name>.tmp-XXXX`) and moved into place
with one rename once every file in it is written and flushed to disk. An existing folder is
swapped out only after the new one is complete, so a reader, a crash or a Ctrl-C never sees a
half-written folder and never loses the previous results. On Linux the swap is a single
`renameat2(RENAME_EXCHANGE)`; elsewhere the old folder is first renamed aside, then the new
one into place (between those two renames the old results are at `.<name>.old-XXXX`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def write_folder(out_dir: str | os.PathLike[str], fill: Callable[[Path], None]) -> Path:
    """Create or replace `out_dir` with what `fill(tmp)` writes into an empty folder."""
    out = Path(out_dir).absolute()
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_sibling(out, "tmp")
    try:
        fill(tmp)
        _fsync_tree(tmp)
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _fsync(out.parent)
    return out


def _move_into_place(new: Path, out: Path) -> None:
    """Rename `new` to `out`, replacing an existing `out` only once `new` is complete."""
    try:
        new.rename(out)  # atomic; fails if `out` exists and is a non-empty folder
        return
    except OSError:
        if not out.exists():
            raise
    if _exchange(new, out):
        shutil.rmtree(new)  # now holds the old results
        return
    old = _new_sibling(out, "old")
    out.replace(old)
    try:
        new.rename(out)
    except BaseException:
        old.replace(out)  # put the old results back
        raise
    shutil.rmtree(old)


def _new_sibling(out: Path, kind: str) -> Path:
    """A new empty folder `.<name>.<kind>-XXXXXXXX` beside `out`, with umask permissions."""
    while True:
        folder = out.with_name(f".{out.name}.{kind}-{secrets.token_hex(4)}")
        try:
            folder.mkdir()  # unlike tempfile.mkdtemp (0700), honours the umask
            return folder
        except FileExistsError:
            continue


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths with renameat2(2); False where that is not available."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    status = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(status == 0)


def _fsync_tree(root: Path) -> None:
    for folder, _, files in os.walk(root):
        for name in files:
            _fsync(Path(folder, name))
        _fsync(Path(folder))


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_file(path: str | os.PathLike[str], data: bytes) -> Path:
    """Create or replace the file `path` with `data` atomically (temporary sibling, rename)."""
    out = Path(path).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{secrets.token_hex(4)}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync(out.parent)
    return out


def remove_leftovers(folder: str | os.PathLike[str]) -> list[Path]:
    """Delete what interrupted atomic writes left in `folder` (`.<name>.tmp-*`, `.<name>.old-*`).

    Only call this while no other process is writing into `folder`. An `.old-` folder is
    only left when a crash came between the two renames of a replacement without
    renameat2; its results were being replaced, so they are not needed.
    """
    removed: list[Path] = []
    root = Path(folder)
    if not root.is_dir():
        return removed
    for entry in root.iterdir():
        if entry.name.startswith(".") and (".tmp-" in entry.name or ".old-" in entry.name):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(entry)
    return removed
