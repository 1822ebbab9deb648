"""`bloatlab reproduce aict19`: every claim of the paper, checked on our runs.

The quick reproduction (a few minutes on 2 cores) runs by default; the full one, the paper's
protocol, with `pytest -m slow`. The claims land in the paper-vs-ours table at the end of the
pytest run; the report (and a screenshot, when Chromium is installed) in test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from reproduction import keep, record_claims

from bloatlab import reproduce as papers
from bloatlab.reproduce import Reproduction


def check(result: Reproduction, record: object) -> None:
    record_claims(result, record, "AICT'19")
    failed = [f"{c.figure} {c.claim}: {c.ours}" for c in result.findings.claims if not c.passed]
    assert not failed


def test_the_quick_reproduction_holds_every_claim(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("quick", tmp_path)
    keep(result, "aict19-quick")
    assert {f.name for f in result.findings.figures} == {
        "fig5",
        "fig7",
        "fig9",
        "fig10",
        "fig11",
        "fig12",
    }
    check(result, reproduce)


@pytest.mark.slow
def test_the_full_reproduction_holds_every_claim(
    core: ModuleType, tmp_path: Path, reproduce: object
) -> None:
    result = run_paper("full", tmp_path)
    keep(result, "aict19-full")
    check(result, reproduce)


def run_paper(mode: str, folder: Path) -> Reproduction:
    return papers.reproduce("aict19", mode=mode, out_dir=folder / mode, progress=False)  # type: ignore[arg-type]
