//! RB (rate-based) as Pensieve ran it: the highest level below the predicted
//! bandwidth.
//!
//! # In a nutshell
//!
//! ```text
//!   w = predict_throughput (Σ d_i / Σ d_i/T_i over the last 5 chunks, see `pensieve`)
//!   level = highest with bitrate ≤ p_rb · w   (p_rb = 1), else the lowest
//! ```
//!
//! # References
//!
//! * hongzimao/pensieve `dash.js/src/streaming/controllers/AbrController.js`
//!   (`getBitrateRB`, `p_rb = 1`) at `1120bb17` (browser only, no simulator
//!   version); bloatlab spec `abr-and-traces.md` §3.5.
//!
//! # Deviations
//!
//! * The first segment goes out at dash.js's initial level (Pensieve's
//!   predictor returns 0 without history, which would pick the lowest level
//!   — but its player's first request is dash.js's own).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `P_RB` | 1 | — | factor on the predicted bandwidth | AbrController.js `p_rb` |
//! | `HORIZON` (pensieve) | 5 | chunks | predictor window | AbrController.js `horizon` |

use super::pensieve::predict_throughput_bps;
use super::{Abr, AbrContext, Decision};

/// `p_rb = 1` // Pensieve AbrController.js
pub const P_RB: f64 = 1.0;

#[derive(Clone, Debug, PartialEq)]
pub struct Rb {
    horizon: usize,
    p_rb: f64,
    initial: usize,
    estimate: Option<f64>,
}

impl Rb {
    pub fn new(horizon: usize, p_rb: f64, initial: usize) -> Self {
        Rb {
            horizon,
            p_rb,
            initial,
            estimate: None,
        }
    }
}

impl Abr for Rb {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        self.estimate = predict_throughput_bps(ctx.history, self.horizon);
        match self.estimate {
            None => Decision::now(self.initial),
            Some(w) => Decision::now(ctx.video.level_for_bitrate(w * self.p_rb)),
        }
    }

    fn estimate_bps(&self) -> Option<f64> {
        self.estimate
    }

    fn name(&self) -> &'static str {
        "rb"
    }
}

#[cfg(test)]
mod tests {
    use super::super::pensieve::HORIZON;
    use super::super::testkit::*;
    use super::*;

    #[test]
    fn defaults_match_spec() {
        assert_eq!(P_RB, 1.0);
    }

    #[test]
    fn the_level_is_the_highest_below_the_weighted_harmonic_estimate() {
        // Pensieve ladder. Chunks (1 s each) at 3, 1.5, 3, 3, 3 Mb/s:
        // Σd = 5, Σ d/T = 4/3e6 + 1/1.5e6 = 2e-6 → 2.5 Mb/s → 1850 kb/s = level 3.
        let v = pensieve();
        let h = chain(2, 0.05, 1.0, &[3e6, 1.5e6, 3e6, 3e6, 3e6]);
        let mut rb = Rb::new(HORIZON, P_RB, 1);
        assert_eq!(rb.decide(&ctx(&v, &h, 10.0, 5, 8.0)), Decision::now(3));
        assert!((rb.estimate_bps().unwrap() - 2.5e6).abs() < 1.0);
        // a configured p_rb of 0.5 scales it: 1.25 Mb/s → 1200 kb/s = level 2
        let mut rb = Rb::new(HORIZON, 0.5, 1);
        assert_eq!(rb.decide(&ctx(&v, &h, 10.0, 5, 8.0)), Decision::now(2));
    }

    #[test]
    fn a_rate_below_the_ladder_gives_the_lowest_level_and_no_history_the_initial_one() {
        let v = pensieve();
        let h = chain(2, 0.05, 1.0, &[0.2e6]);
        let mut rb = Rb::new(HORIZON, P_RB, 1);
        assert_eq!(rb.decide(&ctx(&v, &h, 10.0, 1, 8.0)), Decision::now(0));
        assert_eq!(rb.decide(&ctx(&v, &[], 0.0, 0, 0.0)), Decision::now(1));
    }
}
