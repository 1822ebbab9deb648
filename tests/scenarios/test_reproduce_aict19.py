"""`bloatlab reproduce aict19`: every claim of the paper, checked on our runs.

The quick reproduction (a few minutes on 2 cores) runs by default; the full one, the paper's
protocol, with `pytest -m slow`. The claims land in the paper-vs-ours table at the end of the
pytest run; the report (and a screenshot, when Chromium is installed) in test-artifacts/. The
quick grid holds every claim but BBR's loss at 1 BDP; the full one misses the two or three
below, printed, not asserted.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from reproduction import check_claims, keep, run_paper

# The misses, on the testbed's Linux 4.17 BBR sending TSO/GSO skbs (docs/fidelity/aict19.md's
# table). At 1 BDP BBR loses 8.1–8.3 % against the paper's 5.5 ± 40 % (7.7 at most).
LOSS_AT_1_BDP = "Fig. 7 BBR loss at 1 BDP"
FULL_MISSES = {
    # 8 BBR flows at 40 Mb/s keep 1.61 BDP standing (the rest 1.0–1.5).
    "Fig. 5 2/4/8 BBR × 40/80/120 Mb/s: standing queue",
    LOSS_AT_1_BDP,
    # At 0.25 BDP BBR Shallow loses about as much as BBR: 11.07 vs 11.01 % (it had held by
    # 0.08 pp, 10.94 vs 11.02 %, before BBR's idle restart took only app-limited sends and
    # CUBIC's HyStart and the pacer's first gap followed Linux).
    "Fig. 11 BBR Shallow loses less than BBR at 0.25 BDP",
}


def test_the_quick_reproduction_holds_every_claim_but_the_loss_at_1_bdp(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("aict19", "quick", tmp_path)
    keep(result, "aict19-quick")
    assert {f.name for f in result.findings.figures} == {
        "fig4",
        "fig5",
        "fig6",
        "fig7",
        "fig8",
        "fig9",
        "fig10",
        "fig11",
        "fig12",
    }
    check_claims(result, reproduce, "AICT'19", {LOSS_AT_1_BDP})


@pytest.mark.slow
def test_the_full_reproduction_holds_the_claims_it_reproduces(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("aict19", "full", tmp_path)
    keep(result, "aict19-full")
    check_claims(result, reproduce, "AICT'19", FULL_MISSES)
