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
from reproduction import keep, record_claims

from bloatlab import reproduce as papers
from bloatlab.reproduce import Reproduction

# The claims our simulator misses, in both modes unless noted. The testbed's flows run over the
# nginx-quic pacer (`pacer = "nginx-quic"`) to a receiver that acks as Chromium's QUIC client
# (`ack_policy = "quiche"`). The pacer's millisecond bursts overflow a shallow buffer: that gives
# BBR the paper's ≥ 10 % retransmissions at R = 0.25, but too many at R = 0.5 with several flows.
MISSES = {
    # BBR retransmits 11–14 % with 1 flow and up to 52–55 % with 3 (paper 8.41 / 15.25 %), and
    # 9–10× oBBR-1's bytes after the bandwidth drop (paper 2.09×).
    "Fig. 8 BBR's retransmission ratio, 1 flow and at most",
    "Fig. 9 BBR's retransmitted bytes over oBBR-1's",
    # oBBR-1 overshoots less: 4 % at most with 1–5 flows (paper 7.59 %).
    "Fig. 8 oBBR-1's highest retransmission ratio over 1–5 flows",
    # The QUIC BBRv2 keeps 93–95 % of the link at 1 % loss (below its 2 % threshold) and
    # collapses only at 2 % (paper: -76 % already at 1 %).
    "Fig. 7 BBRv2's goodput collapses under 1–2 % random loss",
    # Our (unpaced, Linux) CUBIC fills R ≥ 0.4 as well as BBRv2 does (95–96 %).
    "Fig. 7 60 Mb/s, 60 ms: BBRv2's goodput above CUBIC's",
    # BBR with cwnd gain 1 still takes 33–80 % at R ≤ 2 (2 % at R = 16): it paces into what
    # CUBIC's backoffs leave in a shallow buffer.
    "Fig. 3 g = 1: BBR can hardly compete at any R",
    # Against BBR in 1 BDP oBBR-0.5 keeps 5–6 % (paper 40.5 %), no more than at R = 0.5; CUBIC
    # and BBRv2 take less from oBBR than in the paper.
    "Fig. 12 oBBR-0.5 against BBR at R = 1: oBBR's share",
    "Fig. 12 against BBR, oBBR gets more at R = 1 than at R = 0.5",
    "Fig. 12 against oBBR at R = 1, CUBIC's largest share",
    "Fig. 12 at R = 0.5, BBRv2's share against oBBR is like CUBIC's",
}
MISSES_BY_MODE = {
    "quick": MISSES,
    # Three seeds: one pair of Linux BBRv2 flows splits the link at Jain 0.84.
    "full": MISSES | {"Fig. 8 every algorithm shares the link fairly (2–5 flows)"},
}


def check(result: Reproduction, record: object, misses: set[str]) -> None:
    names = {f"{c.figure} {c.claim}" for c in result.findings.claims}
    assert not misses - names, f"listed misses that are no claim: {sorted(misses - names)}"
    record_claims(result, record, "ATC'23", misses)
    held = [f"{c.figure} {c.claim}" for c in result.findings.claims if c.passed]
    print("listed misses that now hold:", sorted(set(held) & misses) or "none")
    failed = [
        f"{c.figure} {c.claim}: {c.ours} (tolerance {c.tolerance})"
        for c in result.findings.claims
        if not c.passed and f"{c.figure} {c.claim}" not in misses
    ]
    assert not failed, "claims that no longer hold:\n" + "\n".join(failed)


def test_the_quick_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("quick", tmp_path)
    keep(result, "atc23-quick")
    assert [f.name for f in result.findings.figures] == ["fig3", "fig7", "fig8", "fig9", "fig12"]
    check(result, reproduce, MISSES_BY_MODE["quick"])


@pytest.mark.slow
def test_the_full_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("full", tmp_path)
    keep(result, "atc23-full")
    check(result, reproduce, MISSES_BY_MODE["full"])


def run_paper(mode: str, folder: Path) -> Reproduction:
    return papers.reproduce("atc23", mode=mode, out_dir=folder / mode, progress=False)  # type: ignore[arg-type]
