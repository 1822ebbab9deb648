"""Fig. 10: 2 BBR + 2 CUBIC, their shares against the router queue's size (§V).

80 Mb/s, 25 ms, queues of 0.25–8 BDP (with 3, 5 and 6 BDP to place the crossing; `--quick`: 9
buffers), goodput over minutes 2–4: BBR dominates below about 1.5 BDP, the shares cross near 5
BDP (between 3 and 7, here) and CUBIC takes more at 8 BDP.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...report.html import png
from ...sweep.table import SweepResults
from .._base import Experiment, Findings, Mode, PaperFigure, sweep
from . import _shares
from ._common import bbr_and_cubic, seeds, share_buffers

CROSSING = (3.0, 7.0)  # BDP: "near 5"


def experiments(mode: Mode) -> list[Experiment]:
    return [
        Experiment(
            "fig10",
            sweep(
                "aict19-fig10",
                bbr_and_cubic(mode),
                seeds=seeds(mode),
                grid={"bottleneck.queue.limit": share_buffers(mode)},
                description="2 BBR + 2 CUBIC: shares against the buffer size",
            ),
        )
    ]


def analyse(results: Mapping[str, SweepResults], mode: Mode) -> Findings:
    bbr, cubic, rows = _shares.by_buffer(results["fig10"])
    claims, cross = _shares.claims("Fig. 10", "BBR", bbr, cubic, "≈5 BDP", CROSSING)
    figure = PaperFigure(
        "fig10",
        "Fig. 10: BBR and CUBIC's interplay against router queue length",
        "2 BBR + 2 CUBIC flows, 80 Mb/s, 25 ms: BBR takes most of the link below about 1.5 BDP "
        "(where it causes persistent loss); above, CUBIC's share grows with the buffer, the "
        "shares are equal near 5 BDP and CUBIC takes more beyond.",
        png(_shares.figure(results["fig10"], bbr, cubic, rows, "BBR", cross)),
        "Each group's goodput over 120–240 s as a share of the link rate (payload, so at most "
        "≈96.5 %), mean over seeds; thin lines: quartiles of half-second shares.",
    )
    return Findings(claims, [figure])
