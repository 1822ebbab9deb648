//! oBBR: BBR v1 with an adaptive cwnd gain and timely bandwidth-drop updates,
//! as the USENIX ATC'23 artifact (bpq233/oBBR, nginx-quic `ngx_bbr.c`) does it.
//!
//! # In a nutshell
//!
//! v1 keeps inflight near 2 BDP, so in a buffer shallower than 1 BDP it loses
//! (and retransmits) steadily; and its 10-round max filter holds a stale
//! bandwidth for seconds after the link slows. oBBR changes two things:
//!
//! 1. **Adaptive g** (`gain.rs`). On a loss, the latest RTT tells how full the
//!    buffer was, and the cwnd gain becomes the share μ of it:
//!    `g = min(1 + μ·(RTT_latest − RTprop)/RTprop, g_max)`; without loss (and
//!    outside recovery) it regrows by `α·acked/BDP` per ACK. While g < g_max,
//!    cwnd is also hard-capped at `max(gain·BDP, 4)`, without v1's allowances;
//!    in the artifact's float arithmetic that holds at g = g_max = 2.05 too.
//! 2. **Timely bandwidth updates** (`bw_drop.rs`). k consecutive samples below
//!    0.75·BtlBw, or more than k RTTs above 2.5·RTprop, followed by a loss,
//!    replace the max filter's estimate by the mean of the last k samples; the
//!    old value is restored if the delivery score `U = delivered − 10·unacked`
//!    over the next 2T is lower than over the 2T before (at most once per 10·RTprop).
//!
//! ```text
//!   per ACK:  update_cc_mode (gain, RTT counter, detection, scoring)       skipped in STARTUP
//!                                                                          unless ≥ 10 % lost
//!             bandwidth-drop sample bookkeeping (PROBE_BW, valid, not app-limited)
//!             BBR v1 update_model;  on a mode entry g := that mode's v1 cwnd gain
//!             recovery epoch;  set_pacing_rate;  set_cwnd(gain used)
//!             if g < g_max: cwnd = min(cwnd, max(gain used · bdp, 4))   (bytes, as packets admitted;
//!                                                    g a C float, g_max a double: 2.05f < 2.05)
//!   gain used = g, but ≥ 1.25 while pacing_gain > 1, and ≥ g_max there after 3 s without loss
//! ```
//!
//! # Base BBR
//!
//! oBBR's mechanism runs on bloatlab's Linux-faithful [`Bbr`] (composed, not
//! copied: `update_model`/`set_outputs` around oBBR's steps). The artifact's
//! own QUIC BBR differs (initial cwnd 32, ACK-aggregation gain 0, no pacing
//! margin, no policer detection, PROBE_RTT held min(2·srtt, 200 ms) from the
//! first PROBE_RTT ACK, byte targets `max(gain·BDP, 4)` and 3 send quanta
//! instead of the quantization budget, timers on nginx's ms clock). `bbr = {
//! artifact_base = true }` runs that base, and oBBR's own timers then run on its clock
//! too (whole-ms RTTs come with `rate_sampler = "nginx-quic"`; the initial window is
//! the flow's `initial_cwnd`).
//!
//! # Paper versus code (we follow the code)
//!
//! "The code" is `ngx_bbr.c` as last changed (3ae3fc9, HEAD b2a8c25, `specs/cca.md` §6).
//! Earlier revisions (cb4955b, 14af1f3, 525597c) differ: g capped at 2.0, a 5 s no-loss boost,
//! no hard cap, the drop reset to the largest recent sample, the hold-off on the low-bandwidth
//! trigger; `g_max`, `no_loss_boost_ms`, `drop_reset` and `holdoff` select the last three.
//!
//! | | paper §4 | artifact (default here) | option |
//! |---|---|---|---|
//! | g_max | 2 ("g_max = 2") | 2.05 | `g_max` |
//! | RTT threshold | (g_max + 0.5)·RTprop | 2.5·RTprop | `rtt_ratio` |
//! | drop trigger | k low-bw **or** k high-RTT samples | same, but only on an ACK that reports loss, RTT count strict (> k), RTT counted in any state | — |
//! | new estimate | mean of k recent samples | same (ring of the last k PROBE_BW samples, unfilled slots 0) | `drop_reset = "max"` (earlier revisions) |
//! | revert | if the 2T score drops | if S3+S4 < S1+S2 and the last revert is over 10·min_rtt old | `revert_holdoff_rtts`; `holdoff = "low_bandwidth"` (earlier revisions: the hold-off gates the low-bw trigger instead) |
//! | probing floor | g ≥ 1.25 when probing | same, plus g_max after 3 s without loss | `probe_floor`, `no_loss_boost_ms` |
//! | STARTUP | — | oBBR idle in STARTUP unless ≥ 10 % of delivered was lost | `startup_loss_percent` |
//! | RTT < RTprop | — | unsigned wrap: g = g_max | `clamp_rtt_excess` (g = 1) |
//! | hard cap | — | while `g < g_max`; g is a `float`, g_max a `double`, so 2.05 stored in g is below 2.05 and the cap holds at g_max too (not in STARTUP/DRAIN, g = 2.885) | a `g_max` a float holds exactly (2.0, 2.5) lifts it at g_max |
//!
//! # References
//!
//! * P. Bi, M. Xiao et al., "oBBR: Optimize Retransmissions of BBR Flows on the Internet", USENIX ATC 2023, §4–§5.1.
//! * bpq233/oBBR `nginx-quic/src/event/quic/ngx_bbr.c` (`ngx_bbr_update_cc_mode`, `ngx_bbr_set_cwnd`,
//!   `ngx_bbr_update_bandwidth`, `ngx_bbr_update_recovery_mode`) and `ngx_sample.c`.
//! * bloatlab `specs/cca.md` §6.
//!
//! # Host-wide state
//!
//! The artifact keeps the detector's phase, scores, score window, backup, revert
//! timer and ring index in process globals, shared by every connection of one
//! nginx process. `shared_state = true` (default) shares them among the oBBR
//! connections of one [`CcInit::host`], as B3R's are (`bw_drop.rs` says what then
//! mixes); `false` gives each connection its own. A flow is its own host unless
//! the scenario names one, and the testbed's `mul.sh` ran one nginx process per flow.
//!
//! # Deviations
//!
//! * On the Linux base oBBR's steps run on every ACK, as Linux's `bbr_main` does;
//!   on the artifact base, as in the artifact, only on ACKs with a valid rate
//!   sample ([`CongestionControl::valid_samples_only`]).
//! * "Loss on this ACK" is the artifact's `sampler->loss`: the packets this
//!   ACK's loss detection found (`rs.losses`); losses a timer declared in
//!   between do not count (`ngx_quic_detect_lost` zeroes it on every ACK).
//! * `rtt_latest` is `rs.rtt` (Karn-valid, newest packet) or the last such
//!   sample; the recovery epoch's "send time of the newest acked packet" is the
//!   rate sample's reference (`po_sent_time`, `bbr/recovery.rs`).
//! * The score's `unacked` is approximated by packets marked lost (`bw_drop.rs`).
//! * RTTs are whole ms only with `rate_sampler = "nginx-quic"` (QUIC's `latest_rtt` on
//!   nginx's clock), else ns. Timers (score window, no-loss boost, revert hold-off) run
//!   on the base's clock: whole ms (`ngx_current_msec`) on the artifact base, ns on
//!   Linux's. oBBR's own BDPs (the hard cap, α's divisor) are the artifact's floored
//!   bytes on either base.
//! * On the Linux base (`artifact_base = false`) the hard cap is the artifact's
//!   `max(gain·BDP, 4)`, without v1's quantization budget, while v1's test for
//!   ending the 1.25 probing phase asks for `quantization_budget(1.25·BDP) + 2`
//!   in flight (the artifact's own test asks for 1.25·BDP, as the artifact base
//!   does). So unless the no-loss boost raises the gain to g_max, a probing phase
//!   on the Linux base ends at the next loss rather than after one min_rtt; with
//!   random loss (the paper's setting) that is within about a round.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `MU` | 0.5 | — | share of the shallow buffer oBBR fills (paper runs 0.5, 0.75, 1) | §5.1; `BBRU` |
//! | `MU_MAX` | 1.001 | — | largest μ accepted | the artifact's `-C oBBR <μ>` (spec §6.1) |
//! | `ALPHA` | 0.01 | — | regrowth slope of g per BDP acked | §5.1; `0.01 * sampler->acked` |
//! | `G_MAX` | 2.05 | — | cap of g; the deep-buffer gain | `max_ngx_bbr_cwnd_gain` |
//! | `K` | 30 | samples | consecutive low-bw / high-RTT samples; ring length | §5.1; `bw_down_cnt >= 30`, `up_rtt > 30` |
//! | `BW_DROP_RATIO` | 0.75 | — | a sample below this × BtlBw is "low" | §4.2; `bbr->bw * 0.75` |
//! | `RTT_RATIO` | 2.5 | — | an RTT above this × RTprop is "high" | §4.2; `2.5 * bbr->min_rtt` |
//! | `SCORE_INTERVAL_MS` | 200 | ms | score window T | §5.1; `score_time > 200` |
//! | `UNACKED_WEIGHT` | 10 | — | U = delivered − 10·unacked | §4.2 |
//! | `PROBE_FLOOR` | 1.25 | — | least cwnd gain while pacing_gain > 1 | §5.1; `ngx_max(1.25, gain)` |
//! | `NO_LOSS_BOOST_MS` | 3000 | ms | after this long without loss, probe with g_max | `ngx_bbr_loss_timer_win_size_ms` |
//! | `REVERT_HOLDOFF_RTTS` | 10 | min_rtt | at most one revert in this long (`holdoff = "low_bandwidth"`: no low-bandwidth detection) | `10 * bbr->min_rtt` |
//! | `STARTUP_LOSS_PERCENT` | 10 | % | oBBR acts in STARTUP only at this cumulative loss | `total_loss * 100.0 / total_acked < 10.0` |
//! | `HOST_KEY` | "obbr" | — | the host-wide scoring state's key | the artifact's globals `cc`, `score1..4`, `bw_back`, `re_timer`, `bw_cnt`, … |

mod bw_drop;
mod gain;
#[cfg(test)]
mod tests;

use super::bbr::{Bbr, Params as BbrParams, State};
use super::{within, CcInit, CcMetrics, CongestionControl, Conn, Timeout};
use crate::time::Time;
use crate::transport::rate_sample::RateSample;
use bw_drop::{Action, BwDrop};
use gain::AdaptiveGain;
use serde::{Deserialize, Serialize};

/// "We vary μ in 0.5, 0.75, and 1"; the artifact's compiled default `BBR_U` is 0.5.
pub const MU: f64 = 0.5; // ATC'23 §5.1; ngx_bbr.c BBR_U
/// The largest μ the artifact's command line takes (`-C oBBR <μ>`).
pub const MU_MAX: f64 = 1.001; // specs/cca.md §6.1
/// "we set α that controls the speed of recovery from the packet loss to 0.01".
pub const ALPHA: f64 = 0.01; // ATC'23 §5.1; ngx_bbr.c update_cc_mode
/// g's ceiling; the paper says g_max = 2, the code uses 2.05.
pub const G_MAX: f64 = 2.05; // ngx_bbr.c max_ngx_bbr_cwnd_gain
/// "we set k to 30".
pub const K: usize = 30; // ATC'23 §5.1; ngx_bbr.c bw_down_cnt >= 30, up_rtt > 30, max_down[30]
/// "k consecutive bandwidth samples less than 0.75 × BtlBw".
pub const BW_DROP_RATIO: f64 = 0.75; // ATC'23 §4.2; ngx_bbr.c update_bandwidth
/// "(g_max + 0.5) × RTprop" in the paper; the code's constant 2.5.
pub const RTT_RATIO: f64 = 2.5; // ngx_bbr.c update_cc_mode
/// "T to 200 ms".
pub const SCORE_INTERVAL_MS: u64 = 200; // ATC'23 §5.1; ngx_bbr.c score_time
/// "U = delivered − 10 × unacked".
pub const UNACKED_WEIGHT: u32 = 10; // ATC'23 §4.2; ngx_bbr.c update_cc_mode
/// "a lower bound 1.25 to cwnd_gain when the ProbeBW phase is probing".
pub const PROBE_FLOOR: f64 = 1.25; // ATC'23 §5.1; ngx_bbr.c set_cwnd
/// Without loss for this long, the probing phase uses g_max (not in the paper).
pub const NO_LOSS_BOOST_MS: u64 = 3000; // ngx_bbr.c ngx_bbr_loss_timer_win_size_ms
/// At most one revert per this many min_rtt (not in the paper).
pub const REVERT_HOLDOFF_RTTS: u32 = 10; // ngx_bbr.c re_timer
/// In STARTUP oBBR stays out unless this share of the delivered data was lost (not in the paper).
pub const STARTUP_LOSS_PERCENT: f64 = 10.0; // ngx_bbr.c update_cc_mode
/// Key of the host-wide scoring state.
pub const HOST_KEY: &str = "obbr"; // ngx_bbr.c globals cc, change_sc, score_time, score1..4, bw_back, re_timer, bw_cnt

/// What a detected bandwidth drop resets the estimate to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DropReset {
    /// The mean of the last k samples (`bw_sum`): the last `ngx_bbr.c`, the paper (§4), the spec.
    #[default]
    Mean,
    /// The largest of them: earlier revisions compute the mean and reset the filter to `max_bw`.
    Max,
}

/// What the `revert_holdoff_rtts` hold-off after a revert gates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Holdoff {
    /// The next revert (`... && now − re_timer > 10·min_rtt` on the score test): the last `ngx_bbr.c`.
    #[default]
    Revert,
    /// The low-bandwidth trigger (k high RTTs still flag a drop): earlier revisions.
    LowBandwidth,
}

/// oBBR parameters; `bbr` holds the v1 parameters underneath.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// μ: share of the estimated shallow buffer the flow may fill, 0–1.001 (the artifact's
    /// command line, `specs/cca.md` §6.1; the paper runs 0.5, 0.75 and 1).
    pub mu: f64,
    /// α: regrowth of g per BDP acked outside recovery.
    pub alpha: f64,
    /// Ceiling of g (and the gain used after a quiet probe).
    pub g_max: f64,
    /// k: consecutive low-bandwidth (≥ k) or high-RTT (> k) samples that flag a drop; ring length.
    pub k: usize,
    /// A sample below this × max_bw counts as low.
    pub bw_drop_ratio: f64,
    /// An RTT above this × min_rtt counts as high.
    pub rtt_ratio: f64,
    /// Score window T, ms.
    pub score_interval_ms: u64,
    /// Weight of unacked data in the score.
    pub unacked_weight: u32,
    /// Least cwnd gain while pacing_gain > 1.
    pub probe_floor: f64,
    /// Probe with g_max after this long without loss, ms.
    pub no_loss_boost_ms: u64,
    /// The hold-off after a revert, in min_rtt.
    pub revert_holdoff_rtts: u32,
    /// What the hold-off gates: the next revert or the low-bandwidth trigger.
    pub holdoff: Holdoff,
    /// oBBR acts in STARTUP only once this percentage of delivered packets was lost.
    pub startup_loss_percent: f64,
    /// RTT below min_rtt on a loss: false = the artifact's unsigned wrap (g = g_max), true = g = 1.
    pub clamp_rtt_excess: bool,
    /// The estimate a detected drop sets: the mean of the last k samples or their largest.
    pub drop_reset: DropReset,
    /// Share the drop detector's scoring among the host's oBBR connections (the artifact's globals).
    pub shared_state: bool,
    /// BBR v1 parameters (Linux defaults).
    pub bbr: BbrParams,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            mu: MU,
            alpha: ALPHA,
            g_max: G_MAX,
            k: K,
            bw_drop_ratio: BW_DROP_RATIO,
            rtt_ratio: RTT_RATIO,
            score_interval_ms: SCORE_INTERVAL_MS,
            unacked_weight: UNACKED_WEIGHT,
            probe_floor: PROBE_FLOOR,
            no_loss_boost_ms: NO_LOSS_BOOST_MS,
            revert_holdoff_rtts: REVERT_HOLDOFF_RTTS,
            holdoff: Holdoff::default(),
            startup_loss_percent: STARTUP_LOSS_PERCENT,
            clamp_rtt_excess: false,
            drop_reset: DropReset::default(),
            shared_state: true,
            bbr: BbrParams::default(),
        }
    }
}

impl Params {
    /// Range checks, naming the parameter.
    pub fn validate(&self) -> Result<(), String> {
        within(&[
            ("mu", self.mu, 0.0, MU_MAX),
            ("alpha", self.alpha, 0.0, 1.0),
            ("g_max", self.g_max, 1.0, 16.0),
            ("bw_drop_ratio", self.bw_drop_ratio, 0.0, 1.0),
            ("probe_floor", self.probe_floor, 0.0, 16.0),
            (
                "startup_loss_percent",
                self.startup_loss_percent,
                0.0,
                100.0,
            ),
        ])?;
        if !(self.rtt_ratio >= 1.0 && self.rtt_ratio.is_finite()) {
            return Err(format!(
                "rtt_ratio = {} is out of range: allowed rtt_ratio ≥ 1",
                self.rtt_ratio
            ));
        }
        if !(1..=10_000).contains(&self.k) {
            return Err(format!(
                "k = {} is out of range: allowed 1 ≤ k ≤ 10000",
                self.k
            ));
        }
        if self.score_interval_ms == 0 {
            return Err(
                "score_interval_ms = 0 is out of range: allowed score_interval_ms ≥ 1".into(),
            );
        }
        self.bbr.validate().map_err(|e| format!("bbr.{e}"))
    }
}

/// An oBBR sender: a [`Bbr`] plus oBBR's gain and bandwidth-drop state.
pub struct Obbr {
    p: Params,
    bbr: Bbr,
    gain: AdaptiveGain,
    drop: BwDrop,
    /// `Bbr::entries()` when last looked at: a change means BBR entered a mode.
    seen_entries: u64,
    /// The gain the last `set_cwnd` used.
    gain_used: f64,
}

impl Obbr {
    pub fn new(p: Params, init: CcInit) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid oBBR parameters: {e}");
        }
        let scoring = init
            .host
            .cell(HOST_KEY, p.shared_state, bw_drop::Scoring::default);
        let bbr = Bbr::new(p.bbr.clone(), init);
        let g = bbr.cwnd_gain();
        Obbr {
            drop: BwDrop::new(p.k, scoring),
            gain: AdaptiveGain::new(g),
            seen_entries: bbr.entries(),
            gain_used: g,
            bbr,
            p,
        }
    }

    /// The adaptive gain g (before the probing floor and the no-loss boost).
    pub fn g(&self) -> f64 {
        f64::from(self.gain.g)
    }

    /// The BBR v1 model underneath.
    pub fn bbr(&self) -> &Bbr {
        &self.bbr
    }

    /// The cwnd gain v1 sets on entering `state`, which overwrites g (`ngx_bbr_enter_*`).
    fn entry_gain(&self, state: State) -> f64 {
        let p = self.bbr.params();
        match state {
            State::Startup | State::Drain => p.high_gain,
            State::ProbeBw => p.cwnd_gain,
            State::ProbeRtt => 1.0,
        }
    }

    /// Resets g if BBR entered a mode since the last look.
    fn sync_mode(&mut self) {
        if self.bbr.entries() != self.seen_entries {
            self.seen_entries = self.bbr.entries();
            self.gain.g = self.entry_gain(self.bbr.state()) as f32;
        }
    }

    /// `ngx_bbr_update_cc_mode`: gain, RTT counter, drop detection and scoring.
    fn update_cc_mode(&mut self, now: Time, conn: &Conn, rs: &RateSample, lost_now: bool) {
        // NaN or ∞ when nothing was delivered yet: not "below", as in the artifact.
        let loss_percent = conn.lost as f64 * 100.0 / conn.delivered as f64;
        if self.bbr.state() == State::Startup && loss_percent < self.p.startup_loss_percent {
            return;
        }
        let min_rtt = self.bbr.min_rtt();
        let bdp1 = self.bbr.artifact_target_packets(self.bbr.max_bw(), 1.0);
        let in_recovery = self.bbr.in_artifact_recovery();
        self.gain.on_ack(
            &self.p,
            lost_now,
            in_recovery,
            rs.acked_sacked,
            min_rtt,
            bdp1,
        );
        let max_bw = self.bbr.max_bw();
        let action = self.drop.on_ack(
            &self.p,
            now,
            lost_now,
            self.gain.rtt_latest,
            min_rtt,
            (conn.delivered, conn.lost),
            max_bw,
        );
        let round = self.bbr.round();
        let filter = self.bbr.bw_filter_mut();
        match action {
            Action::None => {}
            Action::ResetTo(estimate) => {
                filter.reset(round);
                filter.update(round, estimate, false);
            }
            Action::Restore(backup) => filter.update(round, backup, false),
        }
    }
}

impl CongestionControl for Obbr {
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let now = self.bbr.clock().time(now);
        self.sync_mode();
        // The artifact's `sampler->loss`: losses this ACK's detection found.
        let lost_now = rs.losses > 0;
        if rs.rtt.is_some() {
            self.gain.rtt_latest = rs.rtt;
        }
        let (state, max_bw) = (self.bbr.state(), self.bbr.max_bw());
        self.update_cc_mode(now, conn, rs, lost_now);
        if let Some(sample) = rs.rate_pkts_per_sec() {
            if state == State::ProbeBw && !rs.reference.is_app_limited {
                self.drop.on_sample(&self.p, sample, max_bw);
            }
        }

        self.bbr.update_model(now, conn, rs);
        self.sync_mode();
        // `ngx_bbr_update_min_rtt` sets `change_sc` on every ACK in PROBE_RTT at its check,
        // which precedes the exit: the ACK that leaves PROBE_RTT restarts the window too.
        if state == State::ProbeRtt || self.bbr.state() == State::ProbeRtt {
            self.drop.restart_window();
        }
        let gain = self.gain.effective(&self.p, now, self.bbr.pacing_gain());
        self.bbr.set_outputs(conn, rs, gain);
        if rs.acked_sacked > 0 && self.gain.below_max(&self.p) {
            // The artifact's `in_flight < window` admits a last partial packet.
            let cap = self.bbr.artifact_target_packets(self.bbr.bw(), gain).ceil();
            self.bbr.cap_cwnd(cap as u32);
        }
        self.gain_used = gain;
    }

    fn on_recovery_start(&mut self, now: Time, conn: &Conn) {
        self.bbr.on_recovery_start(now, conn);
    }

    /// `ngx_quic_congestion_lost`: the loss timer (`loss_timer`) and the base's epoch.
    fn on_loss_detected(&mut self, now: Time, conn: &Conn, newest_sent: Time) {
        self.gain.last_loss = Some(self.bbr.clock().time(now));
        self.bbr.on_loss_detected(now, conn, newest_sent);
    }

    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        self.bbr.on_rto(now, conn, timeout);
        self.sync_mode();
        self.gain.last_loss = Some(self.bbr.clock().time(now));
    }

    fn on_tx_start(&mut self, now: Time, conn: &Conn) {
        self.bbr.on_tx_start(now, conn);
        self.sync_mode();
    }

    super::bbr_outputs::outputs_of_inner_v1!();

    /// v1's telemetry, with `cwnd_gain` = the gain the last `set_cwnd` used.
    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            cwnd_gain: Some(self.gain_used),
            ..self.bbr.metrics()
        }
    }
}
