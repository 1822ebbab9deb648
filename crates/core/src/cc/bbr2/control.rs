//! The model's arithmetic and BBRv2's outputs: pacing rate and congestion window.
//!
//! ```text
//!   tso_goal = max(min(rate >> 10 + 64 KB >> (min_rtt_µs >> 9), 64 KB − 1 − 320) / mss, 1|2)
//!   inflight(bw, g) = max(bdp(bw, g), 3 · tso_goal, 4)  (+2 in PROBE_BW UP)     "flooring"
//!   pacing  = floor(bw · mss · pacing_gain · 0.99) bytes/s; lowered only once full_bw_reached
//!   cwnd:   acked == 0 → caps only
//!           target = inflight(bw, cwnd_gain) + aggregation  (aggregation also in STARTUP)
//!           full_bw_reached              → cwnd = min(cwnd + acked, target)
//!           cwnd < target or < 2 · IW    → cwnd += acked
//!           cwnd ≥ 4;  PROBE_RTT         → cwnd ≤ max(4, bdp(bw, 0.5))
//!   then bound_cwnd_for_inflight_model (bounds.rs)
//! ```
//!
//! Unlike v1 there is no packet conservation in Recovery: losses act only
//! through the bounds. The v1 helpers (`bdp`'s rounding, `in_net_at_edt`, the
//! pacing-rate arithmetic, the ACK-aggregation estimator) are reused; the TSO
//! goal and quantization budget are v2's own.
//!
//! Loss hooks: entering Recovery saves cwnd (`bbr2_ssthresh`). An RTO saves it
//! (new episode), sets cwnd = inflight + 1 as the TCP core does, forgets the
//! full-bandwidth estimate and, outside probing, seeds `inflight_lo` with the
//! pre-RTO cwnd (`bbr2_set_state(Loss)`); leaving Loss restores cwnd ≥ prior_cwnd.

use super::{Bbr2, Phase, State};
use crate::cc::bbr::{model, TSO_MAX_BYTES};
use crate::cc::{CaState, Conn};
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

/// `GSO_MAX_SIZE`: the min_rtt-based TSO allowance starts from 64 KB.
const GSO_MAX_BYTES: u64 = 65_536;

impl Bbr2 {
    /// Linux `bbr_bdp`: `ceil(bw · min_rtt · gain)`, or the initial cwnd before any RTT sample.
    pub(super) fn bdp(&self, bw: f64, gain: f64) -> u32 {
        match self.min_rtt {
            None => self.init_cwnd,
            rtt => model::bdp(bw, rtt, gain),
        }
    }

    /// Linux v2 `bbr_tso_segs_goal`: ~1 ms of data at the pacing rate plus a
    /// burst allowance that halves every 512 µs of min_rtt; no 127-segment cap.
    pub(super) fn tso_segs_goal(&self) -> u32 {
        let mut bytes = self.pacing_rate_bytes >> self.p.pacing_shift;
        if self.p.tso_rtt_shift > 0 {
            let r = self
                .min_rtt
                .map_or(u64::MAX, |m| m.as_micros() >> self.p.tso_rtt_shift);
            if r < 32 {
                bytes += GSO_MAX_BYTES >> r;
            }
        }
        let segs = (bytes.min(TSO_MAX_BYTES) / self.mss.max(1) as u64) as u32;
        segs.max(model::min_tso_segs(
            self.pacing_rate_bytes,
            self.p.min_tso_rate_bps,
        ))
    }

    /// Linux v2 `bbr_quantization_budget` with `cwnd_tso_budget = 1` ("flooring"):
    /// at least three TSO bursts and 4 packets, plus 2 while probing up.
    pub(super) fn quantization_budget(&self, cwnd: u32) -> u32 {
        let cwnd = cwnd.max(3 * self.tso_segs_goal()).max(self.p.min_cwnd);
        if self.state == State::ProbeBw(Phase::Up) {
            cwnd + 2
        } else {
            cwnd
        }
    }

    /// Linux `bbr_inflight`: `quantization_budget(bdp(bw, gain))`.
    pub(super) fn inflight(&self, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// Linux `bbr2_target_inflight`: "our BDP, unless congestion cut cwnd".
    pub(super) fn target_inflight(&self) -> u32 {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    /// Linux `bbr_packets_in_net_at_edt`, at `bbr_bw()`.
    pub(super) fn in_net_at_edt(&self, now: Time, conn: &Conn, inflight_now: u32) -> u32 {
        let edt_skb = if self.pacing_gain > 1.0 {
            self.tso_segs_goal()
        } else {
            0
        };
        model::in_net_at_edt(
            inflight_now + edt_skb,
            self.bw(),
            conn.next_departure.saturating_since(now),
        )
    }

    /// Linux `bbr_bw_to_pacing_rate`, bytes/s (at least 1, as `bbr_rate_bytes_per_sec`).
    fn bw_to_pacing_rate(&self, bw: f64, gain: f64) -> u64 {
        model::pacing_rate_bytes(bw, self.mss, gain, self.p.pacing_margin_percent).max(1)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: `startup_pacing_gain × cwnd / rtt`.
    pub(super) fn init_pacing_rate_from_rtt(&mut self, srtt: Option<Duration>) {
        self.has_seen_rtt |= srtt.is_some();
        let bw = model::init_pacing_bw(self.cwnd, srtt);
        self.pacing_rate_bytes = self.bw_to_pacing_rate(bw, self.p.startup_pacing_gain);
    }

    /// Linux `bbr_set_pacing_rate`: lower the rate only once the pipe has been filled
    /// (the QUIC port also lowers it during Recovery).
    pub(super) fn set_pacing_rate(&mut self, conn: &Conn, bw: f64, gain: f64) {
        let rate = self.bw_to_pacing_rate(bw, gain);
        if !self.has_seen_rtt && conn.srtt.is_some() {
            self.init_pacing_rate_from_rtt(conn.srtt);
        }
        if self.full_bw.reached
            || rate > self.pacing_rate_bytes
            || self.lowers_rate_in_recovery(conn)
        {
            self.pacing_rate_bytes = rate;
        }
    }

    /// The QUIC port's `_ngx_bbr2_set_pacing_rate_helper` takes a lower rate during
    /// Recovery in any state (`startup_recovery_pacing_gain` marks the port).
    fn lowers_rate_in_recovery(&self, conn: &Conn) -> bool {
        conn.ca_state == CaState::Recovery && self.p.startup_recovery_pacing_gain.is_some()
    }

    /// Linux `bbr_update_gains` (v3 adds `bw_probe_cwnd_gain` in UP).
    pub(super) fn update_gains(&mut self, conn: &Conn) {
        let p = &self.p;
        (self.pacing_gain, self.cwnd_gain) = match self.state {
            State::Startup => match p.startup_recovery_pacing_gain {
                Some(g) if conn.ca_state == CaState::Recovery => (g, p.startup_cwnd_gain),
                _ => (p.startup_pacing_gain, p.startup_cwnd_gain),
            },
            State::Drain => (p.drain_gain, p.startup_cwnd_gain),
            State::ProbeBw(Phase::Up) => (p.probe_up_gain, p.probe_up_cwnd_gain),
            State::ProbeBw(Phase::Down) => (p.probe_down_gain, p.cwnd_gain),
            State::ProbeBw(Phase::Cruise) => (p.cruise_gain, p.cwnd_gain),
            State::ProbeBw(Phase::Refill) => (p.refill_gain, p.cwnd_gain),
            State::ProbeRtt => (1.0, 1.0),
        };
    }

    /// Linux `bbr_save_cwnd`: remember the last good cwnd before recovery or PROBE_RTT.
    pub(super) fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.state != State::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`; v2 counts aggregation in STARTUP too.
    fn aggregation_cwnd(&self) -> u32 {
        let p = &self.p;
        if p.extra_acked_gain == 0.0 || !(self.full_bw.reached || p.extra_acked_in_startup) {
            return 0;
        }
        let max = model::packets_in(self.bw(), Duration::from_millis(p.extra_acked_max_ms));
        let aggr = (p.extra_acked_gain * self.ack_aggr.extra_acked() as f64).floor() as u32;
        aggr.min(max)
    }

    /// Linux `bbr_update_ack_aggregation`, with 1-round buckets before the pipe is full.
    pub(super) fn update_ack_aggregation(&mut self, conn: &Conn, rs: &RateSample) {
        if self.p.extra_acked_gain == 0.0 || rs.acked_sacked == 0 || !super::has_interval(rs) {
            return;
        }
        let win = if self.p.extra_acked_in_startup && !self.full_bw.reached {
            1
        } else {
            self.p.extra_acked_win_rounds
        };
        let bw = self.bw();
        self.ack_aggr.update(
            self.round_start,
            rs.acked_sacked,
            conn.delivered_time,
            bw,
            self.cwnd,
            win,
            self.p.ack_epoch_acked_reset,
        );
    }

    /// Linux `bbr_set_cwnd` (v2): slow-start toward the target, or snap down to it
    /// once the pipe is full; then the floor and PROBE_RTT's cap.
    pub(super) fn set_cwnd(&mut self, acked: u32, bw: f64, gain: f64) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let target = self.quantization_budget(self.bdp(bw, gain) + self.aggregation_cwnd());
            self.try_fast_path = false;
            if self.full_bw.reached {
                cwnd += acked;
                if cwnd >= target {
                    cwnd = target;
                    self.try_fast_path = true;
                }
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            } else {
                self.try_fast_path = true;
            }
            cwnd = cwnd.max(self.p.min_cwnd);
        }
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        self.cwnd = cwnd;
    }

    /// Linux `tcp_enter_loss`: `ssthresh()` on a new episode, cwnd = inflight + 1,
    /// then `bbr2_set_state(TCP_CA_Loss)`.
    pub(super) fn enter_loss(&mut self, conn: &Conn, new_episode: bool) {
        if new_episode {
            self.save_cwnd();
        }
        self.cwnd = conn.inflight + 1;
        self.prev_ca_state = CaState::Loss;
        if self.p.full_bw_per_sample {
            self.reset_full_bw();
        } else {
            self.full_bw.bw = 0.0; // v2 keeps the count
        }
        if !self.is_probing_bandwidth() && self.b.inflight_lo.is_none() {
            // "bbr_adapt_lower_bounds() needs cwnd before we suffered an RTO"
            self.b.inflight_lo = Some(if self.p.v3_refinements {
                self.cwnd.max(self.prior_cwnd)
            } else {
                self.prior_cwnd
            });
        }
    }

    /// `bbr2_set_state(new ≠ Loss)` after Loss: restore the cwnd saved when it began.
    pub(super) fn check_exit_loss(&mut self, conn: &Conn) {
        if self.prev_ca_state == CaState::Loss && conn.ca_state != CaState::Loss {
            self.cwnd = self.cwnd.max(self.prior_cwnd);
            self.try_fast_path = false;
        }
    }

    /// Linux `bbr_cwnd_event(CA_EVENT_TX_START)` on an app-limited connection.
    pub(super) fn restart_from_idle(&mut self, now: Time, conn: &Conn) {
        let now = self.clock().time(now);
        self.idle_restart = true;
        self.ack_aggr.reset_epoch(now);
        match self.state {
            State::ProbeBw(_) => self.set_pacing_rate(conn, self.bw(), 1.0),
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
