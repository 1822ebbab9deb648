"""What a paper module declares, and what a reproduction produces.

A paper module (`bloatlab/reproduce/<name>.py`, or a package with a module per figure) defines
`PAPER`, a `Paper`:

* `experiments(mode)`: the paper's experiments as sweeps (`mode` is `"quick"` or `"full"`);
* `analyse(results, mode)`: from the sweeps' results (`SweepResults` by experiment name), the
  paper's claims (`Claim`: paper value, ours, tolerance, pass/fail) and its figures redrawn
  from our runs (`PaperFigure`, each beside a one-line description of what the paper shows).

The runner (`bloatlab.reproduce.reproduce`) runs all experiments as one batch sharing one run
store, so runs two figures need are computed once, and writes the claims and a report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from ..sweep import Sweep
from ..sweep.table import SweepResults

Mode = Literal["quick", "full"]
MODES: tuple[Mode, ...] = ("quick", "full")


@dataclass(frozen=True)
class Experiment:
    """One sweep of the paper; `name` is its folder in the reproduction."""

    name: str
    sweep: Sweep


@dataclass(frozen=True)
class Claim:
    """One number or statement of the paper, checked against our runs."""

    figure: str  # "Fig. 7"
    claim: str  # "BBR loss at 0.5 BDP"
    paper: str  # the paper's value, as the paper gives it
    ours: str
    tolerance: str
    passed: bool
    note: str = ""


@dataclass(frozen=True)
class PaperFigure:
    """One of the paper's figures drawn from our runs."""

    name: str  # "fig7"
    title: str  # "Fig. 7: BBR's loss against router queue size"
    paper_shows: str  # one line: what the paper's figure shows
    png: bytes
    caption: str = ""  # how ours was made, and what to compare
    figure: str = ""  # the figure label claims use ("Fig. 7"); default the title's prefix


@dataclass(frozen=True)
class Findings:
    claims: list[Claim] = field(default_factory=list)
    figures: list[PaperFigure] = field(default_factory=list)


Analysis = Callable[[Mapping[str, SweepResults], Mode], Findings]


def analyse_all(
    parts: Iterable[Analysis], results: Mapping[str, SweepResults], mode: Mode
) -> Findings:
    """The claims and figures of each part (a figure's or table's analysis), in order."""
    claims: list[Claim] = []
    figures: list[PaperFigure] = []
    for part in parts:
        found = part(results, mode)
        claims.extend(found.claims)
        figures.extend(found.figures)
    return Findings(claims, figures)


class FigurePart(Protocol):
    """A module of a paper package that reproduces one figure or table."""

    def experiments(self, mode: Mode) -> list[Experiment]: ...

    def analyse(self, results: Mapping[str, SweepResults], mode: Mode) -> Findings: ...


@dataclass(frozen=True)
class ByFigure:
    """A paper's experiments and analysis, gathered from its figures' modules in order."""

    parts: Sequence[FigurePart]

    def experiments(self, mode: Mode) -> list[Experiment]:
        return [e for part in self.parts for e in part.experiments(mode)]

    def analyse(self, results: Mapping[str, SweepResults], mode: Mode) -> Findings:
        return analyse_all((part.analyse for part in self.parts), results, mode)


@dataclass(frozen=True)
class Paper:
    name: str
    title: str
    citation: str
    experiments: Callable[[Mode], Sequence[Experiment]]
    analyse: Analysis
    modes: Mapping[Mode, str] = field(default_factory=dict)  # what each mode runs


def sweep(
    name: str,
    base: dict[str, Any],
    *,
    grid: Mapping[str, list[Any]] | None = None,
    zips: Sequence[Mapping[str, list[Any]]] = (),
    seeds: int = 1,
    description: str = "",
) -> Sweep:
    """A sweep of `base` over `grid` (every combination) and `zips` (keys varied together)."""
    doc: dict[str, Any] = {
        "name": name,
        "description": description,
        "scenario": base,
        "grid": dict(grid or {}),
        "seeds": seeds,
    }
    if zips:
        doc["zip"] = [dict(z) for z in zips]
    return Sweep.from_dict(doc)


def done(results: SweepResults) -> list[dict[str, Any]]:
    """The rows of the runs that finished."""
    return [r for r in results.rows() if r["status"] == "done"]


def mean(values: Iterable[float | None]) -> float:
    """Mean of the finite values (NaN if there are none)."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def mean_of_all(values: Iterable[float]) -> float:
    """Mean of every value; NaN if one is missing (NaN) or there are none, so a claim on a mean
    over conditions fails when a condition did not run (`mean` would average the rest)."""
    listed = list(values)
    return float(np.mean(listed)) if listed else math.nan


def highest(values: Iterable[float]) -> float:
    """The largest value; NaN if one is missing (NaN) or there are none, so a claim on it fails.
    (Python's `max` skips a NaN that is not first.)"""
    listed = list(values)
    return float(np.max(listed)) if listed else math.nan


def lowest(values: Iterable[float]) -> float:
    """The smallest value; NaN if one is missing (NaN) or there are none."""
    listed = list(values)
    return float(np.min(listed)) if listed else math.nan


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN where the denominator is 0 (or NaN): a claim on it fails."""
    return numerator / denominator if denominator else math.nan


def shown(value: float, spec: str) -> str:
    """`value` in the format `spec` ("–" for a missing value, NaN)."""
    return "–" if math.isnan(value) else format(value, spec)


def pct(value: float, digits: int = 1) -> str:
    """A fraction as a percentage ("–" for NaN)."""
    return "–" if math.isnan(value) else f"{value * 100:.{digits}f} %"
