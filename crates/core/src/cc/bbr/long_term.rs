//! Long-term ("policer") bandwidth, after Linux `bbr_lt_bw_sampling`.
//!
//! Token-bucket policers let a burst through, then drop everything above the
//! token rate. BBR's max filter would keep the burst rate and lose heavily, so
//! BBR looks for two consecutive lossy sampling intervals with consistent
//! throughput and then uses their average (`lt_bw`) instead, with pacing gain 1:
//!
//! ```text
//!   sampling starts at the first loss (tokens exhausted); app-limited samples reset it
//!   an interval lasts 4..16 rounds and ends on an ACK with losses, if lost/delivered ≥ 50/256
//!   bw = delivered / (whole ms since the interval began)
//!   previous interval's bw within 1/8 or 4 kbit/s  →  lt_bw = average; use it
//!   otherwise                                      →  lt_bw = bw; start the next interval
//!   after 48 rounds of PROBE_BW on lt_bw           →  reset and restart gain cycling
//! ```
//!
//! Interval start times are whole milliseconds, as in Linux. Linux's "4 kbit/s"
//! comparison includes the 1 % pacing margin; so does this one.

use super::{model, Bbr, Params, State};
use crate::cc::Conn;

/// What an ACK did to the long-term estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtEvent {
    Nothing,
    /// A policer was detected: `lt_bw` is now in use (pacing gain → 1).
    Policed,
    /// `lt_bw` was used long enough: sampling was reset; restart gain cycling.
    Expired,
}

/// Long-term sampling state (`lt_*` fields of `struct bbr`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LongTermBw {
    /// Estimated policed rate, packets/s (0 = none).
    pub bw: f64,
    /// `bw()` returns `lt_bw`.
    pub use_bw: bool,
    is_sampling: bool,
    /// Rounds in the current interval (or, while `use_bw`, rounds spent using it).
    rtt_cnt: u32,
    last_stamp_ms: u64,
    last_delivered: u64,
    last_lost: u64,
}

impl LongTermBw {
    /// Linux `bbr_reset_lt_bw_sampling`.
    pub fn reset(&mut self, conn: &Conn) {
        self.bw = 0.0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(conn);
    }

    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    fn reset_interval(&mut self, conn: &Conn) {
        self.last_stamp_ms = conn.delivered_time.as_millis();
        self.last_delivered = conn.delivered;
        self.last_lost = conn.lost;
        self.rtt_cnt = 0;
    }

    /// One ACK (or the RTO's fake `losses = 1` sample).
    pub fn on_sample(
        &mut self,
        p: &Params,
        conn: &Conn,
        in_probe_bw: bool,
        round_start: bool,
        losses: u32,
        is_app_limited: bool,
    ) -> LtEvent {
        if self.use_bw {
            if in_probe_bw && round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= p.lt_bw_max_rounds {
                    self.reset(conn);
                    return LtEvent::Expired;
                }
            }
            return LtEvent::Nothing;
        }
        // Wait for the first loss, so the policer has exhausted its tokens.
        if !self.is_sampling {
            if losses == 0 {
                return LtEvent::Nothing;
            }
            self.reset_interval(conn);
            self.is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if is_app_limited {
            self.reset(conn);
            return LtEvent::Nothing;
        }
        if round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < p.lt_intvl_min_rounds {
            return LtEvent::Nothing;
        }
        if self.rtt_cnt > 4 * p.lt_intvl_min_rounds {
            self.reset(conn);
            return LtEvent::Nothing;
        }
        // End the interval only on a loss: the tokens are exhausted then.
        if losses == 0 {
            return LtEvent::Nothing;
        }
        let lost = conn.lost - self.last_lost;
        let delivered = conn.delivered - self.last_delivered;
        if delivered == 0 || (lost as f64) < p.lt_loss_thresh * delivered as f64 {
            return LtEvent::Nothing;
        }
        let now_ms = conn.delivered_time.as_millis();
        let Some(t_ms) = now_ms.checked_sub(self.last_stamp_ms).filter(|&t| t >= 1) else {
            return LtEvent::Nothing;
        };
        let bw = delivered as f64 * 1e3 / t_ms as f64;
        self.interval_done(p, conn, bw)
    }

    /// Linux `bbr_lt_bw_interval_done`: policed if two intervals agree.
    fn interval_done(&mut self, p: &Params, conn: &Conn, bw: f64) -> LtEvent {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            let diff_bytes =
                model::pacing_rate_bytes(diff, conn.mss, 1.0, p.pacing_margin_percent) as f64;
            if diff <= p.lt_bw_ratio * self.bw || diff_bytes <= p.lt_bw_diff_bytes_per_sec {
                self.bw = (bw + self.bw) / 2.0;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtEvent::Policed;
            }
        }
        self.bw = bw;
        self.reset_interval(conn);
        LtEvent::Nothing
    }
}

impl Bbr {
    /// Linux `bbr_lt_bw_sampling`, with its writes to `pacing_gain` and the mode.
    pub(super) fn lt_bw_sampling(&mut self, conn: &Conn, losses: u32, is_app_limited: bool) {
        if !self.p.lt_enabled {
            return;
        }
        let in_probe_bw = self.state == State::ProbeBw;
        match self.lt.on_sample(
            &self.p,
            conn,
            in_probe_bw,
            self.round_start,
            losses,
            is_app_limited,
        ) {
            LtEvent::Nothing => {}
            LtEvent::Policed => self.pacing_gain = 1.0, // "try to avoid drops"
            LtEvent::Expired => self.enter_probe_bw(conn),
        }
    }
}
