"""Fig. 4: a BBR flow when the bandwidth drops from 20 to 5 or 2 Mb/s — its in-flight data
stays, its RTT rises, and its estimate is corrected only after 10 inflated RTTs.

Protocol (§3.2; artifact fig4_5.sh, nets/change.sh, plots/fig4_5.py): the artifact's BBR
(`-C BBR`) sending all the time, 20 Mb/s, 100 ms (netem 50 ms on `lo`, so ACKs queue in the
same tbf), tbf burst 100 KB, a 200 KB buffer (the text, and change.sh's `limit`). The rate
drops to 5 or 2 Mb/s at 12 s (the figure's red line) and, as the text says ("we throttle the
bandwidth to a lower value"), stays there; 40 s (the client's timeout). change.sh, as fig4_5.sh
calls it (`change.sh 20 5 200 12`), would switch back to 20 Mb/s at 24 s, but then the text's
~15 s to correct the estimate at 2 Mb/s could not happen; and with four arguments its `burst
$5K` is empty, which `tc` would likely refuse, changing nothing. So we follow the text.
The RTT is that of the samples the testbed logs (`_rate_log`); the panel's "Loss (KB)" is the
server log's `resend_s`, bytes of retransmissions sent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.spec import label
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, mean, shown
from ._common import FOLLOWED, MSS, legend, time_to_follow
from ._rate_log import PROBE_BW, bbr_sweep, first_seed, read_run

DROP_AT, END, BUFFER = 12.0, 40.0, "200KB"
LOWS = (5e6, 2e6)
SHOWN_FROM, SHOWN_TO = 5.0, 30.0  # the figure's time axis

# The paper's numbers (§3.2) and the tolerances fixed before comparing.
PAPER_RTT_PEAK = {5e6: 0.700, 2e6: 1.500}  # "the RTT samples rise to ~700 ms" / "~1500 ms"
PEAK_RELATIVE = 0.3
PAPER_CORRECTION = {5e6: 7.0, 2e6: 15.0}  # "Only after 10 RTTs, i.e., ~7 seconds" / "~15 s"
CORRECTION_RELATIVE = 0.5
INFLIGHT_HOLDS = (0.75, 4 / 3)  # "the in-flight data volume stays almost the same": × 3/4 … 4/3

SCHEDULES = {low: [{"at": f"{DROP_AT:g}s", "rate": f"{low / 1e6:g}Mbps"}] for low in LOWS}
_BY_LABEL = {label(s): low for low, s in SCHEDULES.items()}


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig4",
            bbr_sweep(
                "atc23-fig4",
                BUFFER,
                END,
                list(SCHEDULES.values()),
                mode,
                "BBR, 20 Mb/s, 100 ms, 200 KB; the rate drops to 5 or 2 Mb/s at 12 s",
            ),
        )
    ]


def metrics(run: dict[str, np.ndarray], low: float) -> dict[str, float]:
    """RTT peak after the drop; time until the estimate is corrected; the data in flight in
    PROBE_BW while it is not (the paper puts PROBE_RTT's dips apart) against in PROBE_BW before
    the drop, from where the figure starts; the bytes retransmitted after the drop against as
    long before it (past STARTUP's losses)."""
    t, ft = run["t"], run["flows_t"]
    after = t >= DROP_AT
    peak = float(np.max(run["rtt"][after])) if after.any() else math.nan
    correction = time_to_follow(ft, run["bw_est"], DROP_AT, END, low)
    probe_bw = run["state"] == PROBE_BW

    def median_inflight(start: float, end: float) -> float:
        inside = (ft >= start) & (ft < end) & probe_bw
        return float(np.median(run["inflight"][inside])) if inside.any() else math.nan

    def retransmitted(start: float, end: float) -> float:
        last = np.searchsorted(ft, [start, end], side="left") - 1
        start_bytes, end_bytes = (run["retransmitted"][i] if i >= 0 else 0.0 for i in last)
        return float(end_bytes - start_bytes)

    return {
        "rtt_peak": peak,
        "correction": correction,
        "inflight_held": median_inflight(DROP_AT, DROP_AT + correction)
        / median_inflight(SHOWN_FROM, DROP_AT),
        "resent_before": retransmitted(SHOWN_FROM, DROP_AT),
        "resent_after": retransmitted(DROP_AT, 2 * DROP_AT - SHOWN_FROM),
    }


def _runs(results: SweepResults) -> dict[float, list[dict[str, Any]]]:
    by: dict[float, list[dict[str, Any]]] = {}
    for row in done(results):
        low = _BY_LABEL.get(label(row["bottleneck.schedule"]))
        if low is None:
            continue
        run = read_run(results.run_folder(row["run"]))
        by.setdefault(low, []).append({"seed": row["seed"], "run": run, **metrics(run, low)})
    return by


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    runs = _runs(results["fig4"])

    def avg(low: float, key: str) -> float:
        return mean([r[key] for r in runs.get(low, [])])

    claims = []
    for low in LOWS:
        paper, peak = PAPER_RTT_PEAK[low], avg(low, "rtt_peak")
        claims.append(
            Claim(
                "Fig. 4",
                f"20 → {low / 1e6:g} Mb/s: BBR's RTT samples rise to",
                f"≈{paper * 1e3:.0f} ms",
                f"{shown(peak * 1e3, '.0f')} ms (highest sample after the drop)",
                f"±{PEAK_RELATIVE:.0%}",
                abs(peak - paper) <= PEAK_RELATIVE * paper,
            )
        )
    corrections = {low: avg(low, "correction") for low in LOWS}
    rates = " / ".join(f"{x / 1e6:g}" for x in LOWS)
    claims.append(
        Claim(
            "Fig. 4",
            "BBR's estimate is corrected only after 10 (inflated) RTTs",
            " / ".join(f"≈{PAPER_CORRECTION[x]:g} s" for x in LOWS) + f" (to {rates} Mb/s)",
            " / ".join(f"{shown(corrections[x], '.1f')} s" for x in LOWS)
            + f" (until ≤ {FOLLOWED:g}× the new rate's payload)",
            f"±{CORRECTION_RELATIVE:.0%} each",
            all(
                abs(corrections[x] - PAPER_CORRECTION[x])
                <= CORRECTION_RELATIVE * PAPER_CORRECTION[x]
                for x in LOWS
            ),
        )
    )
    held = {low: avg(low, "inflight_held") for low in LOWS}
    claims.append(
        Claim(
            "Fig. 4",
            "after the drop BBR keeps its in-flight data",
            "stays almost the same",
            " / ".join(shown(held[x], ".0%") for x in LOWS)
            + " of before (medians in PROBE_BW, until corrected vs from 5 s)",
            f"{INFLIGHT_HOLDS[0]:.0%}–{INFLIGHT_HOLDS[1]:.0%} each",
            all(INFLIGHT_HOLDS[0] <= held[x] <= INFLIGHT_HOLDS[1] for x in LOWS),
        )
    )
    resent = {low: (avg(low, "resent_before"), avg(low, "resent_after")) for low in LOWS}
    claims.append(
        Claim(
            "Fig. 4",
            "the lost data volume rises after the drop",
            "increases",
            "; ".join(
                f"{x / 1e6:g} Mb/s: {shown(b / 1e3, '.0f')} → {shown(a / 1e3, '.0f')} KB"
                for x, (b, a) in resent.items()
            )
            + f" retransmitted ({SHOWN_FROM:g}–{DROP_AT:g} s vs {DROP_AT:g}–"
            + f"{2 * DROP_AT - SHOWN_FROM:g} s)",
            "after > before, each",
            all(a > b for b, a in resent.values()),
        )
    )
    return Findings(claims, [_figure(runs)])


def _figure(runs: dict[float, list[dict[str, Any]]]) -> PaperFigure:
    fig = Figure(figsize=(15, 4.5), layout="constrained")
    axes = fig.subplots(1, 3)
    resent = axes[2]
    for ax, low in zip(axes[:2], LOWS, strict=True):
        ax.set_title(f"20 → {low / 1e6:g} Mb/s at {DROP_AT:g} s", loc="left", fontsize="medium")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("RTT of samples (ms)")
        ax.axvline(DROP_AT, color="red", lw=1)
        entry = first_seed(runs.get(low, []))
        if entry is None:
            continue
        run = entry["run"]
        window = (run["t"] >= SHOWN_FROM) & (run["t"] <= SHOWN_TO)
        ax.plot(run["t"][window], run["rtt"][window] * 1e3, ".", ms=2, color="blue", label="RTT")
        ax.set_ylim(bottom=0)
        inflight = ax.twinx()
        window = (run["flows_t"] >= SHOWN_FROM) & (run["flows_t"] <= SHOWN_TO)
        inflight.plot(
            run["flows_t"][window],
            run["inflight"][window] * MSS / 1024,
            color="green",
            lw=0.8,
            label="in flight",
        )
        inflight.set_ylabel("in flight (KB)")
        inflight.set_ylim(bottom=0)
        legend(ax, loc="upper right", fontsize="small")
        legend(inflight, loc="upper left", fontsize="small")
        edges = np.arange(SHOWN_FROM, SHOWN_TO + 1, 1.0)
        cumulative = np.interp(edges, run["flows_t"], run["retransmitted"])
        resent.step(
            edges[1:], np.diff(cumulative) / 1024, where="pre", label=f"→ {low / 1e6:g} Mb/s"
        )
    resent.axvline(DROP_AT, color="red", lw=1)
    resent.set_title("retransmitted per second", loc="left", fontsize="medium")
    resent.set_xlabel("time (s)")
    resent.set_ylabel("KB")
    legend(resent, fontsize="small")
    return PaperFigure(
        "fig4",
        "Fig. 4: a BBR flow when the bandwidth drops",
        "20 Mb/s, 100 ms, 200 KB buffer; the rate drops to 5 or 2 Mb/s at 12 s. BBR keeps its "
        "in-flight data, its RTT samples rise to ≈700 / ≈1500 ms and its estimate is corrected "
        "only after 10 such RTTs (≈7 / ≈15 s), while the lost data volume rises.",
        png(fig),
        "The lowest seed's run: the RTT of the samples the testbed logs (in PROBE_BW, not "
        "app-limited) and the data in flight; retransmitted bytes per second.",
    )
