//! DRAIN: pace at 88/256 (≈ 1/2.89) of the bandwidth to empty the queue
//! STARTUP built, keeping STARTUP's cwnd gain, until the packets estimated to
//! be in the network at the next departure fit one BDP:
//!
//! ```text
//!   in_net_at_edt(inflight) ≤ inflight(max_bw, 1.0) = max(bdp(max_bw, 1), 3 · tso_goal, 4)
//!   (`prior_inflight_raw`, the QUIC port: inflight as it is, without the EDT credit)
//! ```
//!
//! Entering DRAIN resets the congestion signals STARTUP collected and sets the
//! informational `ssthresh`. The exit check runs on the same ACK that ends
//! STARTUP, so DRAIN may last zero ACKs. v2 then enters PROBE_BW through DOWN
//! (`bbr2_start_bw_probe_down`), not at a random phase as v1 does. The
//! inflight_hi cap does not apply in DRAIN (Linux; the IETF draft's table differs).

use super::{Bbr2, State};
use crate::cc::Conn;
use crate::time::Time;

impl Bbr2 {
    /// Linux `bbr2_check_drain`: STARTUP → DRAIN once the pipe is full, DRAIN →
    /// PROBE_BW DOWN once the queue is estimated drained.
    pub(super) fn check_drain(&mut self, now: Time, conn: &Conn) {
        if self.state == State::Startup && self.full_bw.reached {
            self.enter_drain();
        }
        if self.state == State::Drain {
            let target = self.inflight(self.max_bw(), 1.0);
            let in_net = if self.p.prior_inflight_raw {
                conn.inflight // the QUIC port's `sampler->in_flight`: no EDT credit
            } else {
                self.in_net_at_edt(now, conn, conn.inflight)
            };
            if in_net <= target {
                self.start_probe_down(now, conn);
            }
        }
    }

    /// Enters DRAIN; `snd_ssthresh` becomes one BDP ("purely for monitoring").
    fn enter_drain(&mut self) {
        self.transition_to(State::Drain);
        self.ssthresh = Some(self.inflight(self.max_bw(), 1.0));
        self.reset_congestion_signals();
    }
}
