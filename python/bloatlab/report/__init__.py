"""`bloatlab report PATH`: a self-contained HTML page with plots, for a run or a sweep folder.

The page embeds every plot as a PNG data URI, so it can be mailed or archived alone; the same
PNGs are written to `<report>_files/` beside it for papers and slides.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import ScenarioError
from ..results_folder import REPORT_FILE, folder_kind
from ..sweep.table import SweepResults
from .html import Plot, Section, write_page
from .run import run_sections
from .sweep import sweep_sections

__all__ = ["Plot", "Section", "write_page", "write_report"]


def write_report(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    metrics: Sequence[str] | None = None,
    x: str | None = None,
) -> Path:
    """Write the report of the run or sweep folder `path` (default `path/report.html`)."""
    folder = Path(path)
    if folder_kind(folder, "PATH") == "sweep":
        title, subtitle, sections = sweep_sections(SweepResults.load(folder), metrics, x)
    else:
        for option, given in (("--metric", metrics), ("--x", x)):
            if given:
                raise ScenarioError(option, f"only for a sweep folder; {folder} is a run folder")
        title, subtitle, sections = run_sections(folder)
    return write_page(out or folder / REPORT_FILE, title, subtitle, sections)
