"""Fig. 8: 1–5 flows of one algorithm sharing the bottleneck — retransmission ratio and goodput
per flow.

Protocol (§5.2.1 "Multiple flows"; artifact mul.sh): 100 Mb/s, 40 ms, R = 0.5 (250 KB), no
random loss, tbf burst 100 KB; n flows of the same algorithm start together and each fetches
1 GB (no timeout). Each flow is its own server process in the artifact, so the algorithms'
process-wide state (B3R, BBR-S, oBBR) is per flow here too (each flow is its own host).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import (
    Claim,
    Experiment,
    Findings,
    Mode,
    PaperFigure,
    done,
    highest,
    lowest,
    mean,
    pct,
    sweep,
)
from ._common import (
    CCAS,
    OBBR,
    algorithm_bars,
    cca_name,
    flow,
    legend,
    payload,
    retransmission_ratio,
    seeds,
)
from ._common import testbed as bottleneck

FLOWS = [1, 2, 3, 4, 5]
PAPER_BBR = (0.0841, 0.1525)  # "from 8.41 % (1-flow) to 15.25 % (3-flows)"
PAPER_OBBR_MAX = {"oBBR-0.5": 0.0052, "oBBR-0.75": 0.0099, "oBBR-1": 0.0759}
RELATIVE = 0.4
SMALL = 0.01  # "retransmit few packets"; oBBR-0.5/0.75 stay below 1 %
JAIN = 0.9
UTILISATION = 0.8
DURATION = 900.0  # s; a cap, the fetches end earlier


def size(mode: Mode) -> str:
    return "1GB" if mode == "full" else "250MB"


def algorithms(mode: Mode) -> list[str]:
    """The algorithms run: all of them, the Linux BBRv2 in `--full` only."""
    return [name for name in CCAS if name != "BBRv2 (Linux)" or mode == "full"]


def experiments(mode: Mode) -> list[Experiment]:
    base = bottleneck(
        "100Mbps",
        "40ms",
        "0.5BDP",
        [flow("cca", "bbr", size=size(mode))],
        f"{DURATION:g}s",
        name="atc23-fig8",
    )
    return [
        Experiment(
            "fig8",
            sweep(
                "atc23-fig8",
                base,
                grid={
                    "flow.cca.cc": [CCAS[name] for name in algorithms(mode)],
                    "flow.cca.count": FLOWS,
                },
                seeds=seeds(mode),
                description="1–5 flows of one algorithm, 100 Mb/s, 40 ms, R = 0.5",
            ),
        )
    ]


Table = dict[tuple[str, int], dict[str, float]]


def _table(results: SweepResults) -> Table:
    rows: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for row in done(results):
        rows.setdefault((cca_name(row["flow.cca.cc"]), int(row["flow.cca.count"])), []).append(row)
    out: Table = {}
    for (cca, n), rs in rows.items():
        out[(cca, n)] = {
            "retrans": mean([retransmission_ratio(r, results.groups(r["run"])["cca"]) for r in rs]),
            "goodput": mean([r["groups.cca.goodput_bps"] / n / 1e6 for r in rs]),
            "total": mean([_utilisation(r) for r in rs]),
            "jain": mean([r["bottleneck.jain_index"] for r in rs]),
        }
    return out


def _utilisation(row: dict[str, Any]) -> float:
    """Payload delivered by all flows over the time until the last one finished, / the link."""
    n = int(row["flow.cca.count"])
    names = ["cca"] if n == 1 else [f"cca-{i}" for i in range(n)]
    ends = [row.get(f"flows.{name}.completion_time_s") for name in names]
    finished = all(v is not None and math.isfinite(v) for v in ends)
    last = max(v for v in ends if v is not None) if finished else DURATION
    return float(row["groups.cca.bytes_delivered"] * 8 / last / row["bottleneck.capacity_bps"])


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    table = _table(results["fig8"])

    def series(cca: str, metric: str) -> list[float]:
        return [table.get((cca, n), {}).get(metric, math.nan) for n in FLOWS]

    claims = []
    bbr = series("BBR", "retrans")
    top = int(np.nanargmax(bbr)) if not all(math.isnan(v) for v in bbr) else 0
    claims.append(
        Claim(
            "Fig. 8",
            "BBR's retransmission ratio, 1 flow and at most",
            f"{pct(PAPER_BBR[0], 2)} (1 flow), max {pct(PAPER_BBR[1], 2)} (3 flows)",
            f"{pct(bbr[0], 2)} (1 flow), max {pct(bbr[top], 2)} ({FLOWS[top]} flows)",
            f"each ±{RELATIVE:.0%} relative",
            abs(bbr[0] - PAPER_BBR[0]) <= RELATIVE * PAPER_BBR[0]
            and abs(bbr[top] - PAPER_BBR[1]) <= RELATIVE * PAPER_BBR[1],
        )
    )
    rivals = [*OBBR, "BBRv2", "CUBIC"]
    above = [bbr[i] > highest(series(c, "retrans")[i] for c in rivals) for i in range(len(FLOWS))]
    claims.append(
        Claim(
            "Fig. 8",
            "BBR retransmits more than oBBR-μ, BBRv2 and CUBIC",
            "BBR has the highest ratios",
            f"at {sum(above)} of {len(FLOWS)} flow counts",
            "at every flow count",
            all(above),
        )
    )
    claims.append(
        Claim(
            "Fig. 8",
            "more BBR flows, more retransmissions per flow",
            "higher with multiple flows",
            f"1 flow {pct(bbr[0], 2)}; 2–5 flows max {pct(highest(bbr[1:]), 2)}",
            "max over 2–5 flows > 1 flow",
            highest(bbr[1:]) > bbr[0],
        )
    )
    for cca in ("CUBIC", "BBRv2"):
        values = series(cca, "retrans")
        claims.append(
            Claim(
                "Fig. 8",
                f"{cca} retransmits few packets",
                "few",
                f"≤ {pct(highest(values), 2)}",
                f"< {SMALL:.0%} at every flow count",
                all(v < SMALL for v in values),
            )
        )
    for mu, paper in PAPER_OBBR_MAX.items():
        values = series(mu, "retrans")
        at = int(np.nanargmax(values)) if not all(math.isnan(v) for v in values) else 0
        small = mu != "oBBR-1"
        claims.append(
            Claim(
                "Fig. 8",
                f"{mu}'s highest retransmission ratio over 1–5 flows",
                pct(paper, 2),
                f"{pct(values[at], 2)} ({FLOWS[at]} flows)",
                f"< {SMALL:.0%}" if small else f"±{RELATIVE:.0%} relative",
                values[at] < SMALL if small else abs(values[at] - paper) <= RELATIVE * paper,
            )
        )
    jain = _weakest({c: lowest(series(c, "jain")[1:]) for c in algorithms(mode)})
    total = _weakest({c: lowest(series(c, "total")) for c in algorithms(mode)})
    claims.append(
        Claim(
            "Fig. 8",
            "every algorithm shares the link fairly (2–5 flows)",
            "fair shares",
            "min Jain " + ("–" if math.isnan(jain[1]) else f"{jain[1]:.3f}") + f" ({jain[0]})",
            f"Jain ≥ {JAIN} for each",
            jain[1] >= JAIN,
        )
    )
    claims.append(
        Claim(
            "Fig. 8",
            "every algorithm exploits the link (1–5 flows, until the last fetch ends)",
            "effectively exploit the capacity",
            f"min {pct(total[1])} of the link ({total[0]})",
            f"≥ {UTILISATION:.0%} for each",
            total[1] >= UTILISATION,
        )
    )
    names = [c for c in CCAS if any((c, n) in table for n in FLOWS)]
    return Findings(claims, [_figure(table, names, mode)])


def _weakest(by_cca: Mapping[str, float]) -> tuple[str, float]:
    """The algorithm with the lowest value, or the first whose value is missing (NaN)."""
    return min(by_cca.items(), key=lambda item: -math.inf if math.isnan(item[1]) else item[1])


def _figure(table: Table, names: list[str], mode: Mode) -> PaperFigure:
    fig = Figure(figsize=(13, 7.5), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    width = 0.85 / max(len(names), 1)
    x = np.arange(len(FLOWS))
    for i, cca in enumerate(names):
        offset = (i - (len(names) - 1) / 2) * width
        for ax, metric, scale in ((top, "retrans", 100), (bottom, "goodput", 1)):
            values = [table.get((cca, n), {}).get(metric, math.nan) * scale for n in FLOWS]
            algorithm_bars(ax, x + offset, values, width, cca, label=metric == "retrans")
    fair = [payload(100e6) / n / 1e6 for n in FLOWS]
    bottom.hlines(
        fair, x - 0.45, x + 0.45, color="black", lw=1.5, zorder=4, label="link payload / n"
    )
    bottom.set_xticks(x, [f"{n} flow{'s' if n > 1 else ''}" for n in FLOWS])
    top.set_ylabel("retransmission ratio per flow (%)")
    bottom.set_ylabel("goodput per flow (Mb/s)")
    for ax in (top, bottom):
        ax.grid(True, axis="y", alpha=0.3)
    legend(top, fontsize="small", ncol=5)
    legend(bottom, fontsize="small")
    each = "1 GB" if mode == "full" else "250 MB"
    return PaperFigure(
        "fig8",
        "Fig. 8: performance of the algorithms in multi-flow scenarios",
        "1–5 flows of one algorithm, 100 Mb/s, 40 ms, R = 0.5: BBR retransmits most (8.41 % with "
        "1 flow to 15.25 % with 3); CUBIC and BBRv2 few; oBBR-0.5 and -0.75 at most 0.52 % and "
        "0.99 %, oBBR-1 up to 7.59 %; every algorithm shares the link fairly.",
        png(fig),
        f"Each flow fetches {each}; retransmission ratio per flow (retransmitted / sent bytes, "
        "as the testbed's log counts them), goodput per flow; mean over seeds. Black dashes: the "
        "link's payload rate divided by the number of flows.",
    )
