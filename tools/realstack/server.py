"""Segment server for the real-stack check: HTTP/1.1 on persistent connections, where
`GET /<n>` answers with n bytes, sent by the kernel's TCP with the congestion control named
on the command line (`bbr`, `cubic`, `reno`). Usage: server.py CC"""

import socket
import sys
import threading

BLOB = memoryview(b"x" * (32 << 20))


def serve(conn: socket.socket, cc: bytes) -> None:
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
    requests = conn.makefile("rb")
    while line := requests.readline():
        size = int(line.split()[1].strip(b"/"))
        while requests.readline() not in (b"\r\n", b""):
            pass
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
        while size:
            chunk = min(size, len(BLOB))
            conn.sendall(BLOB[:chunk])
            size -= chunk


def main() -> None:
    cc = sys.argv[1].encode()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("10.0.1.1", 8080))
    listener.listen(8)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, cc), daemon=True).start()


if __name__ == "__main__":
    main()
