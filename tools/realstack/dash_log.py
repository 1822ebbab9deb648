"""Turn the console log of player.html (Chromium's stderr) into client.json, the per-run record
client.py writes, plus the player's view: each segment's level, buffer and ABR estimate, the
average quality and the stalls. A stall is a WAIT once playback has moved off the start
(media time > 0) until the next PLAY (or the log's end), as WWW'21's Eq. 1 counts it; each is
listed with its media time and the media still buffered ahead of the stalled playhead
(Chromium stops short of the buffered end: bloatlab's `playback_low_water`).
Usage: dash_log.py CHROME_LOG OUT.json"""

import json
import re
import sys
from pathlib import Path

EVENTS = {"SEG", "QREQ", "WAIT", "PLAY", "END", "ABANDON", "ERR"}
CONSOLE = re.compile(r'CONSOLE:\d+\] "(.*)", source')


def main() -> None:
    text = Path(sys.argv[1]).read_text(errors="replace")
    lines = [m.group(1) for m in map(CONSOLE.search, text.splitlines()) if m]
    segments, stall_s, waiting_since, end = [], 0.0, None, None
    stalls: list[dict[str, float | None]] = []
    last_t = 0.0
    for line in lines:
        word, t, *rest = line.split()
        if word not in EVENTS:  # dash.js's own messages, the VERSION line
            continue
        last_t = float(t)
        fields = dict(x.split("=", 1) for x in rest if "=" in x)
        if word == "SEG":
            request, last = float(fields["req"]), float(fields["end"])
            segments.append(
                {
                    "index": int(fields["idx"]),
                    "level": int(fields["q"]),
                    "bytes": int(fields["bytes"]),
                    "request": request,
                    "first_byte": float(fields["first"]),
                    "last_byte": last,
                    "mbps": int(fields["bytes"]) * 8 / (last - request) / 1e6,
                    "buffer_s": float(fields["buf"]),
                    "abr_estimate_mbps": float(fields["tput"]) / 1e3,
                }
            )
        elif word == "WAIT" and float(fields["t"]) > 0:
            waiting_since = float(t)
            left = float(fields["buf"]) if "buf" in fields else None  # older pages: not logged
            stalls.append({"at": waiting_since, "media_s": float(fields["t"]), "buffer_s": left})
        elif word in ("PLAY", "END") and waiting_since is not None:
            stall_s, waiting_since = stall_s + float(t) - waiting_since, None
        if word == "END":
            end = float(t)
        if word == "ERR":
            sys.exit(f"dash.js error: {line}")
    if waiting_since is not None:  # the run ended inside a stall
        stall_s += last_t - waiting_since
    if not segments:
        sys.exit(f"{sys.argv[1]}: no segment arrived (did the page load?)")
    levels = [s["level"] for s in segments]
    with open(sys.argv[2], "w") as f:
        json.dump(
            {
                "segments": segments,
                "stall_s": stall_s,
                "stalls": len(stalls),
                "stall_list": stalls,
                "avg_quality": sum(levels) / len(levels),
                "ended_s": end,
            },
            f,
        )


if __name__ == "__main__":
    main()
