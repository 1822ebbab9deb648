"""The server's delivery-rate samples that rates.bt logged (run.sh with RATES=1, OUTDIR/rates.log):
per connection, the sample tcp_info reported at each ACK, and the distinct samples among them
(a new one whenever the kernel recorded another). Prints, for the connection that received the
most ACKs, the share of each above THRESHOLD bit/s and their percentiles, and the same for every
0.5 s poll (as `ss` sees them). Given a bloatlab run's folder instead (its samples.parquet, with
`telemetry.rate_samples = true`; needs pyarrow, so bloatlab's Python), it views bloatlab's
samples the same way: what tcp_info would report after each of them.
Usage: rates_log.py OUTDIR [THRESHOLD]   e.g. rates_log.py /tmp/rs 25e6"""

import statistics
import sys
from collections import defaultdict
from pathlib import Path

POLL_S = 0.5


def read(path: Path) -> dict[int, list[tuple[float, float, bool]]]:
    """Per client port: (seconds since the first line, rate in bit/s, app-limited) per ACK, from
    the first valid sample on."""
    by_port: dict[int, list[tuple[float, float, bool]]] = defaultdict(list)
    start = None
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) < 6 or not fields[0].isdigit():
            continue  # bpftrace's own lines
        ns, port, delivered, interval_us, app_limited, mss = map(int, fields[:6])
        start = ns if start is None else start
        if interval_us == 0:
            continue
        rate = delivered * mss * 8 * 1e6 / interval_us
        by_port[port].append(((ns - start) / 1e9, rate, app_limited == 1))
    return by_port


def read_bloatlab(folder: Path) -> dict[str, list[tuple[float, float, bool]]]:
    """Per connection of a bloatlab run: what tcp_info would report after each valid sample
    (`tcp_rate_gen` records a sample unless it is app-limited and below the one recorded)."""
    import pyarrow.parquet as pq  # bloatlab's Python only

    table = pq.read_table(
        folder / "samples.parquet", columns=["t", "flow", "rate_bps", "app_limited"]
    )
    recorded: dict[str, tuple[float, bool]] = {}
    by_flow: dict[str, list[tuple[float, float, bool]]] = defaultdict(list)
    for t, flow, rate, app_limited in zip(
        *(table.column(c).to_pylist() for c in table.column_names), strict=True
    ):
        if rate is None or rate != rate:  # no valid sample
            continue
        last = recorded.get(flow)
        if last is None or not app_limited or rate >= last[0]:
            recorded[flow] = last = (rate, app_limited)
        by_flow[flow].append((t, *last))
    return by_flow


def distinct(rows: list[tuple[float, float, bool]]) -> list[tuple[float, float, bool]]:
    """The rows where the reported sample changed."""
    return [r for i, r in enumerate(rows) if i == 0 or r[1:] != rows[i - 1][1:]]


def polled(rows: list[tuple[float, float, bool]]) -> list[tuple[float, float, bool]]:
    """The sample a poll every POLL_S would have read."""
    out, due = [], rows[0][0] if rows else 0.0
    for i, row in enumerate(rows):
        while row[0] >= due:
            out.append(rows[i - 1] if i else row)
            due += POLL_S
    return out


def line(name: str, rows: list[tuple[float, float, bool]], threshold: float) -> str:
    rates = [r for _, r, _ in rows]
    if not rates:
        return f"{name}: none"
    above = sum(r > threshold for r in rates) / len(rates)
    q = statistics.quantiles(rates, n=20)
    return (
        f"{name}: {len(rates)}, {above:.1%} above {threshold / 1e6:g} Mb/s; "
        f"p5 {q[0] / 1e6:.1f}, median {statistics.median(rates) / 1e6:.1f}, "
        f"p95 {q[-1] / 1e6:.1f} Mb/s"
    )


def main() -> None:
    out = Path(sys.argv[1])
    threshold = float(sys.argv[2]) if len(sys.argv) > 2 else 25e6
    logged = (
        {str(port): rows for port, rows in read(out / "rates.log").items()}
        if (out / "rates.log").exists()
        else read_bloatlab(out)
    )
    if not logged:
        sys.exit(f"no samples in {out}")
    key = max(logged, key=lambda k: len(logged[k]))
    rows = logged[key]
    print(f"connection {key}, {rows[-1][0]:.0f} s")
    print(line("at every ACK", rows, threshold))
    print(line("distinct samples", distinct(rows), threshold))
    print(line("not app-limited", [r for r in distinct(rows) if not r[2]], threshold))
    print(line(f"polled every {POLL_S:g} s", polled(rows), threshold))


if __name__ == "__main__":
    main()
