//! dash.js InsufficientBufferRule: never pick a level whose segment could not
//! arrive before the buffer runs out.
//!
//! # In a nutshell
//!
//! ```text
//!   silent (NO_CHANGE) until the buffer state has been BUFFER_LOADED once (v3.0),
//!          or, with segmentIgnoreCount > 0 (later versions: 2), until that many
//!          segments have been downloaded
//!   BUFFER_EMPTY → propose the lowest level
//!   otherwise    cap = average throughput (not safety-scaled)
//!                      × buffer / segment duration × factor      (v3: 0.5, v5: 0.7)
//!                propose quality_for_bitrate(cap, latency)
//! ```
//!
//! With a large buffer the cap is far above the ladder and the rule is
//! inert; it bites when the buffer is short of a few segment durations.
//!
//! # References
//!
//! * dash.js v3.x `src/streaming/rules/abr/InsufficientBufferRule.js`
//!   (`wasFirstBufferLoadedEventTriggered`, `INSUFFICIENT_BUFFER_SAFETY_FACTOR`);
//!   v5 parameters `throughputSafetyFactor`, `segmentIgnoreCount`.
//! * bloatlab spec `abr-and-traces.md` §1.6.
//!
//! # Deviations
//!
//! * With no throughput sample yet v3 maps NaN to the lowest level; here too
//!   (v5 returns NO_CHANGE). The case cannot arise once a segment has been
//!   appended, which BUFFER_LOADED implies.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (profile) `insufficient_buffer_factor` | 0.5 / 0.7 | — | safety factor on the cap | InsufficientBufferRule |
//! | (profile) `insufficient_buffer_ignore_segments` | 0 / 2 | segments | warm-up; 0 = wait for the first BUFFER_LOADED | `segmentIgnoreCount`, v3.0 `wasFirstBufferLoadedEventTriggered` |

use super::controller::{quality_for_bitrate, BufferState, RuleInput};

/// The rule's memory: whether BUFFER_LOADED has been seen (reset only on seek in dash.js).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InsufficientBufferRule {
    first_loaded: bool,
}

impl InsufficientBufferRule {
    /// The rule's proposal, `None` for NO_CHANGE. `downloads` counts completed segments.
    pub fn propose(&mut self, inp: &RuleInput, downloads: usize) -> Option<usize> {
        let state = inp.buffer_state?;
        if state == BufferState::Loaded {
            self.first_loaded = true;
        }
        let ignore = inp.profile.insufficient_buffer_ignore_segments;
        let warming_up = if ignore > 0 {
            downloads < ignore
        } else {
            !self.first_loaded
        };
        if warming_up {
            return None;
        }
        if state == BufferState::Empty {
            return Some(0);
        }
        let Some(throughput) = inp.history.average_throughput_bps() else {
            return Some(0);
        };
        let ctx = inp.ctx;
        let cap = throughput * ctx.buffer.as_secs_f64() / ctx.video.segment_duration.as_secs_f64()
            * inp.profile.insufficient_buffer_factor;
        Some(quality_for_bitrate(
            ctx.video,
            inp.profile,
            cap,
            inp.history.average_latency_s(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::app::dash::profile::Profile;
    use crate::app::dash::video::Video;

    #[test]
    fn the_cap_scales_throughput_by_buffer_over_segment_duration() {
        // v3, WWW'21 ladder, 20 Mb/s measured with 0.1 s latency, buffer 3 s, 5 s segments:
        // cap = 20 × 3/5 × 0.5 = 6 Mb/s; dead time × (1 − 0.1/5) = 5.88 → level 2 (5 Mb/s).
        let v = Video::www21();
        let p = Profile::v3();
        let h = history(&p, &[20.0], 0.1);
        let c = ctx(&v, &[], 10.0, 2, 3.0);
        let inp = rule_input(&c, &p, &h, Some(BufferState::Loaded));
        assert_eq!(InsufficientBufferRule::default().propose(&inp, 1), Some(2));

        // v5 (factor 0.7, no dead time, EWMA of one sample = 20): cap = 20 × 3/5 × 0.7 = 8.4 → level 3.
        let p = Profile::v5();
        let h = history(&p, &[20.0], 0.1);
        let inp = RuleInput {
            profile: &p,
            history: &h,
            ..inp
        };
        assert_eq!(InsufficientBufferRule::default().propose(&inp, 2), Some(3));
    }

    #[test]
    fn an_empty_buffer_proposes_the_lowest_level_once_the_buffer_has_loaded() {
        let v = Video::www21();
        let p = Profile::v3();
        let h = history(&p, &[20.0], 0.1);
        let c = ctx(&v, &[], 10.0, 2, 0.2);
        let mut rule = InsufficientBufferRule::default();
        let empty = rule_input(&c, &p, &h, Some(BufferState::Empty));
        // Never loaded yet: silent.
        assert_eq!(rule.propose(&empty, 1), None);
        let loaded = RuleInput {
            buffer_state: Some(BufferState::Loaded),
            ..empty
        };
        assert!(rule.propose(&loaded, 1).is_some());
        let empty = RuleInput {
            buffer_state: Some(BufferState::Empty),
            ..loaded
        };
        assert_eq!(rule.propose(&empty, 1), Some(0));
    }

    #[test]
    fn v5_ignores_the_first_two_segments() {
        let v = Video::www21();
        let p = Profile::v5();
        let h = history(&p, &[20.0], 0.1);
        let c = ctx(&v, &[], 10.0, 2, 3.0);
        let inp = rule_input(&c, &p, &h, Some(BufferState::Loaded));
        let mut rule = InsufficientBufferRule::default();
        assert_eq!(rule.propose(&inp, 1), None);
        assert_eq!(rule.propose(&inp, 2), Some(3));
    }

    #[test]
    fn no_buffer_state_means_no_change() {
        let v = Video::www21();
        let p = Profile::v3();
        let h = history(&p, &[20.0], 0.1);
        let c = ctx(&v, &[], 10.0, 2, 3.0);
        let inp = rule_input(&c, &p, &h, None);
        assert_eq!(InsufficientBufferRule::default().propose(&inp, 5), None);
    }
}
