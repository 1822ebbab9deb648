"""Shared steps of the `bloatlab reproduce` scenario tests: run a paper, keep its report as a
test artifact, put its claims in the paper-vs-ours table printed at the end of the run, and
require every claim but the listed misses."""

from __future__ import annotations

import shutil
from collections.abc import Set
from pathlib import Path

import pytest

from bloatlab import reproduce as papers
from bloatlab.reproduce import Mode, Reproduction
from browser import ARTIFACTS, chromium, screenshot


def run_paper(paper: str, mode: Mode, folder: Path) -> Reproduction:
    """Reproduce `paper` in `mode`, quietly, into `folder/<mode>`."""
    return papers.reproduce(paper, mode=mode, out_dir=folder / mode, progress=False)


def keep(result: Reproduction, name: str) -> None:
    """Copy the report and claims (not the runs) to test-artifacts/<name>/."""
    target = ARTIFACTS / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for item in ("report.html", "claims.json"):
        shutil.copy2(result.folder / item, target / item)
    shutil.copytree(result.folder / "report_files", target / "report_files")
    try:
        chromium()
    except pytest.skip.Exception:
        return
    screenshot(target / "report.html", f"{name}-report", height=6000)


def record_claims(
    result: Reproduction, record: object, paper: str, known_misses: Set[str] = frozenset()
) -> None:
    """Record every claim (labelled `paper`, known misses marked), print the reproduction's
    text and require that every run completed."""
    for claim in result.findings.claims:
        known = f"{claim.figure} {claim.claim}" in known_misses
        record(  # type: ignore[operator]
            f"{paper} {claim.figure}: {claim.claim}" + (" (known miss)" if known else ""),
            claim.paper,
            claim.ours,
            claim.tolerance,
            claim.passed,
        )
    print(result.text())
    assert result.failed_runs == 0


def check_claims(
    result: Reproduction, record: object, paper: str, misses: Set[str] = frozenset()
) -> None:
    """Record the claims, then require every one except `misses` (which must be claims) to
    hold; listed misses that hold anyway are printed."""
    names = {f"{c.figure} {c.claim}" for c in result.findings.claims}
    assert not misses - names, f"listed misses that are no claim: {sorted(misses - names)}"
    record_claims(result, record, paper, misses)
    held = {f"{c.figure} {c.claim}" for c in result.findings.claims if c.passed}
    print("listed misses that now hold:", sorted(held & misses) or "none")
    failed = [
        f"{c.figure} {c.claim}: {c.ours} (tolerance {c.tolerance})"
        for c in result.findings.claims
        if not c.passed and f"{c.figure} {c.claim}" not in misses
    ]
    assert not failed, "claims that no longer hold:\n" + "\n".join(failed)
