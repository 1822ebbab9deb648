//! BBRv2 and BBRv3 congestion control, as google/bbr's `tcp_bbr2.c` (v2alpha)
//! and v3 `tcp_bbr.c` do it — one implementation, three parameter sets.
//!
//! # In a nutshell
//!
//! v2 keeps v1's pipe model (bottleneck bandwidth × min RTT) and bounds it with
//! loss and ECN signals. A long-term upper bound on inflight, `inflight_hi`, is
//! cut when a bandwidth probe sees more than 2 % loss, and raised — slowly,
//! then exponentially faster — while probes see none. Short-term lower bounds,
//! `bw_lo` and `inflight_lo`, are cut by 30 % once per round that saw loss
//! outside a probe, and forgotten when the next probe starts. PROBE_BW is a
//! cycle of four phases: DOWN drains the queue, CRUISE holds inflight 15 %
//! below `inflight_hi`, REFILL sends one round at 1.0 × bw, and UP probes at
//! 1.25 × bw. Probes are 2–3 s apart, or sooner after as many rounds as a Reno
//! flow with this BDP would wait (at most 63). PROBE_RTT runs every 5 s at half
//! a BDP instead of every 10 s at 4 packets.
//!
//! ```text
//!   sample   = ceil(delivered · 2^24 / interval_µs) / 2^24          pkt/µs, rounded up
//!   max_bw   = max(bw_hi[0], bw_hi[1])           max over this and the previous PROBE_BW cycle
//!   bw       = min(max_bw, bw_lo)
//!   bdp(g)   = ceil(bw · min_rtt · g)                                packets
//!   inflight(bw, g) = max(bdp(g), 3 · tso_goal, 4)  (+2 in UP)      "flooring" budget
//!   cwnd    → min(inflight(bw, cwnd_gain) + aggregation, cap)
//!   cap      = inflight_hi in DOWN/REFILL/UP;  inflight_hi − max(1, 0.15 · inflight_hi) in CRUISE
//!              and PROBE_RTT;  then min(cap, inflight_lo), at least 4
//!   probe sees lost > 2 % · tx_in_flight  →  inflight_hi = max(tx_in_flight, 0.7 · target_inflight)
//!     (judged per ACK on its newest delivered packet, and per lost packet on its own flight,
//!      where tx_in_flight becomes the level at which that flight's loss crossed 2 %)
//!   loss in a round, not probing           →  bw_lo       = max(bw_latest,       0.7 · bw_lo)
//!                                              inflight_lo = max(inflight_latest, 0.7 · inflight_lo)
//!   pacing   = bw · mss · pacing_gain · 0.99                          bytes/s
//! ```
//!
//! # States
//!
//! ```text
//!              |
//!              V
//!     +---> STARTUP -----------------------+
//!     |        |                           |
//!     |        V                           |
//!     |      DRAIN ------------------------+
//!     |        |                           |
//!     |        |       PROBE_BW            |
//!     |   +----|--------------------+      |
//!     |   |    V                    |      |
//!     |   | +> DOWN ----> CRUISE <--------+|   (PROBE_RTT exits to CRUISE)
//!     |   | |    |          |       |     ||
//!     |   | |    V          |       |     ||
//!     |   | |  REFILL <-----+       |     ||
//!     |   | |    |                  |     ||
//!     |   | |    V                  |     ||
//!     |   | +-- UP                  |     ||
//!     |   +-------------------------+     ||
//!     |                                    |V
//!     +----------------------------- PROBE_RTT  <- from any state
//!
//!   STARTUP → DRAIN       3 rounds without 25 % bw growth; or a Recovery round with ≥ 8
//!                         (v3: 6) loss events and > 2 % loss; or 2 rounds of ≥ 50 % CE marks
//!   DRAIN → DOWN          in_net_at_edt ≤ inflight(max_bw, 1)
//!   DOWN → CRUISE         in_net ≤ inflight_with_headroom and ≤ inflight(max_bw, 1)
//!   DOWN|CRUISE → REFILL  2 s + rand(1 s) since DOWN began, or min(63, target_inflight)
//!                         rounds; or at once when a risky probe's feedback saw no loss
//!   REFILL → UP           one packet-timed round
//!   UP → DOWN             loss/ECN too high; inflight_hi reached after a too-high probe;
//!                         v2: ≥ min_rtt and in_net ≥ inflight(max_bw, 1.25); v3: bw plateau
//!   any → PROBE_RTT       5 s without an RTT sample at or below probe_rtt_min (v3: below)
//!   PROBE_RTT → CRUISE    200 ms at ≤ max(4, bdp/2) and one round, if the pipe was filled;
//!           or STARTUP    otherwise
//! ```
//!
//! Per packet marked lost (`on_packet_lost`, Linux `bbr2_skb_marked_lost`), before the
//! ACK's or timeout's other hooks: restart the loss round at the round's first loss; if
//! probing, judge the packet's flight. Per ACK (`on_ack`, Linux `bbr2_main`) in this
//! order: round start, ECN alpha; bandwidth sample; (v3: latest
//! delivery signals); the app-limited fast path; `update_congestion_signals`,
//! `update_ack_aggregation`, `check_loss_too_high_in_startup`,
//! `check_full_bw_reached`, `check_drain`, `update_cycle_phase` (with the upper
//! bounds), `update_min_rtt` (with PROBE_RTT); gains, pacing rate, cwnd,
//! `bound_cwnd_for_inflight_model`; (v3: reset the latest signals).
//!
//! Files: `startup.rs`, `drain.rs`, `probe_bw.rs`, `probe_rtt.rs` (states);
//! `bounds.rs` (bw_lo/bw_hi, inflight_lo/hi, loss signals, `inflight_too_high`);
//! `ecn.rs`; `control.rs` (model arithmetic, pacing, cwnd, loss and idle hooks);
//! `params.rs` ([`Params`] and the v3 and QUIC-port presets); tests in `tests.rs`,
//! `probe_bw_tests.rs` and `params_tests.rs`. v1's windowed
//! filter interface ([`BwFilter`]), ACK-aggregation estimator, full-pipe
//! counter and model helpers are reused from `cc::bbr`.
//!
//! # References
//!
//! * google/bbr `net/ipv4/tcp_bbr2.c` at 8d11b540 (canonical v2alpha: `bw_hi[2]` is
//!   the max filter) and `net/ipv4/tcp_bbr.c` (v3) at 001a430b.
//! * N. Cardwell et al., "BBRv2: A Model-Based Congestion Control", IETF 104 ICCRG, 2019;
//!   draft-ietf-ccwg-bbr (where Linux differs, Linux wins).
//! * bpq233/oBBR `nginx-quic/src/event/quic/ngx_bbr2.c` (the QUIC-port parameters).
//! * bloatlab `specs/cca.md` §2.
//!
//! # Deviations
//!
//! * Bandwidth is an `f64` in packets/s. Each sample is rounded up to Linux's
//!   2^-24 pkt/µs unit over a whole-µs interval, as `bbr_calculate_bw_sample`
//!   does; later arithmetic (the 0.7 cut of `bw_lo`, the ECN EWMA) is real-valued.
//!   Gains are Linux's exact k/256 fractions; inflight arithmetic floors where Linux
//!   shifts (`>> BBR_SCALE`).
//! * No undo of spurious recoveries (the trait has no `undo_cwnd`), so the saved
//!   `undo_*` bounds are not kept. No PLB (v3), no AccECN/DCTCP-style ACK handling.
//! * ECN logic is implemented but inert: the simulated queues do not mark CE yet,
//!   and `ecn_enabled` (v2's `ecn_enable` module parameter, v3's per-route "ECN low")
//!   defaults to off.
//! * v3's `is_acking_tlp_retrans_seq` is unknown (taken as false), and a TLP-repaired
//!   loss (signalled by `on_recovery_start` with `CaState::Cwr`) is treated as not
//!   app-limited (`tlp_orig_data_app_limited` is not lent to the algorithm).
//! * As in `cc::bbr`: stamps Linux takes in `bbr_init` are taken at the first hook;
//!   timers run on ns, not jiffies; `snd_cwnd_clamp` and the maximum pacing rate
//!   are unlimited.
//!
//! # Constants (v2alpha; v3 and QUIC-port values are in `params.rs`)
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `STARTUP_PACING_GAIN` | 739/256 ≈ 2.887 | — | STARTUP pacing gain (2/ln 2) | `bbr_high_gain` |
//! | `STARTUP_CWND_GAIN` | 739/256 ≈ 2.887 | — | STARTUP and DRAIN cwnd gain | `bbr_startup_cwnd_gain` |
//! | `DRAIN_GAIN` | 88/256 ≈ 0.344 | — | DRAIN pacing gain | `bbr_drain_gain` |
//! | `CWND_GAIN` | 512/256 = 2 | — | PROBE_BW cwnd gain | `bbr_cwnd_gain` |
//! | `PROBE_UP_GAIN` | 320/256 = 1.25 | — | UP pacing gain | `bbr_pacing_gain[0]` |
//! | `PROBE_DOWN_GAIN` | 192/256 = 0.75 | — | DOWN pacing gain | `bbr_pacing_gain[1]` |
//! | `CRUISE_GAIN`, `REFILL_GAIN` | 1 | — | CRUISE and REFILL pacing gain | `bbr_pacing_gain[2..]` |
//! | `BW_PROBE_PIF_GAIN` | 320/256 = 1.25 | — | v2 UP ends at this × BDP in the network | `bbr_bw_probe_pif_gain` |
//! | `MIN_RTT_WINDOW_MS` | 10 000 | ms | min_rtt expiry | `bbr_min_rtt_win_sec` |
//! | `PROBE_RTT_WINDOW_MS` | 5 000 | ms | PROBE_RTT interval (probe_rtt_min window) | `bbr_probe_rtt_win_ms` |
//! | `PROBE_RTT_DURATION_MS` | 200 | ms | least time at the PROBE_RTT cwnd | `bbr_probe_rtt_mode_ms` |
//! | `PROBE_RTT_CWND_GAIN` | 128/256 = 0.5 | — | PROBE_RTT cwnd = max(4, bdp(0.5)) | `bbr_probe_rtt_cwnd_gain` |
//! | `CWND_MIN_TARGET` | 4 | packets | cwnd floor | `bbr_cwnd_min_target` |
//! | `FULL_BW_THRESH` | 320/256 = 1.25 | — | growth that means "not full yet" | `bbr_full_bw_thresh` |
//! | `FULL_BW_ROUNDS` | 3 | rounds | rounds without it ⇒ full | `bbr_full_bw_cnt` |
//! | `FULL_LOSS_CNT` | 8 | events | loss events in a Recovery round that end STARTUP | `bbr_full_loss_cnt` |
//! | `FULL_ECN_CNT` | 2 | rounds | high-CE rounds that end STARTUP | `bbr_full_ecn_cnt` |
//! | `BETA` | 76/256 ≈ 0.297 | — | multiplicative cut: × (1 − β) = 180/256 ≈ 0.703 | `bbr_beta` |
//! | `LOSS_THRESH` | 5/256 ≈ 1.95 % | — | lost / tx_in_flight that is "too high" | `bbr_loss_thresh` |
//! | `INFLIGHT_HEADROOM` | 38/256 ≈ 14.8 % | — | CRUISE leaves this share of inflight_hi free | `bbr_inflight_headroom` |
//! | `REFILL_ADD_INC` | 0 | packets | inflight_hi increment entering REFILL | `bbr_refill_add_inc` |
//! | `BW_PROBE_MAX_ROUNDS` | 63 | rounds | Reno-coexistence probe interval cap | `bbr_bw_probe_max_rounds` |
//! | `BW_PROBE_RAND_ROUNDS` | 2 | rounds | random head start: rand[0, 2) rounds | `bbr_bw_probe_rand_rounds` |
//! | `BW_PROBE_BASE_US` | 2 000 000 | µs | wall-clock probe wait, base | `bbr_bw_probe_base_us` |
//! | `BW_PROBE_RAND_US` | 1 000 000 | µs | ... plus rand[0, this) | `bbr_bw_probe_rand_us` |
//! | `BW_PROBE_RENO_GAIN` | 256/256 = 1 | — | probe after this × target_inflight rounds | `bbr_bw_probe_reno_gain` |
//! | `PACING_MARGIN_PERCENT` | 1 | % | pace this much below bw | `bbr_pacing_margin_percent` |
//! | `MIN_TSO_RATE_BPS` | 1 200 000 | bit/s | below it the TSO goal floor is 1 segment | `bbr_min_tso_rate` |
//! | `TSO_RTT_SHIFT` | 9 | — | + 64 KB >> (min_rtt_µs >> 9) of burst allowance | `bbr_tso_rtt_shift` |
//! | `bbr::PACING_SHIFT` | 10 | — | TSO burst ≈ pacing_rate >> 10 (~1 ms), as v1 | `sk_pacing_shift` |
//! | `bbr::TSO_MAX_BYTES` | 65 536 − 1 − 320 | bytes | TSO burst cap, as v1 | `GSO_MAX_SIZE − 1 − MAX_TCP_HEADER` |
//! | `bbr::ACK_EPOCH_ACKED_RESET` | 2^20 | packets | restart a long ACK epoch, as v1 | `bbr_ack_epoch_acked_reset_thresh` |
//! | `EXTRA_ACKED_GAIN` | 256/256 = 1 | — | aggregation cwnd gain | `bbr_extra_acked_gain` |
//! | `EXTRA_ACKED_WIN_ROUNDS` | 5 (1 in STARTUP) | rounds | extra_acked bucket length | `bbr_extra_acked_win_rtts` |
//! | `EXTRA_ACKED_MAX_MS` | 100 | ms | aggregation cwnd ≤ bw × this | `bbr_extra_acked_max_us` |
//! | `ECN_ALPHA_GAIN` | 16/256 = 1/16 | — | EWMA gain of the CE fraction | `bbr_ecn_alpha_gain` |
//! | `ECN_ALPHA_INIT` | 256/256 = 1 | — | initial alpha | `bbr_ecn_alpha_init` |
//! | `ECN_FACTOR` | 85/256 ≈ 1/3 | — | ECN cut: inflight_lo × (1 − alpha · factor) | `bbr_ecn_factor` |
//! | `ECN_THRESH` | 128/256 = 0.5 | — | CE fraction that is "too high" | `bbr_ecn_thresh` |
//! | `ECN_MAX_RTT_US` | 5 000 | µs | ECN used only if min_rtt ≤ this | `bbr_ecn_max_rtt_us` |
//! | `ECN_REPROBE_GAIN` | 0 | — | quick re-probe after ECN-only cycles (off) | `bbr_ecn_reprobe_gain` |

/// STARTUP pacing gain, `BBR_UNIT * 2885 / 1000 + 1`: doubles the delivery rate each round.
pub const STARTUP_PACING_GAIN: f64 = 739.0 / 256.0; // tcp_bbr2.c bbr_high_gain
/// STARTUP (and DRAIN) cwnd gain; v2 keeps v1's 2/ln 2.
pub const STARTUP_CWND_GAIN: f64 = 739.0 / 256.0; // tcp_bbr2.c bbr_startup_cwnd_gain
/// DRAIN pacing gain `BBR_UNIT * 1000 / 2885`, "to typically drain the queue ... in a single round".
pub const DRAIN_GAIN: f64 = 88.0 / 256.0; // tcp_bbr2.c bbr_drain_gain
/// PROBE_BW cwnd gain; "tolerates delayed/stretched ACKs".
pub const CWND_GAIN: f64 = 2.0; // tcp_bbr2.c bbr_cwnd_gain
/// UP pacing gain: "probe for more available bw".
pub const PROBE_UP_GAIN: f64 = 1.25; // tcp_bbr2.c bbr_pacing_gain[BBR_BW_PROBE_UP]
/// DOWN pacing gain: "drain queue and/or yield bw to other flows".
pub const PROBE_DOWN_GAIN: f64 = 0.75; // tcp_bbr2.c bbr_pacing_gain[BBR_BW_PROBE_DOWN]
/// CRUISE pacing gain: "cruise at 1.0*bw to utilize pipe".
pub const CRUISE_GAIN: f64 = 1.0; // tcp_bbr2.c bbr_pacing_gain[BBR_BW_PROBE_CRUISE]
/// REFILL pacing gain: "refill the pipe again to 100%".
pub const REFILL_GAIN: f64 = 1.0; // tcp_bbr2.c bbr_pacing_gain[BBR_BW_PROBE_REFILL]
/// v2 ends UP after min_rtt once this × BDP is in the network.
pub const BW_PROBE_PIF_GAIN: f64 = 1.25; // tcp_bbr2.c bbr_bw_probe_pif_gain
/// min_rtt expires after this long.
pub const MIN_RTT_WINDOW_MS: u64 = 10_000; // tcp_bbr2.c bbr_min_rtt_win_sec = 10
/// "Window length of probe_rtt_min_us filter ... the typical interval between PROBE_RTT mode entries."
pub const PROBE_RTT_WINDOW_MS: u64 = 5_000; // tcp_bbr2.c bbr_probe_rtt_win_ms
/// Least time PROBE_RTT holds inflight at its cwnd.
pub const PROBE_RTT_DURATION_MS: u64 = 200; // tcp_bbr2.c bbr_probe_rtt_mode_ms
/// "Cwnd to BDP proportion in PROBE_RTT mode."
pub const PROBE_RTT_CWND_GAIN: f64 = 0.5; // tcp_bbr2.c bbr_probe_rtt_cwnd_gain = BBR_UNIT * 1 / 2
/// cwnd floor: "a sliding window protocol ACKing every other packet needs at least 4".
pub const CWND_MIN_TARGET: u32 = 4; // tcp_bbr2.c bbr_cwnd_min_target
/// Growth (5/4) that means STARTUP may not have filled the pipe.
pub const FULL_BW_THRESH: f64 = 1.25; // tcp_bbr2.c bbr_full_bw_thresh
/// Rounds without that growth after which the pipe is full.
pub const FULL_BW_ROUNDS: u32 = 3; // tcp_bbr2.c bbr_full_bw_cnt
/// "Exit STARTUP if number of loss marking events in a Recovery round is >= N."
pub const FULL_LOSS_CNT: u32 = 8; // tcp_bbr2.c bbr_full_loss_cnt
/// Rounds with a CE fraction ≥ `ECN_THRESH` that end STARTUP.
pub const FULL_ECN_CNT: u32 = 2; // tcp_bbr2.c bbr_full_ecn_cnt
/// "On losses, scale down inflight and pacing rate by beta": `BBR_UNIT * 30 / 100` = 76/256.
pub const BETA: f64 = 76.0 / 256.0; // tcp_bbr2.c bbr_beta
/// "Estimate bw probing has gone too far if loss rate exceeds this level": `BBR_UNIT * 2 / 100` = 5/256.
pub const LOSS_THRESH: f64 = 5.0 / 256.0; // tcp_bbr2.c bbr_loss_thresh
/// "Fraction of unutilized headroom to try to leave in path upon high loss": 38/256.
pub const INFLIGHT_HEADROOM: f64 = 38.0 / 256.0; // tcp_bbr2.c bbr_inflight_headroom
/// "How much to additively increase inflight_hi when entering REFILL" (disabled).
pub const REFILL_ADD_INC: u32 = 0; // tcp_bbr2.c bbr_refill_add_inc
/// Reno-coexistence bound on rounds between probes (fair with 25 Mb/s, 30 ms Reno).
pub const BW_PROBE_MAX_ROUNDS: u32 = 63; // tcp_bbr2.c bbr_bw_probe_max_rounds
/// Random head start on that round count: rand[0, 2).
pub const BW_PROBE_RAND_ROUNDS: u32 = 2; // tcp_bbr2.c bbr_bw_probe_rand_rounds
/// Wall-clock wait between probes, base ("higher than 2 sec").
pub const BW_PROBE_BASE_US: u64 = 2_000_000; // tcp_bbr2.c bbr_bw_probe_base_us
/// ... plus rand[0, 1 s) ("lower than 3 sec").
pub const BW_PROBE_RAND_US: u64 = 1_000_000; // tcp_bbr2.c bbr_bw_probe_rand_us
/// "Multiplier to get Reno-style probe epoch duration as: k * BDP round trips."
pub const BW_PROBE_RENO_GAIN: f64 = 1.0; // tcp_bbr2.c bbr_bw_probe_reno_gain
/// Pace this many percent below the estimate.
pub const PACING_MARGIN_PERCENT: u32 = 1; // tcp_bbr2.c bbr_pacing_margin_percent
/// Below this pacing rate the TSO goal floor is 1 segment instead of 2.
pub const MIN_TSO_RATE_BPS: u64 = 1_200_000; // tcp_bbr2.c bbr_min_tso_rate
/// "Halve allowance per 2^9 usecs": the min_rtt-based TSO burst is 64 KB >> (min_rtt_µs >> 9).
pub const TSO_RTT_SHIFT: u32 = 9; // tcp_bbr2.c bbr_tso_rtt_shift
/// Gain on `extra_acked` in the cwnd target.
pub const EXTRA_ACKED_GAIN: f64 = 1.0; // tcp_bbr2.c bbr_extra_acked_gain = 256
/// extra_acked bucket length; 1 round in STARTUP (`bbr_extra_acked_in_startup`).
pub const EXTRA_ACKED_WIN_ROUNDS: u32 = 5; // tcp_bbr2.c bbr_extra_acked_win_rtts
/// Aggregation cwnd ≤ bw × 100 ms.
pub const EXTRA_ACKED_MAX_MS: u64 = 100; // tcp_bbr2.c bbr_extra_acked_max_us
/// EWMA gain of the per-round CE fraction.
pub const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0; // tcp_bbr2.c bbr_ecn_alpha_gain
/// Initial alpha, "to respond quickly to congestion if the bottleneck is congested when the flow starts".
pub const ECN_ALPHA_INIT: f64 = 1.0; // tcp_bbr2.c bbr_ecn_alpha_init
/// ECN cut of inflight_lo: × (1 − alpha · 85/256).
pub const ECN_FACTOR: f64 = 85.0 / 256.0; // tcp_bbr2.c bbr_ecn_factor = BBR_UNIT * 1 / 3
/// CE fraction of a sample that means inflight is too high.
pub const ECN_THRESH: f64 = 0.5; // tcp_bbr2.c bbr_ecn_thresh
/// "Max RTT (in usec) at which to use sender-side ECN logic."
pub const ECN_MAX_RTT_US: u64 = 5_000; // tcp_bbr2.c bbr_ecn_max_rtt_us
/// Quick re-probe after a cycle with ECN marks but no loss: "experimental knob is 0 (disabled)".
pub const ECN_REPROBE_GAIN: f64 = 0.0; // tcp_bbr2.c bbr_ecn_reprobe_gain

mod bounds;
mod control;
mod drain;
mod ecn;
mod params;
#[cfg(test)]
mod params_tests;
mod probe_bw;
#[cfg(test)]
mod probe_bw_tests;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

pub use bounds::CycleMaxBwFilter;
pub use params::{Bbr2QuicTable, Bbr3Table, Params};

use super::bbr::{AckAggregation, BwFilter, FullBw, ProbeRttHold};
use super::{CaState, CcInit, CongestionControl, Conn, Timeout};
use crate::engine::Rng;
use crate::time::{Clock, Duration, Time};
use crate::transport::rate_sample::{RateSample, TxSnapshot};
use bounds::{Bounds, Signals};
use ecn::Ecn;
use probe_bw::Probe;

/// The four PROBE_BW phases (Linux `enum bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// BBRv2's operating mode; PROBE_BW carries its phase (Linux `mode` + `cycle_idx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBw(Phase),
    ProbeRtt,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "STARTUP",
            State::Drain => "DRAIN",
            State::ProbeBw(Phase::Down) => "PROBE_BW_DOWN",
            State::ProbeBw(Phase::Cruise) => "PROBE_BW_CRUISE",
            State::ProbeBw(Phase::Refill) => "PROBE_BW_REFILL",
            State::ProbeBw(Phase::Up) => "PROBE_BW_UP",
            State::ProbeRtt => "PROBE_RTT",
        }
    }

    /// The transitions of the diagram in the module header.
    fn may_follow(self, prev: State) -> bool {
        use Phase::*;
        use State::*;
        matches!(
            (prev, self),
            (ProbeRtt, Startup)
                | (Startup, Drain)
                | (Drain | ProbeRtt, ProbeBw(Down))
                | (ProbeBw(Down), ProbeBw(Cruise))
                | (ProbeBw(Down | Cruise), ProbeBw(Refill))
                | (ProbeBw(Refill), ProbeBw(Up))
                | (ProbeBw(Up), ProbeBw(Down))
                | (Startup | Drain | ProbeBw(_), ProbeRtt)
        )
    }
}

/// A BBRv2/v3 sender (Linux `struct bbr` of `tcp_bbr2.c` plus the `tcp_sock` fields it writes).
pub struct Bbr2 {
    p: Params,
    state: State,
    mss: u32,
    /// `snd_cwnd`, packets.
    cwnd: u32,
    /// cwnd at creation (a 7-bit field in Linux): STARTUP grows below 2× it; bdp without an RTT.
    init_cwnd: u32,
    /// `sk_pacing_rate`, whole bytes per second.
    pacing_rate_bytes: u64,
    has_seen_rtt: bool,
    /// `snd_ssthresh`, informational, set on entering DRAIN (`None` = infinite).
    ssthresh: Option<u32>,
    clock_started: bool,

    /// Where `max_bw()` comes from: [`CycleMaxBwFilter`] (`bw_hi[2]`) unless replaced.
    bw_filter: Box<dyn BwFilter>,
    /// Packet-timed rounds counted so far (telemetry and the filter's clock).
    round_count: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// This ACK's bandwidth sample, packets/s (0 when invalid) — Linux `ctx->sample_bw`.
    sample_bw: f64,

    /// `None` = no RTT sample yet (Linux `~0U`).
    min_rtt: Option<Duration>,
    min_rtt_stamp: Time,
    /// Min RTT of the 5 s PROBE_RTT window.
    probe_rtt_min: Option<Duration>,
    probe_rtt_min_stamp: Time,
    probe_rtt: ProbeRttHold,
    /// This ACK ran in PROBE_RTT: the transport should mark the connection app-limited.
    app_limited_requested: bool,

    prior_cwnd: u32,
    prev_ca_state: CaState,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,
    full_bw: FullBw,
    /// v3: a bandwidth plateau was seen recently (`full_bw_now`).
    full_bw_now: bool,
    ack_aggr: AckAggregation,
    /// Start of the current PROBE_BW phase's wall clock (`cycle_mstamp`).
    cycle_stamp: Time,

    b: Bounds,
    sig: Signals,
    probe: Probe,
    ecn: Ecn,
    /// The last cwnd update reached its target (`try_fast_path`).
    try_fast_path: bool,
    rng: Rng,
}

impl Bbr2 {
    /// BBRv2/v3 with the two-cycle max filter `bw_hi[2]`.
    pub fn new(p: Params, init: CcInit) -> Self {
        Self::with_bw_filter(p, init, Box::new(CycleMaxBwFilter::default()))
    }

    /// BBRv2/v3 whose `max_bw()` comes from `bw_filter` (BBR2-S: bw = min(pct_bw, bw_lo)).
    pub fn with_bw_filter(p: Params, init: CcInit, bw_filter: Box<dyn BwFilter>) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid BBRv2 parameters: {e}");
        }
        let mut bbr = Bbr2 {
            state: State::Startup,
            mss: init.mss,
            cwnd: init.initial_cwnd,
            init_cwnd: init.initial_cwnd.min(0x7F),
            pacing_rate_bytes: 0,
            has_seen_rtt: false,
            ssthresh: None,
            clock_started: false,
            bw_filter,
            round_count: 0,
            next_rtt_delivered: 0,
            round_start: false,
            sample_bw: 0.0,
            min_rtt: init.srtt,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_min: init.srtt,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt: ProbeRttHold::default(),
            app_limited_requested: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            idle_restart: false,
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.startup_cwnd_gain,
            full_bw: FullBw::default(),
            full_bw_now: false,
            ack_aggr: AckAggregation::new(Time::ZERO),
            cycle_stamp: Time::ZERO,
            b: Bounds::default(),
            // "Start sampling ECN mark rate after first full flight is ACKed"
            sig: Signals::new(1),
            probe: Probe::default(),
            ecn: Ecn::new(p.ecn_alpha_init),
            try_fast_path: false,
            rng: init.rng,
            p,
        };
        bbr.init_pacing_rate_from_rtt(init.srtt);
        bbr
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn params(&self) -> &Params {
        &self.p
    }

    /// Linux `bbr_max_bw`: the filter's estimate, packets/s.
    pub fn max_bw(&self) -> f64 {
        self.bw_filter.max_bw()
    }

    /// Linux `bbr_bw`: `min(max_bw, bw_lo)`, packets/s.
    pub fn bw(&self) -> f64 {
        self.b
            .bw_lo
            .map_or(self.max_bw(), |lo| lo.min(self.max_bw()))
    }

    /// Moves to `next`, checking the state diagram in debug builds.
    fn transition_to(&mut self, next: State) {
        debug_assert!(
            next.may_follow(self.state),
            "BBRv2: illegal transition {:?} -> {:?}",
            self.state,
            next
        );
        if let (State::ProbeBw(a), State::ProbeBw(b)) = (self.state, next) {
            debug_assert_ne!(a, b, "BBRv2: phase re-entered");
        }
        if matches!(next, State::ProbeBw(_)) {
            // bbr2_set_cycle_idx: "New phase, so need to update cwnd and pacing rate."
            self.try_fast_path = false;
        }
        self.state = next;
    }

    /// The algorithm's clock: nanoseconds, or with `millisecond_clock` the QUIC port's
    /// `ngx_current_msec` (whole milliseconds).
    pub(super) fn clock(&self) -> Clock {
        Clock::millisecond_if(self.p.millisecond_clock)
    }

    /// Stamps `bbr_init` takes from the clock, taken at the first hook instead.
    fn start_clock(&mut self, now: Time) {
        let now = self.clock().time(now);
        if !self.clock_started {
            self.clock_started = true;
            self.min_rtt_stamp = now;
            self.probe_rtt_min_stamp = now;
            self.ack_aggr.reset_epoch(now);
        }
    }

    /// Linux `bbr_update_round_start`: a round ends when a packet sent after its start is delivered.
    fn update_round_start(&mut self, conn: &Conn, rs: &RateSample) {
        self.round_start =
            has_interval(rs) && rs.reference.prior_delivered >= self.next_rtt_delivered;
        if self.round_start {
            self.next_rtt_delivered = conn.delivered;
            self.round_count += 1;
        }
    }

    /// Linux `bbr2_update_model`.
    fn update_model(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        self.update_congestion_signals(conn, rs);
        self.update_ack_aggregation(conn, rs);
        self.check_loss_too_high_in_startup(conn, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(now, conn);
        self.update_cycle_phase(now, conn, rs);
        self.update_min_rtt(now, conn, rs);
    }

    /// Linux `bbr2_fast_path`: an app-limited ACK below max_bw with no loss or ECN
    /// in the round only advances the state machine. Returns `Some(skip_control)`
    /// when taken: `true` if nothing changed, so pacing and cwnd stay as they are.
    fn fast_path(&mut self, now: Time, conn: &Conn, rs: &RateSample) -> Option<bool> {
        let eligible = self.p.fast_path
            && self.try_fast_path
            && rs.reference.is_app_limited
            && self.sample_bw < self.max_bw()
            && !self.sig.loss_in_round
            && !self.ecn.in_round;
        if !eligible {
            return None;
        }
        let (prev_mode, prev_min_rtt) = (std::mem::discriminant(&self.state), self.min_rtt);
        self.check_drain(now, conn);
        self.update_cycle_phase(now, conn, rs);
        self.update_min_rtt(now, conn, rs);
        Some(
            std::mem::discriminant(&self.state) == prev_mode
                && self.min_rtt == prev_min_rtt
                && self.try_fast_path,
        )
    }
}

/// `rs->interval_us > 0`: a valid sample over at least one whole µs.
fn has_interval(rs: &RateSample) -> bool {
    rs.delivered.is_some() && rs.interval.is_some_and(|i| i.as_micros() > 0)
}

impl CongestionControl for Bbr2 {
    /// Linux `bbr2_main` (v3 `bbr_main`).
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let now = self.clock().time(now);
        self.start_clock(now);
        if conn.mss > 0 {
            self.mss = conn.mss;
        }
        self.app_limited_requested = false;
        // 0. what the TCP core told the algorithm before cong_control
        self.check_exit_loss(conn);
        // 1. rounds and ECN alpha
        self.update_round_start(conn, rs);
        if self.round_start {
            self.probe.rounds_since_probe = (self.probe.rounds_since_probe + 1).min(0xFF);
            self.update_ecn_alpha(conn);
        }
        self.note_ece(rs);
        // 2. this ACK's bandwidth sample
        self.sample_bw = bw_sample(rs);
        if self.p.split_latest_signals {
            self.update_latest_delivery_signals(conn, rs);
        }
        // 3. the model (or the fast path's part of it)
        match self.fast_path(now, conn, rs) {
            Some(true) => {}
            taken => {
                if taken.is_none() {
                    self.update_model(now, conn, rs);
                }
                // 4. outputs
                self.update_gains(conn);
                let bw = self.bw();
                self.set_pacing_rate(conn, bw, self.pacing_gain);
                self.set_cwnd(rs.acked_sacked, bw, self.cwnd_gain);
                self.bound_cwnd_for_inflight_model();
            }
        }
        // 5. bookkeeping at `out:`
        if self.p.split_latest_signals {
            self.advance_latest_delivery_signals(rs);
        }
        self.prev_ca_state = conn.ca_state;
        self.sig.loss_in_cycle |= rs.lost > 0;
        self.ecn.in_cycle |= rs.delivered_ce > 0;
    }

    /// `tcp_enter_recovery` (or `tcp_enter_cwr` after a TLP repaired a loss) → `bbr2_ssthresh`.
    fn on_recovery_start(&mut self, now: Time, conn: &Conn) {
        let now = self.clock().time(now);
        self.start_clock(now);
        self.check_exit_loss(conn);
        if conn.ca_state == CaState::Cwr && self.p.loss_probe_recovery {
            self.run_loss_probe_recovery(now, conn);
        }
        self.save_cwnd();
    }

    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        self.start_clock(now);
        self.enter_loss(conn, timeout.new_episode);
    }

    fn on_packet_lost(&mut self, now: Time, conn: &Conn, sent: &TxSnapshot) {
        let now = self.clock().time(now);
        self.start_clock(now);
        self.packet_lost(now, conn, sent);
    }

    fn valid_samples_only(&self) -> bool {
        self.p.valid_samples_only
    }

    super::bbr_outputs::model_outputs!(round_count);
}

/// Linux `bbr_calculate_bw_sample`: `ceil(delivered · 2^24 / interval_µs)` in
/// 2^-24 pkt/µs units, as packets/s; 0 when the sample is invalid.
pub fn bw_sample(rs: &RateSample) -> f64 {
    let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
        return 0.0;
    };
    let us = interval.as_micros();
    if us == 0 {
        return 0.0;
    }
    let units = ((delivered as u128) << 24).div_ceil(us as u128);
    units as f64 * 1e6 / (1u64 << 24) as f64
}
