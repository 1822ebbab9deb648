#!/usr/bin/env bash
# Media for the real-stack dash.js check (docs/fidelity/www21.md: "The deep-buffer mechanism on a
# real kernel"): the WWW'21 ladder (11 levels, 1, 2.5, 5 ... 25 Mb/s, 5 s segments) encoded by
# ffmpeg as constant-bitrate H.264 with filler, so every segment has its nominal size
# (bitrate x 5 s), as the paper set minrate/maxrate/bufsize for. The picture is ffmpeg's
# 320x180 test pattern: the size of a segment, not its picture, is what loads the network.
# One AdaptationSet holds all levels, so dash.js can switch between them. Adds dash.js
# (npm package `dashjs`, default 3.0.3, the release of the paper's Chrome 80 days; 4.x and 5.x
# play too) and
# player.html. Needs ffmpeg and npm. Takes 2.6 GB of disk per 150 s of video (11 GB for 635 s).
# FPS=60 in the environment encodes 60 frames a second instead of 30 (one key frame per segment
# either way); the frame rate sets how far short of the buffered end Chromium stalls.
# Usage: make_media.sh OUTDIR [SECONDS=150] [DASHJS_VERSION=3.0.3]
set -euo pipefail
out=$1 seconds=${2:-150} dashjs=${3:-3.0.3} fps=${FPS:-30}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

args=()
i=0
for kbps in 1000 2500 5000 7500 10000 12500 15000 17500 20000 22500 25000; do
    args+=(-map 0:v "-b:v:$i" "${kbps}k" "-minrate:v:$i" "${kbps}k" "-maxrate:v:$i" "${kbps}k"
           "-bufsize:v:$i" "$((kbps / 2))k")
    i=$((i + 1))
done
ffmpeg -loglevel error -y -f lavfi -i "testsrc2=size=320x180:rate=$fps" -t "$seconds" \
    "${args[@]}" -c:v libx264 -preset ultrafast -x264-params nal-hrd=cbr:filler=1 \
    -g $((fps * 5)) -keyint_min $((fps * 5)) -sc_threshold 0 \
    -f dash -seg_duration 5 -use_template 1 -use_timeline 0 -adaptation_sets "id=0,streams=v" \
    -init_seg_name 'init-$RepresentationID$.m4s' -media_seg_name 'seg-$RepresentationID$-$Number$.m4s' \
    "$out/manifest.mpd"
# ffmpeg writes minBufferTime = 2 segments (10 s); dash.js 3.x reports BUFFER_LOADED, which its
# ThroughputRule waits for, only from that level on, so it would keep level 0 for 3 segments.
# The paper's MP4Box (GPAC's dasher, `buf` = -100 %) writes one segment (5 s): BUFFER_LOADED after
# the first segment. 1.5 s does the same without sitting on the 5.0 >= 5 boundary.
sed -i 's/minBufferTime="[^"]*"/minBufferTime="PT1.5S"/' "$out/manifest.mpd"

tmp=$(mktemp -d)
(cd "$tmp" && npm pack --silent "dashjs@$dashjs" > /dev/null && tar xzf dashjs-*.tgz)
# dash.js 5 ships its browser (UMD) build under dist/modern/umd
for js in dist/dash.all.min.js dist/modern/umd/dash.all.min.js; do
    [[ -f $tmp/package/$js ]] && { cp "$tmp/package/$js" "$out/"; break; }
done
[[ -f $out/dash.all.min.js ]] || { echo "no dash.all.min.js in dashjs@$dashjs" >&2; exit 1; }
rm -rf "$tmp"
cp "$here/player.html" "$out/index.html"
