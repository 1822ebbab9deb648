"""The reproduction framework: papers are modules, found by name; claims and figures come out
as a table, claims.json and a report. A toy paper stands in for the real ones."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bloatlab import ScenarioError, cli, reproduce
from bloatlab import sweep as sweep_module
from bloatlab.reproduce import aict19, www21
from bloatlab.reproduce._base import highest, lowest, mean, mean_of_all, pct, ratio, shown
from bloatlab.reproduce.aict19._common import BBR_CC, BBR_SHALLOW_CC
from bloatlab.sweep.executor import Outcome, Task
from bloatlab.sweep.table import SweepResults

TOY = """
from matplotlib.figure import Figure

from bloatlab.report.html import png
from bloatlab.reproduce._base import Claim, Experiment, Findings, Paper, PaperFigure, sweep

SCENARIO = {
    "name": "toy",
    "duration": "2s",
    "bottleneck": {"rate": "10Mbps", "rtt": "20ms"},
    "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
}


def experiments(mode):
    rates = ["5Mbps", "10Mbps"] if mode == "full" else ["10Mbps"]
    return [Experiment("only", sweep("toy", SCENARIO, grid={"bottleneck.rate": rates}))]


def analyse(results, mode):
    rows = results["only"].rows()
    ours = min(r["bottleneck.utilisation"] for r in rows)
    fig = Figure()
    fig.subplots().plot([0, 1], [0, ours])
    return Findings(
        [
            Claim("Fig. 1", "the link is used", "> 50 %", f"{ours:.0%}", "> 50 %", ours > 0.5),
            Claim("Fig. 1", "a claim that fails", "x", "y", "z", False, note="on purpose"),
        ],
        [PaperFigure("fig1", "Fig. 1: use", "The paper shows a used link.", png(fig))],
    )


PAPER = Paper("toy", "Toy paper", "Nobody, 2024", experiments, analyse, {"quick": "q", "full": "f"})
"""


def install_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str = TOY
) -> str:
    """A variant of the toy paper, `text`, findable as paper `name` for this test."""
    papers = tmp_path / "papers"
    papers.mkdir(exist_ok=True)
    (papers / f"{name}.py").write_text(text.replace('Paper("toy",', f'Paper("{name}",'))
    monkeypatch.setattr(reproduce, "__path__", [*reproduce.__path__, str(papers)])
    return name


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    return install_paper(tmp_path, monkeypatch, "toy")


def test_papers_are_the_modules_that_define_one(toy: str) -> None:
    papers = reproduce.available()
    assert "aict19" in papers
    assert papers["toy"] == "Toy paper"
    assert not any(name.startswith("_") for name in papers)


def test_an_unknown_paper_is_an_error_listing_the_papers(toy: str) -> None:
    with pytest.raises(ScenarioError) as e:
        reproduce.load("www99")
    assert "no paper 'www99'" in str(e.value)
    assert "aict19" in str(e.value) and "toy" in str(e.value)
    assert cli.main(["reproduce", "www99"]) == 2


def test_the_list_names_every_paper(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "aict19" in out and "Toy paper" in out


def test_a_reproduction_checks_claims_and_draws_figures(toy: str, tmp_path: Path) -> None:
    result = reproduce.reproduce(
        "toy", mode="full", out_dir=tmp_path / "out", workers=0, progress=False
    )
    assert [c.passed for c in result.findings.claims] == [True, False]
    assert not result.passed
    assert (result.runs, result.computed, result.failed_runs) == (2, 2, 0)
    text = result.text()
    assert "the link is used" in text and "FAIL" in text and "on purpose" in text
    assert "1 of 2 claims hold" in text
    claims = json.loads((tmp_path / "out" / "claims.json").read_text())
    assert claims["mode"] == "full" and len(claims["claims"]) == 2
    html = result.report.read_text()
    assert "The paper shows a used link." in html and "data:image/png;base64," in html
    assert (tmp_path / "out" / "only" / "sweep.parquet").is_file()
    again = reproduce.reproduce(
        "toy", mode="quick", out_dir=tmp_path / "out", workers=0, progress=False
    )
    assert (again.runs, again.computed) == (1, 0)  # quick is a subset: nothing to compute


def test_experiments_share_one_run_store_so_a_run_two_figures_need_is_computed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The toy paper with a second experiment over 10 and 20 Mb/s: 10 Mb/s is in both.
    text = TOY.replace(
        'return [Experiment("only", sweep("toy", SCENARIO, grid={"bottleneck.rate": rates}))]',
        'return [Experiment("only", sweep("toy", SCENARIO, grid={"bottleneck.rate": rates})),'
        ' Experiment("other", sweep("toy", SCENARIO,'
        ' grid={"bottleneck.rate": ["10Mbps", "20Mbps"]}))]',
    )
    assert "other" in text
    paper = install_paper(tmp_path, monkeypatch, "toy_shared", text)
    executed: list[str] = []
    execute = sweep_module._execute

    def counting(tasks: Sequence[Task], workers: int | None, dask: str | None) -> Iterator[Outcome]:
        executed.extend(task.key for task in tasks)
        return execute(tasks, workers, dask)

    monkeypatch.setattr(sweep_module, "_execute", counting)
    result = reproduce.reproduce(
        paper, mode="full", out_dir=tmp_path / "out", workers=0, progress=False
    )
    assert (result.runs, result.computed) == (3, 3)
    assert len(executed) == len(set(executed)) == 3
    shared = [
        row["run"]
        for name in ("only", "other")
        for row in SweepResults.load(tmp_path / "out" / name).rows()
        if row["bottleneck.rate"] == "10Mbps"
    ]
    assert len(shared) == 2 and shared[0] == shared[1]


def test_the_cli_exits_1_when_a_claim_fails(toy: str, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    assert cli.main(["reproduce", "toy", "--quick", "-o", str(out), "--workers", "0", "-q"]) == 1
    assert (out / "report.html").is_file()


def test_the_cli_exits_1_when_a_run_fails_though_every_claim_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The toy paper with its failing claim removed and a run the core refuses (a zero rate).
    failing = 'Claim("Fig. 1", "a claim that fails", "x", "y", "z", False, note="on purpose"),'
    text = TOY.replace(f"            {failing}\n", "")
    assert failing not in text
    text = text.replace('["10Mbps"]', '["10Mbps", "0Mbps"]')
    text = text.replace("for r in rows)", 'for r in rows if r["status"] == "done")')
    paper = install_paper(tmp_path, monkeypatch, "toy_run_fails", text)
    out = tmp_path / "cli"
    args = ["reproduce", paper, "--quick", "-o", str(out), "--workers", "0", "-q"]
    assert cli.main(args) == 1
    claims = json.loads((out / "claims.json").read_text())["claims"]
    assert [claim["passed"] for claim in claims] == [True]


def test_the_cli_refuses_a_negative_worker_count_before_running_anything(
    toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # as `bloatlab sweep` does; before, `--workers -1` ran on one worker without a word
    out = tmp_path / "cli"
    assert cli.main(["reproduce", "toy", "--quick", "-o", str(out), "--workers", "-1"]) == 2
    assert "--workers: -1: allowed ≥ 0" in capsys.readouterr().err
    assert not out.exists()


def test_aict19_declares_the_papers_grid() -> None:
    full = {e.name: e.sweep for e in aict19.experiments("full")}
    quick = {e.name: e.sweep for e in aict19.experiments("quick")}
    figures = {"fig4", "fig5-bbr", "fig5-cubic", "fig7", "fig10", "fig11", "fig12"}
    assert set(full) == set(quick) == figures
    assert len(full["fig7"].points()) == 10 * 3 * 3 * 3  # Table I × 3 trials
    assert full["fig7"].base["duration"] == "300s"
    assert full["fig7"].base["telemetry"]["summary_start"] == "120s"
    assert len(quick["fig7"].points()) < len(full["fig7"].points())
    assert BBR_SHALLOW_CC in full["fig11"].grid["flow.bbr.cc"]
    assert full["fig12"].grid["flow.bbr.cc"] == [BBR_SHALLOW_CC]
    # The testbed ran Linux 4.17: BBR and BBR Shallow both run that kernel's provisioning.
    assert BBR_CC["kernel"] == BBR_SHALLOW_CC["kernel"] == "4.17"
    for name in ("fig5-bbr", "fig7", "fig10"):
        assert full[name].base["flow"][0]["cc"] == BBR_CC
    # Fig. 11's BBR runs are Fig. 7's: same base scenario, so the same run keys.
    assert full["fig11"].base == full["fig7"].base


def test_www21_turns_quality_and_stall_rate_into_the_media_rate_the_link_carried() -> None:
    # level 4 (10 Mb/s) played with a stall rate of 0.75: 10 Mb/s of media over 1.75 × the video
    assert www21.media_rate_mbps(4, 0.75) == pytest.approx(10 / 1.75)
    # between rungs the ladder is linear; level 0 is 1 Mb/s
    assert www21.media_rate_mbps(9.5, 0) == pytest.approx(23.75)
    assert www21.media_rate_mbps(0, 1) == pytest.approx(0.5)
    # Table 1, 100 ms, 10 MB, BBR (3.75, 0.14): about a third of the 25 Mb/s link
    assert www21.media_rate_mbps(3.75, 0.14) == pytest.approx(9.375 / 1.14)


def test_a_mean_skips_missing_and_non_finite_values() -> None:
    assert mean([1.0, None, math.nan, math.inf, 3.0]) == 2.0
    assert math.isnan(mean([None, math.nan]))
    assert (pct(0.1234), pct(0.5, digits=0), pct(math.nan)) == ("12.3 %", "50 %", "–")


def test_a_mean_of_all_values_is_missing_when_one_is() -> None:
    # a claim on a mean over conditions fails when a condition did not run
    assert mean_of_all([1.0, 2.0, 6.0]) == 3.0
    for values in ([1.0, math.nan], [math.nan, 1.0], []):
        assert math.isnan(mean_of_all(values))


def test_a_missing_value_is_shown_as_a_dash() -> None:
    assert (shown(0.456, ".0%"), shown(2.345, ".2f"), shown(math.nan, ".1%")) == (
        "46%",
        "2.35",
        "–",
    )


def test_extremes_and_ratios_of_a_missing_value_are_missing() -> None:
    # a claim on a point that did not run fails, whichever position it has in the list
    assert (highest([1.0, 3.0, 2.0]), lowest([2.0, 1.0, 3.0])) == (3.0, 1.0)
    for values in ([1.0, math.nan], [math.nan, 1.0], []):
        assert math.isnan(highest(values)) and math.isnan(lowest(values))
    assert max([1.0, math.nan]) == 1.0  # what Python's max does instead
    assert ratio(3.0, 2.0) == 1.5
    assert math.isnan(ratio(3.0, 0.0)) and math.isnan(ratio(0.0, 0.0))
    assert math.isnan(ratio(1.0, math.nan)) and math.isnan(ratio(math.nan, 1.0))
