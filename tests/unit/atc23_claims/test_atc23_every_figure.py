"""Every ATC'23 figure: the tolerance each claim states, the PNG drawn, and every claim
failed without a crash when no run finished."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from atc23_tables import (
    FIG9,
    analyse,
    fig3_results,
    fig4_results,
    fig5_results,
    fig7_results,
    fig8_results,
    fig9_results,
    fig12_results,
)

from bloatlab.reproduce._base import Findings
from bloatlab.reproduce.atc23 import fig3, fig4, fig5, fig7, fig8, fig9, fig12
from bloatlab.sweep.table import SweepResults
from sweep_tables import unfinished

BASELINES: dict[str, tuple[ModuleType, Callable[[Path], dict[str, SweepResults]]]] = {
    "fig3": (fig3, fig3_results),
    "fig4": (fig4, fig4_results),
    "fig5": (fig5, fig5_results),
    "fig7": (fig7, fig7_results),
    "fig8": (fig8, fig8_results),
    "fig9": (fig9, lambda path: fig9_results(path, FIG9)),
    "fig12": (fig12, fig12_results),
}
TITLES = {
    "fig3": "Fig. 3: BBR against CUBIC for configuration sets of g and R, with the model",
    "fig4": "Fig. 4: a BBR flow when the bandwidth drops",
    "fig5": "Fig. 5: BBR's samples at a constant and a dropping bandwidth",
    "fig7": "Fig. 7: performance of the algorithms in stable networks",
    "fig8": "Fig. 8: performance of the algorithms in multi-flow scenarios",
    "fig9": "Fig. 9: BBR and oBBR when the bandwidth varies",
    "fig12": "Fig. 12: competitiveness of oBBR against other algorithms",
}


# What each claim states as its tolerance, in order: the rules the figures' edge tests check.
TOLERANCES = {
    "fig3": [
        "non-increasing (±2 pp), R 16 < R 0.5",
        "< 1 - (R-g+1)/(gR) wherever that is < 1",
        "BBR ≥ 80 %",
        "±40% relative",
        "BBR ≤ 20 % at every R",
        "non-decreasing (±2 pp), g 4 > g 1",
    ],
    "fig4": [*["±30%"] * 2, "±50% each", "75%–133% each", "after > before, each"],
    "fig5": [
        "±15 pp each",
        "constant < k = 30 ≤ each drop (oBBR's k)",
        "≤ k = 30 (oBBR flags more than k)",
        "±50% each",
    ],
    "fig7": [
        "≥ 10 % in each condition",
        "≤ 3 % in each condition",
        "≥ 80 % in each condition",
        "≥ 80 % everywhere",
        *["each ±1 pp"] * 3,
        *["< 50% of the link in each of the paper's two"] * 2,
        "max(CUBIC, BBRv2) < min(BBR family) in each",
        "±30% relative",
        "means ordered",
        "strictly falling for each",
        "R 0.2 > R 0.4 for each μ",
        "BBRv2 > CUBIC at each R",
    ],
    "fig8": [
        "each ±40% relative",
        "at every flow count",
        "max over 2–5 flows > 1 flow",
        *["< 1% at every flow count"] * 2,
        *["< 1%"] * 2,
        "±40% relative",
        "Jain ≥ 0.9 for each",
        "≥ 80% for each",
    ],
    "fig9": [
        "oBBR < BBR (to ≤ 1.5× the new rate)",
        "≤ 3 s",
        "3–9 s",
        "oBBR < BBR",
        "±40% relative",
        "within 10%",
    ],
    "fig12": [
        "non-decreasing in μ, μ 1 > μ 0.5",
        *["±10 pp"] * 2,
        "R 1 > R 0.5 for each μ",
        "50 % < oBBR-μ < BBR for each μ",
        "±10 pp",
        "within ±10 pp for each μ",
        "BBRv2 > CUBIC",
    ],
}


@pytest.mark.parametrize("name", BASELINES)
def test_each_claim_states_the_tolerance_it_is_judged_by(tmp_path: Path, name: str) -> None:
    module, results = BASELINES[name]
    claims = analyse(module, results(tmp_path)).claims
    assert [c.tolerance for c in claims] == TOLERANCES[name]


@pytest.mark.parametrize("name", BASELINES)
def test_each_figure_is_drawn_as_a_png(tmp_path: Path, name: str) -> None:
    module, results = BASELINES[name]
    findings: Findings = module.analyse(results(tmp_path), "quick")
    [figure] = findings.figures
    assert (figure.name, figure.title) == (name, TITLES[name])
    assert figure.png.startswith(b"\x89PNG")
    assert {c.figure for c in findings.claims} == {figure.title.split(":")[0]}


@pytest.mark.parametrize("name", list(BASELINES))
def test_no_finished_run_fails_every_claim_without_crashing(tmp_path: Path, name: str) -> None:
    module, results = BASELINES[name]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "png", lambda figure: b"")  # drawn, not rendered
        findings: Findings = module.analyse(unfinished(results(tmp_path)), "quick")
    assert findings.claims
    assert not any(c.passed for c in findings.claims)
    assert [c.ours + c.note for c in findings.claims if "nan" in c.ours + c.note] == []  # "–"
    assert [f.name for f in findings.figures] == [name]
