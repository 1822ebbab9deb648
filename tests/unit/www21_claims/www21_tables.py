"""Small hand-made sweep tables for the WWW'21 reproduction's claims' tests (the
test_www21_*.py files beside this module; no simulation), and the helpers that analyse them.

Each figure's or table's `analyse` gets a few runs whose means are worked out by hand in the
comments; the tests check each claim's number as printed, its verdict, the verdict on both sides
of its tolerance, that only finished runs count and that a missing point fails. Claims are
analysed with their figures built but not rendered (rendering is most of the time, and pixels
are not tested here).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest.mock import patch

import pyarrow as pa
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from bloatlab.builders import HOST_JITTER
from bloatlab.reproduce._base import Claim, Findings
from bloatlab.reproduce.www21._common import BW, GOODPUT, QUALITY, STALL
from bloatlab.sweep.table import SweepResults
from sweep_tables import sweep_results

CC = "flow.video.cc"
BUFFER = "bottleneck.queue.limit"
RTT = "bottleneck.rtt"
BURST = "bottleneck.shaper.burst"
ABR = "flow.video.app.abr"
MARGIN = "flow.video.cc.base.pacing_margin_percent"
JITTER = "bottleneck.jitter"
PROBE_RTT = "flows.video.state_time_fraction.PROBE_RTT"
STARTUP = "flows.video.state_time_fraction.STARTUP"
VIDEO_METRICS = (QUALITY, STALL, BW, GOODPUT)

Row = dict[str, Any]
Points = Mapping[tuple[str, str], Mapping[str, Sequence[float]]]


def runs(
    point: Mapping[str, Any], metrics: Mapping[str, Sequence[float]], status: str = "done"
) -> list[Row]:
    """One run per seed at `point`, with each metric's value in seeds 1, 2, …"""
    seeds = len(next(iter(metrics.values())))
    return [
        {**point, "seed": seed + 1, "status": status, **{m: v[seed] for m, v in metrics.items()}}
        for seed in range(seeds)
    ]


def sweep(*groups: Iterable[Row], folder: Path = Path("sweep")) -> SweepResults:
    """A sweep's results holding these runs. As in a real table, there is a column for each metric
    the video's flow reports, and a metric a run lacks is NaN."""
    rows = [{**dict.fromkeys(VIDEO_METRICS, math.nan), **row} for group in groups for row in group]
    return sweep_results(folder, "www21-test", rows, missing=math.nan)


def runs_at(keys: tuple[str, str], points: Points) -> list[Row]:
    """The runs at each point (`keys` name the point's two values)."""
    return [
        row for point, m in points.items() for row in runs(dict(zip(keys, point, strict=True)), m)
    ]


def claims(module: ModuleType, results: Mapping[str, SweepResults]) -> dict[str, Claim]:
    """The module's claims by name; its figures are built but not rendered."""
    with patch.object(Figure, "savefig"):
        found: Findings = module.analyse(results, "quick")
    by_name = {c.claim: c for c in found.claims}
    assert len(by_name) == len(found.claims)
    return by_name


def judged(found: Mapping[str, Claim]) -> dict[str, tuple[str, str, str, bool]]:
    return {name: (c.paper, c.ours, c.tolerance, c.passed) for name, c in found.items()}


# Fig. 4/5: quality and stall rate by CCA and buffer.


def fig4_5_runs() -> list[Row]:
    return [
        *runs({CC: "bbr", BUFFER: "100KB"}, {QUALITY: [9.5, 8.7]}),  # 9.10
        *runs({CC: "bbr", BUFFER: "100KB"}, {QUALITY: [0.0]}, status="failed"),  # else 6.07
        *runs({CC: "bbr", BUFFER: "10MB"}, {QUALITY: [6.5, 5.1], STALL: [0.2, 0.0]}),  # 5.8, 0.1
        *runs({CC: "bbr2", BUFFER: "10MB"}, {QUALITY: [7.0, 7.0], STALL: [0.5, 0.3]}),  # 7, 0.4
        *runs({CC: "cubic", BUFFER: "10KB"}, {QUALITY: [1.0, 3.0], STALL: [0.9, 1.0]}),  # 2, 0.95
        *runs({CC: "bbr", BUFFER: "10KB"}, {QUALITY: [8.0, 8.5]}),  # 8.25
    ]


# Table 1: HTTP/1.1, by RTT, buffer and CCA.


def table1_runs() -> list[Row]:
    bbr_deep = {RTT: "100ms", BUFFER: "10MB", CC: "bbr"}
    return [
        # quality 3.5, stall rate 0.15, goodput 8.5 Mb/s
        *runs(bbr_deep, {QUALITY: [4.0, 3.0], STALL: [0.2, 0.1], GOODPUT: [8e6, 9e6]}),
        *runs(bbr_deep, {QUALITY: [10.0], STALL: [1.0]}, status="failed"),  # else 5.67, 0.43
        # quality 9.25, stall rate 0
        *runs(
            {RTT: "10ms", BUFFER: "10MB", CC: "bbr2"},
            {QUALITY: [9.0, 9.5], STALL: [0.0, 0.0], GOODPUT: [20e6, 21e6]},
        ),
    ]


# Table 2: time per BBR state, from Fig. 4/5's runs and the runs with the player's page.


def table2_runs() -> list[Row]:
    return [
        # BBR: PROBE_RTT 1 and 3 % → 2.0 %; at 10 MB 10 and 12 % → 11.0 %, STARTUP 5 and 7 → 6.0 %
        *runs({CC: "bbr", BUFFER: "100KB"}, {PROBE_RTT: [0.01, 0.03]}),
        *runs({CC: "bbr", BUFFER: "100KB"}, {PROBE_RTT: [0.9]}, status="failed"),  # else 31.3 %
        *runs({CC: "bbr", BUFFER: "10MB"}, {PROBE_RTT: [0.10, 0.12], STARTUP: [0.05, 0.07]}),
        # BBR2: 5.0 % at 100 KB; at 10 MB a run that never probed RTT counts 0: (20 + 0) / 2
        *runs({CC: "bbr2", BUFFER: "100KB"}, {PROBE_RTT: [0.05]}),
        *runs({CC: "bbr2", BUFFER: "10MB"}, {PROBE_RTT: [0.2, math.nan], STARTUP: [0.1, 0.1]}),
    ]


def table2_page_runs() -> list[Row]:
    # only shown beside the claims: BBR's STARTUP share of 40 % would fail "within ×2" of 5.3 %
    return [
        *runs({CC: "bbr", BUFFER: "10MB"}, {PROBE_RTT: [0.08], STARTUP: [0.4]}),
        *runs({CC: "bbr2", BUFFER: "10MB"}, {PROBE_RTT: [0.3], STARTUP: [0.35]}),
    ]


def write_run(folder: Path, key: str, **tables: Mapping[str, list[Any]]) -> None:
    """Run `key`'s folder in the sweep at `folder`, holding a `<name>.parquet` per table."""
    run = folder / "runs" / key
    run.mkdir(parents=True)
    for name, columns in tables.items():
        pq.write_table(pa.table(dict(columns)), run / f"{name}.parquet")


# Fig. 8/9: RTT samples and bandwidth estimates, pooled over BBR's runs from their run folders.


def sample_run(
    folder: Path, key: str, buffer: str, rtt_s: list[float], bw_est_bps: list[float]
) -> Row:
    """A finished run of Fig. 8/9's sweep whose folder holds these samples and estimates."""
    write_run(folder, key, samples={"rtt_s": rtt_s}, flows={"bw_est_bps": bw_est_bps})
    return {"run": key, BUFFER: buffer, "seed": 1, "status": "done"}


def fig8_9_runs(folder: Path) -> list[Row]:
    nan = math.nan
    return [
        sample_run(folder, "a", "100KB", [0.1, 0.105, 0.2, nan], [25e6, 30e6, nan]),
        sample_run(folder, "b", "100KB", [0.11, 0.3], [20e6, 40e6, 50e6]),
        sample_run(folder, "c", "10MB", [0.5, 0.7, 0.9], [75e6, 100e6, nan]),
        sample_run(folder, "d", "10MB", [0.6], [50e6]),
        # failed: its folder holds nothing to read
        {"run": "e", BUFFER: "10MB", "seed": 1, "status": "failed"},
    ]


# Table 3 and Fig. 15: bandwidth estimate and quality by token-bucket burst.


def table3_points() -> Points:
    return {
        # estimate 25.0 Mb/s, quality 8.5
        ("bbr", "8KB"): {BW: [24e6, 26e6], QUALITY: [9.0, 8.0]},
        ("bbr", "100KB"): {BW: [40e6]},  # 28.3 Mb/s + 30 % is 36.8
        # estimate 70.0 Mb/s (91.8 - 30 % is 64.3), 2.8 × the link; quality 5.5
        ("bbr", "1MB"): {BW: [60e6, 80e6], QUALITY: [5.0, 6.0]},
        ("bbr2", "8KB"): {BW: [24.2e6], QUALITY: [10.0]},
        ("bbr2", "1MB"): {BW: [65.7e6], QUALITY: [5.0]},
    }


def table3_runs() -> list[Row]:
    failed = runs({CC: "bbr", BURST: "100KB"}, {BW: [28.3e6]}, status="failed")
    return [*runs_at((CC, BURST), table3_points()), *failed]


# Fig. 7: each ABR rule's change from 100 KB to 10 MB.


def fig7_runs() -> list[Row]:
    def abr(
        name: str, shallow: Mapping[str, list[float]], deep: Mapping[str, list[float]]
    ) -> list[Row]:
        return runs({ABR: name, BUFFER: "100KB"}, shallow) + runs({ABR: name, BUFFER: "10MB"}, deep)

    return [
        # quality 9 → 4.5 (-50 %), stall rate 0.05 → 0.15
        *abr(
            "bba",
            {QUALITY: [8.0, 10.0], STALL: [0.0, 0.1]},
            {QUALITY: [4.0, 5.0], STALL: [0.1, 0.2]},
        ),
        *abr("bola", {QUALITY: [10.0], STALL: [0.0]}, {QUALITY: [8.0], STALL: [0.0]}),
        *runs({ABR: "bola", BUFFER: "10MB"}, {QUALITY: [4.0]}, status="failed"),  # else -40 %
        *abr("festive", {QUALITY: [10.0], STALL: [0.0]}, {QUALITY: [9.0], STALL: [0.7]}),
        *abr("rb", {QUALITY: [10.0], STALL: [0.0]}, {QUALITY: [9.0], STALL: [0.2]}),
        *abr("dynamic", {QUALITY: [10.0], STALL: [0.0]}, {QUALITY: [10.0], STALL: [0.0]}),
    ]


# Fig. 16: BBR-S and BBR2-S against BBR and BBR2, and BBR2-S's variants.


def fig16_runs() -> dict[str, list[Row]]:
    return {
        "fig16": [
            # quality 9.5, stall rate 0.05, estimate 25 Mb/s, goodput 21 Mb/s
            *runs(
                {CC: "bbr-s"},
                {QUALITY: [9.0, 10.0], STALL: [0.0, 0.1], BW: [24e6, 26e6], GOODPUT: [20e6, 22e6]},
            ),
            *runs({CC: "bbr2-s"}, {QUALITY: [8.5], STALL: [0.0], BW: [30e6], GOODPUT: [23e6]}),
            # quality 6, stall rate 0.5, goodput 11 Mb/s
            *runs({CC: "bbr"}, {QUALITY: [6.0, 6.0], STALL: [0.4, 0.6], GOODPUT: [10e6, 12e6]}),
            *runs({CC: "bbr2"}, {QUALITY: [7.0], STALL: [0.3], GOODPUT: [9e6]}),
            *runs({CC: "bbr2"}, {QUALITY: [1.0]}, status="missing"),  # else quality 4
        ],
        "fig16-bbr2-s": [
            # quality 9, stall rate 0.05, estimate 24 Mb/s
            *runs(
                {MARGIN: 0, JITTER: HOST_JITTER},
                {QUALITY: [9.0, 9.0], STALL: [0.0, 0.1], BW: [23e6, 25e6]},
            ),
            *runs({MARGIN: 1, JITTER: "1ms"}, {QUALITY: [8.0], STALL: [0.2], BW: [26e6]}),
        ],
    }


# Fig. 6: the WAN, quality and stall rate by CCA and buffer at 200 ms.


def fig6_runs() -> list[Row]:
    return [
        *runs({CC: "bbr", BUFFER: "100KB"}, {QUALITY: [9.5, 9.0], STALL: [0.0, 0.0]}),  # 9.25
        *runs({CC: "bbr2", BUFFER: "100KB"}, {QUALITY: [9.0], STALL: [0.0]}),
        *runs({CC: "bbr", BUFFER: "10MB"}, {QUALITY: [4.0, 5.0], STALL: [0.5, 0.7]}),  # 4.5, 0.6
        *runs({CC: "bbr2", BUFFER: "10MB"}, {QUALITY: [6.0], STALL: [0.2]}),
        *runs({CC: "bbr2", BUFFER: "10MB"}, {QUALITY: [9.0]}, status="failed"),  # else 7.5
        *runs({CC: "cubic", BUFFER: "100KB"}, {QUALITY: [1.0, 2.0], STALL: [0.9, 0.7]}),  # 1.5
        *runs({CC: "cubic", BUFFER: "10MB"}, {QUALITY: [5.0], STALL: [0.1]}),
    ]


# Fig. 14: BBR's and BBR2's delivery-rate samples, pooled over the runs' folders.


def rate_sample_run(
    folder: Path, key: str, cc: str, rate_bps: list[float], app_limited: list[bool]
) -> Row:
    """A finished run of Fig. 14's sweep whose folder holds these rate samples."""
    write_run(folder, key, samples={"rate_bps": rate_bps, "app_limited": app_limited})
    return {"run": key, CC: cc, "seed": 1, "status": "done"}


def fig14_runs(folder: Path) -> list[Row]:
    nan = math.nan
    return [
        # BBR: 2 of 5 valid samples above 25 Mb/s (40 %); of the 3 not app-limited, 2 (67 %)
        rate_sample_run(folder, "bbr-1", "bbr", [30e6, 20e6, nan], [False, True, False]),
        rate_sample_run(folder, "bbr-2", "bbr", [26e6, 25e6, 10e6], [False, False, True]),
        # BBR2: 1 of 4 (25 %); not app-limited 1 of 2 (50 %)
        rate_sample_run(
            folder, "bbr2-1", "bbr2", [24e6, 25.1e6, 5e6, 1e6], [True, False, False, True]
        ),
        # failed: its folder holds nothing to read
        {"run": "bbr2-2", CC: "bbr2", "seed": 2, "status": "failed"},
    ]


# Fig. 10/11: Fig. 4/5's runs at 10 MB by the state they spent most time in.

STATE = "flows.video.state_time_fraction."


def state_run(cc: str, startup: float, quality: float, stall: float, **more: Any) -> Row:
    """A finished 10 MB run spending `startup` of its time in STARTUP and the rest in PROBE_BW
    (BBR2's as two of its phases, as the core reports them)."""
    probe_bw = (
        {STATE + "PROBE_BW": 1 - startup}
        if cc == "bbr"
        else {
            STATE + "PROBE_BW_CRUISE": (1 - startup) / 2,
            STATE + "PROBE_BW_UP": (1 - startup) / 2,
        }
    )
    return {
        CC: cc,
        BUFFER: "10MB",
        "seed": 1,
        "status": "done",
        QUALITY: quality,
        STALL: stall,
        STATE + "STARTUP": startup,
        **probe_bw,
        **more,
    }


def fig10_11_runs() -> list[Row]:
    return [
        # BBR: STARTUP runs quality 8, stall 0.5; PROBE_BW runs quality 8.5, stall 0.125
        state_run("bbr", 0.6, 8.0, 0.5),
        state_run("bbr", 0.2, 8.0, 0.125),
        state_run("bbr", 0.1, 9.0, 0.125),
        # BBR2: STARTUP quality 3, stall 1.5; PROBE_BW quality 8, stall 0.0
        state_run("bbr2", 0.7, 3.0, 1.5),
        state_run("bbr2", 0.05, 8.0, 0.0),
        # left out: another buffer, a failed run
        {**state_run("bbr", 0.9, 1.0, 5.0), BUFFER: "100KB"},
        {**state_run("bbr", 0.9, 1.0, 5.0), "status": "failed"},
    ]


# Fig. 13: one session's segments, from Fig. 4/5's BBR runs at 10 MB.


def session_run(folder: Path, key: str, levels: Sequence[int], **row: Any) -> Row:
    """A finished 10 MB BBR run of Fig. 4/5's sweep whose video segments, requested 5 s apart,
    have these levels (an audio segment between them, to be ignored), at an ABR estimate of 20 +
    the level Mb/s; its RTT 0.1 s then 0.8 s."""
    n = len(levels)
    t = [5.0 * i for i in range(n)]
    write_run(
        folder,
        key,
        segments={
            "track": ["video"] * n + ["audio"],
            "request_t": [*t, 2.5],
            "level": [*levels, 0],
            "abr_estimate_bps": [(20 + lv) * 1e6 for lv in levels] + [1e6],
        },
        flows={"t": [0.0, 1.0], "srtt_s": [0.1, 0.8]},
    )
    return {"run": key, CC: "bbr", BUFFER: "10MB", "seed": 1, "status": "done", **row}


def fig13_runs(folder: Path) -> list[Row]:
    return [
        # falls then rises: 9 → 7 → 9 (1), 9 → 8 → 8 → 9 (2), 9 → 2 → 5 (3): 3 cycles
        session_run(folder, "a", [9, 7, 9, 8, 8, 9, 2, 5], seed=2),
        session_run(folder, "b", [9, 9, 9, 8]),  # a fall never risen from: 0 cycles
        session_run(folder, "c", [5, 4, 6, 5, 6, 5, 6], seed=3),  # 3 cycles
        # left out: BBR2's and the 100 KB runs; a failed one
        {"run": "d", CC: "bbr2", BUFFER: "10MB", "seed": 1, "status": "done"},
        {"run": "e", CC: "bbr", BUFFER: "100KB", "seed": 1, "status": "done"},
        {"run": "f", CC: "bbr", BUFFER: "10MB", "seed": 4, "status": "failed"},
    ]
