"""Fig. 12: 2 BBR Shallow + 2 CUBIC, their shares against the router queue's size (§V-B).

As Fig. 10 with BBR Shallow: the buffer at which the shares are equal falls from about 5 BDP to
about 3 BDP (between 2 and 4.5, here), below Fig. 10's crossing.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...analysis.timeseries import crossing
from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Claim, Experiment, Findings, Mode, PaperFigure, sweep
from . import _shares
from ._common import BBR_SHALLOW_CC, bbr_and_cubic, seeds, share_buffers

CROSSING = (2.0, 4.5)  # BDP: "about 3"


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig12",
            sweep(
                "aict19-fig12",
                bbr_and_cubic(mode),
                seeds=seeds(mode),
                grid={
                    "bottleneck.queue.limit": share_buffers(mode),
                    "flow.bbr.cc": [BBR_SHALLOW_CC],
                },
                description="2 BBR Shallow + 2 CUBIC: shares against the buffer size",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    shallow, cubic, rows = _shares.by_buffer(results["fig12"])
    claims, cross = _shares.claims("Fig. 12", "BBR Shallow", shallow, cubic, "≈3 BDP", CROSSING)
    bbr10, cubic10, _ = _shares.by_buffer(results["fig10"])
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
        png(_shares.figure(results["fig12"], shallow, cubic, rows, "BBR Shallow", cross)),
        "As Fig. 10.",
    )
    return Findings(claims, [figure])
