//! BBR v1 congestion control, as Linux `net/ipv4/tcp_bbr.c` does it.
//!
//! # In a nutshell
//!
//! BBR models the path as a pipe of bottleneck bandwidth `bw` and round-trip
//! propagation delay `min_rtt`. Every ACK refreshes the model; the sender
//! then paces at a gain times `bw` and caps inflight at a gain times the
//! bandwidth-delay product. Gains change with the state: STARTUP doubles the
//! rate every round until the pipe is full, DRAIN empties the queue STARTUP
//! built, PROBE_BW cycles the pacing gain around 1 to find and share
//! bandwidth, and PROBE_RTT briefly cuts inflight to 4 packets to re-measure
//! `min_rtt`.
//!
//! ```text
//!   max_bw   = windowed_max(delivered / interval, 10 packet-timed rounds)
//!   bw       = policed ? lt_bw : max_bw
//!   min_rtt  = min RTT seen in the last 10 s
//!   bdp(g)   = ceil(bw · min_rtt · g)                                  packets
//!   cwnd    → quantization_budget(bdp(cwnd_gain) + aggregation_cwnd)   packets
//!   pacing   = bw · mss · pacing_gain · (1 − 1 %)                      bytes/s
//! ```
//!
//! # States
//!
//! ```text
//!              |
//!              V
//!     +---> STARTUP  ----+        STARTUP → DRAIN     3 rounds without 25 % bw growth
//!     |        |         |        DRAIN → PROBE_BW    in_net_at_edt ≤ inflight(bw, 1)
//!     |        V         |        PROBE_BW → itself   long-term bw expires (48 rounds)
//!     |      DRAIN   ----+        any → PROBE_RTT     min_rtt not refreshed for 10 s
//!     |        |         |        PROBE_RTT → …       200 ms at ≤ 4 pkts and one round;
//!     |        V         |                            PROBE_BW if full bw reached,
//!     +---> PROBE_BW ----+                            else STARTUP
//!     |      ^    |      |
//!     |      +----+      |
//!     +---- PROBE_RTT <--+
//! ```
//!
//! Per ACK (`on_ack`, Linux `bbr_main`), strictly in this order:
//! `update_bw`, `update_ack_aggregation`, `update_cycle_phase`,
//! `check_full_bw_reached`, `check_drain`, `update_min_rtt` (with PROBE_RTT),
//! `update_gains`, then `set_pacing_rate` and `set_cwnd`.
//!
//! Files: one per state (`startup.rs`, `drain.rs`, `probe_bw.rs`, `probe_rtt.rs`);
//! `model.rs` (bdp, quantization budget, TSO goal, in_net_at_edt, `update_bw`);
//! `filters.rs` (windowed min/max, the [`BwFilter`] interface); `long_term.rs`
//! (policer) and `ack_aggregation.rs` (`extra_acked`); `control.rs` (pacing rate,
//! cwnd, loss and idle hooks); `recovery.rs` (the oBBR artifact's recovery epoch, which
//! `recovery_epoch = "artifact"` puts in place of TCP's Recovery state); `params.rs`
//! ([`Params`]); `hooks.rs` (the
//! two halves of `bbr_main` and the accessors variants such as oBBR and B3R
//! compose with, plus `percentile.rs`, BBR-S's bandwidth filter).
//!
//! # References
//!
//! * Linux `net/ipv4/tcp_bbr.c` (v5.4–v6.x, identical algorithm) and `lib/win_minmax.c`.
//! * N. Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 14(5), 2016.
//! * draft-cardwell-iccrg-bbr-congestion-control-00 (where Linux differs, Linux wins).
//! * bloatlab `specs/cca.md` §1.
//!
//! # Kernel releases (`kernel`)
//!
//! The default follows v5.4 and later. `kernel = "4.17"` runs the inflight provisioning
//! of v4.16–v4.19 (the AICT'19 testbed ran v4.17); the rest of the algorithm is the same:
//!
//! | | `"4.17"` | `"5.x"` (default) |
//! |---|---|---|
//! | ACK-aggregation allowance (`extra_acked`) | none | added in v5.1 |
//! | +2 packets on the probing phase's target | none | v5.1 (every PROBE_BW phase until v5.4 limited it to phase 0) |
//! | DRAIN exit and gain-cycle checks count | packets in flight | packets still in the network at the next departure (v4.20, EDT) |
//!
//! Both pace about 1 % below the estimate: explicitly since v4.20 (`bbr_pacing_margin_percent`),
//! implicitly before ("~1%", by leaving link-layer headers out of the rate, as the v4.x
//! comment says), so `pacing_margin_percent` stays 1 in both.
//!
//! # Deviations
//!
//! * Bandwidth is an `f64` in packets per second, not Linux's 2^24-scaled
//!   packets per µs. The roundings that change behaviour are kept: `bdp` is
//!   rounded up, `expected_acked`, `in_net_at_edt`'s delivered count and the
//!   aggregation cap are floored, the pacing rate is floored to whole bytes/s
//!   (`sk_pacing_rate`), and gains default to Linux's exact k/256 fractions.
//!   The 2^-24 pkt/µs truncation of each sample is not reproduced.
//! * Timers (`min_rtt_stamp`, PROBE_RTT's 200 ms, the 10 s window) run on
//!   nanosecond time; Linux uses jiffies (1–10 ms granularity). RTTs are ns, not µs.
//! * `Bbr::new` gets no clock, so `min_rtt_stamp` and the ACK-aggregation epoch
//!   start at the first hook call (normally the first `on_packet_sent`, right
//!   after creation) instead of `bbr_init` time. The initial `min_rtt` is
//!   `CcInit::srtt` (the handshake's single sample, which is what
//!   `tcp_min_rtt()` holds at `bbr_init`).
//! * `wants_app_limited()` is true in PROBE_RTT *and* right after the ACK that
//!   leaves it, because Linux re-marks the connection app-limited on every ACK
//!   processed in PROBE_RTT, including the one on which it exits.
//! * No `undo_cwnd` (spurious-recovery) hook exists in the trait, so the
//!   `full_bw`/lt reset Linux does on undo is not modelled.
//! * `snd_cwnd_clamp` and `sk_max_pacing_rate` are unlimited (Linux defaults).
//!   `extra_acked` is not truncated to 16 bits.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `HIGH_GAIN` | 739/256 ≈ 2.887 | — | STARTUP pacing & cwnd gain, DRAIN cwnd gain (2/ln 2, rounded up) | `bbr_high_gain` |
//! | `DRAIN_GAIN` | 88/256 ≈ 0.344 | — | DRAIN pacing gain (≈ 1/high_gain) | `bbr_drain_gain` |
//! | `CWND_GAIN` | 512/256 = 2 | — | PROBE_BW cwnd gain | `bbr_cwnd_gain` |
//! | `PACING_GAIN_CYCLE` | 320,192,256×6 /256 | — | PROBE_BW gain cycle | `bbr_pacing_gain[]` |
//! | `CYCLE_RAND` | 7 | phases | random start phase range | `bbr_cycle_rand` |
//! | `BW_FILTER_ROUNDS` | 10 | rounds | max-bw filter window (CYCLE_LEN + 2) | `bbr_bw_rtts` |
//! | `MIN_RTT_WINDOW_MS` | 10 000 | ms | min_rtt expiry | `bbr_min_rtt_win_sec` |
//! | `PROBE_RTT_DURATION_MS` | 200 | ms | least time at 4 pkts in PROBE_RTT | `bbr_probe_rtt_mode_ms` |
//! | `CWND_MIN_TARGET` | 4 | packets | cwnd floor and PROBE_RTT cwnd | `bbr_cwnd_min_target` |
//! | `FULL_BW_THRESH` | 320/256 = 1.25 | — | bw growth that counts as "still growing" | `bbr_full_bw_thresh` |
//! | `FULL_BW_ROUNDS` | 3 | rounds | rounds without growth ⇒ pipe full | `bbr_full_bw_cnt` |
//! | `PACING_MARGIN_PERCENT` | 1 | % | pace this much below bw | `bbr_pacing_margin_percent` |
//! | `MIN_TSO_RATE_BPS` | 1 200 000 | bit/s | below it the TSO goal floor is 1 segment | `bbr_min_tso_rate` |
//! | `PACING_SHIFT` | 10 | — | TSO burst ≈ pacing_rate >> 10 (~1 ms) | `sk_pacing_shift` |
//! | `TSO_MAX_BYTES` | 65 536 − 1 − 320 | bytes | TSO burst cap | `GSO_MAX_SIZE − 1 − MAX_TCP_HEADER` |
//! | `TSO_MAX_SEGS` | 127 | packets | TSO goal cap | `bbr_tso_segs_goal` |
//! | `EXTRA_ACKED_GAIN` | 256/256 = 1 | — | aggregation cwnd gain | `bbr_extra_acked_gain` |
//! | `EXTRA_ACKED_WIN_ROUNDS` | 5 | rounds | extra_acked bucket length | `bbr_extra_acked_win_rtts` |
//! | `EXTRA_ACKED_MAX_MS` | 100 | ms | aggregation cwnd ≤ bw × this | `bbr_extra_acked_max_us` |
//! | `ACK_EPOCH_ACKED_RESET` | 2^20 | packets | restart a long ACK epoch | `bbr_ack_epoch_acked_reset_thresh` |
//! | `LT_INTVL_MIN_ROUNDS` | 4 | rounds | shortest policer sampling interval | `bbr_lt_intvl_min_rtts` |
//! | `LT_LOSS_THRESH` | 50/256 ≈ 0.195 | — | lost/delivered of a "lossy" interval | `bbr_lt_loss_thresh` |
//! | `LT_BW_RATIO` | 32/256 = 1/8 | — | relative bw difference of consistent intervals | `bbr_lt_bw_ratio` |
//! | `LT_BW_DIFF_BYTES_PER_SEC` | 500 | bytes/s | absolute bw difference of consistent intervals (4 kbit/s) | `bbr_lt_bw_diff` |
//! | `LT_BW_MAX_ROUNDS` | 48 | rounds | how long lt_bw is used | `bbr_lt_bw_max_rtts` |
//! | `TCP_INIT_CWND` | 10 | packets | bdp with no RTT sample; growth while delivered < 10 | `include/net/tcp.h` |
//! | `ARTIFACT_PROBE_RTT_SRTTS` | 2 | srtt | `artifact_base` only: PROBE_RTT hold ≤ 2·srtt, timed from entry | oBBR artifact `ngx_bbr.c` |
//! | `ARTIFACT_QUANTA` | 3 | quanta | `artifact_base` only: cwnd target = max(gain·BDP, 4) + 3 quanta | `ngx_bbr_set_cwnd` |
//! | `ARTIFACT_QUANTUM_LOW_BPS` | 1.2 · 2^20 | bit/s | `artifact_base` only: quantum 1 packet below this pacing rate | `ngx_bbr_quantum` |
//! | `ARTIFACT_QUANTUM_HIGH_BPS` | 24 · 2^20 | bit/s | `artifact_base` only: 2 packets below this, 1 ms of data from it | `ngx_bbr_quantum` |
//! | `ARTIFACT_QUANTUM_MAX_BYTES` | 65 536 | bytes | `artifact_base` only: quantum cap | `ngx_bbr_quantum` |
//! | `ARTIFACT_HIGH_GAIN` | 2.885 | — | `artifact_base` only: STARTUP pacing and cwnd gain | `ngx_bbr_high_gain` |
//! | `ARTIFACT_DRAIN_GAIN` | 1/2.885 ≈ 0.3466 | — | `artifact_base` only: DRAIN pacing gain | `ngx_bbr_drain_gain` |
//! | `ARTIFACT_MIN_RTT_FLOOR_MS` | 1 | ms | `artifact_base` only: the BDP's least min_rtt | `ngx_bbr_bdp` |

/// STARTUP pacing/cwnd gain: `BBR_UNIT * 2885 / 1000 + 1` = 739/256, the smallest
/// gain that doubles the delivery rate every round ("2/ln(2)").
pub const HIGH_GAIN: f64 = 739.0 / 256.0; // tcp_bbr.c bbr_high_gain
/// DRAIN pacing gain `BBR_UNIT * 1000 / 2885` = 88/256, drains STARTUP's queue in about one round.
pub const DRAIN_GAIN: f64 = 88.0 / 256.0; // tcp_bbr.c bbr_drain_gain
/// PROBE_BW cwnd gain; "tolerates delayed/stretched ACKs".
pub const CWND_GAIN: f64 = 2.0; // tcp_bbr.c bbr_cwnd_gain
/// PROBE_BW pacing gains: probe at 5/4, drain at 3/4, cruise at 1 for six phases.
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]; // tcp_bbr.c bbr_pacing_gain[]
/// PROBE_BW starts in phase `CYCLE_LEN − 1 − rand(7)`, advanced once: never in the 3/4 phase.
pub const CYCLE_RAND: u32 = 7; // tcp_bbr.c bbr_cycle_rand
/// Max-bw filter window in packet-timed rounds (`CYCLE_LEN + 2`).
pub const BW_FILTER_ROUNDS: u64 = 10; // tcp_bbr.c bbr_bw_rtts
/// min_rtt expires after this long without a matching or lower sample.
pub const MIN_RTT_WINDOW_MS: u64 = 10_000; // tcp_bbr.c bbr_min_rtt_win_sec = 10
/// Least time PROBE_RTT holds inflight at `CWND_MIN_TARGET`.
pub const PROBE_RTT_DURATION_MS: u64 = 200; // tcp_bbr.c bbr_probe_rtt_mode_ms
/// The oBBR artifact's PROBE_RTT hold: at most this many smoothed RTTs (`artifact_base`).
pub const ARTIFACT_PROBE_RTT_SRTTS: f64 = 2.0; // ngx_bbr.c min(2*srtt, ngx_bbr_probertt_time_ms)
/// The oBBR artifact's cwnd allowance: this many send quanta on top of its target.
pub const ARTIFACT_QUANTA: u64 = 3; // ngx_bbr.c ngx_bbr_set_cwnd: target_cwnd += 3 * ngx_bbr_quantum(bbr)
/// Below this pacing rate the artifact's quantum is one packet, below `ARTIFACT_QUANTUM_HIGH_BPS` two.
pub const ARTIFACT_QUANTUM_LOW_BPS: f64 = 1.2 * 1024.0 * 1024.0; // ngx_bbr_quantum: 1.2 * 1024 * 1024 / 8 bytes/s
/// From this pacing rate on the artifact's quantum is 1 ms of data.
pub const ARTIFACT_QUANTUM_HIGH_BPS: f64 = 24.0 * 1024.0 * 1024.0; // ngx_bbr_quantum: 24 * 1024 * 1024 / 8 bytes/s
/// Cap of the artifact's quantum.
pub const ARTIFACT_QUANTUM_MAX_BYTES: u64 = 64 * 1024; // ngx_bbr_quantum: ngx_min(pacing_rate / 1000, 64 * 1024)
/// The artifact's STARTUP gain, written 2.885 (Linux's is 739/256 ≈ 2.8867).
pub const ARTIFACT_HIGH_GAIN: f64 = 2.885; // ngx_bbr.c ngx_bbr_high_gain
/// The artifact's DRAIN gain, 1/2.885 (Linux's is 88/256 = 0.34375).
pub const ARTIFACT_DRAIN_GAIN: f64 = 1.0 / 2.885; // ngx_bbr.c ngx_bbr_drain_gain
/// The artifact's BDP takes min_rtt as at least 1 ms (`ngx_max(bbr->min_rtt, 1)`).
pub const ARTIFACT_MIN_RTT_FLOOR_MS: u64 = 1; // ngx_bbr.c ngx_bbr_bdp
/// cwnd floor, and the PROBE_RTT cwnd: "a sliding window protocol ACKing every other packet needs at least 4".
pub const CWND_MIN_TARGET: u32 = 4; // tcp_bbr.c bbr_cwnd_min_target
/// Bandwidth growth (5/4) that means STARTUP may not have filled the pipe yet.
pub const FULL_BW_THRESH: f64 = 1.25; // tcp_bbr.c bbr_full_bw_thresh = BBR_UNIT * 5 / 4
/// Rounds without that growth after which the pipe is full.
pub const FULL_BW_ROUNDS: u32 = 3; // tcp_bbr.c bbr_full_bw_cnt
/// Pace this many percent below the estimate "to reduce queue at bottleneck".
pub const PACING_MARGIN_PERCENT: u32 = 1; // tcp_bbr.c bbr_pacing_margin_percent
/// Below this pacing rate the TSO goal floor is 1 segment instead of 2.
pub const MIN_TSO_RATE_BPS: u64 = 1_200_000; // tcp_bbr.c bbr_min_tso_rate
/// `sk_pacing_shift`: a TSO burst holds about `pacing_rate >> 10` bytes (~1 ms).
pub const PACING_SHIFT: u32 = 10; // include/net/sock.h, sk_pacing_shift default
/// TSO burst cap: `GSO_MAX_SIZE − 1 − MAX_TCP_HEADER`, with MAX_TCP_HEADER = 320 (x86-64 build).
pub const TSO_MAX_BYTES: u64 = 65_536 - 1 - 320; // tcp_bbr.c bbr_tso_segs_goal
/// TSO goal cap (a 7-bit field in Linux).
pub const TSO_MAX_SEGS: u32 = 0x7F; // tcp_bbr.c bbr_tso_segs_goal
/// Gain applied to `extra_acked` in the cwnd target.
pub const EXTRA_ACKED_GAIN: f64 = 1.0; // tcp_bbr.c bbr_extra_acked_gain = BBR_UNIT
/// Length of each of the two extra_acked buckets (max over the last 5–10 rounds).
pub const EXTRA_ACKED_WIN_ROUNDS: u32 = 5; // tcp_bbr.c bbr_extra_acked_win_rtts
/// Aggregation cwnd is capped at `bw × 100 ms`.
pub const EXTRA_ACKED_MAX_MS: u64 = 100; // tcp_bbr.c bbr_extra_acked_max_us
/// An ACK epoch that has acked this many packets is restarted.
pub const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20; // tcp_bbr.c bbr_ack_epoch_acked_reset_thresh
/// Shortest long-term (policer) sampling interval.
pub const LT_INTVL_MIN_ROUNDS: u32 = 4; // tcp_bbr.c bbr_lt_intvl_min_rtts
/// lost/delivered at or above which an interval is "lossy" (50/256 ≈ 20 %).
pub const LT_LOSS_THRESH: f64 = 50.0 / 256.0; // tcp_bbr.c bbr_lt_loss_thresh
/// Two intervals whose bw differs by at most 1/8 are "consistent".
pub const LT_BW_RATIO: f64 = 1.0 / 8.0; // tcp_bbr.c bbr_lt_bw_ratio = BBR_UNIT / 8
/// ... or by at most 4 kbit/s.
pub const LT_BW_DIFF_BYTES_PER_SEC: f64 = 500.0; // tcp_bbr.c bbr_lt_bw_diff = 4000 / 8
/// Rounds of PROBE_BW during which the policed rate is used before re-probing.
pub const LT_BW_MAX_ROUNDS: u32 = 48; // tcp_bbr.c bbr_lt_bw_max_rtts
/// Linux's initial window: the bdp when no RTT was ever measured.
pub const TCP_INIT_CWND: u32 = 10; // include/net/tcp.h TCP_INIT_CWND

mod ack_aggregation;
mod control;
mod drain;
pub mod filters;
mod hooks;
mod long_term;
pub mod model;
mod params;
pub mod percentile;
mod probe_bw;
mod probe_rtt;
mod recovery;
mod startup;
#[cfg(test)]
mod tests;

pub(crate) use ack_aggregation::AckAggregation;
pub use filters::{BwFilter, MaxBwFilter, WindowedFilter};
pub use params::{Kernel, Params, RecoveryEpochRule};
pub use percentile::{PercentileFilter, PercentileHistory};
pub(crate) use probe_rtt::{HoldStep, ProbeRttHold};
pub(crate) use startup::FullBw;

use super::{CaState, CcInit, CongestionControl, Conn, Timeout};
use crate::engine::Rng;
use crate::time::{Clock, Duration, Time};
use crate::transport::rate_sample::RateSample;
use long_term::LongTermBw;
pub(crate) use recovery::RecoveryEpoch;

/// BBR's operating mode (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "STARTUP",
            State::Drain => "DRAIN",
            State::ProbeBw => "PROBE_BW",
            State::ProbeRtt => "PROBE_RTT",
        }
    }

    /// The transitions of the diagram in the module header.
    fn may_follow(self, prev: State) -> bool {
        use State::*;
        matches!(
            (prev, self),
            (ProbeRtt, Startup)
                | (Startup, Drain)
                | (Drain | ProbeRtt | ProbeBw, ProbeBw)
                | (Startup | Drain | ProbeBw, ProbeRtt)
        )
    }
}

/// A BBR v1 sender (Linux `struct bbr` plus the `tcp_sock` fields it writes).
pub struct Bbr {
    p: Params,
    state: State,
    mss: u32,
    /// `snd_cwnd`, packets.
    cwnd: u32,
    /// The flow's initial window (on the artifact base: the target before any RTT sample,
    /// and STARTUP's growth floor).
    initial_cwnd: u32,
    /// `sk_pacing_rate`, whole bytes per second.
    pacing_rate_bytes: u64,
    has_seen_rtt: bool,
    /// Informational `snd_ssthresh` set on entering DRAIN (`None` = infinite).
    ssthresh: Option<u32>,
    /// Stamps that Linux sets in `bbr_init` wait for the first hook's `now`.
    clock_started: bool,

    bw_filter: Box<dyn BwFilter>,
    /// Packet-timed round counter and the `delivered` count that ends the round.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// `None` = no RTT sample yet (Linux `~0U`).
    min_rtt: Option<Duration>,
    min_rtt_stamp: Time,

    full_bw: FullBw,
    cycle_idx: usize,
    cycle_stamp: Time,
    probe_rtt: ProbeRttHold,
    /// This ACK ran in PROBE_RTT: the transport should mark the connection app-limited.
    app_limited_requested: bool,

    prior_cwnd: u32,
    prev_ca_state: CaState,
    /// The artifact's recovery epoch, kept under either rule (oBBR's gain reads it).
    epoch: RecoveryEpoch,
    packet_conservation: bool,
    idle_restart: bool,
    pacing_gain: f64,
    cwnd_gain: f64,

    lt: LongTermBw,
    ack_aggr: AckAggregation,
    rng: Rng,
    /// State entries so far (every `transition_to`), for variants that reset on mode entry.
    entries: u64,
}

impl Bbr {
    /// Linux BBR with its windowed-max bandwidth filter.
    pub fn new(p: Params, init: CcInit) -> Self {
        let filter = MaxBwFilter::new(p.bw_filter_rounds);
        Self::with_bw_filter(p, init, Box::new(filter))
    }

    /// BBR whose `max_bw()` comes from `bw_filter` (variants such as BBR-S).
    pub fn with_bw_filter(p: Params, init: CcInit, bw_filter: Box<dyn BwFilter>) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid BBR parameters: {e}");
        }
        let (pacing_gain, cwnd_gain) = (p.high_gain, p.high_gain);
        let mut bbr = Bbr {
            state: State::Startup,
            mss: init.mss,
            cwnd: init.initial_cwnd,
            initial_cwnd: init.initial_cwnd,
            pacing_rate_bytes: 0,
            has_seen_rtt: false,
            ssthresh: None,
            clock_started: false,
            bw_filter,
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt: init.srtt,
            min_rtt_stamp: Time::ZERO,
            full_bw: FullBw::default(),
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt: ProbeRttHold::default(),
            app_limited_requested: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            epoch: RecoveryEpoch::default(),
            packet_conservation: false,
            idle_restart: false,
            pacing_gain,
            cwnd_gain,
            lt: LongTermBw::default(),
            ack_aggr: AckAggregation::new(Time::ZERO),
            rng: init.rng,
            entries: 0,
            p,
        };
        bbr.init_pacing_rate_from_rtt(init.srtt);
        bbr
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// Linux `bbr_max_bw`: the bandwidth filter's estimate, packets/s.
    pub fn max_bw(&self) -> f64 {
        self.bw_filter.max_bw()
    }

    /// Linux `bbr_bw`: the policed rate while one is detected, else `max_bw()`, packets/s.
    pub fn bw(&self) -> f64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    /// Moves to `next`, checking the state diagram in debug builds.
    fn transition_to(&mut self, next: State) {
        debug_assert!(
            next.may_follow(self.state),
            "BBR: illegal transition {:?} -> {:?}",
            self.state,
            next
        );
        self.state = next;
        self.entries += 1;
    }

    /// The algorithm's clock: on the artifact base nginx's `ngx_current_msec` (whole
    /// milliseconds, the ngx_bbr.c `sampler->now` its timers compare, and its srtt), else
    /// nanoseconds.
    pub(crate) fn clock(&self) -> Clock {
        Clock::millisecond_if(self.p.artifact_base)
    }

    /// Stamps `bbr_init` takes from the clock, taken at the first hook instead.
    fn start_clock(&mut self, now: Time) {
        let now = self.clock().time(now);
        if !self.clock_started {
            self.clock_started = true;
            self.min_rtt_stamp = now;
            self.ack_aggr.reset_epoch(now);
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        let p = &self.p;
        (self.pacing_gain, self.cwnd_gain) = match self.state {
            State::Startup => (p.high_gain, p.high_gain),
            State::Drain => (p.drain_gain, p.high_gain),
            State::ProbeBw if self.lt.use_bw => (1.0, p.cwnd_gain),
            State::ProbeBw => (p.pacing_gain_cycle[self.cycle_idx], p.cwnd_gain),
            State::ProbeRtt => (1.0, 1.0),
        };
    }
}

impl CongestionControl for Bbr {
    /// Linux `bbr_main`: update the model, then pace and size the window from it.
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        self.update_model(now, conn, rs);
        self.set_outputs(conn, rs, self.cwnd_gain);
    }

    /// `tcp_enter_recovery` → `bbr_ssthresh` → `bbr_save_cwnd` (under the artifact's
    /// epoch the save happens at each loss instead).
    fn on_recovery_start(&mut self, now: Time, _conn: &Conn) {
        self.start_clock(now);
        if self.p.recovery_epoch == RecoveryEpochRule::Tcp {
            self.save_cwnd();
        }
    }

    /// `ngx_bbr_on_lost`: the artifact's epoch restarts; under its rule cwnd is saved.
    fn on_loss_detected(&mut self, now: Time, _conn: &Conn, _newest_sent: Time) {
        self.start_clock(now);
        if self.p.recovery_epoch == RecoveryEpochRule::Artifact {
            self.save_cwnd();
        }
        self.epoch.on_loss(now);
    }

    /// `tcp_enter_loss`; the artifact's epoch ends as at persistent congestion.
    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        self.start_clock(now);
        self.enter_loss(conn, timeout.new_episode);
        self.epoch.cancel();
    }

    /// The artifact's stack runs `ngx_bbr_on_ack` only for ACKs with a valid sample.
    fn valid_samples_only(&self) -> bool {
        self.p.artifact_base
    }

    super::bbr_outputs::model_outputs!(rtt_cnt);
}
