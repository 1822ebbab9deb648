//! STARTUP: pace and size cwnd at `high_gain` (2/ln 2), doubling the delivery
//! rate each round, until the bandwidth filter stops growing.
//!
//! Full-pipe detection (Linux `bbr_check_full_bw_reached`): on each round
//! start with a non-app-limited sample, if `max_bw ≥ 1.25 × full_bw` the pipe
//! may still grow (`full_bw = max_bw`, count reset); otherwise count the round,
//! and after 3 such rounds declare the pipe full. "Why 3 rounds: 1: rwin
//! autotuning grows the rwin, 2: we fill the higher rwin, 3: we get higher
//! delivery rate samples." The decision is sticky: v1 never un-reaches it.

use super::{Bbr, State};
use crate::transport::rate_sample::RateSample;

/// Full-pipe detection state (`full_bw`, `full_bw_cnt`, `full_bw_reached`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FullBw {
    /// max_bw at the last round that grew by `full_bw_thresh`, packets/s.
    pub bw: f64,
    /// Rounds since then.
    pub cnt: u32,
    /// STARTUP filled the pipe.
    pub reached: bool,
}

impl FullBw {
    /// One round-start observation of `max_bw`.
    pub fn on_round(&mut self, max_bw: f64, thresh: f64, rounds: u32) {
        if max_bw >= self.bw * thresh {
            self.bw = max_bw;
            self.cnt = 0;
            return;
        }
        self.cnt += 1;
        self.reached = self.cnt >= rounds;
    }
}

impl Bbr {
    /// Linux `bbr_reset_startup_mode` (from PROBE_RTT when the pipe was never filled).
    pub(super) fn enter_startup(&mut self) {
        self.transition_to(State::Startup);
    }

    /// Linux `bbr_check_full_bw_reached`.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw.reached || !self.round_start || rs.reference.is_app_limited {
            return;
        }
        let max_bw = self.max_bw();
        self.full_bw
            .on_round(max_bw, self.p.full_bw_thresh, self.p.full_bw_rounds);
    }
}
