"""`tools/realstack/rates_log.py`: the kernel's per-ACK delivery-rate log (rates.bt) read back as
rates per connection, the distinct samples among them, and what a poll every 0.5 s would read."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "tools" / "realstack"))
import rates_log

LOG = """Attaching 1 probe...
1000000000 40000 0 0 1 1448 10 0 0 0 16384 0
1000000000 50000 4 1000000 1 1448 10 0 0 0 16384 0
1100000000 40000 10 100000 0 1448 10 14480 14480 16000 4194304 0
1300000000 40000 10 100000 0 1448 10 14480 14480 16000 4194304 0
1700000000 40000 20 100000 1 1448 10 14480 14480 16000 4194304 7
"""


def test_rates_are_per_client_port_in_bits_per_second_from_the_first_valid_sample(
    tmp_path: Path,
) -> None:
    (tmp_path / "rates.log").write_text(LOG)
    by_port = rates_log.read(tmp_path / "rates.log")
    # 10 packets of 1448 B in 100 ms: 1.1584 Mb/s; the zero-interval line counts for the clock only
    assert by_port[40000] == [
        (pytest.approx(0.1), pytest.approx(1.1584e6), False),
        (pytest.approx(0.3), pytest.approx(1.1584e6), False),
        (pytest.approx(0.7), pytest.approx(2.3168e6), True),
    ]
    assert by_port[50000] == [(0.0, pytest.approx(4 * 1448 * 8.0), True)]


def test_distinct_samples_and_polls() -> None:
    rows = [(0.1, 1.0, False), (0.3, 1.0, False), (0.7, 2.0, True), (1.4, 3.0, False)]
    assert rates_log.distinct(rows) == [rows[0], rows[2], rows[3]]
    # polls at 0.1, 0.6, 1.1: the sample reported before each
    assert rates_log.polled(rows) == [rows[0], rows[1], rows[2]]


def test_the_summary_line_counts_the_share_above_the_threshold() -> None:
    rows = [(float(i), r * 1e6, False) for i, r in enumerate([20, 24, 26, 30])]
    assert rates_log.line("x", rows, 25e6).startswith("x: 4, 50.0% above 25 Mb/s;")
    assert rates_log.line("x", [], 25e6) == "x: none"


def test_a_bloatlab_run_is_viewed_as_tcp_info_reports_its_samples(tmp_path: Path) -> None:
    samples = {
        "t": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
        "flow": ["video"] * 5 + ["video#1"],
        "rate_bps": [5.0, float("nan"), 3.0, 6.0, 2.0, 1.0],
        "app_limited": [False, False, True, True, False, True],
    }
    pq.write_table(pa.table(samples), tmp_path / "samples.parquet")
    by_flow = rates_log.read_bloatlab(tmp_path)
    # no valid sample at 0.2 s; an app-limited 3 leaves 5 reported, an app-limited 6 replaces
    # it, a 2 that is not app-limited replaces that; each connection on its own
    assert by_flow["video"] == [
        (0.1, 5.0, False),
        (0.3, 5.0, False),
        (0.4, 6.0, True),
        (0.5, 2.0, False),
    ]
    assert by_flow["video#1"] == [(0.6, 1.0, True)]
