"""Summary of one real-stack run (run.sh's OUTDIR): per-segment throughput, stalls, the
sender's BBR bandwidth estimate and smoothed RTT over time (from `ss -tin`; on the connection
that is sending, when a browser keeps several), and the share of bytes retransmitted.
Usage: summarise.py OUTDIR"""

import itertools
import json
import re
import statistics
import sys
from pathlib import Path


def connections(sample: str) -> dict[str, dict[str, float]]:
    """One `ss -tin` sample: each connection's (by client port) counters and BBR estimate."""
    found: dict[str, dict[str, float]] = {}
    lines = sample.split("\n")
    for peer, info in itertools.pairwise(lines):
        port = re.search(r"10\.0\.2\.1:(\d+)", peer)
        if not port or "bytes_sent" not in info:
            continue
        fields = {
            "sent": r"bytes_sent:(\d+)",
            "retrans": r"bytes_retrans:(\d+)",
            "bw": r"bbr:\(bw:(\d+)bps",
            "rtt": r"\srtt:([\d.]+)/",
        }
        found[port.group(1)] = {"retrans": 0.0}
        for name, pattern in fields.items():
            if m := re.search(pattern, info):
                found[port.group(1)][name] = float(m.group(1))
    return found


def main() -> None:
    out = Path(sys.argv[1])
    run = json.loads((out / "client.json").read_text())
    mbps = [s["mbps"] for s in run["segments"]]
    if "avg_quality" in run:
        print(
            f"dash.js: average quality {run['avg_quality']:.2f}, {run['stalls']} stalls, levels "
            + " ".join(str(s["level"]) for s in run["segments"])
        )
    print(
        f"segments {len(mbps)}, stall {run['stall_s']:.2f} s, "
        f"throughput per segment {min(mbps):.1f}–{max(mbps):.1f} Mb/s "
        f"(median {statistics.median(mbps):.1f})"
    )
    samples = (out / "ss.log").read_text().split("\nT ")
    t0 = float(samples[0].split()[1])
    bw: list[tuple[float, float, float | None]] = []
    last: dict[str, dict[str, float]] = {}  # each connection's latest counters
    for sample in samples[1:]:
        t = float(sample.split("\n")[0]) - t0
        now = connections(sample)
        if not now:
            continue
        # the connection carrying the segments: the one that sent the most since the last sample
        port = max(now, key=lambda p: now[p]["sent"] - last.get(p, {"sent": 0.0})["sent"])
        if "bw" in now[port]:
            bw.append((t, now[port]["bw"] / 1e6, now[port].get("rtt")))
        last.update(now)
    sent = sum(c["sent"] for c in last.values())
    retrans = sum(c["retrans"] for c in last.values())
    if bw:
        print("t (s), BBR bw estimate (Mb/s), srtt (ms), every 4 s:")
        step = 4.0
        for t, mbps_est, srtt_ms in bw:
            if t >= step:
                print(f"  {t:5.1f}  {mbps_est:6.1f}  {srtt_ms}")
                step += 4.0
        print(
            f"estimate median {statistics.median(b for _, b, _ in bw):.1f} Mb/s, "
            f"peak srtt {max(r for *_, r in bw if r):.0f} ms"
        )
    print(f"retransmitted {retrans / max(sent, 1):.1%} of {sent / 1e6:.0f} MB sent")


if __name__ == "__main__":
    main()
