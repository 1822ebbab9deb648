"""Live progress of a sweep: a tqdm bar with ETA on a terminal, a line now and then in a log.

Runs start longest first, so the ETA weighs each run by its estimated cost (simulated packets)
rather than counting runs, which would overestimate while the long runs go.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from tqdm import tqdm

_LOG_EVERY_S = 30.0


class Progress:
    """Counts finished and failed runs; `note` prints a line without breaking the bar."""

    def __init__(
        self,
        costs: Sequence[float] | int,
        label: str,
        *,
        enabled: bool = True,
        stream: IO[str] | None = None,
    ) -> None:
        weights = [1.0] * costs if isinstance(costs, int) else [max(c, 1e-9) for c in costs]
        self.stream = stream or sys.stderr
        self.label = label
        self.total = len(weights)
        self.total_cost = sum(weights)
        self.done = 0
        self.done_cost = 0.0
        self.failed = 0
        self.enabled = enabled
        self.start = time.monotonic()
        self._last_log = self.start
        self._bar: Any = None
        if enabled and self.total and self.stream.isatty():
            self._bar = tqdm(
                total=self.total_cost,
                desc=label,
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.1,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]",
            )
            self._bar.set_postfix_str(self._count(), refresh=True)

    def advance(self, ok: bool, cost: float = 1.0) -> None:
        self.done += 1
        self.done_cost += max(cost, 1e-9)
        self.failed += not ok
        if self._bar is not None:
            self._bar.set_postfix_str(self._count(), refresh=False)
            self._bar.update(max(cost, 1e-9))
        elif self.enabled:
            now = time.monotonic()
            if now - self._last_log >= _LOG_EVERY_S or self.done == self.total:
                self._last_log = now
                self.note(self._line(now))

    def _count(self) -> str:
        failed = f", {self.failed} failed" if self.failed else ""
        return f"{self.done}/{self.total} runs{failed}"

    def _line(self, now: float) -> str:
        """After a run has finished (`done_cost` > 0): the count, the time and the ETA."""
        elapsed = now - self.start
        left = elapsed / self.done_cost * (self.total_cost - self.done_cost)
        return f"{self.label}: {self._count()}, {_clock(elapsed)} elapsed, ETA {_clock(left)}"

    def note(self, text: str) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
