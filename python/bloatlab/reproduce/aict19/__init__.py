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

from .._base import ByFigure, Paper
from . import fig4, fig5, fig6, fig7, fig8, fig9, fig10, fig11, fig12

FIGURES = ByFigure((fig4, fig5, fig6, fig7, fig8, fig9, fig10, fig11, fig12))
experiments = FIGURES.experiments
analyse = FIGURES.analyse


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
