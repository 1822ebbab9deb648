"""Bulk flows for the real-stack check: `bulk.py recv PORT N` accepts N connections and
discards what they send; `bulk.py send HOST PORT N CC SECONDS OUT` opens N connections with
congestion control CC (a comma-separated list is dealt out in turn: `bbr,cubic` for 4 flows
gives bbr, cubic, bbr, cubic), keeps their send buffers full for SECONDS and writes the bytes
each accepted to OUT (JSON)."""

import contextlib
import json
import select
import socket
import sys
import time

CHUNK = b"\0" * 65536


def recv(port: int, n: int) -> None:
    listener = socket.create_server(("0.0.0.0", port), backlog=n)
    conns = [listener.accept()[0] for _ in range(n)]
    while conns:
        ready, _, _ = select.select(conns, [], [])
        for c in ready:
            if not c.recv(1 << 20):
                conns.remove(c)
                c.close()


def send(host: str, port: int, n: int, cc: str, seconds: float, out: str) -> None:
    socks = []
    names = cc.split(",")
    ccs = [names[i % len(names)] for i in range(n)]
    for flow_cc in ccs:
        s = socket.socket()
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, flow_cc.encode())
        s.connect((host, port))
        s.setblocking(False)
        socks.append(s)
    sent = [0] * n
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        _, ready, _ = select.select([], socks, [], left)
        for s in ready:
            with contextlib.suppress(BlockingIOError):
                sent[socks.index(s)] += s.send(CHUNK)
    for s in socks:
        s.close()
    with open(out, "w") as f:
        json.dump({"cc": cc, "ccs": ccs, "seconds": seconds, "bytes_sent": sent}, f)


if __name__ == "__main__":
    if sys.argv[1] == "recv":
        recv(int(sys.argv[2]), int(sys.argv[3]))
    else:
        host, port, n, cc, seconds, out = sys.argv[2:8]
        send(host, int(port), int(n), cc, float(seconds), out)
