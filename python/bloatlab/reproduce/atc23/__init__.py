"""ATC'23: P. Bi, M. Xiao, D. Yu, G. Zhang, J. Tong, J. Liu, Y. Li, "oBBR: Optimize
Retransmissions of BBR Flows on the Internet", USENIX ATC 2023.

Testbed (§3.1, §5.1 and the artifact's scripts, bpq233/oBBR nginx-quic/scripts): every algorithm
runs in nginx-quic over loopback; `tc netem` adds the delay (and random loss), `tc tbf` sets the
rate with a 100 KB burst and its `limit` is the buffer (R = buffer / BDP), both on `lo`, so data and
ACKs pass the same delay, loss, bucket and queue. Here: the `loopback` topology, a tbf shaper with a
100 KB bucket and a drop-tail queue of R BDP, the BDP on the wire, and the hosts' 50 µs timing
jitter. Every flow sends the testbed's 1252-byte packets through the testbed's QUIC pacer (`pacer =
"nginx-quic"`: a byte budget on a millisecond clock, bursts of up to 6 ms of the pacing rate,
`ngx_pacing.c`) to a receiver that acknowledges as the Chromium QUIC client does (`ack_policy =
"quiche"`: an ACK per 2 packets, then per 10 after the first 100); the algorithms' rate samples come
from the artifact's sampler (`rate_sampler = "nginx-quic"`, `ngx_sample.c`: the reference packet
persists across ACKs, on a millisecond clock, and the RTT the algorithm sees is QUIC's `latest_rtt`
in whole milliseconds); the server queues what it writes up to its stream buffer, 1 765 536 bytes
beyond every acknowledged byte, and resends lost data behind what it has queued (`send_queue =
"nginx-quic"`: `stream_buffer_size` as the artifact's `ngx_http_v3_module.c` sets it, and
`ngx_quic_resend_frames`), to a client that grants a 6 MiB stream window beyond what it has read
(`flow_control = "quiche"`, `rcvbuf = "6MiB"`: QUICHE's `quic_client`, `kStreamMaxRecvWindowSize`);
and, as the artifact's stack, the sender runs these algorithms only for ACKs with a valid sample
(`ngx_generate_sample`; on the paths we counted, every ACK: the kept reference gives even an ACK
that delivers nothing a sample); every algorithm starts with 32 packets (the artifact's initial
windows). BBR, oBBR, BBR-S and B3R are the core's `bbr`, `obbr`, `bbr-s`, `b3r` on the artifact's
own QUIC BBR base (`artifact_base`: no ACK-aggregation allowance, no pacing margin, no policer mode,
PROBE_RTT held 2·srtt from entry, the gain cycle and DRAIN on the packets in flight without EDT
credit against max(gain·BDP, 4) bytes, a cwnd target of max(gain·BDP, 4) + 3 send quanta
(`ngx_bbr_quantum`) in place of Linux's TSO budget, an expired min_rtt refreshed from any ACK,
delayed or not, its own recovery epoch, which every loss extends, and its timers on nginx's
millisecond clock); the paper's "BBRv2" is the artifact's QUIC port (`bbr2-quic`: its constants, no
loss-round restart, PROBE_BW on the in-flight before the ACK and DRAIN on that after it without EDT
credit, its timers on the millisecond clock), with Linux v2alpha (`bbr2`) drawn beside it in Fig.
7/8; "CUBIC" is the artifact's own `cubic.c` (`cubic-quic`: no HyStart, each lost packet sent after
the last reduction cuts the window at once, no PRR, one growth step per ACK frame whether or not the
window is full).

| figure  | experiment                                | `--full` (the protocol) | `--quick`  |
|---------|-------------------------------------------|-------------------------|------------|
| Fig. 3  | 1 BBR (cwnd gain g) + 1 CUBIC, 20 Mb/s    | 13 (g, R) sets, 420 s   | same       |
| Fig. 4  | BBR, 20 → 5 or 2 Mb/s at 12 s, 200 KB     | 40 s                    | same       |
| Fig. 5  | BBR, 20 Mb/s constant or ↔ 10 / 5 every   | 180 s                   | same       |
|         | 30 s, 500 KB: its logged rate samples     |                         |            |
| Fig. 7  | 1 flow × 9 algorithms, R 0.25, 0/1/2 %    | 1 GB or 300 s per run   | same       |
|         | loss, 2 settings; 60 Mb/s R 0.2/0.4/0.6   |                         |            |
| Fig. 8  | 1–5 flows × 9 algorithms, 100 Mb/s, R 0.5 | 1 GB per flow           | 250 MB *   |
| Fig. 9  | 40/10 Mb/s every 10 s, 100 ms, 300 KB     | BBR, oBBR-μ, 1 GB       | same       |
| Fig. 12 | oBBR-μ vs BBR/BBRv2/CUBIC, R 0.5 and 1    | 240 s                   | same       |
|         | and vs BBR with g_max = 2 (sensitivity)   |                         |            |

(*) without Linux BBRv2, which no claim needs.

The paper reports one session per setting; `--full` runs 3 seeds and averages them, `--quick`
one. Retransmission ratios are the testbed's: retransmitted over all sent bytes, per flow, as
the artifact's plot scripts read them from the server's log (`_common.retransmission_ratio`;
the paper's text says "over the overall delivered data"). Tolerances were fixed from the
paper's wording before comparing; a miss is reported as a miss.

Deviations from the testbed: TCP, not QUIC (SACK and RACK-TLP loss detection and recovery, not
QUIC's packet- and time-threshold detection; at most 3 SACK blocks per ACK where a QUIC ACK frame
carries every range; on Fig. 8's path 98.5–99.4 % of retransmissions replace a packet the bottleneck
dropped, so the detector hardly moves the ratios); a TCP RTO stands for QUIC's probe timeout
(restarted on every ACK, as QUIC's is), which changes no window (`cubic-quic` takes its losses as
one more loss, and resets to 4 packets, as `CubicReset`, only when they span persistent congestion);
the client's window update rides on its next ACK, where QUICHE sends it at once; BBR-S is the WWW'21
code's percentile filter (the artifact's own BBR-S takes the 15th largest of 100 samples, and the
max filter until it has 100); `bbr2-quic` keeps TCP's Recovery state where the port has an epoch of
its own (there it decides only STARTUP's pacing and its exit on loss, and which cwnd PROBE_RTT
saves).
"""

from __future__ import annotations

from .._base import ByFigure, Paper
from . import fig3, fig4, fig5, fig7, fig8, fig9, fig12

FIGURES = ByFigure((fig3, fig4, fig5, fig7, fig8, fig9, fig12))
experiments = FIGURES.experiments
analyse = FIGURES.analyse


PAPER = Paper(
    name="atc23",
    title="ATC'23: oBBR — Optimize Retransmissions of BBR Flows on the Internet",
    citation="P. Bi, M. Xiao, D. Yu, G. Zhang, J. Tong, J. Liu, Y. Li. USENIX ATC 2023",
    experiments=experiments,
    analyse=analyse,
    modes={
        "quick": "Fig. 3: 13 (g, R) sets, 420 s; Fig. 4/5: BBR through a bandwidth drop, 40 s "
        "and 180 s; Fig. 7: 9 algorithms × R 0.25 × 0/1/2 % loss × "
        "2 settings and R 0.2/0.4/0.6, 1 GB or 300 s; Fig. 8: 1–5 flows × 8 algorithms, 250 MB "
        "each; Fig. 9: BBR and oBBR-μ, 40/10 Mb/s, 1 GB; Fig. 12: oBBR-μ vs BBR/BBRv2/CUBIC, "
        "240 s; 1 seed",
        "full": "the paper's protocol (Fig. 8 with 1 GB per flow and Linux BBRv2 added), 3 seeds",
    },
)
