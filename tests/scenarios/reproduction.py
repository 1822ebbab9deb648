"""Shared steps of the `bloatlab reproduce` scenario tests: keep a reproduction's report as a
test artifact, and put its claims in the paper-vs-ours table printed at the end of the run."""

from __future__ import annotations

import shutil
from collections.abc import Set

import pytest

from bloatlab.reproduce import Reproduction
from browser import ARTIFACTS, chromium, screenshot


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
