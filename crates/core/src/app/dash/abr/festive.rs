//! FESTIVE as Pensieve ran it: a throughput target reached one step at a
//! time, gated by a stability/efficiency score.
//!
//! # In a nutshell
//!
//! ```text
//!   w        = predict_throughput (last 5 chunks, see `pensieve`)
//!   b_target = highest level with bitrate ≤ p·w (p = 0.85), else 0
//!   b_ref    = b_cur + 1  if b_target > b_cur and (++up_count) > b_cur   (k-th rung needs
//!                                                                        > k up signals)
//!            = b_cur − 1  if b_target < b_cur                            (up_count = 0)
//!            = b_cur      otherwise                                      (up_count = 0 if equal)
//!   if b_ref ≠ b_cur:
//!       score(b) = 2^n(b) + α·|R_b / min(w, R_b_ref) − 1|      α = 12
//!       n(b)     = switches among the last 5 chunks' levels + (b ≠ b_cur)
//!       choose b_cur if score(b_cur) ≤ score(b_ref), else b_ref (an up-switch resets up_count)
//! ```
//!
//! This is not the CoNEXT'12 paper's FESTIVE (harmonic mean of 20 samples, a
//! 20 s stability window, randomised scheduling); it is the variant
//! Pensieve's player ran and WWW'21 borrowed.
//!
//! # References
//!
//! * J. Jiang, V. Sekar, H. Zhang, "Improving Fairness, Efficiency, and
//!   Stability in HTTP-based Adaptive Video Streaming with FESTIVE",
//!   CoNEXT 2012.
//! * hongzimao/pensieve `dash.js/src/streaming/controllers/AbrController.js`
//!   (`getBitrateFestive`, `getStabilityScore`, `getEfficiencyScore`,
//!   `p = 0.85`, `alpha = 12`, `horizon = 5`, `switchUpThreshold = [0, 1, …]`)
//!   at `1120bb17`; bloatlab spec `abr-and-traces.md` §3.6.
//!
//! # Deviations
//!
//! * The first segment goes out at dash.js's initial level.
//! * The quality log is the levels of the last completed downloads (Pensieve
//!   logs the previous quality at each decision; identical without
//!   abandonment).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `P` | 0.85 | — | target = highest level ≤ p·w | AbrController.js `p` |
//! | `ALPHA` | 12 | — | efficiency weight | AbrController.js `alpha` |
//! | `HORIZON` (pensieve) | 5 | chunks | estimator and stability window | AbrController.js `horizon` |

use super::pensieve::{completed, predict_throughput_bps};
use super::{Abr, AbrContext, Decision};

/// `p = 0.85` // Pensieve AbrController.js
pub const P: f64 = 0.85;
/// `alpha = 12` // Pensieve AbrController.js
pub const ALPHA: f64 = 12.0;

#[derive(Clone, Debug, PartialEq)]
pub struct Festive {
    p: f64,
    alpha: f64,
    horizon: usize,
    initial: usize,
    switch_up_count: usize,
    estimate: Option<f64>,
}

impl Festive {
    pub fn new(p: f64, alpha: f64, horizon: usize, initial: usize) -> Self {
        Festive {
            p,
            alpha,
            horizon,
            initial,
            switch_up_count: 0,
            estimate: None,
        }
    }

    /// `getStabilityScore`: 2^(switches among the last `horizon` levels + (b ≠ b_cur)).
    fn stability(&self, recent: &[usize], b: usize, b_cur: usize) -> f64 {
        let n = recent.windows(2).filter(|w| w[0] != w[1]).count() + usize::from(b != b_cur);
        2f64.powi(n as i32)
    }

    fn score(
        &self,
        bitrates: &[f64],
        recent: &[usize],
        b: usize,
        b_ref: usize,
        b_cur: usize,
        w: f64,
    ) -> f64 {
        let efficiency = (bitrates[b] / w.min(bitrates[b_ref]) - 1.0).abs();
        self.stability(recent, b, b_cur) + self.alpha * efficiency
    }
}

impl Abr for Festive {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        self.estimate = predict_throughput_bps(ctx.history, self.horizon);
        let (Some(w), Some(b_cur)) = (self.estimate, ctx.last_level) else {
            return Decision::now(self.initial);
        };
        let bitrates = &ctx.video.bitrates_bps;
        let b_target = ctx.video.level_for_bitrate(self.p * w);
        let b_ref = if b_target > b_cur {
            self.switch_up_count += 1;
            if self.switch_up_count > b_cur {
                b_cur + 1
            } else {
                b_cur
            }
        } else {
            self.switch_up_count = 0;
            if b_target < b_cur {
                b_cur - 1
            } else {
                b_cur
            }
        };
        if b_ref == b_cur {
            return Decision::now(b_cur);
        }
        let mut recent: Vec<usize> = completed(ctx.history)
            .rev()
            .take(self.horizon)
            .map(|d| d.level)
            .collect();
        recent.reverse();
        let score_cur = self.score(bitrates, &recent, b_cur, b_ref, b_cur, w);
        let score_ref = self.score(bitrates, &recent, b_ref, b_ref, b_cur, w);
        if score_cur <= score_ref {
            Decision::now(b_cur)
        } else {
            if b_ref > b_cur {
                self.switch_up_count = 0;
            }
            Decision::now(b_ref)
        }
    }

    fn estimate_bps(&self) -> Option<f64> {
        self.estimate
    }

    fn name(&self) -> &'static str {
        "festive"
    }
}

#[cfg(test)]
mod tests {
    use super::super::pensieve::HORIZON;
    use super::super::testkit::*;
    use super::*;

    fn festive() -> Festive {
        Festive::new(P, ALPHA, HORIZON, 1)
    }

    /// Five 1 s downloads at `bps`, 2 s apart, at the given levels.
    fn at_levels(levels: [usize; 5], bps: f64) -> Vec<super::super::Download> {
        let at = |(i, level)| download(i, level, i as f64 * 2.0, 0.05, 1.0, bps);
        levels.into_iter().enumerate().map(at).collect()
    }

    #[test]
    fn defaults_match_spec() {
        assert_eq!((P, ALPHA), (0.85, 12.0));
    }

    #[test]
    fn a_higher_target_needs_more_than_k_up_signals_at_level_k() {
        // Pensieve ladder, level 1 steady, 4 Mb/s measured: target = highest ≤ 3.4 Mb/s = level 4.
        // Up signal 1: count 1 > 1? no → stay. Signal 2: count 2 > 1 → b_ref = 2.
        // Scores (no past switches; w = 4 Mb/s, R_ref = 1200):
        //   cur: 2^0 + 12·|750/1200 − 1| = 1 + 4.5 = 5.5;  ref: 2^1 + 12·|1200/1200 − 1| = 2
        //   5.5 > 2 → switch to level 2.
        let v = pensieve();
        let h = chain(1, 0.05, 1.0, &[4e6; 5]);
        let mut f = festive();
        assert_eq!(f.decide(&ctx(&v, &h, 10.0, 5, 10.0)), Decision::now(1));
        assert_eq!(f.decide(&ctx(&v, &h, 10.0, 5, 10.0)), Decision::now(2));
        assert_eq!(f.switch_up_count, 0);
        // the estimate it reports is w
        assert!((f.estimate_bps().unwrap() - 4e6).abs() < 1.0);
    }

    #[test]
    fn a_lower_target_steps_down_one_level_immediately_when_the_score_favours_it() {
        // At level 4 (2850) with w = 1 Mb/s: target = highest ≤ 0.85 = level 1 → b_ref = 3.
        //   cur: 1 + 12·|2850/min(1000, 1850) − 1| = 1 + 12·1.85 = 23.2
        //   ref: 2 + 12·|1850/1000 − 1| = 2 + 10.2 = 12.2  → step down to 3.
        let v = pensieve();
        let h = chain(4, 0.05, 1.0, &[1e6; 5]);
        assert_eq!(
            festive().decide(&ctx(&v, &h, 10.0, 5, 10.0)),
            Decision::now(3)
        );
    }

    #[test]
    fn recent_switches_make_a_switch_costlier_than_its_efficiency_gain() {
        // Levels of the last 5 chunks 1, 2, 1, 2, 1 (4 switches), w = 1.5 Mb/s, now at level 1 (750):
        // target = highest ≤ 1.275 Mb/s = level 2 (1200); two up signals reach b_ref = 2.
        //   cur: 2^4 + 12·|750/1200 − 1| = 16 + 4.5 = 20.5;  ref: 2^5 + 0 = 32 → stay at 1.
        let v = pensieve();
        let h = at_levels([1, 2, 1, 2, 1], 1.5e6);
        let mut f = festive();
        f.decide(&ctx(&v, &h, 10.0, 5, 10.0));
        assert_eq!(f.decide(&ctx(&v, &h, 10.0, 5, 10.0)), Decision::now(1));
    }

    #[test]
    fn the_switch_under_consideration_adds_one_to_the_switch_count() {
        // Levels 1, 0, 1, 0, 0 (3 switches), w = 1.5 Mb/s, at level 0: target level 2, the
        // first up signal (count 1 > 0) gives b_ref = 1.
        //   cur: 2^3 + 12·|300/750 − 1| = 8 + 7.2 = 15.2;  ref: 2^(3+1) + 0 = 16 → stay at 0.
        let v = pensieve();
        let h = at_levels([1, 0, 1, 0, 0], 1.5e6);
        assert_eq!(
            festive().decide(&ctx(&v, &h, 10.0, 5, 10.0)),
            Decision::now(0)
        );
    }

    #[test]
    fn the_target_is_the_highest_level_within_0_85_of_the_estimate() {
        // w = 1.3 Mb/s at level 1 (750): 0.85 · w = 1.105 Mb/s → level 1, the current one, so
        // no up signal accumulates (w itself would reach level 2, 1200, on the second call).
        let v = pensieve();
        let h = chain(1, 0.05, 1.0, &[1.3e6; 5]);
        let mut f = festive();
        for _ in 0..3 {
            assert_eq!(f.decide(&ctx(&v, &h, 10.0, 5, 10.0)), Decision::now(1));
            assert_eq!(f.switch_up_count, 0);
        }
        // At level 0 with w = 0.6 Mb/s the target is level 0 itself: no up signal either.
        let h = chain(0, 0.05, 1.0, &[0.6e6; 5]);
        let mut f = festive();
        assert_eq!(f.decide(&ctx(&v, &h, 10.0, 5, 10.0)), Decision::now(0));
        assert_eq!(f.switch_up_count, 0);
    }

    #[test]
    fn the_first_segment_uses_the_initial_level() {
        assert_eq!(
            festive().decide(&ctx(&pensieve(), &[], 0.0, 0, 0.0)),
            Decision::now(1)
        );
    }
}
