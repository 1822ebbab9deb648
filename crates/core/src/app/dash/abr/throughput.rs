//! dash.js ThroughputRule: the highest level the safe throughput sustains.
//!
//! # In a nutshell
//!
//! ```text
//!   t = safe average throughput (average × 0.9); no sample → NO_CHANGE
//!   if abandonment state is ALLOW_LOAD and the buffer state is BUFFER_LOADED:
//!       propose quality_for_bitrate(t, latency)
//!   else NO_CHANGE
//!   quality_for_bitrate(b, ℓ):  (v3/v4, useDeadTimeLatency)
//!       if ℓ > segment duration → lowest
//!       b ← b × (1 − ℓ / segment duration)
//!       highest level with bitrate ≤ b, else the lowest
//! ```
//!
//! The rule is consulted only while DYNAMIC (or the `throughput` strategy)
//! uses throughput mode; it also clears BOLA's pacing delay, which the
//! controller does by returning no delay in that mode. So at start-up, before
//! any segment has landed, the initial level stands.
//!
//! # References
//!
//! * dash.js v3.x `src/streaming/rules/abr/ThroughputRule.js`,
//!   `controllers/AbrController.js` (`getQualityForBitrate`).
//! * bloatlab spec `abr-and-traces.md` §1.3, §1.2 (latency handling).
//!
//! # Deviations
//!
//! * Live streams (`isDynamic`) are not modelled: the BUFFER_LOADED
//!   condition always applies.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (none) | | | safety factor and latency handling come from the profile | |

use super::controller::{quality_for_bitrate, BufferState, RuleInput};

/// ThroughputRule's proposal, `None` for NO_CHANGE.
pub fn propose(inp: &RuleInput) -> Option<usize> {
    let t = inp.history.safe_throughput_bps()?;
    if inp.buffer_state != Some(BufferState::Loaded) || inp.abandoning {
        return None;
    }
    Some(quality_for_bitrate(
        inp.ctx.video,
        inp.profile,
        t,
        inp.history.average_latency_s(),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::estimator::ThroughputHistory;
    use super::super::testkit::*;
    use super::*;
    use crate::app::dash::profile::Profile;
    use crate::app::dash::video::Video;

    #[test]
    fn sliding_window_mean_times_safety_factor_picks_the_level() {
        // WWW'21 ladder (1, 2.5, 5, 7.5, 10, … 25 Mb/s, 5 s segments). Samples 10, 12, 8 Mb/s:
        // window 4 ≥ 3 stored → all three, mean 10 Mb/s × 0.9 = 9 Mb/s. Latency 0.05 s
        // → × (1 − 0.05/5) = 8.91 Mb/s → highest level ≤ 8.91 is 7.5 Mb/s = level 3.
        let v = Video::www21();
        let p = Profile::v3();
        let h = history(&p, &[10.0, 12.0, 8.0], 0.05);
        let c = ctx(&v, &[], 20.0, 3, 8.0);
        assert_eq!(
            propose(&rule_input(&c, &p, &h, Some(BufferState::Loaded))),
            Some(3)
        );
    }

    #[test]
    fn latency_dead_time_lowers_the_target_in_v3_but_not_in_v5() {
        // One 11.2 Mb/s sample with 0.5 s latency. Safe: 10.08 Mb/s. v3: × (1 − 0.5/5) = 9.07
        // → level 3 (7.5 Mb/s); v5 (EWMA of one sample = 11.2, no dead-time) 10.08 → level 4 (10).
        let v = Video::www21();
        let c = ctx(&v, &[], 20.0, 3, 8.0);
        for (p, want) in [(Profile::v3(), 3), (Profile::v5(), 4)] {
            let h = history(&p, &[11.2], 0.5);
            assert_eq!(
                propose(&rule_input(&c, &p, &h, Some(BufferState::Loaded))),
                Some(want)
            );
        }
    }

    #[test]
    fn latency_longer_than_a_segment_means_the_lowest_level() {
        let v = Video::www21();
        let p = Profile::v3();
        let h = history(&p, &[50.0], 6.0);
        let c = ctx(&v, &[], 20.0, 3, 8.0);
        assert_eq!(
            propose(&rule_input(&c, &p, &h, Some(BufferState::Loaded))),
            Some(0)
        );
    }

    #[test]
    fn no_change_without_a_sample_a_loaded_buffer_or_while_abandoning() {
        let v = Video::www21();
        let p = Profile::v3();
        let empty = ThroughputHistory::new(&p, false);
        let h = history(&p, &[10.0], 0.05);
        let c = ctx(&v, &[], 20.0, 3, 8.0);
        assert_eq!(
            propose(&rule_input(&c, &p, &empty, Some(BufferState::Loaded))),
            None
        );
        assert_eq!(propose(&rule_input(&c, &p, &h, None)), None);
        assert_eq!(
            propose(&rule_input(&c, &p, &h, Some(BufferState::Empty))),
            None
        );
        let abandoning = RuleInput {
            abandoning: true,
            ..rule_input(&c, &p, &h, Some(BufferState::Loaded))
        };
        assert_eq!(propose(&abandoning), None);
    }
}
