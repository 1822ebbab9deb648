"""Delay line for the real-stack check: moves IP packets from TUN device tunC to tunR
after a fixed delay, in order. This kernel has no netem (and no fq for EDT delays), so the
path's propagation delay is added in user space on the ACK path (client → server); the data
path keeps the kernel's tbf. With a third argument it writes there, when stopped, how late it
released each packet (µs after its due time; delay_log.py summarises them): the ACK path's own
timing noise, which a simulation of the testbed's path stands for with `bottleneck.jitter`.
Usage: delay_line.py SECONDS READY_FILE [LATENESS_LOG]"""

import collections
import fcntl
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def main() -> None:
    delay, ready = float(sys.argv[1]), sys.argv[2]
    lateness_log = sys.argv[3] if len(sys.argv) > 3 else None
    src, dst = open_tun("tunC"), open_tun("tunR")
    open(ready, "w").close()
    line: collections.deque[tuple[float, bytes]] = collections.deque()
    lateness: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            wait = max(0.0, line[0][0] - time.monotonic()) if line else 1.0
            if select.select([src], [], [], wait)[0]:
                while True:
                    try:
                        line.append((time.monotonic() + delay, os.read(src, 65536)))
                    except BlockingIOError:
                        break
            now = time.monotonic()
            while line and line[0][0] <= now:
                due, packet = line.popleft()
                os.write(dst, packet)
                if lateness_log:
                    lateness.append(round((time.monotonic() - due) * 1e6))
    finally:
        if lateness_log:
            with open(lateness_log, "w") as f:
                f.write("\n".join(map(str, lateness)) + "\n")


if __name__ == "__main__":
    main()
