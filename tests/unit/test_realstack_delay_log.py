"""`tools/realstack/delay_log.py`: the delay line's lateness log read back as percentiles."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "tools" / "realstack"))
import delay_log


def test_the_summary_gives_the_count_and_the_lateness_percentiles(tmp_path: Path) -> None:
    # 1 … 100 µs, shuffled: order does not matter; quantiles as `statistics.quantiles` cuts them
    (tmp_path / "delay.lat").write_text("\n".join(str((i * 37) % 100 + 1) for i in range(100)))
    assert delay_log.summary(tmp_path) == (
        "100 packets released late by p10 10, p50 50, p90 91, p99 100, max 100 µs"
    )
