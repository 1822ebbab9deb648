"""Hand-made sweep tables for the ATC'23 claims' tests (the test_atc23_*.py files beside this
module): each figure module's `analyse` fed rows small enough to work every claim out by hand (its
`ours`, its verdict, the edges of its tolerance), with runs that did not finish, several seeds, and
missing points. The claims' numbers on real runs are the scenario tests'.

Shares are written as goodputs of share × the link and (1 - share) × the link, and the
retransmission ratios as bytes over 2^30 sent bytes, so the analyses compute exactly the
fractions written here."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bloatlab.reproduce._base import Findings, Mode
from bloatlab.reproduce.atc23 import fig3, fig4, fig5
from bloatlab.reproduce.atc23._common import CCAS, OBBR
from bloatlab.sweep.spec import label
from bloatlab.sweep.table import SweepResults
from sweep_tables import sweep_results

SENT = 2.0**30  # bytes sent per flow: a power of two, so the ratios are exactly the ones written

Row = dict[str, Any]
Verdicts = dict[str, tuple[str, bool]]  # claim → (ours, passed)


def analyse(
    module: ModuleType, results: Mapping[str, SweepResults], mode: Mode = "quick"
) -> Findings:
    """`module.analyse` without drawing its figure (drawing is the cost; the figures have tests
    of their own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_figure", lambda *args: None)
        findings: Findings = module.analyse(results, mode)
    return findings


def verdicts(findings: Findings) -> Verdicts:
    return {c.claim: (c.ours, c.passed) for c in findings.claims}


def passed(findings: Findings, claim: str) -> bool:
    return verdicts(findings)[claim][1]


def edge(centre: float, distance: float) -> float:
    """A value exactly `distance` from `centre` in floating point too (`abs(x - centre) ==
    distance`): a tolerance's edge, where `<=` and `<` differ."""
    for x in (centre + distance, centre - distance):
        for candidate in (x, math.nextafter(x, math.inf), math.nextafter(x, -math.inf)):
            if abs(candidate - centre) == distance:
                return candidate
    raise AssertionError(f"no float is exactly {distance} from {centre}")


def shares(share: float, link_bps: float) -> tuple[float, float]:
    """The goodputs of two flows, the first taking `share` of the link."""
    first = share * link_bps
    return first, link_bps - first


# ----- Fig. 3: 1 BBR (cwnd gain g) + 1 CUBIC, buffer R BDP ---------------------------------------

# (g, R) → BBR's share. The model's converge points for g = 2: BBR takes all below R = 1, 75 % at
# R = 2 (p = (2-2+1)/(2·2) = 1/4) and 17/32 = 53.1 % at R = 16 (p = 15/32).
FIG3 = {
    **{(2.0, r): s for r, s in zip(fig3.BUFFERS, [0.95, 0.8, 0.7, 0.6, 0.3], strict=True)},
    **{(1.0, r): 0.1 for r in fig3.BUFFERS},
    (1.5, 16.0): 0.2,
    (3.0, 16.0): 0.4,
    (4.0, 16.0): 0.5,
}


def fig3_row(
    g: float, r: float, share: float, *, retrans: float = 0.125, link: float = 20e6, **run: Any
) -> Row:
    bbr, cubic = shares(share, link)
    return {
        "flow.bbr.cc": label({**CCAS["BBR"], "cwnd_gain": g}),
        "bottleneck.queue.limit": f"{r:g}BDP",
        "flows.bbr.goodput_bps": bbr,
        "flows.cubic.goodput_bps": cubic,
        "bottleneck.capacity_bps": 20e6,
        "flows.bbr.bytes_sent": SENT,
        "flows.bbr.bytes_retransmitted": retrans * SENT,
        **run,
    }


def fig3_results(
    tmp_path: Path, points: Mapping[tuple[float, float], float] = FIG3, extra: tuple[Row, ...] = ()
) -> dict[str, SweepResults]:
    rows = [fig3_row(g, r, s) for (g, r), s in points.items()]
    return {"fig3": sweep_results(tmp_path, "atc23-fig3", [*rows, *extra])}


# ----- Fig. 7: one flow per algorithm, R = 0.25 with random loss, and R = 0.2/0.4/0.6 ------------

LOSSY = ["100/40/0%", "100/40/1%", "100/40/2%", "40/100/0%", "40/100/1%", "40/100/2%"]
SWEPT = ["R0.2", "R0.4", "R0.6"]
# algorithm → retransmission ratios and goodputs (of the link) in LOSSY, then SWEPT. oBBR-μ has
# the paper's ratios at 40 Mb/s, 100 ms (§5.2.1), its 0 % one in the other lossy conditions.
FIG7_BY_CCA = {
    "BBR": ([0.3] * 6 + [0.3, 0.2, 0.1], [0.9] * 9),
    "B3R": ([0.25] * 6 + [0.3, 0.2, 0.1], [0.9] * 9),
    "BBR-S": ([0.1] * 6 + [0.2, 0.1, 0.05], [0.9] * 9),
    "oBBR-0.5": ([0.0051] * 5 + [0.0282] + [0.0154, 0.0051, 0.003], [0.85] * 9),
    "oBBR-0.75": ([0.0062] * 5 + [0.0306] + [0.0155, 0.0061, 0.003], [0.85] * 9),
    "oBBR-1": ([0.0197] * 5 + [0.0393] + [0.031, 0.0178, 0.01], [0.85] * 9),
    "BBRv2": ([0.001] * 9, [0.8, 0.2, 0.04] * 2 + [0.9] * 3),
    "BBRv2 (Linux)": ([0.001] * 9, [0.9, 0.45, 0.09] * 2 + [0.9] * 3),
    "CUBIC": ([0.002] * 9, [0.8, 0.08, 0.04] * 2 + [0.8] * 3),
}
FIG7 = {
    (c, cca): (r, g)
    for cca, (retrans, goodput) in FIG7_BY_CCA.items()
    for c, r, g in zip(LOSSY + SWEPT, retrans, goodput, strict=True)
}


def fig7_row(condition: str, cca: str, retrans: float, goodput: float, **run: Any) -> Row:
    if condition.startswith("R"):
        link = 60e6
        point: Row = {"bottleneck.queue.limit": f"{condition[1:]}BDP"}
    else:
        rate, rtt, loss = condition.split("/")
        link = float(rate) * 1e6
        point = {
            "bottleneck.rate": f"{rate}Mbps",
            "bottleneck.rtt": f"{rtt}ms",
            "bottleneck.loss": float(loss.removesuffix("%")) / 100,
        }
    sent = run.pop("sent", SENT)
    return {
        **point,
        "flow.sender.cc": label(CCAS[cca]),
        "flows.sender.bytes_sent": sent,
        "flows.sender.bytes_retransmitted": retrans * sent,
        "flows.sender.goodput_bps": goodput * link,
        "bottleneck.capacity_bps": link,
        **run,
    }


def fig7_results(
    tmp_path: Path,
    points: Mapping[tuple[str, str], tuple[float, float]] = FIG7,
    extra: tuple[Row, ...] = (),
) -> dict[str, SweepResults]:
    rows = [*(fig7_row(c, cca, r, g) for (c, cca), (r, g) in points.items()), *extra]
    return {
        "fig7": sweep_results(tmp_path, "atc23-fig7", [r for r in rows if "bottleneck.loss" in r]),
        "fig7-buffers": sweep_results(
            tmp_path, "atc23-fig7-buffers", [r for r in rows if "bottleneck.loss" not in r]
        ),
    }


# ----- Fig. 8: 1–5 flows of one algorithm, 100 Mb/s, 40 ms, R = 0.5 ------------------------------

FLOWS = [1, 2, 3, 4, 5]
# algorithm → retransmission ratio per flow with 1–5 flows (`--quick`: no Linux BBRv2); BBR's 2
# flows retransmit 10 % and 14 %, 12 % per flow.
FIG8_RETRANS: dict[str, list[float | list[float]]] = {
    "BBR": [0.08, [0.10, 0.14], 0.15, 0.14, 0.13],
    "B3R": [0.1] * 5,
    "BBR-S": [0.1] * 5,
    "oBBR-0.5": [0.003, 0.004, 0.005, 0.004, 0.004],
    "oBBR-0.75": [0.005, 0.009, 0.008, 0.007, 0.006],
    "oBBR-1": [0.03, 0.05, 0.06, 0.065, 0.07],
    "BBRv2": [0.005] * 5,
    "CUBIC": [0.002] * 5,
}
FIG8 = {
    (cca, n): r for cca, values in FIG8_RETRANS.items() for n, r in zip(FLOWS, values, strict=True)
}
# Jain index 0.95 and 90 % of the link but for these; a single flow's index does not count.
FIG8_JAIN = {("BBR", 2): 0.92, **{(cca, 1): 0.5 for cca in FIG8_RETRANS}}
FIG8_UTILISATION = {("CUBIC", 1): 0.85}


def flow_names(n: int) -> list[str]:
    return ["cca"] if n == 1 else [f"cca-{i}" for i in range(n)]


def fig8_row(
    cca: str,
    n: int,
    retrans: float | list[float],
    *,
    jain: float = 0.95,
    utilisation: float = 0.9,
    finished: bool = True,
    **run: Any,
) -> Row:
    """Every flow fetches for 100 s (the first never finishes unless `finished`), delivering
    `utilisation` × 100 Mb/s × 100 s of payload in all."""
    ratios = retrans if isinstance(retrans, list) else [retrans] * n
    row: Row = {
        "flow.cca.cc": label(CCAS[cca]),
        "flow.cca.count": n,
        "groups.cca.goodput_bps": utilisation * 100e6,
        "groups.cca.bytes_delivered": utilisation * 100e6 * 100 / 8,
        "bottleneck.capacity_bps": 100e6,
        "bottleneck.jain_index": jain,
        **run,
    }
    for i, (name, ratio) in enumerate(zip(flow_names(n), ratios, strict=True)):
        row[f"flows.{name}.bytes_sent"] = SENT
        row[f"flows.{name}.bytes_retransmitted"] = ratio * SENT
        row[f"flows.{name}.completion_time_s"] = 100.0 if finished or i else math.nan
    return row


def fig8_results(
    tmp_path: Path,
    points: Mapping[tuple[str, int], float | list[float]] = FIG8,
    extra: tuple[Row, ...] = (),
    *,
    jain: Mapping[tuple[str, int], float] = FIG8_JAIN,
    utilisation: Mapping[tuple[str, int], float] = FIG8_UTILISATION,
    unfinished: tuple[tuple[str, int], ...] = (),
) -> dict[str, SweepResults]:
    rows = [
        fig8_row(
            cca,
            n,
            r,
            jain=jain.get((cca, n), 0.95),
            utilisation=utilisation.get((cca, n), 0.9),
            finished=(cca, n) not in unfinished,
        )
        for (cca, n), r in points.items()
    ]
    return {
        "fig8": sweep_results(
            tmp_path,
            "atc23-fig8",
            [*rows, *extra],
            groups=lambda row: {"cca": flow_names(row["flow.cca.count"])},
        )
    }


# ----- Fig. 9: BBR and oBBR-μ, 40/10 Mb/s every 10 s -------------------------------------------


def fig9_row(
    cca: str,
    follow: list[float],
    *,
    retrans: float = 10e6,
    goodput: float = 29e6,
    end: float = 40.0,
    low: float = 9e6,
    **run: Any,
) -> Row:
    """A 1 GB fetch ending at `end` s whose estimate follows the drops at 10, 30, … s down to
    `low` after `follow` s each (10: never); its series are written by `fig9_results`."""
    return {
        "flow.sender.cc": label(CCAS[cca]),
        "flows.sender.completion_time_s": end,
        "flows.sender.bytes_sent": 1e9,
        "flows.sender.bytes_retransmitted": retrans,
        "flows.sender.goodput_bps": goodput,
        "follow": follow,
        "low": low,
        **run,
    }


FIG9 = [
    fig9_row("BBR", [6.0, 6.0], retrans=20e6, goodput=30e6),
    fig9_row("oBBR-0.5", [1.5, 2.5], retrans=5e6),
    fig9_row("oBBR-0.75", [3.0, 3.0], retrans=8e6),
    fig9_row("oBBR-1", [2.0, 2.0], retrans=10e6, goodput=28e6),
]


def write_flows(folder: Path, follow: list[float], low: float, end: float) -> None:
    """flows.parquet every 0.5 s: the sender's estimate 40 Mb/s, `low` from `follow` s after
    each drop until the rate rises again; a second flow whose estimate is always 0."""
    t = np.arange(0, (40.0 if math.isnan(end) else end) + 0.25, 0.5)
    estimate = np.full_like(t, 40e6)
    for drop, after in zip(range(10, 10**6, 20), follow, strict=False):
        estimate[(t >= drop + after) & (t < drop + 10)] = low
    folder.mkdir(parents=True)
    columns = {
        "t": np.concatenate([t, t]),
        "flow": ["sender"] * len(t) + ["other"] * len(t),
        "bw_est_bps": np.concatenate([estimate, np.zeros_like(t)]),
        "srtt_s": np.full(2 * len(t), 0.1),
        "retransmitted_bytes": np.concatenate([t * 1e5, t]),
        "delivered_bytes": np.concatenate([t * 3e6, t]),
    }
    pq.write_table(pa.table(columns), folder / "flows.parquet")


def fig9_results(tmp_path: Path, rows: list[Row]) -> dict[str, SweepResults]:
    rows = [dict(row) for row in rows]
    for i, row in enumerate(rows):
        row["run"] = f"run-{i}"
        follow, low = row.pop("follow"), row.pop("low")
        if row.get("status", "done") == "done":  # unfinished runs have no folder
            end = row["flows.sender.completion_time_s"]
            write_flows(tmp_path / "runs" / row["run"], follow, low, end)
    return {"fig9": sweep_results(tmp_path, "atc23-fig9", rows)}


# ----- Fig. 12: one oBBR-μ flow against one BBR, BBRv2 or CUBIC flow ---------------------------

# (rival, R, oBBR-μ) → oBBR's share; the reference's BBR against CUBIC, and oBBR-μ with the
# paper's g_max against BBR, by R and (R, μ).
FIG12_BY_RIVAL = {
    ("BBR", 0.5): [0.05, 0.15, 0.33],
    ("BBR", 1.0): [0.41, 0.45, 0.5],
    ("BBRv2", 0.5): [0.75, 0.8, 0.85],
    ("BBRv2", 1.0): [0.4, 0.45, 0.5],
    ("CUBIC", 0.5): [0.7, 0.75, 0.8],
    ("CUBIC", 1.0): [0.6, 0.55, 0.5],
}
FIG12 = {
    (rival, r, mu): s
    for (rival, r), values in FIG12_BY_RIVAL.items()
    for mu, s in zip(OBBR, values, strict=True)
}
REFERENCE = {0.5: 0.95, 1.0: 0.9}
G_MAX = {(0.5, "oBBR-1"): 0.25, (1.0, "oBBR-0.5"): 0.5}


def fig12_row(r: float, share: float, **point: Any) -> Row:
    obbr, rival = shares(share, 40e6)
    return {
        "bottleneck.queue.limit": f"{r:g}BDP",
        **point,
        "flows.obbr.goodput_bps": obbr,
        "flows.rival.goodput_bps": rival,
    }


def fig12_results(
    tmp_path: Path,
    points: Mapping[tuple[str, float, str], float] = FIG12,
    reference: Mapping[float, float] = REFERENCE,
    extra: tuple[Row, ...] = (),
    g_max: Mapping[tuple[float, str], float] = G_MAX,
) -> dict[str, SweepResults]:
    rows = [
        fig12_row(r, s, **{"flow.rival.cc": label(CCAS[rival]), "flow.obbr.cc": label(OBBR[mu])})
        for (rival, r, mu), s in points.items()
    ]
    sensitivity = [
        fig12_row(r, s, **{"flow.obbr.cc.mu": OBBR[mu]["mu"]}) for (r, mu), s in g_max.items()
    ]
    return {
        "fig12": sweep_results(tmp_path, "atc23-fig12", [*rows, *extra]),
        "fig12-bbr": sweep_results(
            tmp_path, "atc23-fig12-bbr", [fig12_row(r, s) for r, s in reference.items()]
        ),
        "fig12-g-max": sweep_results(tmp_path, "atc23-fig12-g-max", sensitivity),
    }


# ----- Fig. 4 and 5: the artifact's BBR alone, its logged rate samples -------------------------

LINK = fig5.PLOT_LINK  # the link's 20 Mb/s as plots/fig4_5.py divides by it


def write_rate_log_run(folder: Path, t: np.ndarray, **series: Any) -> None:
    """A run whose sender has one ACK per time in `t`: a rate sample (rate, rtt, app_limited)
    and a flows row (state, bw_est, min_rtt, inflight, retransmitted) at the same time; a
    second flow's rows, which must be ignored, beside them."""
    n = len(t)

    def column(name: str, default: Any) -> np.ndarray:
        return np.broadcast_to(np.asarray(series.get(name, default)), (n,)).copy()

    folder.mkdir(parents=True, exist_ok=True)
    both = {"t": np.concatenate([t, t]), "flow": ["sender"] * n + ["other"] * n}
    flows = {
        **both,
        "cc_state": [*column("state", "PROBE_BW")] + ["PROBE_BW"] * n,
        "bw_est_bps": np.concatenate([column("bw_est", LINK), np.ones(n)]),
        "cc_min_rtt_s": np.concatenate([column("min_rtt", 0.1), np.full(n, 1e-3)]),
        "inflight_pkts": np.concatenate([column("inflight", 400.0), np.zeros(n)]),
        "retransmitted_bytes": np.concatenate([column("retransmitted", 0.0), np.zeros(n)]),
    }
    pq.write_table(pa.table(flows), folder / "flows.parquet")
    samples = {
        **both,
        "rate_bps": np.concatenate([column("rate", 0.9 * LINK), np.ones(n)]),
        "rtt_s": np.concatenate([column("rtt", 0.2), np.full(n, 9.0)]),
        "app_limited": np.concatenate([column("app_limited", False), np.zeros(n, dtype=bool)]),
    }
    pq.write_table(pa.table(samples), folder / "samples.parquet")


def fig4_run(
    folder: Path,
    low: float,
    *,
    peak: float = 0.7,
    correction: float = 7.0,
    held: float = 0.9,
    before: float = 100.0,
    after: float = 1000.0,
    probe_rtt: tuple[float, float] = (0.0, 0.0),
) -> None:
    """A Fig. 4 run: an ACK every 0.25 s for 40 s; RTT 0.2 s, 0.5 s after the drop with one
    sample at `peak` (t = 20 s); the estimate at the link until `correction` s after the drop,
    then `low`; in flight 400, × `held` from the drop, but 4 in PROBE_RTT (from `probe_rtt[0]`
    to `probe_rtt[1]` s); `before` B/s retransmitted until the drop, `after` B/s from it."""
    t = np.arange(0, fig4.END, 0.25)
    rtt = np.where(t < fig4.DROP_AT, 0.2, 0.5)
    rtt[t == 20.0] = peak
    dip = (t >= probe_rtt[0]) & (t < probe_rtt[1])
    write_rate_log_run(
        folder,
        t,
        rtt=rtt,
        state=np.where(dip, "PROBE_RTT", "PROBE_BW"),
        bw_est=np.where(t < fig4.DROP_AT + correction, 20e6, low),
        inflight=np.where(dip, 4.0, np.where(t < fig4.DROP_AT, 400.0, 400.0 * held)),
        retransmitted=before * np.minimum(t, fig4.DROP_AT)
        + after * np.maximum(t - fig4.DROP_AT, 0),
    )


def fig4_results(tmp_path: Path, **changes: dict[str, float]) -> dict[str, SweepResults]:
    """The paper's Fig. 4 (peaks 700 and 1500 ms, corrections after 7 and 15 s) but for
    `changes`: keyword arguments of `fig4_run` by drop (`to5`, `to2`)."""
    rows = []
    for low, paper in (
        (5e6, {"peak": 0.7, "correction": 7.0}),
        (2e6, {"peak": 1.5, "correction": 15.0}),
    ):
        run = f"fig4-{low:g}"
        fig4_run(tmp_path / "runs" / run, low, **{**paper, **changes.get(f"to{low / 1e6:g}", {})})
        rows.append({"run": run, "bottleneck.schedule": label(fig4.SCHEDULES[low])})
    return {"fig4": sweep_results(tmp_path, "atc23-fig4", rows)}


def fig5_run(folder: Path, *, low_run: int, rtt_run: int, constant: bool) -> None:
    """A Fig. 5 run of 1000 ACKs plus a run of `low_run` samples at 0.7 × the estimate (the
    link); `rtt_run` consecutive RTTs of 0.25 s (2.5 × RTprop: "at or above") from the 11th,
    the rest 0.2 s.
    The constant run's 1000 samples repeat 5 at 0.8, 7 at 0.9 and 8 at 1.0 × the link (25 % /
    60 % below 0.85 / 0.95); a drop's are all at the link."""
    pattern = np.repeat([0.8, 0.9, 1.0], [5, 7, 8])
    rate = np.tile(pattern, 50) if constant else np.ones(1000)
    rate = np.concatenate([rate, np.full(low_run, 0.7)]) * LINK
    rtt = np.full(len(rate), 0.2)
    rtt[10 : 10 + rtt_run] = 0.25
    write_rate_log_run(folder, np.arange(len(rate)) * 0.01, rate=rate, rtt=rtt)


def fig5_results(tmp_path: Path, **changes: dict[str, Any]) -> dict[str, SweepResults]:
    """The paper's Fig. 5 (runs of 20 low samples and 15 high RTTs at a constant rate; 40 low
    samples and 373 / 328 high RTTs with the drops) but for `changes`: keyword arguments of
    `fig5_run` by condition (`constant`, `to10`, `to5`)."""
    paper = {
        None: {"low_run": 20, "rtt_run": 15, "constant": True},
        10e6: {"low_run": 40, "rtt_run": 373, "constant": False},
        5e6: {"low_run": 40, "rtt_run": 328, "constant": False},
    }
    rows = []
    for condition, options in paper.items():
        name = "constant" if condition is None else f"to{condition / 1e6:g}"
        run = f"fig5-{name}"
        fig5_run(tmp_path / "runs" / run, **{**options, **changes.get(name, {})})
        rows.append({"run": run, "bottleneck.schedule": label(fig5.schedule(condition))})
    return {"fig5": sweep_results(tmp_path, "atc23-fig5", rows)}
