#!/usr/bin/env bash
# Real-stack check of a bloatlab scenario (docs/fidelity/www21.md: "The deep-buffer mechanism on a
# real kernel"): the kernel's TCP through a kernel tbf, three hosts in network namespaces. The root
# namespace is the router: the run turns on its ip_forward and turns off its rp_filter.
#   server (netns srv, 10.0.1.1) --veth--> router --tbf(RATE, BURST, LIMIT)--veth--> client (netns cli)
#   client --tunC--> delay_line.py (DELAY) --tunR--> router --> server      (ACK path)
# Needs root, iproute2 with tbf, /dev/net/tun. Samples `ss -tin` on the server every 0.5 s
# (ss.log) and the bottleneck's tbf (`tc -s -j qdisc`: backlog, drops) every 50 ms (qdisc.log).
# The player is client.py at a fixed bitrate (PLAYER = bits/s), or dash.js in headless Chromium
# playing a directory made by make_media.sh (PLAYER = that directory); either way the run
# leaves OUTDIR/client.json for summarise.py. PLAYER = bulk:N runs N bulk flows instead
# (bulk.py, which deals a comma-separated CC such as bbr,cubic out over the flows), and leaves
# OUTDIR/bulk.json for bulk_summary.py. Every run saves both hosts' TCP counters before and
# after (`nstat -asz`: nstat.before / nstat.after on the server, nstat.cli.* on the client;
# nstat_log.py). RATE sets the bottleneck rate (default 25mbit).
# OFFLOADS=off in the environment turns off TSO/GSO at the server and GRO at the router, so every
# packet crosses the router alone as in bloatlab's model; by default the kernel hands the router
# GSO super-packets, which tbf queues (and drops) whole. Needs ethtool (Debian's `ethtool`).
# ABR=abrBola (or abrThroughput) picks dash.js's ABR strategy instead of its default, DYNAMIC.
# LOSS=0.01 drops that share of the server's packets at random as the router forwards them,
# before the tbf (nftables' numgen; this kernel has no netem and no gact); needs nft.
# DELAY=0.010 sets the round-trip delay in seconds (default 0.100; Table 1 also uses 10 ms).
# COMP_SACK_NR=0 turns off the client's SACK compression (net.ipv4.tcp_comp_sack_nr, default 44).
# DELAY_LOG=1 has the delay line log how late it released each ACK (OUTDIR/delay.lat, read by
# delay_log.py).
# RATES=1 logs, at every ACK the server receives, the delivery-rate sample tcp_info reports
# (rates.bt, needs bpftrace; OUTDIR/rates.log, read by rates_log.py).
# HTTP=h2 (dash.js only) serves the media with nginx over HTTP/2, as WWW'21's Fig. 4/5 testbed
# did, instead of server.py's HTTP/1.1. Chromium speaks HTTP/2 only over TLS, so the run makes a
# throwaway self-signed certificate and tells Chromium to accept it; the server namespace's
# default congestion control is set to CC, since nginx cannot pick one per socket (CC is added
# to the root namespace's tcp_allowed_congestion_control if missing). Needs nginx (Debian's
# nginx-light has HTTP/2) and openssl.
# Usage: run.sh OUTDIR CC LIMIT BURST PLAYER SECONDS   e.g. run.sh /tmp/rs bbr 10mb 1mb 20e6 90
#                                                           run.sh /tmp/rs bbr 10mb 1mb /tmp/media 160
set -euo pipefail
out=$1 cc=$2 limit=$3 burst=$4 player=$5 seconds=$6
rate=${RATE:-25mbit} delay=${DELAY:-0.100}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

cleanup() {
    [[ -n ${sampler:-} ]] && kill "$sampler" 2>/dev/null || true
    [[ -n ${qsampler:-} ]] && kill "$qsampler" 2>/dev/null || true
    [[ -n ${rsampler:-} ]] && kill -INT "$rsampler" 2>/dev/null || true
    [[ -n ${delay_pid:-} ]] && kill "$delay_pid" 2>/dev/null && wait "$delay_pid" 2>/dev/null || true
    ip netns pids srv 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns pids cli 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del srv 2>/dev/null || true
    ip netns del cli 2>/dev/null || true
    ip link del srvR 2>/dev/null || true
    ip link del cliR 2>/dev/null || true
    nft delete table inet realstack 2>/dev/null || true
}
trap cleanup EXIT
cleanup

ip netns add srv
ip netns add cli
[[ -n ${COMP_SACK_NR:-} ]] && ip netns exec cli sysctl -qw net.ipv4.tcp_comp_sack_nr="$COMP_SACK_NR"
ip link add srv0 type veth peer name srvR
ip link add cli0 type veth peer name cliR
ip link set srv0 netns srv
ip link set cli0 netns cli
ip netns exec srv ip addr add 10.0.1.1/24 dev srv0
ip netns exec cli ip addr add 10.0.2.1/24 dev cli0
ip addr add 10.0.1.254/24 dev srvR
ip addr add 10.0.2.254/24 dev cliR
for ns in srv cli; do
    ip netns exec $ns ip link set lo up
    ip netns exec $ns ip link set ${ns}0 up
done
ip link set srvR up
ip link set cliR up
ip netns exec srv ip route add default via 10.0.1.254
sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0

rm -f "$out/delay.ready"
python3 "$here/delay_line.py" $delay "$out/delay.ready" ${DELAY_LOG:+"$out/delay.lat"} &
delay_pid=$!
for _ in $(seq 50); do [[ -f $out/delay.ready ]] && break; sleep 0.1; done
ip link set tunC netns cli
ip link set tunR up
sysctl -qw net.ipv4.conf.tunR.rp_filter=0
ip netns exec cli sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.cli0.rp_filter=0
ip netns exec cli ip link set tunC up
ip netns exec cli ip route add 10.0.1.0/24 dev tunC
tc qdisc add dev cliR root tbf rate $rate burst "$burst" limit "$limit"
if [[ -n ${LOSS:-} ]]; then
    # random loss on the data path, before the tbf: numgen draws 0..9999 per packet
    nft add table inet realstack
    nft add chain inet realstack forward '{ type filter hook forward priority 0; }'
    nft add rule inet realstack forward iifname srvR numgen random mod 10000 \
        "<" "$(python3 -c "print(round($LOSS * 10000))")" counter drop
fi
if [[ ${OFFLOADS:-on} == off ]]; then
    command -v ethtool > /dev/null || { echo "OFFLOADS=off needs ethtool" >&2; exit 2; }
    ip netns exec srv ethtool -K srv0 tso off gso off > /dev/null
    ethtool -K srvR gro off > /dev/null
fi

media=()
[[ -d $player ]] && media=("$player")
url="http://10.0.1.1:8080/index.html"
if [[ $player == bulk:* ]]; then
    ip netns exec cli python3 "$here/bulk.py" recv 5001 "${player#bulk:}" &
elif [[ ${HTTP:-h1} == h2 ]]; then
    [[ -d $player ]] || { echo "HTTP=h2 needs a media directory as PLAYER" >&2; exit 2; }
    # a namespace may only default to an algorithm the root namespace allows
    allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
    [[ " $allowed " == *" $cc "* ]] || sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $cc"
    ip netns exec srv sysctl -qw net.ipv4.tcp_congestion_control="$cc"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
        -subj /CN=10.0.1.1 -addext subjectAltName=IP:10.0.1.1 \
        -keyout "$out/key.pem" -out "$out/cert.pem" 2> /dev/null
    cat > "$out/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $out/nginx.pid;
error_log $out/nginx-error.log;
events {}
http {
    include /etc/nginx/mime.types;
    access_log $out/nginx-access.log;
    server {
        listen 10.0.1.1:8443 ssl http2;
        ssl_certificate $out/cert.pem;
        ssl_certificate_key $out/key.pem;
        root $(cd "$player" && pwd);
    }
}
CONF
    ip netns exec srv nginx -c "$out/nginx.conf" &
    url="https://10.0.1.1:8443/index.html"
else
    ip netns exec srv python3 "$here/server.py" "$cc" "${media[@]}" &
fi
sleep 0.5
(
    while true; do
        echo "T $(date +%s.%N)"
        ip netns exec srv ss -tin state established || true
        sleep 0.5
    done
) > "$out/ss.log" &
sampler=$!
(
    while true; do
        echo "$(date +%s.%N) $(tc -s -j qdisc show dev cliR)"
        sleep 0.05
    done
) > "$out/qdisc.log" &
qsampler=$!
if [[ ${RATES:-0} == 1 ]]; then
    bpftrace "$here/rates.bt" > "$out/rates.log" 2> "$out/rates.err" &
    rsampler=$!
    for _ in $(seq 100); do grep -q Attaching "$out/rates.log" 2>/dev/null && break; sleep 0.1; done
fi
counters() {  # both hosts' TCP counters, absolute, leaving nstat's history alone
    ip netns exec srv nstat -asz > "$out/nstat.$1"
    ip netns exec cli nstat -asz > "$out/nstat.cli.$1"
}
counters before
if [[ $player == bulk:* ]]; then
    ip netns exec srv python3 "$here/bulk.py" send 10.0.2.1 5001 "${player#bulk:}" "$cc" \
        "$seconds" "$out/bulk.json"
elif [[ -d $player ]]; then
    rm -rf "$out/chromium"
    ip netns exec cli timeout "$seconds" chromium --headless --no-sandbox --disable-gpu \
        --disable-quic --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --autoplay-policy=no-user-gesture-required --enable-logging=stderr \
        --ignore-certificate-errors --user-data-dir="$out/chromium" "$url?abr=${ABR:-abrDynamic}" \
        > "$out/chrome.log" 2>&1 || true
    rm -rf "$out/chromium"
    python3 "$here/dash_log.py" "$out/chrome.log" "$out/client.json"
else
    ip netns exec cli python3 "$here/client.py" "$player" "$seconds" "$out/client.json"
fi
counters after
tc -s qdisc show dev cliR > "$out/tc.log"
if [[ -n ${LOSS:-} ]]; then nft list table inet realstack > "$out/loss.log"; fi
