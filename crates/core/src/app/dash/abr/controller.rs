//! dash.js AbrController: rule arbitration, DYNAMIC, buffer and abandonment
//! state, as one [`Abr`] per track (strategies `throughput`, `bola`,
//! `dynamic`).
//!
//! # In a nutshell
//!
//! ```text
//!   decide (checkPlaybackQuality):
//!     observe buffer:  state = BUFFER_EMPTY if B < stall_threshold else BUFFER_LOADED;
//!                      DYNAMIC hysteresis update
//!     proposals:       BolaRule if BOLA mode, else ThroughputRule       (exactly one)
//!                      InsufficientBufferRule, SwitchHistoryRule        (if enabled)
//!     new = min over proposals (all DEFAULT priority), or NO_CHANGE
//!     log {current → new (NO_CHANGE = current, v3)} in the switch history
//!     apply if new ≠ current and (ALLOW_LOAD or the allowed direction)
//!     level = current; delay = BOLA's pacing delay (BOLA mode only)
//!   progress (onFragmentLoadProgress):
//!     AbandonRequestsRule → abandon: BOLA deflates, ABANDON_LOAD for 10 s,
//!     switch history reset + {current → q}, current = q
//!   quality_for_bitrate(b, ℓ): dead time (v3/v4) then highest level ≤ b
//! ```
//!
//! A track starts at the level of the profile's initial bitrate (1 Mb/s
//! video, 100 kb/s audio), which stands until a rule proposes otherwise.
//!
//! # References
//!
//! * dash.js v3.x `src/streaming/controllers/AbrController.js`
//!   (`checkPlaybackQuality`, `getQualityForBitrate`,
//!   `updateIsUsingBufferOccupancyABR`, `onFragmentLoadProgress`),
//!   `rules/abr/ABRRulesCollection.js` (`getMinSwitchRequest`),
//!   `controllers/BufferController.js` (`checkIfSufficientBuffer`).
//! * bloatlab spec `abr-and-traces.md` §1.1, §1.5, §1.11.
//!
//! # Deviations
//!
//! * DroppedFramesRule (off in v5, inert without a decoder model) is omitted.
//! * Min/max bitrate, portal-size and representation-ratio limits are not
//!   modelled (all levels allowed).
//! * A track is audio when its [`Video`] is named `"audio"` (as
//!   [`Video::audio`] names it): it then uses the audio initial bitrate and
//!   cache threshold.
//! * Under the `bola` strategy BOLA is in charge from the first decision
//!   (dash.js flips to BOLA on the first BUFFER_LEVEL metric, before any
//!   throughput sample exists, so nothing differs).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (profile) | | | every tunable lives in the profile | |

use super::abandon::AbandonRequestsRule;
use super::bola::BolaRule;
use super::dynamic::DynamicSwitch;
use super::estimator::ThroughputHistory;
use super::insufficient_buffer::InsufficientBufferRule;
use super::switch_history::SwitchHistory;
use super::{throughput, Abr, AbrContext, Decision, Download, Progress};
use crate::app::dash::profile::{Direction, Profile};
use crate::app::dash::video::Video;
use crate::time::{Duration, Time};

/// Which dash.js `ABRStrategy` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// `abrThroughput`: ThroughputRule only.
    Throughput,
    /// `abrBola`: BolaRule only.
    Bola,
    /// `abrDynamic` (default): BOLA or THROUGHPUT by buffer level.
    Dynamic,
}

/// dash.js buffer state (`BufferController`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferState {
    Loaded,
    Empty,
}

/// What every dash.js rule reads.
pub struct RuleInput<'a> {
    pub ctx: &'a AbrContext<'a>,
    pub profile: &'a Profile,
    pub history: &'a ThroughputHistory,
    /// `None` until the buffer was first observed.
    pub buffer_state: Option<BufferState>,
    /// ABANDON_LOAD is in force.
    pub abandoning: bool,
}

/// dash.js `getQualityForBitrate`: optional dead-time correction, then the
/// highest level whose bitrate is at most `bps` (the lowest if none).
pub fn quality_for_bitrate(
    video: &Video,
    profile: &Profile,
    bps: f64,
    latency_s: Option<f64>,
) -> usize {
    let mut bps = bps;
    if let Some(latency) = latency_s.filter(|&l| profile.dead_time_latency && l > 0.0) {
        let segment = video.segment_duration.as_secs_f64();
        if latency > segment {
            return 0;
        }
        bps *= 1.0 - latency / segment;
    }
    video.level_for_bitrate(bps)
}

/// The level dash.js starts a track at.
pub fn initial_level(video: &Video, profile: &Profile) -> usize {
    let bps = if is_audio(video) {
        profile.initial_bitrate_audio_bps
    } else {
        profile.initial_bitrate_video_bps
    };
    video.level_for_bitrate(bps)
}

fn is_audio(video: &Video) -> bool {
    video.name == "audio"
}

/// dash.js's ABR for one track.
#[derive(Clone, Debug)]
pub struct DashJs {
    strategy: Strategy,
    profile: Profile,
    history: ThroughputHistory,
    bola: BolaRule,
    dynamic: DynamicSwitch,
    insufficient: InsufficientBufferRule,
    switches: SwitchHistory,
    abandon: AbandonRequestsRule,
    /// `qualityDict`: the level requests go out at.
    current: usize,
    buffer_state: Option<BufferState>,
    downloads: usize,
    abandon_until: Option<Time>,
}

impl DashJs {
    pub fn new(strategy: Strategy, video: &Video, profile: &Profile) -> Self {
        DashJs {
            strategy,
            profile: profile.clone(),
            history: ThroughputHistory::new(profile, is_audio(video)),
            bola: BolaRule::new(&video.bitrates_bps, profile.buffer_time_default),
            dynamic: DynamicSwitch::new(profile),
            insufficient: InsufficientBufferRule::default(),
            switches: SwitchHistory::new(profile),
            abandon: AbandonRequestsRule::default(),
            current: initial_level(video, profile),
            buffer_state: None,
            downloads: 0,
            abandon_until: None,
        }
    }

    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Whether BolaRule (rather than ThroughputRule) is consulted now.
    pub fn uses_bola(&self) -> bool {
        match self.strategy {
            Strategy::Throughput => false,
            Strategy::Bola => true,
            Strategy::Dynamic => self.dynamic.is_bola(),
        }
    }

    pub fn bola(&self) -> &BolaRule {
        &self.bola
    }

    pub fn history(&self) -> &ThroughputHistory {
        &self.history
    }

    pub fn buffer_state(&self) -> Option<BufferState> {
        self.buffer_state
    }

    /// A BUFFER_LEVEL observation of the video track's own buffer (dash.js keeps a buffer
    /// state per media type: `BufferController.checkIfSufficientBuffer`), whether or not
    /// playback waits for another track.
    fn observe(&mut self, buffer: Duration) {
        let empty = buffer < self.profile.stall_threshold;
        self.buffer_state = Some(if empty {
            BufferState::Empty
        } else {
            BufferState::Loaded
        });
        self.dynamic.update(buffer);
    }

    fn is_abandoning(&mut self, now: Time) -> bool {
        if !self.abandoning(now) {
            self.abandon_until = None;
        }
        self.abandon_until.is_some()
    }

    fn set_quality(&mut self, q: usize) {
        if q != self.current {
            self.current = q;
            self.bola.on_quality_change(q);
        }
    }
}

impl Abr for DashJs {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        self.observe(ctx.buffer);
        let abandoning = self.is_abandoning(ctx.now);
        let use_bola = self.uses_bola();
        let inp = RuleInput {
            ctx,
            profile: &self.profile,
            history: &self.history,
            buffer_state: self.buffer_state,
            abandoning,
        };
        let (main, delay) = if use_bola {
            self.bola.decide(&inp)
        } else {
            (throughput::propose(&inp), Duration::ZERO)
        };
        let insufficient = self
            .profile
            .insufficient_buffer_enabled
            .then(|| self.insufficient.propose(&inp, self.downloads))
            .flatten();
        let history = self
            .profile
            .switch_history_enabled
            .then(|| self.switches.propose())
            .flatten();
        let top = ctx.video.levels().saturating_sub(1);
        let new = [main, insufficient, history]
            .into_iter()
            .flatten()
            .min()
            .map(|q| q.min(top));

        let old = self.current;
        match new {
            Some(q) => self.switches.push(old, q),
            None if self.profile.switch_history_logs_no_change => self.switches.push(old, old),
            None => {}
        }
        if let Some(q) = new {
            let allowed = match self.profile.switches_during_abandon {
                Direction::Up => q > old,
                Direction::Down => q < old,
            };
            if !abandoning || allowed {
                self.set_quality(q);
            }
        }
        Decision {
            level: self.current.min(top),
            delay,
        }
    }

    fn on_download(&mut self, ctx: &AbrContext, d: &Download) {
        self.observe(ctx.buffer);
        if d.abandoned {
            return;
        }
        self.history.push(d);
        self.downloads += 1;
        self.bola
            .on_download(d, ctx.video.segment_duration, ctx.buffer);
    }

    fn on_buffer_empty(&mut self, _now: Time) {
        self.buffer_state = Some(BufferState::Empty);
        self.bola.on_buffer_empty();
    }

    fn on_buffer_level(&mut self, _now: Time, buffer: Duration) {
        self.observe(buffer);
    }

    fn abandoning(&self, now: Time) -> bool {
        self.abandon_until.is_some_and(|t| now < t)
    }

    fn abandon(&mut self, ctx: &AbrContext, p: &Progress) -> Option<usize> {
        if !self.profile.abandon_enabled {
            return None;
        }
        self.observe(ctx.buffer);
        let q = self.abandon.check(ctx, p, &self.profile, self.current)?;
        let deflate_after_change = self.profile.abandon_deflates_to_new_level;
        if !deflate_after_change {
            self.bola.on_abandon(ctx.buffer);
        }
        self.abandon_until = Some(ctx.now + self.profile.abandon_load_timeout);
        self.switches.reset();
        if self.profile.switch_history_logs_abandon {
            self.switches.push(self.current, q);
        }
        self.set_quality(q);
        if deflate_after_change {
            self.bola.on_abandon(ctx.buffer);
        }
        Some(q)
    }

    fn estimate_bps(&self) -> Option<f64> {
        self.history.average_throughput_bps()
    }

    fn name(&self) -> &'static str {
        match self.strategy {
            Strategy::Throughput => "throughput",
            Strategy::Bola => "bola",
            Strategy::Dynamic => "dynamic",
        }
    }
}

#[cfg(test)]
#[path = "controller_tests.rs"]
mod tests;
