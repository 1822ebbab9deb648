"""Fixed-level player for the real-stack check: 5-second segments of one bitrate, fetched
one at a time over one persistent HTTP/1.1 connection, the next requested as soon as the
playout buffer is at or below 12 s (dash.js's stable buffer), so downloads are on/off as in
a DASH session. Writes every segment's request / first-byte / last-byte times and the stall
time as JSON. Usage: client.py BITRATE_BPS SECONDS OUT.json"""

import json
import socket
import sys
import time

SEGMENT_S = 5.0
TARGET_S = 12.0


class Playout:
    def __init__(self, start: float) -> None:
        self.buffer_s, self.stall_s, self.last, self.playing = 0.0, 0.0, start, False

    def advance(self, now: float) -> None:
        elapsed, self.last = now - self.last, now
        if self.playing:
            self.stall_s += max(0.0, elapsed - self.buffer_s)
            self.buffer_s = max(0.0, self.buffer_s - elapsed)


def main() -> None:
    bitrate, seconds, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
    size = int(bitrate * SEGMENT_S / 8)
    conn = socket.create_connection(("10.0.1.1", 8080))
    buf = bytearray(1 << 20)
    start = time.monotonic()
    play, rows = Playout(start), []
    while time.monotonic() - start < seconds:
        play.advance(time.monotonic())
        if play.buffer_s > TARGET_S:
            time.sleep(play.buffer_s - TARGET_S)
            play.advance(time.monotonic())
        request = time.monotonic()
        conn.sendall(b"GET /%d HTTP/1.1\r\nHost: server\r\n\r\n" % size)
        header = b""
        while b"\r\n\r\n" not in header:
            header += conn.recv(1)
        first, got = time.monotonic(), 0
        while got < size:
            got += conn.recv_into(buf, min(len(buf), size - got))
        end = time.monotonic()
        play.advance(end)
        play.buffer_s += SEGMENT_S
        play.playing = True
        rows.append(
            {
                "request": request - start,
                "first_byte": first - start,
                "last_byte": end - start,
                "bytes": size,
                "mbps": size * 8 / (end - request) / 1e6,
            }
        )
    with open(out, "w") as f:
        json.dump({"segments": rows, "stall_s": play.stall_s}, f)


if __name__ == "__main__":
    main()
