"""Summary of one real-stack bulk run (run.sh with PLAYER = bulk:N): each flow's rate (bytes its
socket accepted over the run, so up to a send buffer above what was delivered), Jain's
fairness index; when the flows mix congestion controls, each one's delivered rate and share
after the warm-up (`ss`'s `bytes_acked`) and, for two, how often the lead changed between them;
the segments retransmitted (nstat); and the bottleneck queue (qdisc.log's tbf backlog) after
the warm-up, in bytes and in BDPs of the path, as bloatlab's summary.json reports
`backlog_*_bdp`.
Usage: bulk_summary.py OUTDIR RATE_BPS RTT_S [WARMUP_S, default 10]"""

import bisect
import itertools
import json
import statistics
import sys
from pathlib import Path

from nstat_log import increments, recovery_lines
from ss_log import samples


def backlog(path: Path, warmup: float) -> tuple[list[int], int, int]:
    """The tbf's backlog (bytes) in each sample after `warmup` s, and the packets it dropped and
    sent in that time (a GSO skb counts as one packet)."""
    samples = []
    for line in path.read_text().splitlines():
        stamp, _, dump = line.partition(" ")
        for q in json.loads(dump or "[]"):
            if q.get("kind") == "tbf":
                samples.append((float(stamp), q["backlog"], q["drops"], q["packets"]))
    t0 = samples[0][0]
    kept = [s[1:] for s in samples if s[0] - t0 >= warmup]
    return [b for b, _, _ in kept], kept[-1][1] - kept[0][1], kept[-1][2] - kept[0][2]


def quantile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


Series = dict[str, tuple[str, list[float], list[int]]]
BIN = 0.5  # s: the rate bins of the delivered shares and the lead changes


def acked(path: Path) -> Series:
    """Each connection's algorithm, and its `bytes_acked` at each `ss -tin` sample (seconds
    from the first)."""
    series: Series = {}
    for t, conns in samples(path):
        for key, c in conns.items():
            if c.acked is not None:
                _, times, values = series.setdefault(key, (c.cc, [], []))
                times.append(t)
                values.append(int(c.acked))
    return series


def cumulative(times: list[float], values: list[int], t: float) -> float:
    """`values` linearly interpolated at `t` (held at the ends)."""
    i = bisect.bisect_left(times, t)
    if i == 0 or i == len(times):
        return float(values[min(i, len(times) - 1)])
    (t1, v1), (t2, v2) = (times[i - 1], values[i - 1]), (times[i], values[i])
    return v1 + (v2 - v1) * (t - t1) / (t2 - t1)


def delivered(series: Series, warmup: float, step: float = BIN) -> dict[str, list[float]]:
    """Each algorithm's delivery rate (b/s, summed over its flows) in bins of `step` s from
    `warmup` s to the last sample."""
    end = max(times[-1] for _, times, _ in series.values())
    edges = [warmup + i * step for i in range(int((end - warmup) / step) + 1)]
    rates: dict[str, list[float]] = {}
    for cc, times, values in series.values():
        at = [cumulative(times, values, t) for t in edges]
        flow = [8 * (b - a) / step for a, b in itertools.pairwise(at)]
        rates[cc] = [x + y for x, y in zip(rates.get(cc, [0.0] * len(flow)), flow, strict=True)]
    return rates


def alternations(first: list[float], second: list[float]) -> int:
    """How often the difference of two rate series, smoothed over 4 bins, changes sign: the
    count AICT'19's Fig. 9 reproduction makes (`analysis.timeseries.switches`)."""
    difference = [a - b for a, b in zip(first, second, strict=True)]
    smoothed = [sum(difference[i : i + 4]) / 4 for i in range(len(difference) - 3)]
    signs = [x > 0 for x in smoothed if x != 0]
    return sum(a != b for a, b in itertools.pairwise(signs))


def main() -> None:
    out = Path(sys.argv[1])
    rate, rtt = float(sys.argv[2]), float(sys.argv[3])
    warmup = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    bdp = rate * rtt / 8
    run = json.loads((out / "bulk.json").read_text())
    mbps = [8 * b / run["seconds"] / 1e6 for b in run["bytes_sent"]]
    jain = sum(mbps) ** 2 / (len(mbps) * sum(m * m for m in mbps))
    print(
        f"{run['cc']}: {len(mbps)} flows, "
        + " ".join(f"{m:.2f}" for m in mbps)
        + f" Mb/s (sum {sum(mbps):.2f}), Jain {jain:.3f}"
    )
    rates = delivered(acked(out / "ss.log"), warmup)
    if len(rates) > 1:
        mean = {cc: statistics.fmean(r) for cc, r in rates.items()}
        total = sum(mean.values())
        print(
            f"delivered after {warmup:g} s: "
            + ", ".join(f"{cc} {r / 1e6:.2f} Mb/s ({r / total:.1%})" for cc, r in mean.items())
        )
    if len(rates) == 2:
        seconds = len(next(iter(rates.values()))) * BIN
        flips = alternations(*rates.values())
        print(f"the lead changed {flips} times in {seconds:g} s ({BIN:g} s bins, 2 s smoothing)")
    delta = increments(out)
    if delta is None:
        sys.exit(f"{out}: no nstat.before / nstat.after")
    sent, retrans = delta["TcpOutSegs"], delta["TcpRetransSegs"]
    # TcpOutSegs counts retransmissions too; bloatlab's retrans_ratio divides by delivered data
    print(
        f"retransmitted {retrans} of {sent} segments sent ({retrans / max(sent, 1):.2%}), "
        f"{retrans / max(sent - retrans, 1):.2%} of new data (bloatlab's retrans_ratio)"
    )
    print("\n".join(recovery_lines(out)))
    queue, drops, passed = backlog(out / "qdisc.log", warmup)
    print(
        f"queue after {warmup:g} s ({len(queue)} samples, BDP {bdp:.0f} B): "
        f"mean {statistics.fmean(queue) / bdp:.2f} BDP ({statistics.fmean(queue):.0f} B), "
        f"p50 {quantile(queue, 0.5) / bdp:.2f}, p90 {quantile(queue, 0.9) / bdp:.2f}, "
        f"p99 {quantile(queue, 0.99) / bdp:.2f} BDP; dropped {drops} of {drops + passed} "
        f"packets ({drops / max(drops + passed, 1):.2%})"
    )


if __name__ == "__main__":
    main()
