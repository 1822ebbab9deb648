"""The whole WWW'21 reproduction: every figure and claim from every experiment's typical
runs, every run failed, the experiments' protocol and the testbed."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from unittest.mock import patch

import pytest
from matplotlib.figure import Figure
from www21_tables import (
    ABR,
    BUFFER,
    BURST,
    CC,
    JITTER,
    MARGIN,
    RTT,
    Row,
    fig4_5_runs,
    fig6_runs,
    fig7_runs,
    fig8_9_runs,
    fig14_runs,
    fig16_runs,
    sweep,
    table1_runs,
    table2_page_runs,
    table2_runs,
    table3_runs,
)

from bloatlab.builders import HOST_JITTER
from bloatlab.reproduce import www21
from bloatlab.reproduce._base import Findings


def typical_runs(folder: Path) -> dict[str, list[Row]]:
    """Every experiment's runs from the figures' tests (Fig. 4/5's runs also carry Table 2's)."""
    return {
        "fig4-5": fig4_5_runs() + table2_runs(),
        "table2-page": table2_page_runs(),
        "table1": table1_runs(),
        "fig6": fig6_runs(),
        "fig8-9": fig8_9_runs(folder),
        "table3": table3_runs(),
        "fig7": fig7_runs(),
        "fig14": fig14_runs(folder),
        **fig16_runs(),
    }


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory: pytest.TempPathFactory) -> Findings:
    """The paper analysed once from every experiment's typical runs (figures not rendered)."""
    folder = tmp_path_factory.mktemp("www21")
    results = {name: sweep(rows, folder=folder) for name, rows in typical_runs(folder).items()}
    with patch.object(Figure, "savefig"):
        return www21.analyse(results, "quick")


def test_every_figure_is_drawn_in_the_papers_order(reproduction: Findings) -> None:
    assert [(f.name, f.title) for f in reproduction.figures] == [
        ("fig4", "Fig. 4: average quality vs buffer"),
        ("fig5", "Fig. 5: stall rate vs buffer"),
        ("table2", "Table 2: time per BBR state"),
        ("fig6", "Fig. 6: video QoE in a WAN"),
        ("fig8", "Fig. 8: CDF of BBR's RTT"),
        ("fig9", "Fig. 9: CDF of BBR's bandwidth estimate"),
        ("fig10_11", "Fig. 10/11: quality and stall rate by a run's primary state"),
        ("fig13", "Fig. 13: RTT, quality and the ABR's estimate over one session"),
        ("table3", "Table 3: bandwidth estimate vs burst"),
        ("fig15", "Fig. 15: quality vs burst"),
        ("fig7", "Fig. 7: QoE change under deep buffers, per ABR"),
        ("fig14", "Fig. 14: CDF of BBR's and BBR2's rate samples"),
        ("fig16", "Fig. 16: BBR-S and BBR2-S"),
    ]
    for figure in reproduction.figures:  # the PNG is empty: rendering is patched out
        assert (type(figure.png), figure.paper_shows[:11]) == (bytes, "The paper: ")
        assert figure.caption


def test_every_claim_is_filed_under_its_figure(reproduction: Findings) -> None:
    assert Counter(c.figure for c in reproduction.claims) == {
        "Fig. 4": 4,
        "Fig. 5": 1,
        "Fig. 4/5": 3,
        "Table 2": 6,
        "Table 1": 8,
        "Fig. 6": 3,
        "Fig. 8": 2,
        "Fig. 9": 2,
        "Fig. 10/11": 2,
        "Fig. 13": 1,
        "Table 3": 10,
        "Fig. 15": 3,
        "Fig. 7": 4,
        "Fig. 14": 3,
        "Fig. 16": 6,
    }


@pytest.mark.filterwarnings("ignore:No artists with labels found")  # Fig. 8/9's empty CDFs
def test_with_every_run_failed_each_claim_fails_without_a_number(tmp_path: Path) -> None:
    results = {
        name: sweep([{**row, "status": "failed"} for row in rows], folder=tmp_path)
        for name, rows in typical_runs(tmp_path).items()
    }
    with patch.object(Figure, "savefig"):
        found = www21.analyse(results, "quick")
    assert [c.claim for c in found.claims if c.passed] == []
    assert [c.ours for c in found.claims if re.search(r"\d", c.ours)] == []
    assert [c.ours + c.note for c in found.claims if "nan" in c.ours + c.note] == []  # but "–"
    assert len(found.figures) == 13


def test_the_experiments_follow_the_papers_protocol() -> None:
    full = {e.name: e.sweep for e in www21.experiments("full")}
    quick = {e.name: e.sweep for e in www21.experiments("quick")}
    # folder → (sweep, its scenario, runs): points × seeds as the package's docstring tabulates
    assert {name: (s.name, s.base["name"], len(s.points())) for name, s in full.items()} == {
        "fig4-5": ("www21-fig4-5", "www21-buffers", 3 * 7 * 10),
        "table2-page": ("www21-table2-page", "www21-page", 2 * 2 * 10),
        "table1": ("www21-table1", "www21-http1", 2 * 2 * 2 * 5),
        "fig6": ("www21-fig6", "www21-wan", 3 * 2 * 5),
        "fig8-9": ("www21-fig8-9", "www21-samples", 2 * 3),
        "table3": ("www21-table3", "www21-bursts", 2 * 4 * 10),
        "fig7": ("www21-fig7", "www21-abrs", 7 * 2 * 5),
        "fig14": ("www21-fig14", "www21-rate-samples", 2 * 10),
        "fig16": ("www21-fig16", "www21-sampled", 4 * 10),
        "fig16-bbr2-s": ("www21-fig16-bbr2-s", "www21-bbr2-s", 2 * 10),
    }
    assert list(quick) == list(full)
    assert all(s.seeds == [1] for s in quick.values())
    assert full["fig4-5"].grid == {
        CC: ["cubic", "bbr", "bbr2"],
        BUFFER: ["10KB", "100KB", "1MB", "3MB", "5MB", "10MB", "100MB"],
    }
    assert quick["fig4-5"].grid[BUFFER] == ["10KB", "100KB", "10MB"]
    assert full["table2-page"].grid == {CC: ["bbr", "bbr2"], BUFFER: ["100KB", "10MB"]}
    assert full["table1"].grid == {
        CC: ["bbr", "bbr2"],
        RTT: ["10ms", "100ms"],
        BUFFER: ["100KB", "10MB"],
    }
    assert full["fig8-9"].grid == {BUFFER: ["100KB", "10MB"]}
    # §4.3: about 200 ms; "10MB (=16BDP)", "100KB (= 0.16BDP)"
    assert full["fig6"].grid == {CC: ["cubic", "bbr", "bbr2"], BUFFER: ["100KB", "10MB"]}
    assert full["fig6"].base["bottleneck"]["rtt"] == "200ms"
    # §5.2: "across 10 runs each for BBR and BBR2 under a 10MB deep buffer"
    assert full["fig14"].grid == {CC: ["bbr", "bbr2"]}
    assert full["fig14"].base["bottleneck"]["queue"]["limit"] == "10MB"
    assert full["fig14"].base["telemetry"]["rate_samples"] is True
    assert full["table3"].grid == {CC: ["bbr", "bbr2"], BURST: ["8KB", "100KB", "1MB", "2MB"]}
    assert full["fig7"].grid == {
        ABR: ["dynamic", "bola", "throughput", "bba", "rb", "festive", "robust_mpc"],
        BUFFER: ["100KB", "10MB"],
    }
    assert full["fig16"].grid == {CC: ["bbr", "bbr-s", "bbr2", "bbr2-s"]}
    assert full["fig16-bbr2-s"].zips == [{MARGIN: [0, 1], JITTER: [HOST_JITTER, "1ms"]}]
    flow = {name: s.base["flow"][0] for name, s in full.items()}
    assert flow["fig8-9"]["cc"] == flow["fig7"]["cc"] == "bbr"  # the sweeps that vary no CCA
    assert flow["table1"]["app"]["http"] == "h1"
    assert flow["table2-page"]["app"]["page"] == ["2442B", "595378B"]  # player.html, dash.js
    assert flow["fig16-bbr2-s"]["cc"] == {"kind": "bbr2-s", "base": {"pacing_margin_percent": 1}}
    assert full["fig8-9"].base["telemetry"]["rate_samples"] is True
    assert full["fig4-5"].base["telemetry"]["rate_samples"] is False


def test_the_testbed_is_a_25_mbps_token_bucket_with_a_10_mb_buffer_and_one_dash_flow() -> None:
    assert www21.scenario("s", cc="cubic", page=["1KB"]) == {
        "name": "s",
        "bottleneck": {
            "rate": "25Mbps",
            "rtt": "100ms",
            "shaper": {"kind": "tbf", "burst": "1MB"},
            "queue": {"kind": "droptail", "limit": "10MB"},
            "jitter": HOST_JITTER,
        },
        "flow": [
            {
                "name": "video",
                "cc": "cubic",
                "app": {
                    "kind": "dash",
                    "video": "www21",
                    "abr": "dynamic",
                    "http": "h2",
                    "page": ["1KB"],
                },
            }
        ],
        "telemetry": {"interval": "100ms", "rate_samples": False},
    }
