//! dash.js AbandonRequestsRule: give up on a segment that will arrive too late
//! and re-request it at a level the measured rate sustains.
//!
//! # In a nutshell
//!
//! Evaluated on every progress event of the download in flight:
//!
//! ```text
//!   skip if buffer > buffer_time_default, or this segment index was abandoned before
//!   on each progress event: sample = 8·bytes_received / (now − first byte)    (v3)
//!   if samples ≥ min_samples (v3 5, v5 6) and now − first byte > 500 ms and not finished:
//!       rate = mean(samples)                       (v3: mean of cumulative rates)
//!            | 8·(bytes − bytes₁) / (now − t₁)      (v5: since the first progress event)
//!       if 8·total / rate ≥ 1.8 × segment duration and the level in flight is not the lowest:
//!           q = highest level ≤ rate × 0.9 (no dead-time correction)
//!           if bytes remaining > total × bitrate_q / bitrate_current:
//!               abandon, re-request at q (at most once per segment index)
//! ```
//!
//! The controller then holds ABANDON_LOAD for 10 s (ThroughputRule silent,
//! only the profile's `switches_during_abandon` direction applied), resets the
//! switch history and deflates BOLA's placeholder.
//!
//! # References
//!
//! * dash.js v3.x `src/streaming/rules/abr/AbandonRequestsRule.js`
//!   (`ABANDON_MULTIPLIER`, `GRACE_TIME_THRESHOLD`, `MIN_LENGTH_TO_AVERAGE`),
//!   `controllers/AbrController.onFragmentLoadProgress`.
//! * bloatlab spec `abr-and-traces.md` §1.9 (v5 rate and sample threshold).
//!
//! # Deviations
//!
//! * Rates and the projected download time are not rounded to whole kbit/s
//!   and 10 ms as dash.js v3 does.
//! * One progress event = one call to [`AbandonRequestsRule::check`]; the
//!   player decides how often progress events fire (browsers: about every
//!   50 ms or per network read).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (profile) `abandon_multiplier` | 1.8 | — | projected time / segment duration that triggers | `ABANDON_MULTIPLIER` |
//! | (profile) `abandon_grace_time` | 500 | ms | earliest abandonment after the first byte | `GRACE_TIME_THRESHOLD` |
//! | (profile) `abandon_min_samples` | 5 / 6 | events | samples before deciding | `MIN_LENGTH_TO_AVERAGE` / `minThroughputSamplesThreshold` |

use super::{AbrContext, Progress};
use crate::app::dash::profile::{AbandonRate, Profile};
use crate::time::Time;

#[derive(Clone, Debug, PartialEq)]
struct InFlight {
    index: usize,
    level: usize,
    /// Cumulative rates since the first byte, bit/s, one per progress event.
    samples: Vec<f64>,
    /// Bytes and time at the first progress event.
    first: (u64, Time),
}

/// Per-track abandonment state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbandonRequestsRule {
    in_flight: Option<InFlight>,
    abandoned: Vec<usize>,
}

impl AbandonRequestsRule {
    /// One progress event of `p`; `Some(level)` abandons and re-requests at `level`.
    /// `current` is the controller's current level.
    pub fn check(
        &mut self,
        ctx: &AbrContext,
        p: &Progress,
        profile: &Profile,
        current: usize,
    ) -> Option<usize> {
        if ctx.buffer > profile.buffer_time_default || self.abandoned.contains(&p.index) {
            return None;
        }
        let first_byte = p.first_byte_at?;
        let now = ctx.now;
        let info = match &mut self.in_flight {
            Some(f) if f.index == p.index && f.level == p.level => f,
            slot => slot.insert(InFlight {
                index: p.index,
                level: p.level,
                samples: Vec::new(),
                first: (p.bytes_received, now),
            }),
        };
        let elapsed = now.saturating_since(first_byte).as_secs_f64();
        if p.bytes_received > 0 && elapsed > 0.0 {
            info.samples.push(p.bytes_received as f64 * 8.0 / elapsed);
        }
        if p.bytes_received >= p.bytes_total {
            self.in_flight = None;
            return None;
        }
        if info.samples.len() < profile.abandon_min_samples
            || elapsed <= profile.abandon_grace_time.as_secs_f64()
        {
            return None;
        }
        let rate = match profile.abandon_rate {
            AbandonRate::MeanOfCumulative => {
                info.samples.iter().sum::<f64>() / info.samples.len() as f64
            }
            AbandonRate::SinceFirstProgress => {
                let (b0, t0) = info.first;
                let dt = now.saturating_since(t0).as_secs_f64();
                if dt <= 0.0 {
                    return None;
                }
                p.bytes_received.saturating_sub(b0) as f64 * 8.0 / dt
            }
        };
        let total_bits = p.bytes_total as f64 * 8.0;
        let segment = ctx.video.segment_duration.as_secs_f64();
        if total_bits / rate < segment * profile.abandon_multiplier || p.level == 0 {
            return None;
        }
        let bitrates = &ctx.video.bitrates_bps;
        let q = ctx
            .video
            .level_for_bitrate(rate * profile.bandwidth_safety_factor);
        let other_total =
            p.bytes_total as f64 * bitrates[q] / bitrates[current.min(bitrates.len() - 1)];
        let remaining = (p.bytes_total - p.bytes_received) as f64;
        if remaining > other_total {
            self.abandoned.push(p.index);
            self.in_flight = None;
            Some(q)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::app::dash::video::Video;
    use crate::time::Duration;

    /// One download as the rule sees it: segment `index` of `video` at `level`, first byte at
    /// `first_byte_s`, `buffer_s` buffered, `current` the controller's level.
    struct Fetch {
        video: Video,
        index: usize,
        level: usize,
        current: usize,
        first_byte_s: f64,
        buffer_s: f64,
    }

    impl Fetch {
        /// Segment `index` of the WWW'21 video at level 8 (20 Mb/s, 12.5 MB), the current level.
        fn www21(index: usize, first_byte_s: f64, buffer_s: f64) -> Self {
            Fetch {
                video: Video::www21(),
                index,
                level: 8,
                current: 8,
                first_byte_s,
                buffer_s,
            }
        }

        /// Feeds `rule` progress events `(t, bytes received)`; the first abandonment and its time.
        fn feed(
            &self,
            rule: &mut AbandonRequestsRule,
            profile: &Profile,
            events: impl IntoIterator<Item = (f64, f64)>,
        ) -> Option<(usize, f64)> {
            let total = self.video.size(self.index, self.level);
            for (k, (t, bytes)) in events.into_iter().enumerate() {
                let received = (bytes as u64).min(total);
                let c = ctx(&self.video, &[], t, self.index, self.buffer_s);
                let p = progress(
                    self.index,
                    self.level,
                    total,
                    received,
                    self.first_byte_s,
                    k + 1,
                );
                if let Some(q) = rule.check(&c, &p, profile, self.current) {
                    return Some((q, t));
                }
            }
            None
        }
    }

    /// Feeds progress events of segment 3 at level 8 (20 Mb/s, 12.5 MB) arriving at `bps` from a
    /// first byte at t = 10 s, every `step_s`, and returns the first abandonment and its time.
    fn feed(profile: &Profile, bps: f64, buffer_s: f64, step_s: f64) -> Option<(usize, f64)> {
        let events = (1..=40).map(|k| (10.0 + k as f64 * step_s, bps * k as f64 * step_s / 8.0));
        let mut rule = AbandonRequestsRule::default();
        Fetch::www21(3, 10.0, buffer_s).feed(&mut rule, profile, events)
    }

    /// Segment 0 at level 1 of a two-level ladder (1 and 9 Mb/s, 1 s segments: 1 125 000 B),
    /// also the current level; first byte at 10 s, 2 s buffered.
    fn exact() -> Fetch {
        Fetch {
            video: Video::constant("exact", vec![1e6, 9e6], Duration::from_secs(1), 10),
            index: 0,
            level: 1,
            current: 1,
            first_byte_s: 10.0,
            buffer_s: 2.0,
        }
    }

    /// Events every 0.1 s for 5 s after `first_byte_s`, at `bps` since the first byte.
    fn at_rate(first_byte_s: f64, bps: f64) -> impl Iterator<Item = (f64, f64)> {
        (1..=50).map(move |k| (first_byte_s + k as f64 * 0.1, bps * k as f64 * 0.1 / 8.0))
    }

    #[test]
    fn a_download_projected_past_1_8_segments_is_abandoned_for_the_sustainable_level() {
        // 12.5 MB at 4 Mb/s takes 25 s ≥ 1.8 × 5 s. Events every 0.1 s: the 5th sample is at
        // 0.5 s (not > 500 ms), the 6th at 0.6 s decides. Rate 4 Mb/s × 0.9 = 3.6 → level 1
        // (2.5 Mb/s); remaining 12.2 MB > 12.5 MB × 2.5/20 = 1.56 MB → abandon to level 1.
        let (q, t) = feed(&Profile::v3(), 4e6, 8.0, 0.1).unwrap();
        assert_eq!(q, 1);
        assert!((t - 10.6).abs() < 1e-9, "{t}");
        // at 5.2 Mb/s the safety factor decides: 4.68 Mb/s sustains level 1, not level 2 (5 Mb/s)
        assert_eq!(
            feed(&Profile::v3(), 5.2e6, 8.0, 0.1).map(|(q, _)| q),
            Some(1)
        );
    }

    #[test]
    fn a_download_is_kept_when_exactly_the_lower_level_s_segment_is_left() {
        // 1 s segments of 1 125 000 B at 9 Mb/s; level 0 (1 Mb/s) would fetch 125 000 B. The
        // fifth event decides (mean 1.92 Mb/s, level 0): with exactly 125 000 B left the
        // download is kept, with one byte more it is abandoned.
        for (last, abandoned) in [(1_000_000.0, None), (999_999.0, Some(0))] {
            let mut rule = AbandonRequestsRule::default();
            let received = [100_000.0, 200_000.0, 300_000.0, 400_000.0, last];
            let events = (1..).map(|k| 10.0 + 0.5 * k as f64).zip(received);
            let got = exact().feed(&mut rule, &Profile::v3(), events);
            assert_eq!(got.map(|(q, _)| q), abandoned, "{last} B received");
        }
    }

    #[test]
    fn a_current_level_beyond_the_ladder_counts_as_its_top() {
        let decide = |current| {
            let fetch = Fetch {
                current,
                ..Fetch::www21(3, 10.0, 8.0)
            };
            let mut rule = AbandonRequestsRule::default();
            fetch.feed(&mut rule, &Profile::v3(), at_rate(10.0, 4e6))
        };
        assert_eq!(decide(11), decide(10));
        assert_eq!(decide(10).map(|(q, _)| q), Some(1));
    }

    #[test]
    fn a_download_that_will_finish_in_time_is_kept() {
        // 12.5 MB at 12 Mb/s: 8.33 s < 9 s → never abandoned.
        assert_eq!(feed(&Profile::v3(), 12e6, 8.0, 0.1), None);
    }

    #[test]
    fn a_slow_download_with_less_left_than_the_lower_level_would_fetch_is_kept() {
        // 11.2 of 12.5 MB after 22 s: 4.07 Mb/s, projected 24.6 s ≥ 9 s, so level 1 is the
        // candidate; 1.3 MB remain, less than level 1's whole segment (12.5 × 2.5/20 = 1.5625
        // MB), so dash.js keeps the download.
        let v = Video::www21();
        let total = v.size(3, 8);
        let mut rule = AbandonRequestsRule::default();
        for k in 1..=8 {
            let t = 32.0 + k as f64 * 0.1;
            let received = 11_200_000 + 1000 * k as u64;
            let c = ctx(&v, &[], t, 3, 8.0);
            let p = progress(3, 8, total, received, 10.0, k);
            assert_eq!(rule.check(&c, &p, &Profile::v3(), 8), None, "event {k}");
        }
        // 10.5 MB after 21 s is the same 4 Mb/s with 2 MB to come: abandoned to level 1
        let mut rule = AbandonRequestsRule::default();
        let abandoned = (1..=8).find_map(|k| {
            let c = ctx(&v, &[], 30.9 + k as f64 * 0.1, 3, 8.0);
            rule.check(
                &c,
                &progress(3, 8, total, 10_500_000, 10.0, k),
                &Profile::v3(),
                8,
            )
        });
        assert_eq!(abandoned, Some(1));
    }

    #[test]
    fn a_buffer_above_the_stable_time_never_abandons() {
        assert_eq!(feed(&Profile::v3(), 4e6, 12.5, 0.1), None);
        assert!(feed(&Profile::v5(), 4e6, 12.5, 0.1).is_some());
        // at exactly v3's 12 s it still may
        assert!(feed(&Profile::v3(), 4e6, 12.0, 0.1).is_some());
    }

    #[test]
    fn each_new_download_starts_its_samples_afresh() {
        // segment 3 crawls at 0.5 Mb/s for four events, then segment 4 runs at 12 Mb/s and
        // would finish in 8.33 s < 9 s: kept. Had segment 3's samples carried over, the mean
        // at segment 4's sixth event would be 7.4 Mb/s (13.5 s) and abandon it.
        let mut rule = AbandonRequestsRule::default();
        let crawl = at_rate(10.0, 0.5e6).take(4);
        let segment_3 = Fetch::www21(3, 10.0, 8.0);
        assert_eq!(segment_3.feed(&mut rule, &Profile::v3(), crawl), None);
        let fast = at_rate(11.0, 12e6);
        let segment_4 = Fetch::www21(4, 11.0, 8.0);
        assert_eq!(segment_4.feed(&mut rule, &Profile::v3(), fast), None);
    }

    #[test]
    fn an_event_without_bytes_or_without_time_since_the_first_byte_is_no_sample() {
        let v3 = Profile::v3();
        // three empty events before a 12 Mb/s download: zero samples would pull the mean
        // to 8 Mb/s (12.5 s) by the sixth real event and abandon it
        let empty = [(10.01, 0.0), (10.02, 0.0), (10.03, 0.0)];
        let events = empty.into_iter().chain(at_rate(10.0, 12e6));
        let fetch = Fetch::www21(3, 10.0, 8.0);
        let mut rule = AbandonRequestsRule::default();
        assert_eq!(fetch.feed(&mut rule, &v3, events), None);
        // an event at the first byte itself: no infinite rate, so the 4 Mb/s download is
        // abandoned at 10.6 s as without it
        let events = [(10.0, 1000.0)].into_iter().chain(at_rate(10.0, 4e6));
        let mut rule = AbandonRequestsRule::default();
        let (q, t) = fetch.feed(&mut rule, &v3, events).unwrap();
        assert_eq!(q, 1);
        assert!((t - 10.6).abs() < 1e-9, "{t}");
    }

    #[test]
    fn a_download_projected_at_exactly_1_8_segments_is_abandoned() {
        // 1 s segments at 9 Mb/s (1 125 000 B), arriving at exactly 5 Mb/s (78 125 B every
        // 0.125 s, all exact in binary): 9 Mbit / 5 Mb/s = 1.8 s = 1.8 × 1 s. The fifth event
        // (10.625 s) decides: 4.5 Mb/s sustains level 0, whose 125 000 B are less than what is left.
        let events = (1..=8).map(|k| (10.0 + 0.125 * k as f64, 78_125.0 * k as f64));
        let mut rule = AbandonRequestsRule::default();
        assert_eq!(
            exact().feed(&mut rule, &Profile::v3(), events),
            Some((0, 10.625))
        );
    }

    #[test]
    fn the_lowest_level_is_never_abandoned() {
        let v = Video::www21();
        let total = v.size(0, 0);
        let mut rule = AbandonRequestsRule::default();
        for k in 1..=20 {
            let t = 10.0 + k as f64 * 0.1;
            let c = ctx(&v, &[], t, 0, 2.0);
            let p = progress(0, 0, total, 1000 * k as u64, 10.0, k);
            assert_eq!(rule.check(&c, &p, &Profile::v3(), 0), None);
        }
    }

    #[test]
    fn a_segment_is_abandoned_at_most_once() {
        let v = Video::www21();
        let total = v.size(3, 8);
        let p3 = Profile::v3();
        let mut rule = AbandonRequestsRule::default();
        let mut fired = 0;
        for k in 1..=30 {
            let t = 10.0 + k as f64 * 0.1;
            let c = ctx(&v, &[], t, 3, 8.0);
            // The same index re-requested at level 8 again after the first abandonment.
            let p = progress(3, 8, total, (4e6 * k as f64 * 0.1 / 8.0) as u64, 10.0, k);
            fired += rule.check(&c, &p, &p3, 8).is_some() as usize;
        }
        assert_eq!(fired, 1);
    }

    #[test]
    fn v5_measures_from_the_first_progress_event_and_needs_six_samples() {
        // First event at 10.1 s with 50 kB; the rate since then is 4 Mb/s; the sixth event
        // (10.6 s, 0.6 s after the first byte) decides: 4 × 0.9 → level 1.
        let (q, t) = feed(&Profile::v5(), 4e6, 8.0, 0.1).unwrap();
        assert_eq!(q, 1);
        assert!((t - 10.6).abs() < 1e-9, "{t}");
    }
}
