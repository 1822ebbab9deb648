"""Summary of one real-stack run (run.sh's OUTDIR): per-segment throughput, stalls, the
sender's BBR bandwidth estimate and smoothed RTT over time (from `ss -tin`; on the connection
that is sending, when a browser keeps several), the share of bytes retransmitted, and the
kernel's loss-recovery counters on both hosts (nstat_log.py).
Usage: summarise.py OUTDIR"""

import json
import statistics
import sys
from pathlib import Path

from nstat_log import recovery_lines
from ss_log import Connection, samples


def main() -> None:
    out = Path(sys.argv[1])
    run = json.loads((out / "client.json").read_text())
    mbps = [s["mbps"] for s in run["segments"]]
    if "avg_quality" in run:
        print(
            f"dash.js: average quality {run['avg_quality']:.2f}, {run['stalls']} stalls, levels "
            + " ".join(str(s["level"]) for s in run["segments"])
        )
    for stall in run.get("stall_list", []):
        left = "" if stall["buffer_s"] is None else f", {stall['buffer_s']:.3f} s still buffered"
        print(f"  stall at {stall['at']:.3f} s, media time {stall['media_s']:.3f} s{left}")
    print(
        f"segments {len(mbps)}, stall {run['stall_s']:.2f} s, "
        f"throughput per segment {min(mbps):.1f}–{max(mbps):.1f} Mb/s "
        f"(median {statistics.median(mbps):.1f})"
    )
    bw: list[tuple[float, float, float | None]] = []
    last: dict[str, Connection] = {}  # each connection's latest counters
    for t, now in samples(out / "ss.log"):
        if not now:
            continue
        # the connection carrying the segments: the one that sent the most since the last sample
        key = max(now, key=lambda k: now[k].sent - (last[k].sent if k in last else 0.0))
        if (estimate := now[key].bw) is not None:
            bw.append((t, estimate / 1e6, now[key].rtt))
        last.update(now)
    sent = sum(c.sent for c in last.values())
    retrans = sum(c.retrans for c in last.values())
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
    for line in recovery_lines(out):
        print(line)


if __name__ == "__main__":
    main()
