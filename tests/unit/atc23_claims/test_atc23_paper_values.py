"""ATC'23: every claim's `paper` value, as the paper gives it.

Each figure module's claims are listed in order with the value the paper states and where it
states it (P. Bi et al., "oBBR: Optimize Retransmissions of BBR Flows on the Internet", USENIX
ATC 2023; the section and a short quote), read from the paper, not from the code, so a misquoted
number fails here. The claims come from the hand-made sweep tables of atc23_tables.py through
test_atc23_every_figure.py's BASELINES (no simulation); a claim's `paper` value does not depend
on the runs. Every value below is in the paper's text: none is read from a plot.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from atc23_tables import analyse
from test_atc23_every_figure import BASELINES

# Each figure's claims' paper values, in the order its `analyse` makes its claims.
PAPER_VALUES: dict[str, list[str]] = {
    "fig3": [
        # g = 2, share falls with R. §3.1: "the goodput proportion of the BBR flow decreases as R
        # is greater"
        "decreases as R is greater",
        # g = 2, below the model. §3.1: "but it is still lower than the converge point
        # (R-g+1)/(gR) found in the model, which are marked as red lines on the bars" (the model's
        # BBR share is 1 - p, p = (R-g+1)/(gR) the loss-based flows'; the module's docstring)
        "lower than the converge point",
        # g = 2, R = 0.5. §3.1: "When R is reduced to 0.5, BBR dominates the bandwidth and the
        # packet loss ratio increases to 13.36%" (the code had "BBR takes almost all": §5.2.4's
        # words for BBR against CUBIC at 40 Mb/s, 100 ms, Fig. 12's setting, not Fig. 3's)
        "BBR dominates the bandwidth",
        # g = 2, R = 0.5, loss. §3.1, as above: "the packet loss ratio increases to 13.36%"
        "13.36 %",
        # g = 1. §3.1: "when g is set to 1 and no matter how large the bottleneck buffer is, BBR
        # can hardly compete with CUBIC and almost all the bandwidth is used by the CUBIC flow"
        "almost all bandwidth to CUBIC",
        # R = 16, varying g. §3.1: "The rightmost of Figure 3 shows the goodput of two flows when
        # setting the bottleneck buffer to 16 × BDP and varying g, where BBR gains more goodput
        # with increasing g"
        "grows with g",
    ],
    "fig4": [
        # §3.2: "Only after 10 RTTs, i.e., ~ 7 seconds on the left of Figure 4 (the RTT samples
        # rise to ~ 700 ms) and ~ 15 seconds on the right of Figure 4 (the RTT samples rise to
        # ~ 1500 ms)" (left: 20 → 5 Mb/s, right: 20 → 2 Mb/s, Fig. 4's caption)
        "≈700 ms",
        # §3.2, as above: "~ 1500 ms"
        "≈1500 ms",
        # §3.2, as above: "~ 7 seconds ... and ~ 15 seconds ... the bandwidth estimate is
        # corrected"
        "≈7 s / ≈15 s (to 5 / 2 Mb/s)",
        # §3.2: "even the bandwidth drops, the in-flight data volume stays almost the same"
        "stays almost the same",
        # §3.2: "The lost data volume also increases during this period"
        "increases",
    ],
    "fig5": [
        # §3.3: "59% of samples are lower than 0.95 × BtlBw, and 24% of samples are lower than
        # 0.85 × BtlBw" (normalized to the realistic bandwidth, the leftmost of Fig. 5)
        "59 % / 24 %",
        # §3.3: "for the constant bandwidth, at most 22 consecutive samples are observed below
        # 0.75 × BtlBw ... in both cases [10/5 Mbps], the length of consecutive bandwidth
        # samples could clearly signal the bandwidth drop"
        "22 vs clearly longer",
        # §3.3: "When the bandwidth is constant, at most 15 samples are observed consecutively
        # higher than 2.5 × RTprop"
        "15",
        # §3.3, as above: "This number increases to 373 or 328 if the bandwidth drops to 10/5
        # Mbps during the transmission, respectively"
        "373 / 328",
    ],
    "fig7": [
        # BBR at R = 0.25. §5.2.1: "BBR maintains its goodput across all cases but its
        # retransmission ratios are also the highest, reaching 17.42% on average"
        "17.42 % on average (the highest)",
        # oBBR-0.5 at R = 0.25. §5.2.1: "in the network with 40 Mbps bandwidth and 100 ms
        # latency, oBBR keeps its retransmission ratios at 0.51% (μ=0.5) ... By introducing 2%
        # random packet losses, oBBR has the retransmission ratios at 2.82% (μ=0.5)"
        "0.51 % (no loss), 2.82 % (2 % loss) at 40 Mb/s, 100 ms",
        # oBBR-0.5's goodput at R = 0.25. §5.2.1: "Across all scenarios, oBBR schemes
        # consistently have high goodput, which is at least 82.76% of the link capacity"
        "≥ 82.76 % of the link",
        # Every oBBR-μ, every scenario. §5.2.1, as above: "Across all scenarios ... at least
        # 82.76%" (said before the R = 0.2/0.4/0.6 runs are introduced; the claim extends it)
        "≥ 82.76 % of the link",
        # §5.2.1 (40 Mb/s, 100 ms): "0.51% (μ=0.5)" ... "2.82% (μ=0.5)"
        "0.51 % / 2.82 %",
        # §5.2.1: "0.62% (μ=0.75)" ... with 2% random losses "3.06% (μ=0.75)"
        "0.62 % / 3.06 %",
        # §5.2.1: "1.97% (μ=1)" ... with 2% random losses "3.93% (μ=1)"
        "1.97 % / 3.93 %",
        # CUBIC. §5.2.1: "Introducing a 1% random packet loss ratio reduces their goodput by 76%
        # (BBRv2) and 94% (CUBIC), respectively. And the numbers increase to 94% (BBRv2) and 96%
        # (CUBIC) with a 2% random packet loss ratio"; the artifact's fig7.sh runs 1 % only at
        # 100 Mb/s, 40 ms and 2 % only at 40 Mb/s, 100 ms
        "-94 % at 1 % (100 Mb/s, 40 ms), -96 % at 2 % loss (40 Mb/s, 100 ms)",
        # BBRv2. §5.2.1, as above: "76% (BBRv2)" at 1 %, "94% (BBRv2)" at 2 %
        "-76 % at 1 % (100 Mb/s, 40 ms), -94 % at 2 % loss (40 Mb/s, 100 ms)",
        # §5.2.1: "CUBIC and BBRv2 have the lowest retransmission ratios since they aggressively
        # reduce the in-flight data when detecting packet losses"
        "lowest retransmission ratios",
        # §5.2.1: "the retransmission ratios of B3R are similar to those of BBR"
        "similar to BBR's",
        # §5.2.1: "BBR-S retransmits fewer data than BBR and B3R, but is still worse than oBBR
        # schemes"
        "between",
        # 60 Mb/s, 60 ms. §5.2.1: "With increasing bottleneck buffer size, BBR, B3R, and BBR-S
        # reach a lower retransmission ratio accordingly"
        "lower with increasing R",
        # §5.2.1: "when R=0.2, which are 1.54% (μ=0.5), 1.55% (μ=0.75), 3.10% (μ=1)" ... "when
        # R=0.4, the retransmission ratios of oBBR are 0.51% (μ=0.5), 0.61% (μ=0.75), 1.78% (μ=1)"
        "oBBR-0.5 1.54 → 0.51 %; oBBR-0.75 1.55 → 0.61 %; oBBR-1 3.10 → 1.78 %",
        # §5.2.1 (R = 0.2/0.4/0.6): "BBRv2 flows have goodput (similar to oBBR schemes) higher
        # than CUBIC flows"
        "BBRv2 (≈ oBBR) > CUBIC",
    ],
    "fig8": [
        # §5.2.1, Multiple flows: "BBR still has the highest retransmission ratios, ranging from
        # 8.41% (1-flow) to 15.25% (3-flows)"
        "8.41 % (1 flow), max 15.25 % (3 flows)",
        # §5.2.1, as above: "BBR still has the highest retransmission ratios"
        "BBR has the highest ratios",
        # §5.2.1: "When launching multiple BBR-like flows, i.e., BBR, B3R, BBR-S, or oBBR, higher
        # retransmission ratios per flow are observed"
        "higher with multiple flows",
        # CUBIC. §5.2.1: "As loss-based CCAs, CUBIC and BBRv2 retransmit few packets"
        "few",
        # BBRv2. §5.2.1, as above
        "few",
        # §5.2.1: "The highest retransmission ratios of oBBR-0.5 and oBBR-0.75 are 0.52%
        # (2-flows) and 0.99% (3-flows), respectively"
        "0.52 %",
        # §5.2.1, as above: "0.99% (3-flows)"
        "0.99 %",
        # §5.2.1: "the retransmission ratio per flow of oBBR-1 grows to 7.59% at most (3-flows)"
        "7.59 %",
        # §5.2.1: "all CCAs could effectively exploit and fairly share the link capacity"
        "fair shares",
        # §5.2.1, as above: "effectively exploit ... the link capacity"
        "effectively exploit the capacity",
    ],
    "fig9": [
        # §5.2.2 (the paper says "oBBR", no μ; the claims are about oBBR-1, the artifact's):
        # "oBBR reacts to the bandwidth drop more promptly as the bandwidth samples follow the
        # real bandwidth change (the red line) in ~2 seconds. BBR only summarizes a more accurate
        # bandwidth estimate after ~6 seconds"
        "≈2 s vs ≈6 s",
        # §5.2.2, as above: "in ~2 seconds"
        "≈2 s",
        # §5.2.2, as above: "after ~6 seconds"
        "≈6 s",
        # §5.2.2: "BBR spends 2.09× more bandwidth than oBBR on retransmitting lost data"
        "less",
        # §5.2.2, as above: "2.09× more" (read as BBR's bytes / oBBR's = 2.09)
        "2.09×",
        # §5.2.2: "while both of them achieve almost the same goodput in the transmission session"
        "almost the same",
    ],
    "fig12": [
        # Against BBR, R = 0.5. §5.2.4: "oBBR can hardly gain bandwidth when the buffer is as
        # shallow as 0.5 × BDP because BBR sends more in-flight data. This can be alleviated by
        # increasing μ. Setting μ to 1 helps oBBR share 33% bandwidth" (so least at μ 0.5)
        "hardly any at μ 0.5, 33 % at μ 1",
        # §5.2.4, as above: "Setting μ to 1 helps oBBR share 33% bandwidth" (the paper writes
        # "33%"; the module prints its 0.33 with one decimal, as it does 40.5 and 46.6)
        "33.0%",
        # §5.2.4: "When the buffer size increases to 1 × BDP, BBR performs less aggressively and
        # even setting μ to 0.5 lets oBBR take 40.5% bandwidth"
        "40.5%",
        # §5.2.4, as above: "When the buffer size increases to 1 × BDP, BBR performs less
        # aggressively"
        "BBR less aggressive at 1 BDP",
        # §5.2.4: "When competing with CUBIC, oBBR is aggressive in shallower buffers. But oBBR
        # yields more bandwidth to CUBIC than BBR which takes almost all bandwidth in a
        # 0.5 × BDP buffer"
        "oBBR aggressive, yields more than BBR (which takes almost all)",
        # §5.2.4: "In a buffer of 1 × BDP, CUBIC takes up to 46.6% bandwidth share"
        "up to 46.6%",
        # §5.2.4: "When competing with BBRv2 in a 0.5 × BDP buffer, the trend of bandwidth shares
        # is similar to CUBIC because both of them react to packet losses"
        "similar trend to CUBIC",
        # §5.2.4: "But since BBRv2 probes RTT more frequently, it takes more bandwidth in a
        # 1 × BDP buffer"
        "BBRv2 takes more",
    ],
}


def test_every_figure_has_its_paper_values() -> None:
    assert list(PAPER_VALUES) == list(BASELINES)


@pytest.mark.parametrize("name", BASELINES)
def test_each_claim_quotes_the_paper_value(tmp_path: Path, name: str) -> None:
    module, results = BASELINES[name]
    claims = analyse(module, results(tmp_path)).claims
    assert [c.paper for c in claims] == PAPER_VALUES[name]
