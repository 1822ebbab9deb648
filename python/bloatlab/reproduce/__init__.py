"""`bloatlab reproduce PAPER`: a paper's experiments as sweeps, its claims checked, its figures
redrawn from our runs.

Papers are the modules of this package that define `PAPER` (see `_base.py`); adding a module
adds a paper. `available()` lists them; `reproduce(name, ...)` runs one:

    out/
      runs/                   one run store shared by all experiments
      <experiment>/           a sweep folder per experiment (sweep.json, sweep.parquet)
      claims.json             every claim: paper, ours, tolerance, pass/fail
      report.html             the claims table, and each figure beside what the paper shows
      report_files/*.png
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import ScenarioError
from ..report.html import Plot, Section, esc, table, write_page
from ..results_folder import CLAIMS_FILE, REPORT_FILE
from ..store import write_file
from ..sweep import run_sweeps
from ..sweep.table import SweepResults
from ._base import MODES, Claim, Experiment, Findings, Mode, Paper, PaperFigure

__all__ = [
    "Claim",
    "Experiment",
    "Findings",
    "Mode",
    "Paper",
    "PaperFigure",
    "Reproduction",
    "available",
    "load",
    "reproduce",
]


def available() -> dict[str, str]:
    """Paper name → title, for every paper module present."""
    papers = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module.name.startswith("_"):
            continue
        paper = getattr(importlib.import_module(f"{__name__}.{module.name}"), "PAPER", None)
        if isinstance(paper, Paper):
            papers[paper.name] = paper.title
    return papers


def load(name: str) -> Paper:
    """The paper called `name`; a clear error listing the papers present if there is none."""
    papers = available()
    if name not in papers:
        listed = ", ".join(papers) or "none"
        raise ScenarioError("PAPER", f"no paper {name!r}; papers available: {listed}")
    paper: Paper = importlib.import_module(f"{__name__}.{name}").PAPER
    return paper


@dataclass
class Reproduction:
    paper: Paper
    mode: Mode
    folder: Path
    findings: Findings
    runs: int
    computed: int
    failed_runs: int
    wall_s: float
    simulate_s: float
    report: Path

    @property
    def passed(self) -> bool:
        return all(claim.passed for claim in self.findings.claims)

    def text(self) -> str:
        """The claims table and a one-line verdict, for the terminal."""
        claims = self.findings.claims
        head = ("figure", "claim", "paper", "ours", "tolerance", "")
        rows = [head] + [
            (c.figure, c.claim, c.paper, c.ours, c.tolerance, "pass" if c.passed else "FAIL")
            for c in claims
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = [
            f"{self.paper.title} — {self.mode} ({self.paper.modes.get(self.mode, '')})",
            *("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows),
            "",
            f"{sum(c.passed for c in claims)} of {len(claims)} claims hold; {self.runs} runs "
            f"({self.computed} computed, {self.failed_runs} failed) in {self.wall_s:.0f} s "
            f"(simulation {self.simulate_s:.0f} s of CPU)",
            f"report: {self.report}",
        ]
        notes = [f"  {c.figure} {c.claim}: {c.note}" for c in claims if c.note]
        if notes:
            lines[-2:-2] = ["notes:", *notes]
        return "\n".join(lines)


def reproduce(
    name: str,
    *,
    mode: Mode = "full",
    out_dir: str | os.PathLike[str],
    workers: int | None = None,
    dask: str | None = None,
    progress: bool = True,
) -> Reproduction:
    """Run paper `name`'s experiments (missing runs only), check its claims, draw its figures."""
    if mode not in MODES:
        raise ScenarioError("mode", f"{mode!r}; allowed: {', '.join(MODES)}")
    paper = load(name)
    start = time.perf_counter()
    folder = Path(out_dir).absolute()
    experiments = list(paper.experiments(mode))
    outcomes = run_sweeps(
        [(e.sweep, folder / e.name) for e in experiments],
        folder / "runs",
        workers=workers,
        dask=dask,
        progress=progress,
        label=f"reproduce {name} --{mode}",
    )
    results = {e.name: SweepResults.load(folder / e.name) for e in experiments}
    findings = paper.analyse(results, mode)
    keys = {row["run"] for r in results.values() for row in r.rows()}
    failed = {key for o in outcomes for key in o.errors}
    timings = {key: t for o in outcomes for key, t in o.timings.items()}
    wall = time.perf_counter() - start
    report = _write_report(paper, mode, folder, findings)
    reproduction = Reproduction(
        paper=paper,
        mode=mode,
        folder=folder,
        findings=findings,
        runs=len(keys),
        computed=len(timings),
        failed_runs=len(failed),
        wall_s=wall,
        simulate_s=sum(t["simulate_s"] for t in timings.values()),
        report=report,
    )
    claims = {
        "paper": paper.name,
        "title": paper.title,
        "mode": mode,
        "claims": [asdict(c) for c in findings.claims],
    }
    write_file(folder / CLAIMS_FILE, (json.dumps(claims, indent=2) + "\n").encode())
    return reproduction


def _write_report(paper: Paper, mode: Mode, folder: Path, findings: Findings) -> Path:
    claims = findings.claims
    passed = sum(c.passed for c in claims)
    summary = Section(
        "Claims",
        intro=esc(
            f"{passed} of {len(claims)} claims hold ({mode} mode: {paper.modes.get(mode, '')})."
        ),
        html=_claims_table(claims),
    )
    sections = [summary]
    for figure in findings.figures:
        label = figure.figure or figure.title.split(":")[0]
        own = [c for c in claims if c.figure == label]
        left = (
            f"<p><b>The paper shows:</b> {esc(figure.paper_shows)}</p>"
            + (f"<p><b>Ours:</b> {esc(figure.caption)}</p>" if figure.caption else "")
            + (_claims_list(own) if own else "")
        )
        sections.append(
            Section(
                figure.title,
                intro=left,
                plots=[Plot(figure.name, figure.title, figure.png)],
                layout="paper",
            )
        )
    subtitle = esc(f"{paper.citation} · bloatlab reproduce {paper.name} --{mode} · {folder}")
    return write_page(folder / REPORT_FILE, paper.title, subtitle, sections)


def _claims_list(claims: list[Claim]) -> str:
    items = "".join(
        f'<li class="{"pass" if c.passed else "fail"}"><b>{"pass" if c.passed else "FAIL"}</b> '
        f"{esc(c.claim)}: ours {esc(c.ours)}; paper {esc(c.paper)} (tolerance "
        f"{esc(c.tolerance)})</li>"
        for c in claims
    )
    return f'<ul class="claims">{items}</ul>'


def _claims_table(claims: list[Claim]) -> str:
    rows = [
        (c.figure, c.claim, c.paper, c.ours, c.tolerance, "pass" if c.passed else "FAIL")
        for c in claims
    ]
    verdicts = ["pass" if c.passed else "fail" for c in claims]
    head = ("figure", "claim", "paper", "ours", "tolerance", "")
    return table(head, rows, numeric_from=len(head), row_classes=verdicts)
