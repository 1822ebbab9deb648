"""Fig. 8/9: CDFs of BBR's RTT samples and bandwidth estimates at 100 KB and 10 MB."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pyarrow.parquet as pq
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, done, shown, sweep
from ._common import BASE_RTT_S, RATE_BPS, scenario, seeds


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig8-9",
            sweep(
                "www21-fig8-9",
                scenario("www21-samples", samples=True),
                grid={"bottleneck.queue.limit": ["100KB", "10MB"]},
                seeds=seeds(mode, 3),
                description="BBR's RTT samples and bandwidth estimates, shallow and deep",
            ),
        )
    ]


def _run_tables(results: SweepResults, buffer: str) -> tuple[np.ndarray, np.ndarray]:
    rtts, bws = [], []
    for r in done(results):
        if r["bottleneck.queue.limit"] != buffer:
            continue
        folder = results.run_folder(r["run"])
        rtts.append(
            pq.read_table(folder / "samples.parquet", columns=["rtt_s"]).column("rtt_s").to_numpy()
        )
        bw = (
            pq.read_table(folder / "flows.parquet", columns=["bw_est_bps"])
            .column("bw_est_bps")
            .to_numpy()
        )
        bws.append(bw[np.isfinite(bw)])
    rtt = _concat(rtts)
    return rtt[np.isfinite(rtt)], _concat(bws)


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.array([])


def _median(a: np.ndarray) -> float:
    return float(np.median(a)) if a.size else math.nan


def _cdf(ax: Axes, values: np.ndarray, label: str, colour: str) -> None:
    if values.size:
        xs = np.sort(values)
        ax.plot(xs, np.arange(1, xs.size + 1) / xs.size, color=colour, label=label)


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    res = results["fig8-9"]
    shallow_rtt, shallow_bw = _run_tables(res, "100KB")
    deep_rtt, deep_bw = _run_tables(res, "10MB")
    at_base = float(np.mean(shallow_rtt <= 1.1 * BASE_RTT_S)) if shallow_rtt.size else math.nan
    deep_ratio = _median(deep_rtt) / BASE_RTT_S
    near = float(np.mean(np.abs(shallow_bw / RATE_BPS - 1) <= 0.2)) if shallow_bw.size else math.nan
    over = _median(deep_bw) / RATE_BPS
    claims = [
        Claim(
            "Fig. 8",
            "median RTT at 10 MB, × propagation delay",
            "7×",
            f"{shown(deep_ratio, '.1f')}×",
            "≥ 3×",
            deep_ratio >= 3,
        ),
        Claim(
            "Fig. 8",
            "RTT samples at the propagation delay, 100 KB",
            "≈70 %",
            shown(at_base, ".0%"),
            "≥ 50 % within 10 %",
            at_base >= 0.5,
        ),
        Claim(
            "Fig. 9",
            "median bandwidth estimate at 10 MB, × link rate",
            "≈3×",
            f"{shown(over, '.1f')}×",
            "2–4.5×",
            2 <= over <= 4.5,
        ),
        Claim(
            "Fig. 9",
            "estimates near the link rate at 100 KB",
            "≈70 %",
            shown(near, ".0%"),
            "≥ 50 % within 20 %",
            near >= 0.5,
        ),
    ]
    figs = []
    for name, title, shallow, deep, scale, xlabel, note in (
        (
            "fig8",
            "Fig. 8: CDF of BBR's RTT",
            shallow_rtt,
            deep_rtt,
            1e3,
            "RTT (ms)",
            "RTTs at the 100 ms propagation delay with 100 KB; median 7× it with 10 MB",
        ),
        (
            "fig9",
            "Fig. 9: CDF of BBR's bandwidth estimate",
            shallow_bw,
            deep_bw,
            1e-6,
            "bandwidth estimate (Mb/s)",
            "estimates near 25 Mb/s with 100 KB; median ≈3× the link rate with 10 MB",
        ),
    ):
        fig = Figure(figsize=(6.5, 3.6), layout="constrained")
        ax = fig.subplots()
        _cdf(ax, shallow * scale, "100 KB buffer", "C0")
        _cdf(ax, deep * scale, "10 MB buffer", "C3")
        ax.axvline(BASE_RTT_S * 1e3 if name == "fig8" else RATE_BPS / 1e6, color="k", ls="--", lw=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("CDF")
        ax.set_xscale("log")
        ax.legend(fontsize="small", loc="upper left")  # a CDF starts at the bottom left
        ax.grid(alpha=0.3)
        figs.append(
            PaperFigure(
                name,
                title,
                f"The paper: {note}.",
                png(fig),
                "Every RTT sample (Fig. 8) and the estimate every 100 ms (Fig. 9) of BBR's runs.",
            )
        )
    return Findings(claims, figs)
