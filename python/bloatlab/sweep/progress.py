"""Live progress of a sweep: a tqdm bar with ETA on a terminal, a line now and then in a log."""

from __future__ import annotations

import sys
import time
from typing import IO, Any

from tqdm import tqdm

_LOG_EVERY_S = 30.0


class Progress:
    """Counts finished and failed runs; `note` prints a line without breaking the bar."""

    def __init__(
        self, total: int, label: str, *, enabled: bool = True, stream: IO[str] | None = None
    ):
        self.stream = stream or sys.stderr
        self.total = total
        self.done = 0
        self.failed = 0
        self.enabled = enabled
        self.start = time.monotonic()
        self._last_log = self.start
        self._bar: Any = None
        if enabled and total and self.stream.isatty():
            self._bar = tqdm(
                total=total,
                desc=label,
                unit="run",
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.1,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} runs "
                "[{elapsed}<{remaining}, {rate_fmt}{postfix}]",
            )
        self.label = label

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        if self._bar is not None:
            if not ok:
                self._bar.set_postfix_str(f"{self.failed} failed", refresh=False)
            self._bar.update(1)
        elif self.enabled:
            now = time.monotonic()
            if now - self._last_log >= _LOG_EVERY_S or self.done == self.total:
                self._last_log = now
                self.note(self._line(now))

    def _line(self, now: float) -> str:
        elapsed = now - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        failed = f", {self.failed} failed" if self.failed else ""
        return (
            f"{self.label}: {self.done}/{self.total} runs{failed}, "
            f"{_clock(elapsed)} elapsed, ETA {_clock(left)}"
        )

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
    if seconds != seconds:  # NaN
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
