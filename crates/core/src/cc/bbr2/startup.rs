//! STARTUP: pace at 2.89 × bw (v3: 2.77) with cwnd at 2.89 (v3: 2) × BDP
//! until the pipe is full, by any of three signals.
//!
//! ```text
//!   bandwidth plateau  v2: each non-app-limited round start, max_bw < 1.25 · full_bw
//!                          three times in a row (v1's rule, reused from cc::bbr)
//!                      v3: every non-app-limited ACK: sample ≥ 1.25 · full_bw restarts the
//!                          count with full_bw = sample; round starts count; 3 ⇒ full_bw_now
//!   loss               at a loss-round start in Recovery, with ≥ full_loss_cnt (v2 8, v3 6)
//!                      ACKs that marked losses in the round and lost > 2 % of tx_in_flight
//!                      ⇒ inflight_hi = inflight(max_bw, 1)   (v3: max with inflight_latest)
//!   ECN                2 rounds with ≥ 50 % CE marks (ecn.rs), same consequence as loss
//! ```
//!
//! v3's detector keeps running after STARTUP and, reset at the start of each
//! PROBE_BW UP, is what ends UP on a bandwidth plateau.

use super::bounds::LossSample;
use super::{Bbr2, State};
use crate::cc::{CaState, Conn};
use crate::transport::rate_sample::RateSample;

/// `loss_events_in_round` is a 4-bit saturating counter in Linux.
const LOSS_EVENTS_MAX: u32 = 0xF;

impl Bbr2 {
    /// Back to STARTUP from PROBE_RTT when the pipe was never filled.
    pub(super) fn enter_startup(&mut self) {
        self.transition_to(State::Startup);
    }

    /// Linux `bbr_check_full_bw_reached` (v2: v1's per-round rule on max_bw; v3: per sample).
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        let (thresh, rounds) = (self.p.full_bw_thresh, self.p.full_bw_rounds);
        if !self.p.full_bw_per_sample {
            if self.full_bw.reached || !self.round_start || rs.reference.is_app_limited {
                return;
            }
            let max_bw = self.max_bw();
            self.full_bw.on_round(max_bw, thresh, rounds);
            return;
        }
        if self.full_bw_now || rs.reference.is_app_limited {
            return;
        }
        if self.sample_bw >= self.full_bw.bw * thresh {
            self.reset_full_bw();
            self.full_bw.bw = self.sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw.cnt += 1;
        self.full_bw_now = self.full_bw.cnt >= rounds;
        self.full_bw.reached |= self.full_bw_now;
    }

    /// v3 `bbr_reset_full_bw`: forget the plateau estimate (not `full_bw_reached`).
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw.bw = 0.0;
        self.full_bw.cnt = 0;
        self.full_bw_now = false;
    }

    /// Linux `bbr2_check_loss_too_high_in_startup`: checked at the end of each loss
    /// round "to filter out noisy/low loss and have a better sense of inflight".
    pub(super) fn check_loss_too_high_in_startup(&mut self, conn: &Conn, rs: &RateSample) {
        if self.full_bw.reached {
            return;
        }
        if rs.losses > 0 && self.sig.loss_events_in_round < LOSS_EVENTS_MAX {
            self.sig.loss_events_in_round += 1;
        }
        if self.p.full_loss_cnt > 0
            && self.sig.loss_round_start
            && conn.ca_state == CaState::Recovery
            && self.sig.loss_events_in_round >= self.p.full_loss_cnt
            && self.is_inflight_too_high(&LossSample::from(rs))
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.sig.loss_round_start {
            self.sig.loss_events_in_round = 0;
        }
    }

    /// Linux `bbr2_handle_queue_too_high_in_startup`: the pipe is full, and
    /// inflight_hi starts at one BDP (v3: or the volume just delivered, if larger).
    pub(super) fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw.reached = true;
        let bdp = self.inflight(self.max_bw(), 1.0);
        self.b.inflight_hi = Some(if self.p.split_latest_signals {
            bdp.max(self.b.inflight_latest)
        } else {
            bdp
        });
    }
}
