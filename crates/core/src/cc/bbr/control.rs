//! BBR's outputs: the pacing rate and the congestion window.
//!
//! ```text
//!   pacing = floor(bw · mss · pacing_gain · 0.99)  bytes/s; lowered only once full_bw_reached
//!   cwnd:  acked == 0                  → caps only
//!          losses                      → cwnd −= losses (≥ 1)
//!          first ACK of Recovery       → packet conservation for one round:
//!                                        cwnd = max(cwnd, inflight + acked)
//!          leaving Recovery/Loss       → cwnd = max(cwnd, prior_cwnd)
//!          (`recovery_epoch = "artifact"`: the artifact's epoch, `recovery.rs`, in place of
//!           TCP's Recovery state; cwnd is saved at every loss, not at Recovery's start)
//!          otherwise, target = quantization_budget(bdp(bw, cwnd_gain) + aggregation_cwnd)
//!                     (`artifact_base`: max(cwnd_gain · bdp, 4) + 3 quanta, `model.rs`)
//!            full_bw_reached           → cwnd = min(cwnd + acked, target)
//!            cwnd < target or delivered < 10 → cwnd += acked        (never shrinks in STARTUP;
//!                                              artifact_base: delivered < its initial window)
//!          cwnd ≥ 4 (Linux: not while conserving; artifact_base: then too)
//!          PROBE_RTT                   → cwnd ≤ 4
//! ```
//!
//! An ACK for P packets thus releases at most 2P: losses are deducted first,
//! then cwnd slow-starts back toward the target.
//!
//! Loss hooks: entering Recovery saves cwnd (`bbr_ssthresh`); an RTO also
//! saves it (new episode only), sets cwnd = inflight + 1 as the TCP core does,
//! and then runs `bbr_set_state(TCP_CA_Loss)`. An idle restart paces PROBE_BW at
//! 1.0 × bw and may end PROBE_RTT.

use super::{model, Bbr, RecoveryEpochRule, State, TCP_INIT_CWND};
use crate::cc::{CaState, Conn};
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

impl Bbr {
    /// Linux `bbr_bw_to_pacing_rate`, bytes/s.
    fn bw_to_pacing_rate(&self, bw: f64, gain: f64) -> u64 {
        model::pacing_rate_bytes(bw, self.mss, gain, self.p.pacing_margin_percent)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: `high_gain × cwnd / rtt`.
    pub(super) fn init_pacing_rate_from_rtt(&mut self, srtt: Option<Duration>) {
        self.has_seen_rtt |= srtt.is_some();
        let bw = model::init_pacing_bw(self.cwnd, srtt);
        self.pacing_rate_bytes = self.bw_to_pacing_rate(bw, self.p.high_gain);
    }

    /// Linux `bbr_set_pacing_rate`: redo the initial rate once srtt exists, then
    /// apply `gain × bw`, lowering the rate only once the pipe has been filled.
    pub(super) fn set_pacing_rate(&mut self, conn: &Conn, bw: f64, gain: f64) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && conn.srtt.is_some() {
            self.init_pacing_rate_from_rtt(conn.srtt);
        }
        if self.full_bw.reached || rate > self.pacing_rate_bytes {
            self.pacing_rate_bytes = rate;
        }
    }

    /// Linux `bbr_save_cwnd`: remember the last good cwnd before recovery or PROBE_RTT.
    /// (The artifact's `ngx_bbr_save_cwnd` asks its own epoch whether recovery has cut cwnd.)
    pub(super) fn save_cwnd(&mut self) {
        let in_recovery = match self.p.recovery_epoch {
            RecoveryEpochRule::Tcp => self.prev_ca_state >= CaState::Recovery,
            RecoveryEpochRule::Artifact => self.epoch.in_recovery(),
        };
        if !in_recovery && self.state != State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            // Recovery or PROBE_RTT has already cut cwnd: keep the larger value.
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`: extra cwnd for ACK aggregation, once the pipe is full.
    pub(super) fn aggregation_cwnd(&self) -> u32 {
        if self.p.extra_acked_gain == 0.0 || !self.full_bw.reached {
            return 0;
        }
        let max = model::packets_in(self.bw(), Duration::from_millis(self.p.extra_acked_max_ms));
        let aggr = (self.p.extra_acked_gain * self.ack_aggr.extra_acked() as f64).floor() as u32;
        aggr.min(max)
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd to build on and
    /// whether packet conservation decides it alone.
    /// Under the artifact's epoch (`ngx_bbr_modulate_cwnd_for_recovery`) the epoch decides
    /// entry and exit instead of TCP's Recovery state; leaving an RTO's Loss state still restores.
    fn recover_or_restore(&mut self, conn: &Conn, rs: &RateSample, acked: u32) -> (u32, bool) {
        let (prev, state) = (self.prev_ca_state, conn.ca_state);
        let (enters, leaves) = match self.p.recovery_epoch {
            RecoveryEpochRule::Tcp => (
                state == CaState::Recovery && prev != CaState::Recovery,
                prev >= CaState::Recovery && state < CaState::Recovery,
            ),
            RecoveryEpochRule::Artifact => {
                let enters = self.epoch.take_entry();
                let leaves = !enters
                    && (self.epoch.take_exit()
                        || (prev == CaState::Loss && state < CaState::Recovery));
                (enters, leaves)
            }
        };
        let mut cwnd = self.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if enters {
            // First round of Recovery: packet conservation, and the round starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = conn.delivered;
            // Cut unused cwnd from app behaviour, TSQ or TSO deferral.
            cwnd = conn.inflight + acked;
        } else if leaves {
            // Leaving loss recovery: restore the cwnd saved when it began.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max(conn.inflight + acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// Linux `bbr_set_cwnd`: slow-start toward the target, or snap down to it once the
    /// pipe is full; then the floor and PROBE_RTT's cap. Linux skips the floor while it
    /// conserves packets; the artifact (`ngx_bbr_set_cwnd`) applies it then too.
    pub(super) fn set_cwnd(
        &mut self,
        conn: &Conn,
        rs: &RateSample,
        acked: u32,
        bw: f64,
        gain: f64,
    ) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let conserving;
            (cwnd, conserving) = self.recover_or_restore(conn, rs, acked);
            if !conserving {
                let target = self.cwnd_target(bw, gain);
                if self.full_bw.reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || conn.delivered < self.growth_floor() {
                    cwnd += acked;
                }
            }
            if !conserving || self.p.artifact_base {
                cwnd = cwnd.max(self.p.min_cwnd);
            }
        }
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.p.min_cwnd);
        }
        self.cwnd = cwnd;
    }

    /// Packets delivered below which STARTUP's cwnd grows whatever its target: Linux's
    /// `TCP_INIT_CWND`; the artifact's initial window (`cg->delivered <
    /// bbr->initial_congestion_window`).
    fn growth_floor(&self) -> u64 {
        if self.p.artifact_base {
            self.initial_cwnd as u64
        } else {
            TCP_INIT_CWND as u64
        }
    }

    /// Linux `tcp_enter_loss`: `ssthresh()` (save cwnd) on a new episode, cwnd =
    /// inflight + 1, then `bbr_set_state(TCP_CA_Loss)`.
    pub(super) fn enter_loss(&mut self, conn: &Conn, new_episode: bool) {
        if new_episode {
            self.save_cwnd();
        }
        self.cwnd = conn.inflight + 1;
        self.prev_ca_state = CaState::Loss;
        self.full_bw.bw = 0.0; // full_bw_cnt is kept
        self.round_start = true; // "treat RTO like end of a round"
        self.lt_bw_sampling(conn, 1, false);
    }

    /// Linux `bbr_cwnd_event(CA_EVENT_TX_START)` on an app-limited connection.
    pub(super) fn restart_from_idle(&mut self, now: Time, conn: &Conn) {
        let now = self.clock().time(now);
        self.idle_restart = true;
        self.ack_aggr.reset_epoch(now);
        match self.state {
            // "Avoid pointless buffer overflows: pace at est. bw if we don't need more speed."
            State::ProbeBw => self.set_pacing_rate(conn, self.bw(), 1.0),
            State::ProbeRtt => {
                self.check_probe_rtt_done(now, conn);
                if self.state != State::ProbeRtt {
                    self.app_limited_requested = false;
                }
            }
            State::Startup | State::Drain => {}
        }
    }
}
