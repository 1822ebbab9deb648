"""Summary of one real-stack run (run.sh's OUTDIR): per-segment throughput, stalls, the
sender's BBR bandwidth estimate and smoothed RTT over time (from `ss -tin`), and the share of
bytes it retransmitted. Usage: summarise.py OUTDIR"""

import json
import re
import statistics
import sys
from pathlib import Path


def main() -> None:
    out = Path(sys.argv[1])
    run = json.loads((out / "client.json").read_text())
    mbps = [s["mbps"] for s in run["segments"]]
    print(
        f"segments {len(mbps)}, stall {run['stall_s']:.2f} s, "
        f"throughput per segment {min(mbps):.1f}–{max(mbps):.1f} Mb/s "
        f"(median {statistics.median(mbps):.1f})"
    )
    samples = (out / "ss.log").read_text().split("\nT ")
    t0 = float(samples[0].split()[1])
    bw: list[tuple[float, float, float | None]] = []
    sent = retrans = 0
    for sample in samples[1:]:
        t = float(sample.split("\n")[0]) - t0
        est = re.search(r"bbr:\(bw:(\d+)bps", sample)
        srtt = re.search(r"\srtt:([\d.]+)/", sample)
        if est:
            bw.append((t, int(est.group(1)) / 1e6, float(srtt.group(1)) if srtt else None))
        sent = max(sent, *(int(x) for x in re.findall(r"bytes_sent:(\d+)", sample)), 0)
        retrans = max(retrans, *(int(x) for x in re.findall(r"bytes_retrans:(\d+)", sample)), 0)
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
