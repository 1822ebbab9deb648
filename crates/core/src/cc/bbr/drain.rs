//! DRAIN: pace at `drain_gain` (≈ 1/high_gain) to empty the queue STARTUP
//! built, keeping cwnd at `high_gain × bdp`, until the packets estimated to be
//! in the network at the next departure fit one BDP:
//!
//! ```text
//!   in_net_at_edt(inflight) ≤ inflight(max_bw, 1.0) = quantization_budget(bdp(max_bw, 1))
//!   (`artifact_base`: inflight ≤ max(bdp, 4) in bytes, no budget: `ngx_bbr_check_drain`)
//! ```
//!
//! The check runs on the same ACK that ends STARTUP (Linux `bbr_check_drain`
//! "falls through"), so DRAIN may last zero ACKs.

use super::{Bbr, State};
use crate::cc::Conn;
use crate::time::Time;

impl Bbr {
    /// Linux `bbr_check_drain`: STARTUP → DRAIN once the pipe is full, DRAIN →
    /// PROBE_BW once the queue is estimated drained.
    pub(super) fn check_drain(&mut self, now: Time, conn: &Conn) {
        if self.state == State::Startup && self.full_bw.reached {
            self.enter_drain();
        }
        if self.state == State::Drain {
            let in_net = self.in_net_at_edt(now, conn, conn.inflight);
            if self.cmp_inflight_target(in_net, self.max_bw(), 1.0).is_le() {
                self.enter_probe_bw(conn);
            }
        }
    }

    /// Enters DRAIN; `snd_ssthresh` becomes one BDP (informational only in Linux).
    fn enter_drain(&mut self) {
        self.transition_to(State::Drain);
        self.ssthresh = Some(self.inflight(self.max_bw(), 1.0));
    }
}
