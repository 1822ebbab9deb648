//! dash.js BolaRule: BOLA-E with a placeholder buffer, BOLA-O
//! anti-oscillation and pacing.
//!
//! # In a nutshell
//!
//! BOLA picks the level maximising a buffer-dependent score; the placeholder
//! is virtual buffer that makes waits which are not the network's fault
//! (buffer-target pauses, BOLA's own pacing) not lower the choice.
//!
//! ```text
//!   b_i = @bandwidth (bit/s, ascending), u_i = ln b_i − ln b_0 + 1       (u_0 = 1)
//!   T   = max(buffer_time_default, 10 s + 2 s × levels)
//!   gp  = (u_top − 1) / (T/10 − 1),  Vp = 10 / gp
//!   score_i(B) = (Vp·(u_i + gp) − B) / b_i        q(B) = argmax, ties → higher i
//!   minBuf(q) = max over i < q (u_i < u_q) of Vp·(gp + (b_q·u_i − b_i·u_q)/(b_q − b_i))
//!   maxBuf(q) = Vp·(u_q + gp)
//! ```
//!
//! `minBuf(q)` is exactly the buffer above which `q(B)` reaches `q`.
//!
//! ```text
//!                 first consult (per media type)
//!                           │  one level → ONE_BITRATE (always NO_CHANGE)
//!                           ▼
//!   ┌───────────── STARTUP ──────────────┐ q = throughput choice (× 0.9, latency);
//!   │                                    │ placeholder = max(0, minBuf(q) − B)
//!   │   B ≥ last segment duration        │
//!   └──────────────▶ STEADY ◀────────────┘
//!     1. placeholder += now − last segment finish (or − last call)
//!     2. q = q(B + placeholder)
//!     3. if q > last and q > q_tput: q = max(q_tput, last)        (BOLA-O)
//!     4. d = max(0, B + placeholder − maxBuf(q)); take d from the placeholder
//!        first, the rest is a request delay unless q is the top level
//! ```
//!
//! Events: each downloaded segment multiplies the placeholder by 0.99 and
//! clips it so that (buffer at its request + placeholder) ≤ maxBuf(its level);
//! a replacement segment adds its duration; BUFFER_EMPTY (in STEADY) zeroes
//! it; an abandonment deflates it to minBuf(quality requested last) − B
//! (10 s − B at level 0).
//!
//! # References
//!
//! * dash.js v3.x `src/streaming/rules/abr/BolaRule.js` (after the 2018
//!   BOLA-E rewrite: `calculateBolaParameters`, `getQualityFromBufferLevel`,
//!   `minBufferLevelForQuality`, `maxBufferLevelForQuality`,
//!   `updatePlaceholderBuffer`, `checkNewSegment`, `onFragmentLoadingAbandoned`).
//! * K. Spiteri, R. Sitaraman, D. Sparacio, "From Theory to Practice:
//!   Improving Bitrate Adaptation in the DASH Reference Player", MMSys'18.
//! * bloatlab spec `abr-and-traces.md` §1.4. The spec writes the score with
//!   `u_i − 1 + gp`; the code uses `u_i + gp`, which is followed here. The
//!   spec's worked steps (Pensieve ladder 0/7.3/10.6/… s) are therefore Vp
//!   lower than dash.js's (0/11.75/15.11/17.15/19.10/21.01 s).
//!
//! # Deviations
//!
//! * The buffer at the last request is dash.js's own estimate (buffer at the
//!   download event + request-to-finish time), as in `checkNewSegment`; the
//!   player must report the buffer *before* appending the segment.
//! * Abandonment deflation uses the quality requested before the abandonment
//!   under v3 (FRAGMENT_LOADING_ABANDONED fires inside `abortRequests`, before
//!   `setPlaybackQuality`) and the new one under v4.5+ and v5 (the quality is
//!   requested first; the abort follows once the buffer is prepared, profile
//!   `abandon_deflates_to_new_level`). Either way it uses the buffer level at the
//!   abandonment, where v4.5+/v5's abort comes a promise later.
//! * Seeks and period switches (STARTUP re-entry) are not modelled.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `MINIMUM_BUFFER_S` | 10 | s | buffer where the lowest level's score reaches 0 | BolaRule.js |
//! | `MINIMUM_BUFFER_PER_BITRATE_LEVEL_S` | 2 | s | extra buffer target per level | BolaRule.js |
//! | `PLACEHOLDER_BUFFER_DECAY` | 0.99 | — | placeholder factor per downloaded segment | BolaRule.js |

use super::controller::{quality_for_bitrate, RuleInput};
use super::Download;
use crate::time::{Duration, Time};

/// "BOLA should never add artificial delays if buffer is less than MINIMUM_BUFFER_S." // BolaRule.js
pub const MINIMUM_BUFFER_S: f64 = 10.0;
/// "if there are 5 bitrates, BOLA switches to top bitrate at buffer = 10 + 5 * 2 = 20s" // BolaRule.js
pub const MINIMUM_BUFFER_PER_BITRATE_LEVEL_S: f64 = 2.0;
/// "Make sure placeholder buffer does not stick around too long." // BolaRule.js
pub const PLACEHOLDER_BUFFER_DECAY: f64 = 0.99;

/// BOLA's state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BolaState {
    /// Not consulted yet (dash.js creates the state on the first call).
    Uninitialised,
    /// A single level: always NO_CHANGE.
    OneBitrate,
    Startup,
    Steady,
}

/// BOLA's parameters for one ladder.
#[derive(Clone, Debug, PartialEq)]
pub struct BolaParams {
    pub bitrates: Vec<f64>,
    pub utilities: Vec<f64>,
    pub gp: f64,
    pub vp: f64,
}

impl BolaParams {
    /// `None` when the top utility is the lowest level's (one level).
    pub fn new(bitrates: &[f64], buffer_time_default: Duration) -> Option<Self> {
        let ln0 = bitrates.first()?.ln();
        let utilities: Vec<f64> = bitrates.iter().map(|b| b.ln() - ln0 + 1.0).collect();
        let top = utilities.iter().enumerate().fold(
            0,
            |best, (i, &u)| if u > utilities[best] { i } else { best },
        );
        if top == 0 {
            return None;
        }
        let buffer_time = buffer_time_default
            .as_secs_f64()
            .max(MINIMUM_BUFFER_S + MINIMUM_BUFFER_PER_BITRATE_LEVEL_S * bitrates.len() as f64);
        let gp = (utilities[top] - 1.0) / (buffer_time / MINIMUM_BUFFER_S - 1.0);
        Some(BolaParams {
            bitrates: bitrates.to_vec(),
            utilities,
            gp,
            vp: MINIMUM_BUFFER_S / gp,
        })
    }

    pub fn score(&self, q: usize, buffer_s: f64) -> f64 {
        (self.vp * (self.utilities[q] + self.gp) - buffer_s) / self.bitrates[q]
    }

    /// `getQualityFromBufferLevel`: the best score, ties to the higher level.
    pub fn quality(&self, buffer_s: f64) -> usize {
        let mut best = 0;
        for q in 1..self.bitrates.len() {
            if self.score(q, buffer_s) >= self.score(best, buffer_s) {
                best = q;
            }
        }
        best
    }

    /// `minBufferLevelForQuality`, seconds.
    pub fn min_buffer(&self, q: usize) -> f64 {
        let (bq, uq) = (self.bitrates[q], self.utilities[q]);
        (0..q)
            .rev()
            .filter(|&i| self.utilities[i] < uq)
            .map(|i| {
                let (bi, ui) = (self.bitrates[i], self.utilities[i]);
                self.vp * (self.gp + (bq * ui - bi * uq) / (bq - bi))
            })
            .fold(0.0, f64::max)
    }

    /// `maxBufferLevelForQuality`, seconds.
    pub fn max_buffer(&self, q: usize) -> f64 {
        self.vp * (self.utilities[q] + self.gp)
    }
}

/// dash.js BolaRule for one media type.
#[derive(Clone, Debug)]
pub struct BolaRule {
    params: Option<BolaParams>,
    state: BolaState,
    /// Seconds of virtual buffer.
    placeholder: f64,
    last_quality: usize,
    /// Target of the last quality change (`QUALITY_CHANGE_REQUESTED`).
    abr_quality: Option<usize>,
    most_advanced_segment: Option<usize>,
    last_segment_duration: Option<f64>,
    last_segment_finish: Option<Time>,
    last_call: Option<Time>,
}

impl BolaRule {
    pub fn new(bitrates: &[f64], buffer_time_default: Duration) -> Self {
        BolaRule {
            params: BolaParams::new(bitrates, buffer_time_default),
            state: BolaState::Uninitialised,
            placeholder: 0.0,
            last_quality: 0,
            abr_quality: None,
            most_advanced_segment: None,
            last_segment_duration: None,
            last_segment_finish: None,
            last_call: None,
        }
    }

    pub fn state(&self) -> BolaState {
        self.state
    }

    /// Placeholder buffer, seconds.
    pub fn placeholder(&self) -> f64 {
        self.placeholder
    }

    fn live(&self) -> Option<&BolaParams> {
        match self.state {
            BolaState::Startup | BolaState::Steady => self.params.as_ref(),
            _ => None,
        }
    }

    /// `getMaxIndex`: the proposal (`None` = NO_CHANGE) and the pacing delay.
    pub fn decide(&mut self, inp: &RuleInput) -> (Option<usize>, Duration) {
        if self.state == BolaState::Uninitialised {
            self.state = if self.params.is_some() {
                BolaState::Startup
            } else {
                BolaState::OneBitrate
            };
        }
        let Some(params) = self
            .params
            .clone()
            .filter(|_| self.state != BolaState::OneBitrate)
        else {
            return (None, Duration::ZERO);
        };
        let history = inp.history;
        let (Some(_), Some(safe)) = (
            history.average_throughput_bps(),
            history.safe_throughput_bps(),
        ) else {
            return (None, Duration::ZERO);
        };
        let ctx = inp.ctx;
        let buffer = ctx.buffer.as_secs_f64();
        let q_tput = quality_for_bitrate(ctx.video, inp.profile, safe, history.average_latency_s());
        match self.state {
            BolaState::Startup => {
                self.placeholder = (params.min_buffer(q_tput) - buffer).max(0.0);
                self.last_quality = q_tput;
                if self.last_segment_duration.is_some_and(|d| buffer >= d) {
                    self.state = BolaState::Steady;
                }
                (Some(q_tput), Duration::ZERO)
            }
            _ => {
                self.update_placeholder(ctx.now);
                let mut q = params.quality(buffer + self.placeholder);
                if q > self.last_quality && q > q_tput {
                    q = q_tput.max(self.last_quality);
                }
                let mut delay = (buffer + self.placeholder - params.max_buffer(q)).max(0.0);
                if delay <= self.placeholder {
                    self.placeholder -= delay;
                    delay = 0.0;
                } else {
                    delay -= self.placeholder;
                    self.placeholder = 0.0;
                    if q + 1 >= params.bitrates.len() {
                        delay = 0.0;
                    }
                }
                self.last_quality = q;
                (Some(q), Duration::from_secs_f64(delay))
            }
        }
    }

    fn update_placeholder(&mut self, now: Time) {
        if let Some(finish) = self.last_segment_finish {
            self.placeholder += now.saturating_since(finish).as_secs_f64();
        } else if let Some(call) = self.last_call {
            self.placeholder += now.saturating_since(call).as_secs_f64();
        }
        self.last_call = Some(now);
        self.last_segment_finish = None;
    }

    /// A segment arrived (`MEDIA_FRAGMENT_LOADED` + its HTTP metric). `buffer` is the level
    /// before the segment is appended.
    pub fn on_download(&mut self, d: &Download, segment_duration: Duration, buffer: Duration) {
        let Some(params) = self.live().cloned() else {
            return;
        };
        let replacement = match self.most_advanced_segment {
            Some(m) if d.index <= m => true,
            _ => {
                self.most_advanced_segment = Some(d.index);
                false
            }
        };
        let duration = segment_duration.as_secs_f64();
        self.last_segment_duration = Some(duration);
        self.last_quality = d.level;
        self.last_segment_finish = Some(d.completed_at);
        // checkNewSegment
        self.placeholder *= PLACEHOLDER_BUFFER_DECAY;
        let buffer_at_request = buffer.as_secs_f64()
            + d.completed_at
                .saturating_since(d.requested_at)
                .as_secs_f64();
        let max_placeholder = (params.max_buffer(self.last_quality) - buffer_at_request).max(0.0);
        self.placeholder = self.placeholder.min(max_placeholder);
        if replacement {
            self.placeholder += duration;
        }
    }

    /// BUFFER_EMPTY: no placeholder may raise the quality after a stall.
    pub fn on_buffer_empty(&mut self) {
        if self.state == BolaState::Steady {
            self.placeholder = 0.0;
        }
    }

    /// `QUALITY_CHANGE_REQUESTED`.
    pub fn on_quality_change(&mut self, q: usize) {
        if self.live().is_some() {
            self.abr_quality = Some(q);
        }
    }

    /// `FRAGMENT_LOADING_ABANDONED`: deflate towards the last requested quality.
    pub fn on_abandon(&mut self, buffer: Duration) {
        let Some(params) = self.live() else {
            return;
        };
        let want = match self.abr_quality {
            Some(q) if q > 0 => params.min_buffer(q),
            _ => MINIMUM_BUFFER_S,
        };
        let max_placeholder = (want - buffer.as_secs_f64()).max(0.0);
        self.placeholder = self.placeholder.min(max_placeholder);
    }
}

#[cfg(test)]
#[path = "bola_tests.rs"]
mod tests;
