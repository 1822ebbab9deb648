"""Summary of one real-stack bulk run (run.sh with PLAYER = bulk:N): each flow's rate (bytes its
socket accepted over the run, so up to a send buffer above what was delivered), Jain's
fairness index, each congestion control's delivered rate and share after the warm-up (`ss`'s
`bytes_acked`) when the flows mix them, the segments retransmitted (nstat), and the bottleneck queue
(qdisc.log's tbf backlog) after a warm-up, in bytes and in BDPs of the path, as bloatlab's
summary.json reports `backlog_*_bdp`.
Usage: bulk_summary.py OUTDIR RATE_BPS RTT_S [WARMUP_S, default 10]"""

import itertools
import json
import re
import statistics
import sys
from pathlib import Path


def counters(path: Path) -> dict[str, int]:
    """nstat -az output: counter name → value."""
    found = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith("#"):
            found[parts[0]] = int(parts[1])
    return found


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


def delivered(path: Path, warmup: float) -> dict[str, float]:
    """Each congestion control's delivery rate (b/s, summed over its flows) from `warmup` s to
    the last `ss -tin` sample, from the connections' `bytes_acked`."""
    first: dict[str, tuple[float, str, int]] = {}
    last: dict[str, tuple[float, str, int]] = {}
    blocks = path.read_text().split("\nT ")
    t0 = float(blocks[0].split()[1])
    for block in blocks[1:]:
        t = float(block.split("\n")[0]) - t0
        for peer, info in itertools.pairwise(block.split("\n")):
            local = re.search(r"10\.0\.1\.1:(\d+)", peer)
            acked = re.search(r"bytes_acked:(\d+)", info)
            if t >= warmup and local and acked:
                sample = (t, info.split()[0], int(acked.group(1)))
                first.setdefault(local.group(1), sample)
                last[local.group(1)] = sample
    rates: dict[str, float] = {}
    for port, (t1, cc, b1) in last.items():
        t, _, b = first[port]
        if t1 > t:
            rates[cc] = rates.get(cc, 0.0) + 8 * (b1 - b) / (t1 - t)
    return rates


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
    rates = delivered(out / "ss.log", warmup)
    if len(rates) > 1:
        total = sum(rates.values())
        print(
            f"delivered after {warmup:g} s: "
            + ", ".join(f"{cc} {r / 1e6:.2f} Mb/s ({r / total:.1%})" for cc, r in rates.items())
        )
    before, after = counters(out / "nstat.before"), counters(out / "nstat.after")
    sent = after["TcpOutSegs"] - before["TcpOutSegs"]
    retrans = after["TcpRetransSegs"] - before["TcpRetransSegs"]
    # TcpOutSegs counts retransmissions too; bloatlab's retrans_ratio divides by delivered data
    print(
        f"retransmitted {retrans} of {sent} segments sent ({retrans / max(sent, 1):.2%}), "
        f"{retrans / max(sent - retrans, 1):.2%} of new data (bloatlab's retrans_ratio)"
    )
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
