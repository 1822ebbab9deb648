"""The README's first sweep (`scenarios/sweeps/first-sweep.toml`, as shipped: 5 buffers × 2
algorithms × 3 seeds of 60 s) says what its report shows; this holds the sweep to those words."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from types import ModuleType

import pytest

from bloatlab.sweep import Sweep, run_sweep
from bloatlab.sweep.table import SweepResults

FIRST_SWEEP = Path(__file__).parents[2] / "scenarios" / "sweeps" / "first-sweep.toml"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> SweepResults:
    folder = tmp_path_factory.mktemp("first-sweep")
    outcome = run_sweep(Sweep.from_file(FIRST_SWEEP), folder, progress=False)
    assert outcome.failed == 0
    return SweepResults.load(folder)


def seed_means(
    results: SweepResults, share: Callable[[dict], float]
) -> dict[tuple[str, str], float]:
    """`share` of each run, averaged over the seeds, by (algorithm, buffer)."""
    by_point: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in results.rows():
        by_point[row["flow.test.cc"], row["bottleneck.queue.limit"]].append(share(row))
    assert all(len(seeds) == 3 for seeds in by_point.values())
    return {point: mean(seeds) for point, seeds in by_point.items()}


@pytest.fixture(scope="module")
def shares(results: SweepResults) -> dict[tuple[str, str], float]:
    """The flow under test's mean share of the link over the seeds, by (algorithm, buffer)."""
    return seed_means(results, lambda row: row["groups.test.capacity_fraction"])


@pytest.mark.parametrize("buffer", ["0.5BDP", "1BDP"])
def test_bbr_takes_about_90_percent_up_to_one_bdp(
    core: ModuleType, shares: dict[tuple[str, str], float], buffer: str
) -> None:
    assert 0.85 <= shares["bbr", buffer] <= 0.97


def test_the_shares_cross_near_2_bdp_and_cubic_takes_more_beyond(
    core: ModuleType, shares: dict[tuple[str, str], float]
) -> None:
    # "about evenly at 2 BDP, CUBIC the larger share beyond". Near the crossing the share
    # moves with the exact rate: drop-tail phase effects, which the sweep's 50 us of jitter
    # leaves in place (seeds 1-4: 0.50 at 20.0 and 20.3 Mb/s, 0.62 at 20.2 Mb/s;
    # docs/fidelity/aict19.md, "Phase effects"), so 2 BDP is held loosely.
    assert 0.4 <= shares["bbr", "2BDP"] <= 0.6
    assert shares["bbr", "4BDP"] < 0.5
    assert shares["bbr", "8BDP"] < shares["bbr", "4BDP"]


@pytest.mark.parametrize("buffer", ["0.5BDP", "1BDP", "2BDP", "4BDP", "8BDP"])
def test_cubic_against_cubic_stays_near_half(
    core: ModuleType, shares: dict[tuple[str, str], float], buffer: str
) -> None:
    assert 0.4 <= shares["cubic", buffer] <= 0.6


# BBR's share of what the two flows delivered, on this machine's Linux 6.18 (`tools/realstack`:
# 20 Mb/s, 40 ms, a 10 KB bucket, the limit in bytes, 60 s, shares from 10 s, `OFFLOADS=off`; one
# run per buffer, and at 2 BDP the mean of five: 52.1, 55.8, 51.1, 53.6, 54.4 %).
REAL_KERNEL_BBR_SHARE = {
    "0.5BDP": 0.887,
    "1BDP": 0.870,
    "2BDP": 0.534,
    "4BDP": 0.458,
    "8BDP": 0.301,
}
REAL_KERNEL_TOLERANCE = 0.08  # absolute, as for AICT'19's 2 BBR + 2 CUBIC (test_real_kernel.py)


def test_bbrs_share_of_what_was_delivered_is_the_real_kernels(
    core: ModuleType, results: SweepResults, reproduce
) -> None:
    def bbr_share(row: dict) -> float:
        return row["groups.test.goodput_bps"] / (
            row["groups.test.goodput_bps"] + row["groups.cubic.goodput_bps"]
        )

    ours = seed_means(results, bbr_share)
    held = [
        reproduce(
            f"Linux 6.18: the first sweep, BBR against CUBIC at {buffer}: BBR's share",
            f"{real:.1%}",
            f"{ours['bbr', buffer]:.1%}",
            f"±{REAL_KERNEL_TOLERANCE * 100:g} pp",
            abs(ours["bbr", buffer] - real) <= REAL_KERNEL_TOLERANCE,
        )
        for buffer, real in REAL_KERNEL_BBR_SHARE.items()
    ]
    assert all(held)
