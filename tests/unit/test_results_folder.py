"""A results folder is told by its marking file; anything else is bad input naming the argument."""

from __future__ import annotations

from pathlib import Path

import pytest

from bloatlab import cli
from bloatlab.errors import ScenarioError
from bloatlab.results_folder import folder_kind


def marked(folder: Path, *files: str) -> Path:
    folder.mkdir()
    for name in files:
        (folder / name).write_text("{}")
    return folder


def test_a_sweep_manifest_makes_a_sweep_and_a_summary_a_run(tmp_path: Path) -> None:
    assert folder_kind(marked(tmp_path / "s", "sweep.json"), "A") == "sweep"
    assert folder_kind(marked(tmp_path / "r", "summary.json"), "A") == "run"
    # the manifest decides when a folder holds both files
    assert folder_kind(marked(tmp_path / "both", "summary.json", "sweep.json"), "A") == "sweep"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            ("claims.json",),
            r"^B: (?P<f>.*/x) is a reproduction: its report is (?P=f)/report\.html, written by "
            r"`bloatlab reproduce`; its experiments are sweep folders inside it$",
        ),
        (
            ("run.json", "flows.parquet"),
            r"^B: .*/x is neither a run folder \(summary\.json\) nor a sweep folder "
            r"\(sweep\.json\)$",
        ),
        (None, r"^B: no such folder: .*/x$"),
    ],
)
def test_any_other_path_is_an_error_naming_the_argument(
    tmp_path: Path, files: tuple[str, ...] | None, message: str
) -> None:
    folder = tmp_path / "x" if files is None else marked(tmp_path / "x", *files)
    with pytest.raises(ScenarioError, match=message):
        folder_kind(folder, "B")


@pytest.mark.parametrize("command", ["report", "compare"])
def test_report_and_compare_refuse_a_reproduction_folder_as_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    reproduction = marked(tmp_path / "www21", "claims.json")
    run = marked(tmp_path / "run", "summary.json")
    argv = [str(reproduction)] if command == "report" else [str(reproduction), str(run)]
    assert cli.main([command, *argv]) == 2
    argument = "PATH" if command == "report" else "A"
    assert f"{argument}: {reproduction} is a reproduction" in capsys.readouterr().err
    assert not (reproduction / "report.html").exists()
