"""What the WWW'21 figures share: the testbed's scenario, the metrics they read, and helpers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...builders import HOST_JITTER
from .._base import Mode, mean, shown

RATE_BPS = 25e6
BASE_RTT_S = 0.1
COLOURS = {"cubic": "C0", "bbr": "C3", "bbr2": "C2", "bbr-s": "C1", "bbr2-s": "C4"}
# The paper's ladder (§3.2, Mb/s by level: 1, then 2.5 … 25 in steps of 2.5), used to read its
# quality numbers; the core's `www21` video has the same levels.
LADDER_MBPS = [1.0] + [2.5 * level for level in range(1, 11)]

QUALITY = "flows.video.avg_quality"
STALL = "flows.video.stall_rate"
BW = "flows.video.bw_est_mean_bps"
GOODPUT = "flows.video.goodput_bps"


def scenario(
    name: str,
    *,
    samples: bool = False,
    http: str = "h2",
    cc: Any = "bbr",
    page: Sequence[str] = (),
) -> dict[str, Any]:
    """The WWW'21 bottleneck (25 Mb/s, 100 ms, TBF burst 1 MB, 10 MB buffer) and one DASH flow,
    whose browser fetches `page` (the page and player script) before the manifest."""
    app = {"kind": "dash", "video": "www21", "abr": "dynamic", "http": http, "page": list(page)}
    return {
        "name": name,
        "bottleneck": {
            "rate": "25Mbps",
            "rtt": "100ms",
            "shaper": {"kind": "tbf", "burst": "1MB"},
            "queue": {"kind": "droptail", "limit": "10MB"},
            "jitter": HOST_JITTER,
        },
        "flow": [
            {
                "name": "video",
                "cc": cc,
                "app": app,
            }
        ],
        "telemetry": {"interval": "100ms", "rate_samples": samples},
    }


def seeds(mode: Mode, full: int) -> int:
    """`full` seeds per point in `--full`, one in `--quick`."""
    return full if mode == "full" else 1


def _by(
    rows: Sequence[Mapping[str, Any]], metric: str, *keys: str
) -> dict[tuple[Any, ...], list[float]]:
    out: dict[tuple[Any, ...], list[float]] = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r[metric])
    return out


def means(
    rows: Sequence[Mapping[str, Any]], metric: str, *keys: str
) -> dict[tuple[Any, ...], float]:
    """The mean of `metric` over the runs that share the values of `keys`."""
    return {k: mean(v) for k, v in _by(rows, metric, *keys).items()}


def fmt(v: float) -> str:
    """A quality index or stall rate as the paper's tables give it."""
    return shown(v, ".2f")


def media_rate_mbps(quality: float, stall_rate: float) -> float:
    """Media delivered per second of playback, implied by an average quality and a stall rate.

    Eq. 1: playback takes (1 + stall rate) × the video's length, over which the video's bytes
    (≈ the ladder's bitrate at the average level × its length) arrive. Start-up delay is left
    out and the ladder is linear above level 0, so this is close for sessions that rarely use
    level 0. It turns the paper's player-level numbers into the transport's: how much of the
    25 Mb/s link carried video while the player was stalling.
    """
    return float(np.interp(quality, range(len(LADDER_MBPS)), LADDER_MBPS)) / (1 + stall_rate)
