"""The shipped scenarios on the real simulation core (skipped until it is built)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bloatlab
from bloatlab import cli

SCENARIOS = Path(__file__).parents[2] / "scenarios"
DEMO = SCENARIOS / "demo.toml"


SHIPPED = sorted(
    p for p in SCENARIOS.rglob("*.toml") if "sweeps" not in p.relative_to(SCENARIOS).parts
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenario_resolves(core: ModuleType, path: Path) -> None:
    resolved = bloatlab.resolve(path)
    bottleneck = resolved["bottleneck"]
    assert (bottleneck["rate_bps"] or bottleneck["trace"]["mean_rate_bps"]) > 0
    assert resolved["bottleneck"]["rtt_ns"] > 0


def test_unknown_field_is_reported_with_its_path(core: ModuleType) -> None:
    with pytest.raises(bloatlab.ScenarioError) as e:
        bloatlab.resolve(DEMO, overrides=["bottleneck.colour=red"])
    assert e.value.path.startswith("bottleneck")
    assert "colour" in str(e.value)


def test_bad_unit_is_reported_with_its_path(core: ModuleType) -> None:
    with pytest.raises(bloatlab.ScenarioError) as e:
        bloatlab.resolve(DEMO, overrides=["bottleneck.rate=25 furlongs"])
    assert e.value.path == "bottleneck.rate"


def test_demo_runs_and_shares_the_bottleneck(core: ModuleType, tmp_path: Path) -> None:
    result = bloatlab.simulate(DEMO)
    summary = result.summary
    assert set(summary["flows"]) == {"bbr", "cubic"}
    assert summary["duration_s"] == pytest.approx(30)
    # The bucket starts full, so up to `burst` bytes can leave on top of rate × duration.
    burst_share = 1e6 * 8 / (25e6 * 30)
    assert 0.8 < summary["bottleneck"]["utilisation"] <= 1.0 + burst_share
    for flow in summary["flows"].values():
        assert flow["goodput_bps"] > 1e6
        assert flow["rtt_p50_s"] >= 0.040
    assert result.dictionaries["flow"] == ["bbr", "cubic"]
    assert pa.types.is_dictionary(result.flows.schema.field("cc_state").type)
    assert result.stats["sim_time_s"] == pytest.approx(30)

    out = result.write(tmp_path / "demo", plot=True)
    assert json.loads((out / "summary.json").read_text()) == summary
    assert pq.read_table(out / "flows.parquet").num_rows == result.flows.num_rows
    assert (out / "overview.png").stat().st_size > 20_000


def test_demo_shows_what_the_readme_says_it_shows(core: ModuleType) -> None:
    # README: "BBR's STARTUP estimate jump[s] to 150 Mb/s while the full bucket lets its burst
    # through at line rate, and CUBIC fill[s] the buffer later" (CUBIC joins at 10 s).
    result = bloatlab.simulate(DEMO)
    flows, queue = result.flows.to_pandas(), result.queue.to_pandas()
    bbr = flows[flows.flow == "bbr"]
    rate, bdp = 25e6, 25e6 * 0.040 / 8
    assert bbr[bbr.cc_state == "STARTUP"].bw_est_bps.max() >= 5 * rate
    alone = (bbr.t >= 5) & (bbr.t < 10)
    assert bbr[alone].bw_est_bps.median() == pytest.approx(rate * 1448 / 1500, rel=0.05)
    backlog_alone = queue[(queue.t >= 5) & (queue.t < 10)].backlog_bytes.mean()
    backlog_shared = queue[queue.t >= 15].backlog_bytes.mean()
    assert backlog_alone < 0.5 * bdp
    assert backlog_shared > 2 * bdp


def test_a_flow_starting_at_the_end_of_the_run_never_sends(core: ModuleType) -> None:
    summary = bloatlab.simulate(DEMO, overrides={"flow.cubic.start": "30s"}).summary
    assert summary["flows"]["cubic"]["bytes_sent"] == 0
    assert summary["flows"]["bbr"]["bytes_sent"] > 0


def test_the_core_releases_the_gil_while_it_simulates(core: ModuleType) -> None:
    # README: "the core releases the GIL, so threads run simulations in parallel". While a
    # half-second simulation runs on a thread, this thread keeps running: its longest pause
    # stays far below the simulation's length (were the GIL held, it would be all of it).
    from bloatlab.bench import BENCHMARKS

    finished = threading.Event()
    worker = threading.Thread(
        target=lambda: (bloatlab.simulate(BENCHMARKS["bbr-bulk-600s"]), finished.set())
    )
    began = last = time.perf_counter()
    longest_pause = 0.0
    worker.start()
    while not finished.is_set():
        now = time.perf_counter()
        longest_pause, last = max(longest_pause, now - last), now
    worker.join()
    simulated_for = time.perf_counter() - began
    assert simulated_for > 0.1  # long enough for a held GIL to show
    assert longest_pause < simulated_for / 3


def test_same_seed_same_results_byte_for_byte(core: ModuleType, tmp_path: Path) -> None:
    # random loss and jitter draw from the seed too
    short = {"duration": "5s", "bottleneck.loss": 0.01, "bottleneck.jitter": "200us"}
    a = bloatlab.simulate(DEMO, overrides=short).write(tmp_path / "a")
    b = bloatlab.simulate(DEMO, overrides=short).write(tmp_path / "b")
    names = sorted(p.name for p in a.iterdir())
    assert names == sorted(p.name for p in b.iterdir())
    assert {"summary.json", "flows.parquet", "queue.parquet", "samples.parquet"} <= set(names)
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    other = bloatlab.simulate(DEMO, overrides=short, seed=2).write(tmp_path / "c")
    assert (other / "summary.json").read_bytes() != (a / "summary.json").read_bytes()


def test_cli_run_demo(core: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "demo"
    assert cli.main(["run", str(DEMO), "-o", str(out), "--set", "duration=5s", "--plot"]) == 0
    assert (out / "overview.png").is_file()
