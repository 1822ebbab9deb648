"""What a results folder is, told by the file that marks it: a run, a sweep or a reproduction.

`report` and `compare` read run and sweep folders; any other path is bad input naming the
command-line argument that gave it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from .errors import ScenarioError
from .runstore import SUMMARY_FILE
from .sweep.table import MANIFEST

CLAIMS_FILE = "claims.json"  # marks a reproduction folder (`bloatlab reproduce`)
REPORT_FILE = "report.html"  # the page `report` and `reproduce` write into a folder


def folder_kind(folder: Path, argument: str) -> Literal["run", "sweep"]:
    """The folder's kind, "sweep" or "run"; any other path is a ScenarioError naming `argument`."""
    if (folder / MANIFEST).is_file():
        return "sweep"
    if (folder / SUMMARY_FILE).is_file():
        return "run"
    if (folder / CLAIMS_FILE).is_file():
        raise ScenarioError(
            argument,
            f"{folder} is a reproduction: its report is {folder / REPORT_FILE}, written by "
            "`bloatlab reproduce`; its experiments are sweep folders inside it",
        )
    if folder.is_dir():
        raise ScenarioError(
            argument,
            f"{folder} is neither a run folder ({SUMMARY_FILE}) nor a sweep folder ({MANIFEST})",
        )
    raise ScenarioError(argument, f"no such folder: {folder}")
