"""The README's first sweep (`scenarios/sweeps/first-sweep.toml`, as shipped: 5 buffers × 2
algorithms × 3 seeds of 60 s) says what its report shows; this holds the sweep to those words."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from statistics import mean
from types import ModuleType

import pytest

from bloatlab.sweep import Sweep, run_sweep
from bloatlab.sweep.table import SweepResults

FIRST_SWEEP = Path(__file__).parents[2] / "scenarios" / "sweeps" / "first-sweep.toml"


@pytest.fixture(scope="module")
def shares(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], float]:
    """The flow under test's mean share of the link over the seeds, by (algorithm, buffer)."""
    folder = tmp_path_factory.mktemp("first-sweep")
    outcome = run_sweep(Sweep.from_file(FIRST_SWEEP), folder, progress=False)
    assert outcome.failed == 0
    by_point: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in SweepResults.load(folder).rows():
        point = (row["flow.test.cc"], row["bottleneck.queue.limit"])
        by_point[point].append(row["groups.test.capacity_fraction"])
    assert all(len(seeds) == 3 for seeds in by_point.values())
    return {point: mean(seeds) for point, seeds in by_point.items()}


@pytest.mark.parametrize("buffer", ["0.5BDP", "1BDP"])
def test_bbr_takes_about_90_percent_up_to_one_bdp(
    core: ModuleType, shares: dict[tuple[str, str], float], buffer: str
) -> None:
    assert 0.85 <= shares["bbr", buffer] <= 0.97


def test_the_shares_cross_near_2_bdp_and_cubic_takes_more_beyond(
    core: ModuleType, shares: dict[tuple[str, str], float]
) -> None:
    # "about evenly at 2 BDP, CUBIC the larger share beyond". Near the crossing the share
    # moves with the exact rate: drop-tail phase effects, at their strongest on this noiseless
    # path (seeds 1-4: 0.50 at 20.0 and 20.3 Mb/s, 0.61 at 20.2 Mb/s; docs/fidelity/aict19.md,
    # "Phase effects"), so 2 BDP is held loosely.
    assert 0.4 <= shares["bbr", "2BDP"] <= 0.6
    assert shares["bbr", "4BDP"] < 0.5
    assert shares["bbr", "8BDP"] < shares["bbr", "4BDP"]


@pytest.mark.parametrize("buffer", ["0.5BDP", "1BDP", "2BDP", "4BDP", "8BDP"])
def test_cubic_against_cubic_stays_near_half(
    core: ModuleType, shares: dict[tuple[str, str], float], buffer: str
) -> None:
    assert 0.4 <= shares["cubic", buffer] <= 0.6
