//! A fixed level for every segment: controlled on/off workloads with no
//! adaptation in the loop.
//!
//! # In a nutshell
//!
//! `level = min(configured level, top level)`, no delay, no abandonment, no
//! estimate.
//!
//! # References
//!
//! * Pensieve's `Fixed Quality (0)` default branch (`AbrController.js`)
//!   generalised to any level.
//!
//! # Deviations
//!
//! * A level above the ladder is clamped to the top (check it up front with
//!   [`AbrConfig::check_video`](super::AbrConfig::check_video)).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (none) | | | | |

use super::{Abr, AbrContext, Decision};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixed {
    level: usize,
}

impl Fixed {
    pub fn new(level: usize) -> Self {
        Fixed { level }
    }
}

impl Abr for Fixed {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        Decision::now(self.level.min(ctx.video.levels().saturating_sub(1)))
    }

    fn estimate_bps(&self) -> Option<f64> {
        None
    }

    fn name(&self) -> &'static str {
        "fixed"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::app::dash::video::Video;

    #[test]
    fn every_segment_gets_the_configured_level_clamped_to_the_ladder() {
        let v = Video::www21();
        let h = chain(3, 0.05, 1.0, &[1e6, 50e6]);
        let c = ctx(&v, &h, 10.0, 2, 0.0);
        assert_eq!(Fixed::new(3).decide(&c), Decision::now(3));
        assert_eq!(Fixed::new(99).decide(&c), Decision::now(10));
        assert_eq!(Fixed::new(3).estimate_bps(), None);
    }

    #[test]
    fn a_slow_download_is_never_abandoned() {
        // 0.1 MB of 12.5 MB after 5 s: dash.js's rule would abandon it; a fixed level keeps it
        let v = Video::www21();
        let mut rule = Fixed::new(8);
        let c = ctx(&v, &[], 15.0, 3, 2.0);
        assert_eq!(
            rule.abandon(&c, &progress(3, 8, v.size(3, 8), 100_000, 10.0, 50)),
            None
        );
        assert!(!rule.abandoning(at(15.0)));
    }
}
