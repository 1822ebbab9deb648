"""`bloatlab bench`: how fast the simulator runs and how much memory it takes.

Each benchmark runs in a fresh Python process (`python -m bloatlab.bench --child NAME`) so
its peak resident memory is its own. A child runs the scenario `repeat` times through
`bloatlab.simulate` (the core plus conversion to Arrow tables) and keeps the best wall time.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from typing import Any

import numpy as np

# The scenarios, in the scenario language. Telemetry is the default interval.
BENCHMARKS: dict[str, dict[str, Any]] = {
    "bbr-bulk-600s": {
        "name": "bench-bbr-bulk-600s",
        "seed": 1,
        "duration": "600s",
        "bottleneck": {
            "rate": "25Mbps",
            "rtt": "100ms",
            "shaper": {"kind": "tbf", "burst": "1MB"},
            "queue": {"kind": "droptail", "limit": "10MB"},
        },
        "flow": [{"name": "bbr", "cc": "bbr", "app": {"kind": "bulk"}}],
    },
    "bbr-cubic-8flows-60s": {
        "name": "bench-bbr-cubic-8flows-60s",
        "seed": 1,
        "duration": "60s",
        "bottleneck": {
            "rate": "120Mbps",
            "rtt": "25ms",
            "queue": {"kind": "droptail", "limit": "8BDP"},
        },
        "flow": [
            {"name": "bbr", "cc": "bbr", "count": 4, "app": {"kind": "bulk"}},
            {"name": "cubic", "cc": "cubic", "count": 4, "app": {"kind": "bulk"}},
        ],
    },
    # WWW'21: one DASH session, the 127 × 5 s www21 video played to the end (≈10.6 min).
    "www21-dash-session": {
        "name": "bench-www21-dash-session",
        "seed": 1,
        "bottleneck": {
            "rate": "25Mbps",
            "rtt": "100ms",
            "shaper": {"kind": "tbf", "burst": "1MB"},
            "queue": {"kind": "droptail", "limit": "10MB"},
        },
        "flow": [
            {
                "name": "video",
                "cc": "bbr",
                "app": {"kind": "dash", "video": "www21", "abr": "dynamic", "http": "h2"},
            }
        ],
    },
}


def measure(name: str, repeat: int = 3) -> dict[str, Any]:
    """Run benchmark `name` `repeat` times in this process; figures of the fastest run."""
    from .result import table_from_columns
    from .run import simulate

    # pyarrow imports pandas (when installed) on first use; keep that out of the timings.
    table_from_columns({"flow": np.zeros(1, dtype=np.uint16)}, {"flow": ["warm-up"]})
    baseline_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best_wall, stats = float("inf"), {}
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        result = simulate(BENCHMARKS[name])
        wall = time.perf_counter() - start
        if wall < best_wall:
            best_wall, stats = wall, dict(result.stats)
        del result
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    sim_s = float(stats.get("sim_time_s", 0.0))
    return {
        "benchmark": name,
        "repeat": max(repeat, 1),
        "wall_s": best_wall,
        "sim_s": sim_s,
        "realtime_factor": sim_s / best_wall,
        "packets": int(stats.get("packets", 0)),
        "packets_per_s": stats.get("packets", 0) / best_wall,
        "events": int(stats.get("events", 0)),
        "events_per_s": stats.get("events", 0) / best_wall,
        "peak_rss_mib": peak_kib / 1024,
        "baseline_rss_mib": baseline_kib / 1024,
        "run_rss_mib": (peak_kib - baseline_kib) / 1024,
    }


def run_all(repeat: int = 3, names: list[str] | None = None) -> list[dict[str, Any]]:
    """Measure each benchmark in its own subprocess."""
    reports = []
    for name in names or list(BENCHMARKS):
        child = subprocess.run(
            [sys.executable, "-m", "bloatlab.bench", "--child", name, "--repeat", str(repeat)],
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            raise RuntimeError(f"benchmark {name} failed:\n{child.stderr.strip()}")
        reports.append(json.loads(child.stdout))
    return reports


def format_table(reports: list[dict[str, Any]]) -> str:
    columns = [
        ("benchmark", "benchmark", "{}"),
        ("wall_s", "wall s", "{:.3f}"),
        ("sim_s", "sim s", "{:.0f}"),
        ("realtime_factor", "x real time", "{:.0f}"),
        ("packets_per_s", "pkts/s", "{:,.0f}"),
        ("events_per_s", "events/s", "{:,.0f}"),
        ("peak_rss_mib", "peak RSS MiB", "{:.1f}"),
        ("run_rss_mib", "of which run MiB", "{:.1f}"),
    ]
    rows = [[title for _, title, _ in columns]]
    rows += [[fmt.format(report[key]) for key, _, fmt in columns] for report in reports]
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    repeat = reports[0]["repeat"] if reports else 0
    lines.append(f"(best of {repeat} runs each; peak RSS of a fresh process per benchmark)")
    return "\n".join(lines)


def _child_main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bloatlab.bench")
    parser.add_argument("--child", required=True, choices=sorted(BENCHMARKS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.child, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main())
