"""Segment server for the real-stack check: HTTP/1.1 on persistent connections, sent by the
kernel's TCP with the congestion control named on the command line (`bbr`, `cubic`, `reno`).
`GET /<n>` answers with n bytes (client.py's fixed-level player); with MEDIA_DIR, any other
path answers with that file (make_media.sh's ladder, manifest and dash.js page), or 404.
Usage: server.py CC [MEDIA_DIR]"""

import mimetypes
import socket
import sys
import threading
from pathlib import Path

BLOB = memoryview(b"x" * (32 << 20))


def header(conn: socket.socket, status: bytes, size: int, kind: str) -> None:
    conn.sendall(
        b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
        % (status, kind.encode(), size)
    )


def answer(conn: socket.socket, name: str, media: Path | None) -> None:
    """Sends one response corked, as nginx's `tcp_nopush` does: the header leaves with the start
    of the body. Sent uncorked, the header was a small segment of its own, and Nagle's rule held a
    small body (an 840-byte init segment) until the client acknowledged it: a round trip and a
    delayed ACK, 0.15 s on the 100 ms path, added to every init segment."""
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    try:
        respond(conn, name, media)
    finally:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 0)


def respond(conn: socket.socket, name: str, media: Path | None) -> None:
    if name.isdigit():
        size = int(name)
        header(conn, b"200 OK", size, "application/octet-stream")
        while size:
            chunk = min(size, len(BLOB))
            conn.sendall(BLOB[:chunk])
            size -= chunk
        return
    file = (media / name).resolve() if media else None
    if media is None or file is None or media not in file.parents or not file.is_file():
        header(conn, b"404 Not Found", 0, "text/plain")
        return
    header(conn, b"200 OK", file.stat().st_size, mimetypes.guess_type(name)[0] or "text/plain")
    with file.open("rb") as f:
        conn.sendfile(f)


def serve(conn: socket.socket, cc: bytes, media: Path | None) -> None:
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
    requests = conn.makefile("rb")
    try:
        while line := requests.readline():
            while requests.readline() not in (b"\r\n", b""):
                pass
            answer(conn, line.split()[1].decode().lstrip("/").split("?")[0], media)
    except ConnectionError:  # the browser closed it: dash.js abandoned a download
        pass


def main() -> None:
    cc = sys.argv[1].encode()
    media = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("10.0.1.1", 8080))
    listener.listen(16)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, cc, media), daemon=True).start()


if __name__ == "__main__":
    main()
