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
# pacer (`pacer = "nginx-quic"`, which also paces CUBIC as the artifact does) to a receiver
# that acks as Chromium's QUIC client (`ack_policy = "quiche"`), their rate samples come from
# the stack's sampler (`rate_sampler = "nginx-quic"`, whose reference outlives its ACK), on a
# path with the hosts' 50 µs timing jitter; the BBR family runs on the artifact's own BBR base
# (`artifact_base`) and CUBIC is the artifact's `cubic.c` (`cubic-quic`). The sender's loss
# detection and recovery stay TCP's (SACK, RACK-TLP), not QUIC's.
MISSES = {
    # Retransmitted over sent bytes, as the testbed's log counts them: BBR alone at R = 0.5
    # retransmits 8.4 % (paper 8.41 %, which holds; `--quick`'s one seed 10.1 %); with 2–5
    # flows at most 24.0 % (`--quick` 22.6 %; paper 15.25 %). Two flows keep ~23 % (their
    # estimates add up to 1.3× the link); 3–5 flows settle near 13 % unless a flow's min_rtt
    # expires while the queue is full and restarts from the queued RTT, which inflates its
    # window (then 20–30 %).
    "Fig. 8 BBR's retransmission ratio, 1 flow and at most",
    # oBBR-1 retransmits at most 3.5–3.8 % with 1–5 flows (paper 7.59 %, tolerance 4.55 %).
    "Fig. 8 oBBR-1's highest retransmission ratio over 1–5 flows",
    # The QUIC BBRv2 keeps 89–91 % of the link at 1 % loss (below its 2 % threshold) and
    # collapses only at 2 % (paper: -76 % already at 1 %).
    "Fig. 7 BBRv2's goodput collapses under 1–2 % random loss",
    # CUBIC fills R ≥ 0.2 as well as BBRv2 does, or better (both 94–95 %).
    "Fig. 7 60 Mb/s, 60 ms: BBRv2's goodput above CUBIC's",
    # After the 40 → 10 Mb/s drops oBBR-1 retransmits 1.2–1.3 %, so BBR's bytes are 5.3–5.5×
    # its (paper 2.09×, tolerance 2.93×).
    "Fig. 9 BBR's retransmitted bytes over oBBR-1's",
    # BBRv2 takes 12–46 % from oBBR at R = 0.5 where CUBIC takes 8–19 %.
    "Fig. 12 at R = 0.5, BBRv2's share against oBBR is like CUBIC's",
    # With g = 2 BBR takes 67–68 % at R = 0.8 and 70–71 % at R = 1 against the artifact's
    # CUBIC (98 % at 0.5, 63–66 % at 2, 14 % at 16): a rise just past the ±2 pp. It held over
    # `--full`'s three seeds (69 → 70 %) before the artifact's timers ran on its ms clock.
    "Fig. 3 g = 2: BBR's share falls as R grows (0.5 → 16)",
}

# `--quick` only, holding over `--full`'s three seeds: against BBR oBBR-0.5 takes 51.7 % at
# R = 1 in one seed (paper 40.5 ± 10 %); over three seeds 50.2 %.
QUICK_MISSES = MISSES | {"Fig. 12 oBBR-0.5 against BBR at R = 1: oBBR's share"}

# `--full` misses only the claims of both.
FULL_MISSES = MISSES


def test_the_quick_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("atc23", "quick", tmp_path)
    keep(result, "atc23-quick")
    assert [f.name for f in result.findings.figures] == ["fig3", "fig7", "fig8", "fig9", "fig12"]
    check_claims(result, reproduce, "ATC'23", QUICK_MISSES)


@pytest.mark.slow
def test_the_full_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("atc23", "full", tmp_path)
    keep(result, "atc23-full")
    check_claims(result, reproduce, "ATC'23", FULL_MISSES)
