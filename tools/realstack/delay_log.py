"""How late the ACK path's delay line released packets in one run (run.sh with DELAY_LOG=1:
OUTDIR/delay.lat, µs after each packet's due time, in release order): the testbed's own timing
noise on the ACK path, which a simulation of the path stands for with `bottleneck.jitter`.
Usage: delay_log.py OUTDIR"""

import statistics
import sys
from pathlib import Path


def summary(outdir: Path) -> str:
    """The count of packets and the percentiles of their lateness."""
    late = [int(x) for x in (outdir / "delay.lat").read_text().split()]
    p = statistics.quantiles(late, n=100)
    return (
        f"{len(late)} packets released late by p10 {p[9]:.0f}, p50 {p[49]:.0f}, "
        f"p90 {p[89]:.0f}, p99 {p[98]:.0f}, max {max(late)} µs"
    )


if __name__ == "__main__":
    print(summary(Path(sys.argv[1])))
