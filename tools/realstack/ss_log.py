"""The sender's `ss -tin` log that run.sh writes (ss.log, a sample every 0.5 s, each headed
`T <unix time>`): each connection's algorithm, byte counters, smoothed RTT and BBR estimate."""

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Connection:
    cc: str
    sent: float
    retrans: float
    acked: float | None
    bw: float | None  # BBR's bandwidth estimate (bit/s)
    rtt: float | None  # smoothed RTT (ms)


def number(pattern: str, info: str) -> float | None:
    m = re.search(pattern, info)
    return float(m.group(1)) if m else None


def connections(sample: str) -> dict[str, Connection]:
    """One sample: each connection that has sent data, by its server and client ports."""
    found: dict[str, Connection] = {}
    for peer, info in itertools.pairwise(sample.split("\n")):
        ports = re.search(r"10\.0\.1\.1:(\d+)\s+10\.0\.2\.1:(\d+)", peer)
        sent = number(r"bytes_sent:(\d+)", info)
        if not ports or sent is None:
            continue
        found[f"{ports.group(1)}-{ports.group(2)}"] = Connection(
            cc=info.split()[0],
            sent=sent,
            retrans=number(r"bytes_retrans:(\d+)", info) or 0.0,
            acked=number(r"bytes_acked:(\d+)", info),
            bw=number(r"bbr:\(bw:(\d+)bps", info),
            rtt=number(r"\srtt:([\d.]+)/", info),
        )
    return found


def samples(path: Path) -> Iterator[tuple[float, dict[str, Connection]]]:
    """Each sample's time (s from the log's first) and connections."""
    blocks = path.read_text().split("\nT ")
    t0 = float(blocks[0].split()[1])
    for block in blocks[1:]:
        yield float(block.split("\n")[0]) - t0, connections(block)
