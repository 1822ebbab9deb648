//! PROBE_BW: cruise at the estimated bandwidth, cycling the pacing gain
//! through `pacing_gain_cycle` (Linux: 1.25, 0.75, then 1.0 × 6), one phase
//! per `min_rtt` at least.
//!
//! ```text
//!   full_length = delivered_time − cycle_stamp > min_rtt       (last delivery, not now)
//!   gain = 1     : advance when full_length
//!   gain > 1     : advance when full_length and (losses > 0 or in_net ≥ inflight(max_bw, gain))
//!   gain < 1     : advance when full_length or in_net ≤ inflight(max_bw, 1)
//!   in_net = in_net_at_edt(prior_in_flight)   (artifact_base: prior_in_flight, no EDT)
//!   inflight(bw, g) = quantization_budget(bdp(bw, g))   (artifact_base: max(g · bdp, 4) bytes)
//! ```
//!
//! The probing phase must actually raise inflight to 1.25 BDP (or see loss);
//! the draining phase ends early once the queue it targets is gone. On entry
//! the phase is `len − 1 − rand(cycle_rand)`, advanced once, so with Linux's
//! values the cycle never starts in the 0.75 phase.

use super::{Bbr, State};
use crate::cc::Conn;
use crate::time::Time;
use crate::transport::rate_sample::RateSample;

impl Bbr {
    /// Linux `bbr_reset_probe_bw_mode`: enter (or restart) gain cycling at a random phase.
    pub(super) fn enter_probe_bw(&mut self, conn: &Conn) {
        self.transition_to(State::ProbeBw);
        let len = self.p.pacing_gain_cycle.len();
        let offset = match self.p.cycle_rand {
            0 => 0,
            n => self.rng.below(n as u64) as usize,
        };
        self.cycle_idx = len - 1 - offset;
        self.advance_cycle_phase(conn);
    }

    /// Linux `bbr_update_cycle_phase`.
    pub(super) fn update_cycle_phase(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        if self.state == State::ProbeBw && self.is_next_cycle_phase(now, conn, rs) {
            self.advance_cycle_phase(conn);
        }
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, now: Time, conn: &Conn, rs: &RateSample) -> bool {
        let elapsed = self
            .clock()
            .time(conn.delivered_time)
            .saturating_since(self.cycle_stamp);
        let full_length = self.min_rtt.is_some_and(|m| elapsed > m);
        if self.pacing_gain == 1.0 {
            return full_length;
        }
        let inflight = self.in_net_at_edt(now, conn, rs.prior_in_flight);
        let bw = self.max_bw(); // not lt_bw
        if self.pacing_gain > 1.0 {
            full_length
                && (rs.losses > 0
                    || self
                        .cmp_inflight_target(inflight, bw, self.pacing_gain)
                        .is_ge())
        } else {
            full_length || self.cmp_inflight_target(inflight, bw, 1.0).is_le()
        }
    }

    /// Linux `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, conn: &Conn) {
        self.cycle_idx = (self.cycle_idx + 1) % self.p.pacing_gain_cycle.len();
        self.cycle_stamp = self.clock().time(conn.delivered_time);
    }
}
