"""`bloatlab reproduce atc23`: the oBBR paper's claims, checked on our runs.

The quick reproduction (under a minute on 2 cores) runs by default; the full one, the paper's
protocol with 3 seeds, with `pytest -m slow`. Every claim lands in the paper-vs-ours table at
the end of the pytest run. The claims our simulator reproduces are asserted; the ones it misses
are listed below with the reason and printed, not asserted (a listed miss that starts to hold
is reported too). The report (and a screenshot, when Chromium is installed) goes to
test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from reproduction import check_claims, keep, run_paper

# The claims our simulator misses. The testbed runs `tc` on `lo` (the `loopback` topology: ACKs
# pass the same delay, loss, bucket and queue as the data); its flows go through the nginx-quic
# pacer (`pacer = "nginx-quic"`, which also paces CUBIC as the artifact does) and the server's
# send queue, which resends lost data behind what it has queued (`send_queue = "nginx-quic"`), to
# a receiver that acks as Chromium's QUIC client and grants its 6 MiB stream window (`ack_policy`
# and `flow_control = "quiche"`); their rate samples come from the stack's sampler
# (`rate_sampler = "nginx-quic"`, whose reference outlives its ACK), on a path with the hosts'
# 50 µs timing jitter; the BBR family runs on the artifact's own BBR base (`artifact_base`) and
# CUBIC is the artifact's `cubic.c` (`cubic-quic`). The sender's loss detection and recovery stay
# TCP's (SACK, RACK-TLP), not QUIC's.
MISSES = {
    # Retransmitted over sent bytes, as the testbed's log counts them: BBR alone at R = 0.5
    # retransmits 11.9 % (`--quick`'s one seed 9.9 %; paper 8.41 ± 40 %: at most 11.8 %); with
    # 2–5 flows at most 21.7 % (`--quick` 21.6 %; paper 15.25 %). Two flows keep ~20 % (their
    # estimates add up to 1.3× the link); 3–5 flows more once a flow's min_rtt expires while
    # the queue is full and restarts from the queued RTT, which inflates its window.
    "Fig. 8 BBR's retransmission ratio, 1 flow and at most",
    # Judged where the paper ran it (fig7.sh: 1 % at 100 Mb/s, 40 ms; 2 % at 40 Mb/s, 100 ms):
    # the QUIC BBRv2 collapses at 2 % (7 % of the link; paper -94 %) but keeps 85–87 % at 1 %
    # (below its 2 % threshold; paper -76 %).
    "Fig. 7 BBRv2's goodput collapses under 1–2 % random loss",
    # Fig. 5's sample statistics at 20 Mb/s, 500 KB. Our samples sit at the payload rate (the
    # median 0.89 × 20 × 2^20 bit/s): 98 % lie below 0.95 × that link (paper 59 %), 20 % below
    # 0.85 × (24 %, a pass alone). After each PROBE_RTT the 100 KB bucket refills and the burst
    # lifts BBR's max filter to ~24 Mb/s for 10 rounds; meanwhile the samples stay below 0.75 ×
    # it for 80 in a row (`--full`: 185 over 3 seeds; paper at most 22) and the RTT above 2.5 ×
    # RTprop for 137 (478; paper 15), more than oBBR's k = 30. With the drops, 684 / 989 low
    # samples (pass) and 730 / 1136 high RTTs in a row (1738 at 5 Mb/s in `--full`; paper 373 /
    # 328, ±50 %).
    "Fig. 5 20 Mb/s constant: samples below 0.95 / 0.85 × the link",
    "Fig. 5 samples below 0.75× the estimate: longest run, constant vs drops to 10 / 5 Mb/s",
    "Fig. 5 RTT samples ≥ 2.5× RTprop: longest run, constant",
    "Fig. 5 RTT samples ≥ 2.5× RTprop: longest run, drops to 10 / 5 Mb/s",
    # After the 40 → 10 Mb/s drops oBBR-1 retransmits 1.8 %, so BBR's bytes are 4.3–4.7× its
    # (paper 2.09×, tolerance 2.93×).
    "Fig. 9 BBR's retransmitted bytes over oBBR-1's",
    # BBRv2 takes 11–43 % from oBBR at R = 0.5 where CUBIC takes 4–15 %.
    "Fig. 12 at R = 0.5, BBRv2's share against oBBR is like CUBIC's",
    # With g = 1 BBR takes 22 % against the artifact's CUBIC at R = 0.5 (≤ 20 % asked; 8–14 % at
    # R 0.8–2, 9–11 % at 16); 18 % before the server's send queue and the client's window.
    "Fig. 3 g = 1: BBR can hardly compete at any R",
    # oBBR-1 at 40 Mb/s, 100 ms, R = 0.25 retransmits 5.4–5.7 % at 2 % loss (paper 3.93 ± 1 pp;
    # 4.6–4.9 % before the server's send queue and the client's window).
    "Fig. 7 oBBR-1 at 40 Mb/s, 100 ms, R = 0.25: retransmissions without / with 2 % loss",
}

QUICK_MISSES = MISSES
FULL_MISSES = MISSES | {
    # Fig. 4 at 2 Mb/s: in two of the three seeds PROBE_RTT at the drop (12 s) takes min_rtt
    # from a queue already building (0.2 s), and BBR's window, 2 × 20 Mb/s × that, lets 142 %
    # of its earlier in-flight out until the estimate is corrected (`--quick`'s seed: 109 %).
    "Fig. 4 after the drop BBR keeps its in-flight data",
}


def test_the_quick_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("atc23", "quick", tmp_path)
    keep(result, "atc23-quick")
    names = [f.name for f in result.findings.figures]
    assert names == ["fig3", "fig4", "fig5", "fig7", "fig8", "fig9", "fig12"]
    check_claims(result, reproduce, "ATC'23", QUICK_MISSES)


@pytest.mark.slow
def test_the_full_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("atc23", "full", tmp_path)
    keep(result, "atc23-full")
    check_claims(result, reproduce, "ATC'23", FULL_MISSES)
