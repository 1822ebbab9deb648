"""A sweep's progress: a bar with an ETA on a terminal, a line every 30 s (and at the end) in a
log, the ETA weighing runs by their cost."""

from __future__ import annotations

import io

import pytest

from bloatlab.sweep import progress
from bloatlab.sweep.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(progress.time, "monotonic", fake)
    return fake


def test_a_log_gets_a_line_every_30_s_and_one_at_the_end(clock: Clock) -> None:
    log = io.StringIO()
    bar = Progress(4, "sweep x", stream=log)
    for elapsed, ok in ((10, True), (31, False), (40, True)):
        clock.now = 1000.0 + elapsed
        bar.advance(ok)
    assert log.getvalue().splitlines() == ["sweep x: 2/4 runs, 1 failed, 0:31 elapsed, ETA 0:31"]
    clock.now = 1000.0 + 45
    bar.advance(True)
    assert log.getvalue().splitlines()[-1] == "sweep x: 4/4 runs, 1 failed, 0:45 elapsed, ETA 0:00"


def test_the_eta_weighs_each_run_by_its_cost(clock: Clock) -> None:
    # The long run (cost 3) goes first and takes 30 s: a third as much is left, 10 s, where
    # counting runs would say another 30 s.
    log = io.StringIO()
    bar = Progress([3.0, 1.0], "sweep x", stream=log)
    clock.now = 1000.0 + 30
    bar.advance(True, cost=3.0)
    assert log.getvalue().splitlines() == ["sweep x: 1/2 runs, 0:30 elapsed, ETA 0:10"]


def test_hours_are_shown_when_there_are_any() -> None:
    assert progress._clock(3725) == "1:02:05"
    assert progress._clock(59.6) == "1:00"


def test_a_terminal_gets_a_bar_and_notes_above_it(clock: Clock) -> None:
    terminal = Terminal()
    bar = Progress([1.0, 1.0], "sweep x", stream=terminal)
    bar.note("run k failed: boom")
    bar.advance(True)
    bar.close()
    out = terminal.getvalue()
    assert "run k failed: boom\n" in out
    assert "sweep x:" in out and "1/2 runs" in out and "50%" in out


def test_a_quiet_sweep_prints_nothing(clock: Clock) -> None:
    for stream in (io.StringIO(), Terminal()):
        bar = Progress(1, "sweep x", enabled=False, stream=stream)
        bar.note("a note")
        bar.advance(False)
        bar.close()
        assert stream.getvalue() == ""
