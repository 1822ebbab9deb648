"""Shared test set-up: markers by folder, and the real or fake simulation core."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

import fake_core
from bloatlab._native import CONTRACT

TESTS = Path(__file__).parent
REPO = TESTS.parent
_MARKER_BY_FOLDER = {
    "unit": "unit",
    "integration": "integration",
    "scenarios": "scenario",
    "benchmark": "benchmark",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(item.path).relative_to(TESTS).parts[0]
        if folder in _MARKER_BY_FOLDER:
            item.add_marker(_MARKER_BY_FOLDER[folder])


def real_core() -> ModuleType | None:
    """The built extension if it implements the whole contract, else None."""
    try:
        module = importlib.import_module("bloatlab._core")
    except ImportError:
        return None
    return module if all(hasattr(module, name) for name in CONTRACT) else None


@pytest.fixture
def fake_core_module(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Install the fake `_core` for this test, whatever is built."""
    monkeypatch.setitem(sys.modules, "bloatlab._core", fake_core)
    fake_core.calls.clear()
    return fake_core


@pytest.fixture(autouse=True)
def _fake_core_for_unit_tests(request: pytest.FixtureRequest) -> None:
    """Unit tests get the fake core when the real one is missing or incomplete."""
    if "unit" in request.keywords and real_core() is None:
        request.getfixturevalue("fake_core_module")


@pytest.fixture
def core() -> ModuleType:
    """The real extension; skips the test when it is not built or incomplete."""
    module = real_core()
    if module is None:
        pytest.skip("bloatlab._core is not built or does not implement the contract yet")
    return module


# ----- paper reproductions: every claim prints the paper's value beside ours ------------------

_REPRODUCTIONS: list[tuple[str, str, str, str, str]] = []


@pytest.fixture
def reproduce() -> object:
    """`reproduce(claim, paper, ours, tolerance, passed)` adds a row to the reproduction table."""

    def record(claim: str, paper: str, ours: str, tolerance: str, passed: bool) -> bool:
        _REPRODUCTIONS.append((claim, paper, ours, tolerance, "pass" if passed else "FAIL"))
        return passed

    return record


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _REPRODUCTIONS:
        return
    head = ("claim", "paper", "ours", "tolerance", "")
    rows = [head, *_REPRODUCTIONS]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    terminalreporter.section("reproductions: paper vs bloatlab")
    for r in rows:
        terminalreporter.write_line("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
