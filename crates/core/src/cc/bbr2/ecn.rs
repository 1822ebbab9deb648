//! BBRv2's ECN signals (DCTCP/L4S-style shallow-threshold marks).
//!
//! ```text
//!   eligible   once ecn_enabled, ecn_factor > 0 and min_rtt ≤ 5 ms (sticky)
//!   each round start:  ce_ratio = CE-marked / delivered over the round   (floored to 1/256)
//!                      alpha    = min(1, (1 − 1/16) · alpha + 1/16 · ce_ratio)
//!   STARTUP ends after 2 consecutive rounds with ce_ratio ≥ ecn_thresh (50 %)
//!   a loss round with CE marks, outside probing: inflight_lo ×= 1 − alpha · ecn_factor (1/3)
//!   a sample with CE ≥ 50 % of its deliveries is "inflight too high" (v3: > 50 %)
//!   v3 (ecn_reprobe_gain 0.5): a cycle with CE marks but no loss re-probes at once,
//!                              starting inflight_hi growth at 2^floor(log2(0.5 · inflight_hi))
//! ```
//!
//! **Inert for now**: no simulated queue marks CE yet and `ecn_enabled` is off
//! by default (v2: the `ecn_enable` module parameter; v3: the route's "ECN low"
//! flag and a negotiated ECN handshake). The logic is here so it starts working
//! once the network marks packets and `RateSample::is_ece`/`delivered_ce` carry them.

use super::Bbr2;
use crate::cc::Conn;
use crate::transport::rate_sample::RateSample;

/// ECN state of one flow.
#[derive(Clone, Debug, PartialEq)]
pub struct Ecn {
    /// EWMA of the per-round CE fraction, 0..1.
    pub alpha: f64,
    /// This connection uses the ECN logic (sticky once set).
    pub eligible: bool,
    /// An ACK echoed CE in this loss round / in this PROBE_BW cycle.
    pub in_round: bool,
    pub in_cycle: bool,
    last_delivered: u64,
    last_delivered_ce: u64,
    /// Consecutive STARTUP rounds with a high CE fraction.
    startup_rounds: u32,
}

impl Ecn {
    pub fn new(alpha_init: f64) -> Self {
        Ecn {
            alpha: alpha_init,
            eligible: false,
            in_round: false,
            in_cycle: false,
            last_delivered: 0,
            last_delivered_ce: 0,
            startup_rounds: 0,
        }
    }
}

impl Bbr2 {
    /// `ecn_in_round |= rs->is_ece` (v3 counts ECE only once eligible).
    pub(super) fn note_ece(&mut self, rs: &RateSample) {
        self.ecn.in_round |= rs.is_ece && (self.ecn.eligible || !self.p.v3_refinements);
    }

    fn is_ecn_usable(&self) -> bool {
        let p = &self.p;
        p.ecn_enabled
            && p.ecn_factor > 0.0
            && (p.ecn_max_rtt_us == 0
                || self
                    .min_rtt
                    .is_some_and(|m| m.as_micros() <= p.ecn_max_rtt_us))
    }

    /// Linux `bbr2_update_ecn_alpha`, on each round start.
    pub(super) fn update_ecn_alpha(&mut self, conn: &Conn) {
        if self.p.ecn_factor == 0.0 {
            return;
        }
        if self.p.v3_refinements {
            self.ecn.eligible |= self.is_ecn_usable();
            if !self.ecn.eligible {
                return;
            }
        }
        let delivered = conn.delivered - self.ecn.last_delivered;
        let delivered_ce = conn.delivered_ce - self.ecn.last_delivered_ce;
        if delivered == 0 {
            return;
        }
        self.ecn.eligible |= self.is_ecn_usable();
        let ce_ratio = (delivered_ce * 256 / delivered) as f64 / 256.0;
        let g = self.p.ecn_alpha_gain;
        self.ecn.alpha = ((1.0 - g) * self.ecn.alpha + g * ce_ratio).min(1.0);
        self.ecn.last_delivered = conn.delivered;
        self.ecn.last_delivered_ce = conn.delivered_ce;
        self.check_ecn_too_high_in_startup(ce_ratio);
    }

    /// Linux `bbr2_check_ecn_too_high_in_startup`.
    fn check_ecn_too_high_in_startup(&mut self, ce_ratio: f64) {
        let p = &self.p;
        if self.full_bw.reached || !self.ecn.eligible || p.full_ecn_cnt == 0 || p.ecn_thresh == 0.0
        {
            return;
        }
        if ce_ratio >= p.ecn_thresh {
            self.ecn.startup_rounds += 1;
        } else {
            self.ecn.startup_rounds = 0;
        }
        if self.ecn.startup_rounds >= p.full_ecn_cnt {
            self.handle_queue_too_high_in_startup();
        }
    }
}
