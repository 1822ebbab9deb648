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

# The claims our simulator misses. The testbed's flows run over the nginx-quic pacer
# (`pacer = "nginx-quic"`) to a receiver that acks as Chromium's QUIC client
# (`ack_policy = "quiche"`), on a path with the hosts' 50 µs timing jitter; the sender's loss
# detection and recovery stay TCP's (SACK, RACK-TLP), not QUIC's. The retransmission ratios
# below depend strongly on that pairing: with Linux pacing and ACKs BBR retransmits 6 % at
# R = 0.25; with the pacer and an ACK for every packet above a hole, 30 %; with QUICHE's ACKs
# (only the first 4 packets after a new gap at once), 8 %.
MISSES = {
    # BBR retransmits 4.1–12 % at R = 0.25 (mean 7.7 %; paper 17.42 % on average, 13.36 % in
    # Fig. 3, where ours is 4.5 %), 2.2–2.5 % alone at R = 0.5 and up to 47–50 % with 3 flows
    # (paper 8.41 / 15.25 %), and 3.9–4× oBBR-1's bytes after the drop (paper 2.09×).
    "Fig. 7 R = 0.25: BBR retransmits ≥ 10 % (both settings, 0–2 % loss)",
    "Fig. 3 g = 2, R = 0.5: BBR's loss ratio",
    "Fig. 8 BBR's retransmission ratio, 1 flow and at most",
    "Fig. 9 BBR's retransmitted bytes over oBBR-1's",
    # Under 2 % random loss oBBR retransmits 3.3–6.7 % (paper 2.82–3.93 %).
    "Fig. 7 R = 0.25: oBBR-0.5 retransmits ≤ 3 %",
    "Fig. 7 oBBR-0.75 at 40 Mb/s, 100 ms, R = 0.25: retransmissions without / with 2 % loss",
    "Fig. 7 oBBR-1 at 40 Mb/s, 100 ms, R = 0.25: retransmissions without / with 2 % loss",
    # The QUIC BBRv2 keeps 89–91 % of the link at 1 % loss (below its 2 % threshold) and
    # collapses only at 2 % (paper: -76 % already at 1 %).
    "Fig. 7 BBRv2's goodput collapses under 1–2 % random loss",
    # Our (unpaced, Linux) CUBIC fills R ≥ 0.2 as well as BBRv2 does (94–96 %).
    "Fig. 7 60 Mb/s, 60 ms: BBRv2's goodput above CUBIC's",
    # BBR with cwnd gain 1 still takes 36–79 % at R ≤ 2 (1 % at R = 16): it paces into what
    # CUBIC's backoffs leave in a shallow buffer.
    "Fig. 3 g = 1: BBR can hardly compete at any R",
    # Against BBR in 1 BDP oBBR-0.5 keeps 8.5 % (paper 40.5 %) — no more than at R = 0.5, and
    # oBBR-0.75 neither (19 % vs 20 %); CUBIC and BBRv2 take less from oBBR than in the paper.
    "Fig. 12 oBBR-0.5 against BBR at R = 1: oBBR's share",
    "Fig. 12 against BBR, oBBR gets more at R = 1 than at R = 0.5",
    "Fig. 12 against oBBR at R = 1, CUBIC's largest share",
    "Fig. 12 at R = 0.5, BBRv2's share against oBBR is like CUBIC's",
}
# One seed (quick) also misses three claims that the three seeds of the paper's protocol hold:
# BBR-S 6.6 % vs B3R 6.5 % (full: 6.5 vs 6.6 %), oBBR-0.75's worst 1.11 % (full 0.67 %), and
# BBR's goodput under the 40/10 Mb/s alternation 18.9 vs oBBR-1's 21.4 Mb/s (full 19.3 vs 21.2).
QUICK_ONLY = {
    "Fig. 7 R = 0.25: BBR-S retransmits less than BBR and B3R, more than oBBR",
    "Fig. 8 oBBR-0.75's highest retransmission ratio over 1–5 flows",
    "Fig. 9 BBR and oBBR-1 reach almost the same goodput",
}
MISSES_BY_MODE = {"quick": MISSES | QUICK_ONLY, "full": MISSES}


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
