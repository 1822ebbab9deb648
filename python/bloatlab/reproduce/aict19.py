"""AICT'19: S. Claypool, M. Claypool, J. Chung, F. Li, "Sharing but not Caring – Performance
of TCP BBR and TCP CUBIC at the Network Bottleneck", AICT 2019.

Testbed: a dumbbell through a Linux router, 25 ms round-trip propagation (NetEm), tc-tbf with
small buckets (modelled here as a plain rate-limited line), drop-tail queue, Linux 4.17 BBRv1
(the core's `kernel = "4.17"`) and CUBIC, 5-minute runs; the hosts' timing jitter is
`builders.HOST_JITTER`, and they send in TSO/GSO skbs (`tso = true`). Table I: 2, 4, 8 flows ×
40, 80, 120 Mb/s × queues of 0.25–8 BDP.

| figure     | experiment               | `--full` (the paper's protocol)     | `--quick`          |
|------------|--------------------------|-------------------------------------|--------------------|
| Fig. 4     | 4 staggered BBR, 80 Mb/s | 60 s, 8 BDP                         | the same           |
| Fig. 5     | standing queue at 8 BDP  | 2/4/8 BBR × 40/80/120 Mb/s; 1 CUBIC | 4 BBR, 80 Mb/s     |
| Fig. 6     | BBR loss over time       | Fig. 7's 4 BBR, 80 Mb/s, 0.5 BDP    | the same           |
| Fig. 7     | BBR loss vs buffer       | Table I, minutes 2–4 of 300 s       | 0.5/1/2 BDP, 240 s |
| Fig. 8     | 2 BBR + 2 CUBIC, 0.5 BDP | Fig. 10's run at 0.5 BDP            | the same           |
| Fig. 9/10  | 2 BBR + 2 CUBIC, 80 Mb/s | 0.25–8 BDP (+3, 5, 6 BDP), 300 s    | 9 buffers, 240 s   |
| Fig. 11/12 | the same, BBR Shallow    | as Fig. 7 and Fig. 10               | as Fig. 7 and 10   |

Full runs use 3 seeds (the paper's "3 identical trials"), quick runs one.

The analysis window of Fig. 7 (minutes 2–4) ends at 240 s, so the quick runs stop there
without changing what is measured; the 5th minute of the full runs is simulated but unused,
as in the paper. Shares of Fig. 10/12 are over the same window. Tolerances were fixed from
the paper's wording before comparing; a miss is reported as a miss.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..analysis.timeseries import bins, crossing, group_mean, group_rates, queue_series, switches
from ..builders import HOST_JITTER, bulk, dumbbell
from ..report.html import png
from ..sweep.spec import label as sweep_label
from ..sweep.table import SweepResults
from ._base import (
    Claim,
    Experiment,
    Findings,
    Mode,
    Paper,
    PaperFigure,
    analyse_all,
    done,
    highest,
    lowest,
    mean,
    pct,
    shown,
    sweep,
)

# The testbed's Raspberry Pis ran Linux 4.17, whose BBR provisions less inflight than the
# core's default (v5.4 on): no ACK-aggregation allowance, no +2 packets while probing, DRAIN
# and gain-cycle checks on packets in flight (`kernel = "4.17"`, `cc/bbr/mod.rs`).
KERNEL = "4.17"
BBR_CC: Any = {"kind": "bbr", "kernel": KERNEL}
BBR_LABEL = sweep_label(BBR_CC)  # how sweep tables name it
# BBR Shallow (Claypool, [22]): BBRv1 with its PROBE_BW cwnd gain at 1.5 instead of 2. The
# core names it `bbr-shallow`; `{ kind = "bbr", cwnd_gain = 1.5 }` gives the same runs.
BBR_SHALLOW_CC: Any = {"kind": "bbr-shallow", "kernel": KERNEL}

# The Pis' Linux sends TSO/GSO skbs of about 1 ms of data (`tso = true`): bursts that a shallow
# router queue has to absorb.
HOST: dict[str, Any] = {"tso": True}

RTT = "25ms"
FLOWS = [2, 4, 8]
RATES = ["40Mbps", "80Mbps", "120Mbps"]
BUFFERS_TABLE_I = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 4.0, 8.0]
# Fig. 10/12 draw lines through 2, 4 and 8 BDP; 3, 5 and 6 locate the crossing better.
BUFFERS_SHARES_FULL = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]
BUFFERS_SHARES_QUICK = [0.5, 1.0, 1.75, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]
BUFFERS_LOSS_QUICK = [0.5, 1.0, 2.0]
STEADY = ("120s", "240s")  # Fig. 7: "minutes 2 to 4 of a 5 minute connection"
MINUTE = ("60s", "120s")  # §IV-A: "1 minute of a 5 minute trial"
CYCLE_BUFFER = 1.75  # Fig. 9
LARGE_BUFFER = 8.0  # Fig. 10/12: CUBIC takes more than BBR at the largest buffer, 8 BDP

PAPER_LOSS = {0.5: 0.11, 1.0: 0.055}  # §V B: "5.5% for ... 1 BDP, doubling to about 11% ... 0.5"
LOSS_TOLERANCE = 0.4  # relative
# Fig. 4: "4 simultaneous BBR flows with staggered start times competing for a 80 MB/s link" that
# "synchronize at a fair share of 20 Mb/s within about time 30 seconds, repeatedly doing so
# every 10 seconds" (§III). The stagger and the buffer are not given: 2 s apart, Fig. 5's 8 BDP.
SYNC_FLOWS, SYNC_STAGGER_S, SYNC_END_S, SYNC_FROM_S = 4, 2.0, 60.0, 30.0
FAIR_SHARE_BPS = 20e6
FAIR_TOLERANCE = 0.25  # relative, each flow
TOGETHER_S = 0.5  # PROBE_RTT entries of all flows within this of each other
PROBE_RTT_EVERY = (8.0, 12.0)  # "every 10 seconds"
SHALLOW = 0.5  # Fig. 6 and 8: "a bottleneck router queue of just 0.5 BDP", 80 Mb/s, 25 ms
SHALLOW_FLOWS, SHALLOW_RATE = 4, "80Mbps"  # Fig. 6's BBR flows: the testbed's usual 4 (§IV-A)
PAPER_SHALLOW_LOSS = 0.10  # Fig. 6: "persists and averages over 10 percent"; Fig. 8 "about 10"
PERSISTS = 0.9  # of the half-second bins with loss
MUCH_LOWER = 0.5  # Fig. 8: CUBIC's throughput "much lower" than BBR's: at most half of it
BBR, CUBIC = "C3", "C0"  # the paper's colours: BBR red, CUBIC blue


def _buffer(b: float) -> str:
    return f"{b:g}BDP"


def _loss_buffers(mode: Mode) -> list[float]:
    """Fig. 7's buffers: Table I's in `--full`, three in `--quick`."""
    return BUFFERS_TABLE_I if mode == "full" else BUFFERS_LOSS_QUICK


def experiments(mode: Mode) -> list[Experiment]:
    full = mode == "full"
    seeds = 3 if full else 1
    run = "300s" if full else "240s"
    loss_buffers = _loss_buffers(mode)
    share_buffers = BUFFERS_SHARES_FULL if full else BUFFERS_SHARES_QUICK

    queue_base = dumbbell(
        "80Mbps",
        RTT,
        "8BDP",
        [bulk("bbr", BBR_CC, 4, **HOST)],
        "300s" if full else "120s",
        name="aict19-standing-queue",
        window=MINUTE,
        jitter=HOST_JITTER,
    )
    cubic_base = dumbbell(
        "80Mbps",
        RTT,
        "8BDP",
        [bulk("cubic", "cubic", **HOST)],
        "300s" if full else "120s",
        name="aict19-cubic-queue",
        window=MINUTE,
        jitter=HOST_JITTER,
    )
    loss_base = dumbbell(
        "80Mbps",
        RTT,
        "1BDP",
        [bulk("bbr", BBR_CC, 2, **HOST)],
        run,
        name="aict19-bbr-loss",
        window=STEADY,
        jitter=HOST_JITTER,
    )
    mixed_base = dumbbell(
        "80Mbps",
        RTT,
        "1BDP",
        [bulk("bbr", BBR_CC, 2, **HOST), bulk("cubic", "cubic", 2, **HOST)],
        run,
        name="aict19-bbr-cubic",
        window=STEADY,
        jitter=HOST_JITTER,
    )
    loss_grid: dict[str, list[Any]] = {
        "bottleneck.queue.limit": [_buffer(b) for b in loss_buffers],
        "flow.bbr.count": FLOWS,
        "bottleneck.rate": RATES,
    }
    shallow_grid = {
        **loss_grid,
        "bottleneck.queue.limit": [_buffer(b) for b in loss_buffers if b <= 2.0],
        "flow.bbr.cc": [BBR_CC, BBR_SHALLOW_CC],
    }
    sync_base = dumbbell(
        "80Mbps",
        RTT,
        "8BDP",
        [
            bulk(f"bbr{i + 1}", BBR_CC, **HOST, start=f"{i * SYNC_STAGGER_S:g}s")
            for i in range(SYNC_FLOWS)
        ],
        f"{SYNC_END_S:g}s",
        name="aict19-sync",
        jitter=HOST_JITTER,
    )
    return [
        Experiment(
            "fig4",
            sweep(
                "aict19-fig4",
                sync_base,
                seeds=seeds,
                description="4 BBR flows, staggered starts: fair shares and PROBE_RTT together",
            ),
        ),
        Experiment(
            "fig5-bbr",
            sweep(
                "aict19-fig5-bbr",
                queue_base,
                grid={"flow.bbr.count": FLOWS, "bottleneck.rate": RATES} if full else {},
                seeds=seeds,
                description="BBR's standing queue in an 8 BDP buffer",
            ),
        ),
        Experiment(
            "fig5-cubic",
            sweep("aict19-fig5-cubic", cubic_base, description="1 CUBIC in an 8 BDP buffer"),
        ),
        Experiment(
            "fig7",
            sweep(
                "aict19-fig7",
                loss_base,
                grid=loss_grid,
                seeds=seeds,
                description="BBR's loss against the buffer size",
            ),
        ),
        Experiment(
            "fig10",
            sweep(
                "aict19-fig10",
                mixed_base,
                seeds=seeds,
                grid={"bottleneck.queue.limit": [_buffer(b) for b in share_buffers]},
                description="2 BBR + 2 CUBIC: shares against the buffer size",
            ),
        ),
        Experiment(
            "fig11",
            sweep(
                "aict19-fig11",
                loss_base,
                grid=shallow_grid,
                seeds=seeds,
                description="BBR and BBR Shallow: loss against the buffer size",
            ),
        ),
        Experiment(
            "fig12",
            sweep(
                "aict19-fig12",
                mixed_base,
                seeds=seeds,
                grid={
                    "bottleneck.queue.limit": [_buffer(b) for b in share_buffers],
                    "flow.bbr.cc": [BBR_SHALLOW_CC],
                },
                description="2 BBR Shallow + 2 CUBIC: shares against the buffer size",
            ),
        ),
    ]


# ----- analysis --------------------------------------------------------------------------------


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    figures = (_fig4, _fig5, _fig6, _fig7, _fig8, _fig9, _fig10, _fig11, _fig12)
    return analyse_all(figures, results, mode)


def _bdp(label: Any) -> float:
    return float(str(label).removesuffix("BDP"))


def probe_rtt_entries(folder: Any, flows: Sequence[str]) -> dict[str, list[float]]:
    """When each flow entered PROBE_RTT (its telemetry rows' `cc_state`)."""
    table = pq.read_table(Path(folder) / "flows.parquet", columns=["t", "flow", "cc_state"])
    names = table.column("flow").cast("string")
    entries: dict[str, list[float]] = {}
    for flow in flows:
        rows = table.filter(pc.equal(names, flow))
        t = rows.column("t").to_numpy()
        inside = np.asarray(rows.column("cc_state").cast("string").to_pylist()) == "PROBE_RTT"
        starts = inside & ~np.concatenate([[False], inside[:-1]])
        entries[flow] = [float(x) for x in t[starts]]
    return entries


def synchrony(entries: Mapping[str, list[float]], since: float) -> tuple[float, list[float]]:
    """From `since`: the largest gap between a flow's PROBE_RTT entry and the nearest entry of
    any other flow (inf where a flow has none), and every flow's intervals between its
    entries."""
    later = {flow: [t for t in times if t >= since] for flow, times in entries.items()}
    if len(later) < 2 or not any(later.values()):
        return math.inf, []
    spread = max(
        min((abs(t - u) for u in entries[other]), default=math.inf)
        for flow, times in later.items()
        for t in times
        for other in entries
        if other != flow
    )
    intervals = [b - a for times in later.values() for a, b in itertools.pairwise(times)]
    return spread, intervals


def _fig4(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    sweep_results = results["fig4"]
    rows = done(sweep_results)
    flows = [f"bbr{i + 1}" for i in range(SYNC_FLOWS)]
    edges = np.array([SYNC_FROM_S, SYNC_END_S])
    shares: list[list[float]] = []
    spreads: list[float] = []
    periods: list[float] = []
    for r in rows:
        folder = sweep_results.run_folder(r["run"])
        rates = group_rates(folder, {f: [f] for f in flows}, edges)
        shares.append([float(rates[f][0]) for f in flows])
        spread, intervals = synchrony(probe_rtt_entries(folder, flows), SYNC_FROM_S)
        spreads.append(spread)
        periods += intervals
    low, high = FAIR_SHARE_BPS * (1 - FAIR_TOLERANCE), FAIR_SHARE_BPS * (1 + FAIR_TOLERANCE)
    every = [x for run in shares for x in run]
    worst = max(spreads, default=math.inf)
    claims = [
        Claim(
            "Fig. 4",
            f"{SYNC_FLOWS} staggered BBR flows, 80 Mb/s: each flow's share from {SYNC_FROM_S:g} s",
            "a fair 20 Mb/s",
            f"{shown(lowest(every) / 1e6, '.1f')}–{shown(highest(every) / 1e6, '.1f')} Mb/s"
            if every
            else "–",
            f"each {low / 1e6:g}–{high / 1e6:g} Mb/s",
            bool(every) and all(low <= x <= high for x in every),
        ),
        Claim(
            "Fig. 4",
            f"they enter PROBE_RTT together from {SYNC_FROM_S:g} s, every 10 s",
            "at the same time, every 10 s",
            f"within {shown(worst, '.2f')} s of each other; every "
            + (f"{min(periods):.1f}–{max(periods):.1f} s" if periods else "– s")
            if periods or math.isfinite(worst)
            else "–",
            f"within {TOGETHER_S:g} s; every {PROBE_RTT_EVERY[0]:g}–{PROBE_RTT_EVERY[1]:g} s",
            worst <= TOGETHER_S
            and bool(periods)
            and all(PROBE_RTT_EVERY[0] <= p <= PROBE_RTT_EVERY[1] for p in periods),
        ),
    ]
    fig = Figure(figsize=(7, 3.4), layout="constrained")
    ax = fig.subplots()
    if rows:
        row = min(rows, key=lambda r: r["seed"])
        edges = bins(0.0, SYNC_END_S, 0.5)
        rates = group_rates(sweep_results.run_folder(row["run"]), {f: [f] for f in flows}, edges)
        mid = (edges[1:] + edges[:-1]) / 2
        for i, f in enumerate(flows):
            ax.plot(mid, rates[f] / 1e6, lw=1, color=f"C{i}", label=f"flow {i + 1}")
        ax.legend(fontsize="small", ncol=2)
    ax.axhline(FAIR_SHARE_BPS / 1e6, color="black", ls="--", lw=1)
    _time_axes(ax, "throughput (Mb/s)")
    figure = PaperFigure(
        "fig4",
        "Fig. 4: synchronization of BBR flows",
        "4 BBR flows with staggered starts at 80 Mb/s converge to a fair share of 20 Mb/s within "
        "about 30 s and enter PROBE_RTT together, every 10 s (as Cardwell et al.'s 5 flows).",
        png(fig),
        f"Starts {SYNC_STAGGER_S:g} s apart, 25 ms, 8 BDP buffer (the paper gives neither); the "
        "lowest finished seed, half-second bins; the dashed line is the fair share.",
    )
    return Findings(claims, [figure])


def _fig5(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    bbr, cubic = results["fig5-bbr"], results["fig5-cubic"]
    rows = done(bbr)
    claims = []
    four = [
        r
        for r in rows
        if r.get("flow.bbr.count", 4) == 4 and r.get("bottleneck.rate", "80Mbps") == "80Mbps"
    ]
    standing = mean([r["bottleneck.backlog_mean_bdp"] for r in four])
    p90 = mean([r["bottleneck.backlog_p90_bdp"] for r in four])
    claims.append(
        Claim(
            "Fig. 5",
            "4 BBR, 80 Mb/s, 8 BDP buffer: standing queue",
            "≈1.1 BDP (1–1.5)",
            f"{shown(standing, '.2f')} BDP (p90 {shown(p90, '.2f')})",
            "mean 1–1.5 BDP",
            1.0 <= standing <= 1.5,
        )
    )
    if mode == "full":
        by_combo: dict[tuple[Any, Any], list[float]] = {}
        for r in rows:
            key = (r["flow.bbr.count"], r["bottleneck.rate"])
            by_combo.setdefault(key, []).append(r["bottleneck.backlog_mean_bdp"])
        means = {(n, rate): mean(by_combo.get((n, rate), [])) for n in FLOWS for rate in RATES}
        ran = [m for m in means.values() if not math.isnan(m)]
        # a combination without a finished run (NaN) is outside too
        outside = [f"{n} flows {rate}" for (n, rate), m in means.items() if not 1.0 <= m <= 1.5]
        claims.append(
            Claim(
                "Fig. 5",
                "2/4/8 BBR × 40/80/120 Mb/s: standing queue",
                "1–1.5 BDP",
                f"{lowest(ran):.2f}–{highest(ran):.2f} BDP over {len(ran)} of {len(means)} "
                "combinations"
                if ran
                else f"no finished run of {len(means)} combinations",
                "each mean 1–1.5 BDP",
                not outside,
                note=f"outside, or not run: {', '.join(outside)}" if outside else "",
            )
        )
    cubic_rows = done(cubic)
    c_mean = mean([r["bottleneck.backlog_mean_bdp"] for r in cubic_rows])
    c_p90 = mean([r["bottleneck.backlog_p90_bdp"] for r in cubic_rows])
    claims.append(
        Claim(
            "Fig. 5",
            "1 CUBIC, 8 BDP buffer: fills the queue",
            "fills to the 8 BDP maximum",
            f"mean {shown(c_mean, '.2f')}, p90 {shown(c_p90, '.2f')} BDP",
            "p90 ≥ 7 BDP",
            c_p90 >= 7.0,
        )
    )
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    ax = fig.subplots()
    start, end = (float(t.removesuffix("s")) for t in MINUTE)
    for label, color, source, rows_ in (
        ("BBR (4 flows)", BBR, bbr, four),
        ("CUBIC", CUBIC, cubic, cubic_rows),
    ):
        if not rows_:
            continue
        drawn = min(rows_, key=lambda r: r["seed"])
        series = queue_series(source.run_folder(drawn["run"]), bins(start, end, 0.1))
        bdp = drawn["bottleneck.bdp_bytes"]
        t, raw = series["t"], series["raw"]
        inside = (t >= start) & (t <= end)
        ax.plot(t[inside] - start, raw[inside] / bdp, color=color, lw=1.2, label=label)
    ax.set_xlabel(f"time (s, from t = {start:g} s)")
    ax.set_ylabel("queue length (BDP)")
    ax.set_ylim(0, 8.5)
    ax.set_xlim(0, end - start)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="center right")
    figure = PaperFigure(
        "fig5",
        "Fig. 5: BBR and CUBIC in a large router queue",
        "In an 80 Mb/s, 25 ms bottleneck with an 8 BDP (2 MB) buffer, one CUBIC flow fills the "
        "queue to 8 BDP while 4 BBR flows keep a standing queue of about 1.1 BDP, rising to "
        "about 1.5 BDP while they probe for bandwidth.",
        png(fig),
        "Queue length at the bottleneck over one steady-state minute (60–120 s), the lowest "
        "finished seed; BBR and CUBIC run separately, as in the paper.",
    )
    return Findings(claims, [figure])


def _loss_by_buffer(rows: list[dict[str, Any]]) -> dict[float, list[float]]:
    loss: dict[float, list[float]] = {}
    for r in rows:
        loss.setdefault(_bdp(r["bottleneck.queue.limit"]), []).append(r["bottleneck.drop_rate"])
    return dict(sorted(loss.items()))


def _half_second_loss(results: SweepResults, row: dict[str, Any]) -> np.ndarray:
    """The bottleneck's loss rate in half-second bins over the steady window (minutes 2–4)."""
    start, end = (float(t.removesuffix("s")) for t in STEADY)
    edges = bins(start, end, 0.5)
    loss: np.ndarray = queue_series(results.run_folder(row["run"]), edges)["loss"]
    return loss


def _fig6(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    """Fig. 6: 4 BBR flows, 80 Mb/s, 0.5 BDP (Fig. 7's runs): loss over half-second bins."""
    rows = [
        r
        for r in done(results["fig7"])
        if _bdp(r["bottleneck.queue.limit"]) == SHALLOW
        and r["flow.bbr.count"] == SHALLOW_FLOWS
        and r["bottleneck.rate"] == SHALLOW_RATE
    ]
    bins_by_run = [_half_second_loss(results["fig7"], r) for r in rows]
    average = mean([float(np.mean(b)) for b in bins_by_run])
    persists = mean([float(np.mean(b > 0)) for b in bins_by_run])
    floor = PAPER_SHALLOW_LOSS * (1 - LOSS_TOLERANCE)
    claims = [
        Claim(
            "Fig. 6",
            f"{SHALLOW_FLOWS} BBR, 0.5 BDP: loss averages over 10 %",
            "over 10 %",
            pct(average, 2),
            f"≥ {pct(floor, 0)} (10 % less {LOSS_TOLERANCE * 100:g} %, as Fig. 7's)",
            average >= floor,
        ),
        Claim(
            "Fig. 6",
            f"{SHALLOW_FLOWS} BBR, 0.5 BDP: loss persists",
            "persists",
            f"{pct(persists, 0)} of half-second bins with loss",
            f"≥ {PERSISTS:.0%} of the bins",
            persists >= PERSISTS,
        ),
    ]
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    if rows:
        first = min(range(len(rows)), key=lambda i: rows[i]["seed"])
        start = float(STEADY[0].removesuffix("s"))
        times = start + 0.25 + 0.5 * np.arange(len(bins_by_run[first]))
        ax.plot(times, bins_by_run[first] * 100, color=BBR, lw=1)
    ax.axhline(PAPER_SHALLOW_LOSS * 100, color="black", ls="--", lw=1, label="paper: ≈10 %")
    _time_axes(ax, "loss (%, 0.5 s bins)")
    ax.legend(fontsize="small")
    figure = PaperFigure(
        "fig6",
        "Fig. 6: BBR's loss rate in a small router queue",
        "80 Mb/s, 25 ms, a 0.5 BDP queue: the loss rate over 500 ms intervals varies considerably "
        "but persists, averaging over 10 %.",
        png(fig),
        f"{SHALLOW_FLOWS} BBR flows (Fig. 7's run at 0.5 BDP, 80 Mb/s; its lowest finished "
        "seed), minutes 2–4, half-second bins.",
    )
    return Findings(claims, [figure])


def _fig8(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    """Fig. 8: 2 BBR + 2 CUBIC, 80 Mb/s, 0.5 BDP (Fig. 10's runs): throughput and loss."""
    rows = [r for r in done(results["fig10"]) if _bdp(r["bottleneck.queue.limit"]) == SHALLOW]
    bbr = mean([r["groups.bbr.goodput_bps"] / r["bottleneck.capacity_bps"] for r in rows])
    cubic = mean([r["groups.cubic.goodput_bps"] / r["bottleneck.capacity_bps"] for r in rows])
    loss = mean([r.get("bottleneck.drop_rate") for r in rows])
    claims = [
        Claim(
            "Fig. 8",
            "2 BBR + 2 CUBIC, 0.5 BDP: CUBIC's throughput much lower than BBR's",
            "much lower",
            f"CUBIC {shown(cubic, '.0%')} vs BBR {shown(bbr, '.0%')} of the link (minutes 2–4)"
            if rows
            else "–",
            f"CUBIC ≤ {MUCH_LOWER:g} × BBR",
            cubic <= MUCH_LOWER * bbr,
        ),
        Claim(
            "Fig. 8",
            "2 BBR + 2 CUBIC, 0.5 BDP: loss as in Fig. 6",
            "about 10 %",
            f"{pct(loss, 2)} (minutes 2–4)" if rows else "–",
            f"±{LOSS_TOLERANCE:.0%} relative",
            abs(loss - PAPER_SHALLOW_LOSS) <= LOSS_TOLERANCE * PAPER_SHALLOW_LOSS,
        ),
    ]
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    if rows:
        row = min(rows, key=lambda r: r["seed"])
        edges = bins(0.0, 60.0, 0.5)
        rates = group_rates(
            results["fig10"].run_folder(row["run"]), results["fig10"].groups(row["run"]), edges
        )
        mid = (edges[1:] + edges[:-1]) / 2
        for group, color, name in (("bbr", BBR, "BBR"), ("cubic", CUBIC, "CUBIC")):
            ax.plot(
                mid,
                rates[group] / row["bottleneck.capacity_bps"] * 100,
                color=color,
                lw=1.2,
                label=name,
            )
        ax.legend(fontsize="small")
    _time_axes(ax, "throughput (% of the link)")
    figure = PaperFigure(
        "fig8",
        "Fig. 8: throughput utilization of BBR and CUBIC in a shallow buffer",
        "80 Mb/s, 25 ms, a 0.5 BDP queue: CUBIC's throughput is much lower than BBR's, since it "
        "responds to the loss (about 10 %, as in Fig. 6) and BBR does not.",
        png(fig),
        "2 BBR + 2 CUBIC (Fig. 10's run at 0.5 BDP, its lowest finished seed), each group's "
        "throughput in half-second bins over the first minute.",
    )
    return Findings(claims, [figure])


def _fig7(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    loss = _loss_by_buffer(done(results["fig7"]))
    means = {b: mean(v) for b, v in loss.items()}
    claims = []
    for buffer, paper in PAPER_LOSS.items():
        ours = means.get(buffer, math.nan)
        claims.append(
            Claim(
                "Fig. 7",
                f"BBR loss at {buffer:g} BDP",
                f"≈{paper * 100:g} %",
                pct(ours, 2),
                f"±{LOSS_TOLERANCE:.0%} relative",
                abs(ours - paper) <= LOSS_TOLERANCE * paper,
            )
        )
    for buffer in (b for b in means if b >= 2.0):
        claims.append(
            Claim(
                "Fig. 7",
                f"BBR loss at {buffer:g} BDP",
                "≈0",
                pct(means[buffer], 2),
                "< 1 %",
                means[buffer] < 0.01,
            )
        )
    # every buffer up to 2 BDP the sweep runs: a missing one (NaN) fails the claim
    shallow = [means.get(b, math.nan) for b in _loss_buffers(mode) if b <= 2.0]
    falling = all(a > b for a, b in itertools.pairwise(shallow))
    claims.append(
        Claim(
            "Fig. 7",
            "loss falls as the buffer grows to 2 BDP",
            "falls (≈linearly)",
            " → ".join(pct(v) for v in shallow),
            "strictly falling",
            falling,
        )
    )
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    xs = [b for b in means if b <= 2.0]
    spread = [float(np.std(loss[b], ddof=1)) * 100 if len(loss[b]) > 1 else 0.0 for b in xs]
    ax.errorbar(
        xs,
        [means[b] * 100 for b in xs],
        yerr=spread,
        color=BBR,
        marker="o",
        lw=2,
        capsize=3,
        label="bloatlab: mean, ±1 sd over flows × rates × seeds",
    )
    ax.plot(
        list(PAPER_LOSS),
        [v * 100 for v in PAPER_LOSS.values()],
        "s",
        color="black",
        mfc="none",
        ms=9,
        label="paper (text: ≈11 %, ≈5.5 %)",
    )
    ax.plot([2.0], [0.0], "s", color="black", mfc="none", ms=9)
    _buffer_axis(ax, xs)
    ax.set_ylabel("loss (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    finished = done(results["fig7"])  # the flow counts and rates the means are over
    flows = {r["flow.bbr.count"] for r in finished}
    rates = {r["bottleneck.rate"] for r in finished}
    figure = PaperFigure(
        "fig7",
        "Fig. 7: BBR's loss against router queue size",
        "BBR's loss rate in steady state (minutes 2–4 of 5), averaged over 2/4/8 flows at 40/80/"
        "120 Mb/s: about 11 % at 0.5 BDP and 5.5 % at 1 BDP, falling to about 0 at 1.5–2 BDP.",
        png(fig),
        f"Drop rate at the bottleneck over 120–240 s, mean over {len(flows)} flow counts × "
        f"{len(rates)} rates × seeds; squares mark the values the paper states in its text.",
    )
    return Findings(claims, [figure])


def _shares(
    results: SweepResults, group: str = "bbr"
) -> tuple[dict[float, float], dict[float, float], list[dict[str, Any]]]:
    rows = done(results)
    bbr: dict[float, list[float]] = {}
    cubic: dict[float, list[float]] = {}
    for r in rows:
        b = _bdp(r["bottleneck.queue.limit"])
        bbr.setdefault(b, []).append(
            r[f"groups.{group}.goodput_bps"] / r["bottleneck.capacity_bps"]
        )
        cubic.setdefault(b, []).append(r["groups.cubic.goodput_bps"] / r["bottleneck.capacity_bps"])
    return (
        {b: mean(v) for b, v in sorted(bbr.items())},
        {b: mean(v) for b, v in sorted(cubic.items())},
        rows,
    )


def _share_claims(
    figure: str,
    name: str,
    bbr: dict[float, float],
    cubic: dict[float, float],
    paper_crossing: str,
    window: tuple[float, float],
) -> tuple[list[Claim], float | None]:
    buffers = list(bbr)
    cross = crossing(buffers, [bbr[b] for b in buffers], [cubic[b] for b in buffers])
    low = [b for b in buffers if b < 1.5]
    claims = []
    if figure == "Fig. 10":
        claims.append(
            Claim(
                figure,
                f"{name} takes more than CUBIC below 1.5 BDP",
                "BBR dominates",
                f"{name} {shown(lowest(bbr[b] for b in low), '.0%')}–"
                f"{shown(highest(bbr[b] for b in low), '.0%')}, "
                f"CUBIC ≤ {shown(highest(cubic[b] for b in low), '.0%')}"
                if low
                else "no run below 1.5 BDP",
                f"{name} > CUBIC at each buffer < 1.5 BDP",
                bool(low) and all(bbr[b] > cubic[b] for b in low),
            )
        )
    claims.append(
        Claim(
            figure,
            f"{name} and CUBIC shares cross",
            paper_crossing,
            "no crossing" if cross is None else f"{cross:.1f} BDP",
            f"{window[0]:g}–{window[1]:g} BDP",
            cross is not None and window[0] <= cross <= window[1],
        )
    )
    top = LARGE_BUFFER
    claims.append(
        Claim(
            figure,
            f"CUBIC takes more than {name} in large buffers",
            f"CUBIC > {name} at {top:g} BDP",
            f"CUBIC {shown(cubic[top], '.0%')} vs {name} {shown(bbr[top], '.0%')} at {top:g} BDP"
            if top in bbr
            else f"no finished run at {top:g} BDP",
            f"CUBIC > {name}",
            top in bbr and cubic[top] > bbr[top],
        )
    )
    return claims, cross


def _share_figure(
    results: SweepResults,
    bbr: dict[float, float],
    cubic: dict[float, float],
    rows: list[dict[str, Any]],
    name: str,
    cross: float | None,
) -> bytes:
    """Mean share (thick) and the 25th/75th percentiles of half-second shares (thin)."""
    start, end = (float(t.removesuffix("s")) for t in STEADY)
    edges = bins(start, end, 0.5)
    quartiles: dict[str, dict[float, list[tuple[float, float]]]] = {"bbr": {}, "cubic": {}}
    for r in rows:
        rates = group_rates(results.run_folder(r["run"]), results.groups(r["run"]), edges)
        capacity = r["bottleneck.capacity_bps"]
        for group, series in rates.items():
            share = series / capacity
            b = _bdp(r["bottleneck.queue.limit"])
            quartiles[group].setdefault(b, []).append(
                (float(np.percentile(share, 25)), float(np.percentile(share, 75)))
            )
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    for group, color, means, label in (("bbr", BBR, bbr, name), ("cubic", CUBIC, cubic, "CUBIC")):
        xs = list(means)
        ax.plot(
            xs,
            [means[b] * 100 for b in xs],
            color=color,
            lw=2.5,
            marker="o",
            ms=4,
            label=f"{label} (mean)",
        )
        q = quartiles[group]
        for i, style in ((0, ":"), (1, "--")):
            ax.plot(
                xs,
                [np.mean([p[i] for p in q[b]]) * 100 for b in xs],
                color=color,
                lw=0.9,
                ls=style,
                label=f"{label} ({'25th' if i == 0 else '75th'} pct.)",
            )
    if cross is not None:
        ax.axvline(cross, color="grey", lw=1, ls="-.")
        ax.annotate(
            f"crossing {cross:.1f} BDP",
            (cross, 95),
            xytext=(4, 0),
            textcoords="offset points",
            fontsize="small",
            color="grey",
        )
    ax.set_xlabel("router queue length (multiples of BDP)")
    ax.set_ylabel("goodput (% of link rate)")
    ax.set_xlim(0, max(bbr, default=LARGE_BUFFER) + 0.2)
    ax.set_ylim(0, 100)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="x-small", ncol=2, loc="center right")
    return png(fig)


def _fig10(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    bbr, cubic, rows = _shares(results["fig10"])
    claims, cross = _share_claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", (3.0, 7.0))
    figure = PaperFigure(
        "fig10",
        "Fig. 10: BBR and CUBIC's interplay against router queue length",
        "2 BBR + 2 CUBIC flows, 80 Mb/s, 25 ms: BBR takes most of the link below about 1.5 BDP "
        "(where it causes persistent loss); above, CUBIC's share grows with the buffer, the "
        "shares are equal near 5 BDP and CUBIC takes more beyond.",
        _share_figure(results["fig10"], bbr, cubic, rows, "BBR", cross),
        "Each group's goodput over 120–240 s as a share of the link rate (payload, so at most "
        "≈96.5 %), mean over seeds; thin lines: quartiles of half-second shares.",
    )
    return Findings(claims, [figure])


def _fig9(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    def cycles(ours: str, passed: bool) -> Claim:
        return Claim(
            "Fig. 9",
            f"2 BBR + 2 CUBIC at {CYCLE_BUFFER:g} BDP alternate dominance",
            "cycles of ≈20 s",
            ours,
            "period 10–30 s",
            passed,
        )

    rows = [r for r in done(results["fig10"]) if _bdp(r["bottleneck.queue.limit"]) == CYCLE_BUFFER]
    if not rows:
        return Findings([cycles(f"no finished run at {CYCLE_BUFFER:g} BDP", False)])
    row = min(rows, key=lambda r: r["seed"])
    folder = results["fig10"].run_folder(row["run"])
    groups = results["fig10"].groups(row["run"])
    capacity, bdp = row["bottleneck.capacity_bps"], row["bottleneck.bdp_bytes"]
    # Cycles, measured over the whole analysis window with 2 s smoothing.
    start, end = (float(t.removesuffix("s")) for t in STEADY)
    edges = bins(start, end, 0.5)
    rates = group_rates(folder, groups, edges)
    difference = np.convolve(rates["bbr"] - rates["cubic"], np.ones(4) / 4, mode="valid")
    flips = switches(difference)
    period = 2 * (end - start) / flips if flips else math.inf
    claims = [
        cycles(
            f"{flips} switches in {end - start:g} s (period ≈{period:.0f} s)",
            10.0 <= period <= 30.0,
        )
    ]
    # The figure: one minute, as the paper's.
    first, last = 60.0, 120.0
    edges = bins(first, last, 0.5)
    rates = group_rates(folder, groups, edges)
    rtt = group_mean(folder, groups, edges, "srtt_s")
    queue = queue_series(folder, edges)
    mid = (edges[1:] + edges[:-1]) / 2 - first
    fig = Figure(figsize=(9, 6.4), layout="constrained")
    axes = fig.subplots(2, 2, sharex=True).ravel()
    for group, color, label in (("bbr", BBR, "BBR"), ("cubic", CUBIC, "CUBIC")):
        axes[0].plot(mid, rates[group] / capacity * 100, color=color, lw=1.2, label=label)
        axes[3].plot(mid, rtt[group] * 1e3, color=color, lw=1.2, label=label)
    axes[1].plot(mid, queue["backlog_bytes"] / bdp, color="black", lw=1.2)
    axes[2].plot(mid, queue["loss"] * 100, color="black", lw=1.2)
    for ax, label, title in (
        (axes[0], "throughput (% of link rate)", "(a) throughput"),
        (axes[1], "queue length (BDP)", "(b) queue length"),
        (axes[2], "loss rate (%)", "(c) loss rate, 0.5 s bins"),
        (axes[3], "RTT (ms)", "(d) RTT"),
    ):
        ax.set_ylabel(label)
        ax.set_title(title, loc="left", fontsize="medium")
        ax.grid(True, alpha=0.3)
        ax.set_ylim(bottom=0)
    for ax in axes[2:]:
        ax.set_xlabel(f"time (s, from t = {first:g} s)")
    axes[0].legend(fontsize="small")
    figure = PaperFigure(
        "fig9",
        "Fig. 9: BBR and CUBIC show cyclic performance in medium buffers",
        "2 BBR + 2 CUBIC, 80 Mb/s, 25 ms, 1.75 BDP buffer: the two algorithms take turns "
        "dominating in about 20-second cycles; loss spikes after BBR's RTprop probes (every "
        "≈20 s) and the queue does not always drain.",
        png(fig),
        "One minute (60–120 s) of the 1.75 BDP run of Fig. 10 (its lowest finished seed), in "
        "half-second bins.",
    )
    return Findings(claims, [figure])


def _fig11(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    rows = done(results["fig11"])
    by_cc = {
        "bbr": _loss_by_buffer([r for r in rows if r["flow.bbr.cc"] == BBR_LABEL]),
        "shallow": _loss_by_buffer([r for r in rows if r["flow.bbr.cc"] != BBR_LABEL]),
    }
    means = {cc: {b: mean(v) for b, v in loss.items()} for cc, loss in by_cc.items()}
    claims = []
    for buffer in (b for b in means["bbr"] if b <= 1.0):
        ours_s, ours_b = means["shallow"].get(buffer, math.nan), means["bbr"][buffer]
        claims.append(
            Claim(
                "Fig. 11",
                f"BBR Shallow loses less than BBR at {buffer:g} BDP",
                "less loss below 1.5 BDP",
                f"{pct(ours_s, 2)} vs {pct(ours_b, 2)}",
                "BBR Shallow < BBR",
                ours_s < ours_b,
            )
        )
    fig = Figure(figsize=(7, 3.8), layout="constrained")
    ax = fig.subplots()
    for cc, color, label in (("bbr", BBR, "BBR"), ("shallow", "C2", "BBR Shallow (cwnd gain 1.5)")):
        xs = list(means[cc])
        ax.plot(xs, [means[cc][b] * 100 for b in xs], color=color, marker="o", lw=2, label=label)
    _buffer_axis(ax, sorted({*means["bbr"], *means["shallow"]}))  # every buffer plotted
    ax.set_ylabel("loss (%)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    figure = PaperFigure(
        "fig11",
        "Fig. 11: BBR Shallow's loss against router queue length",
        "With its inflight cap lowered from 2 to 1.5 BDP, BBR Shallow induces less loss than "
        "BBR in buffers smaller than 1.5 BDP.",
        png(fig),
        "Drop rate over 120–240 s, mean over flow counts × rates × seeds, as Fig. 7.",
    )
    return Findings(claims, [figure])


def _fig12(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    shallow, cubic, rows = _shares(results["fig12"])
    claims, cross = _share_claims("Fig. 12", "BBR Shallow", shallow, cubic, "≈3 BDP", (2.0, 4.5))
    bbr10, cubic10, _ = _shares(results["fig10"])
    cross10 = crossing(list(bbr10), list(bbr10.values()), list(cubic10.values()))
    claims.append(
        Claim(
            "Fig. 12",
            "the fair-share buffer moves down with BBR Shallow",
            "≈5 → ≈3 BDP",
            f"{cross10:.1f} → {cross:.1f} BDP" if cross and cross10 else "no crossing",
            "lower than BBR's",
            bool(cross and cross10 and cross < cross10),
        )
    )
    figure = PaperFigure(
        "fig12",
        "Fig. 12: BBR Shallow and CUBIC's interplay against router queue length",
        "As Fig. 10 with BBR Shallow: the buffer at which the shares are equal falls from about "
        "5 BDP to about 3 BDP, so the cwnd cap decides inter-protocol fairness.",
        _share_figure(results["fig12"], shallow, cubic, rows, "BBR Shallow", cross),
        "As Fig. 10.",
    )
    return Findings(claims, [figure])


def _time_axes(ax: Axes, ylabel: str) -> None:
    """A time series' axes: time in seconds, `ylabel` from 0, a light grid."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


def _buffer_axis(ax: Axes, xs: list[float]) -> None:
    ax.set_xlabel("router queue length (multiples of BDP)")
    ax.set_xticks(xs, [f"{b:g}" for b in xs])
    ax.set_xlim(0, max(xs, default=2.0) + 0.15)
    ax.grid(True, alpha=0.3)


PAPER = Paper(
    name="aict19",
    title="AICT'19: Sharing but not Caring – TCP BBR and TCP CUBIC at the network bottleneck",
    citation="S. Claypool, M. Claypool, J. Chung, F. Li. AICT 2019, pp. 74–81",
    experiments=experiments,
    analyse=analyse,
    modes={
        "quick": "Fig. 5: 4 BBR at 80 Mb/s and 1 CUBIC, 120 s; Fig. 7/11: 0.5, 1, 2 BDP × 2/4/8 "
        "flows × 40/80/120 Mb/s, 240 s; Fig. 9/10/12: 9 buffer sizes, 240 s; 1 seed",
        "full": "the paper's protocol: Table I (2/4/8 flows × 40/80/120 Mb/s × 0.25–8 BDP), "
        "300 s runs, 3 seeds; Fig. 10/12 add 3, 5, 6 BDP",
    },
)
