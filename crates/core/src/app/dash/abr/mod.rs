//! Adaptive-bitrate rules behind one trait.
//!
//! The player asks its [`Abr`] for the level of the next segment of a track
//! whenever it is about to request one, tells it about every finished
//! download, about stalls, and asks it during a download whether to abandon.
//! Rules see the player only through [`AbrContext`]; they keep their own
//! estimators (dash.js throughput history, BOLA's placeholder, ...).
//!
//! | kind | what | file |
//! |---|---|---|
//! | `throughput`, `bola`, `dynamic` | dash.js `ABRStrategy` with its helper rules | [`controller`] ([`throughput`], [`bola`], [`dynamic`], [`insufficient_buffer`], [`switch_history`], [`abandon`], [`estimator`]) |
//! | `fixed` | one level throughout | [`fixed`] |
//! | `bba`, `rb`, `festive`, `robust_mpc` | Pensieve's baselines | [`bba`], [`rb`], [`festive`], [`robust_mpc`] ([`pensieve`]) |
//!
//! [`AbrConfig`] selects one by name or table and builds it for a track.
//!
//! # What the player must do
//!
//! * Call `decide` before every media request whose level is not already chosen
//!   (including the first: the answer is the profile's initial level), `on_download`
//!   after every download with
//!   `ctx.buffer` the level *before* the segment is appended, `abandon` on
//!   every progress event of the download in flight, `on_buffer_empty` when
//!   the buffer falls below the profile's `stall_threshold`, and
//!   `on_buffer_level` whenever the buffer level changes (at least right
//!   after each append; dash.js samples it on every `timeupdate`, about every
//!   250 ms) — DYNAMIC switches on these observations.
//! * Honour `Decision::delay` (BOLA's pacing) before issuing the request.
//! * A level is already chosen for the media request after its init segment, and
//!   for the re-request after `abandon` returns a level: both go at that level
//!   without another decision (dash.js 3.x's replacement request skips
//!   `checkPlaybackQuality`; `player.rs`). `on_download` takes the abandoned
//!   download too, with `abandoned = true`.
//! * Build one ABR per track; a track is audio when its video is named
//!   `"audio"` (as [`Video::audio`] does).

use super::video::Video;
use crate::time::{Duration, Time};

pub mod abandon;
pub mod bba;
pub mod bola;
pub mod config;
pub mod controller;
pub mod dynamic;
pub mod estimator;
pub mod festive;
pub mod fixed;
pub mod insufficient_buffer;
pub mod pensieve;
pub mod rb;
pub mod robust_mpc;
pub mod switch_history;
pub mod throughput;

#[cfg(test)]
mod testkit;

pub use config::{AbrConfig, ABR_NAMES};
pub use controller::{DashJs, Strategy};

/// One finished (or abandoned) segment download, as the player measured it.
#[derive(Clone, Debug, PartialEq)]
pub struct Download {
    pub index: usize,
    pub level: usize,
    /// Response body bytes received.
    pub bytes: u64,
    pub requested_at: Time,
    /// When the first response byte arrived.
    pub first_byte_at: Time,
    /// When the last byte arrived (or the download was abandoned).
    pub completed_at: Time,
    /// Buffer level when the request was issued.
    pub buffer_at_request: Duration,
    pub abandoned: bool,
}

impl Download {
    /// Time to first byte.
    pub fn latency(&self) -> Duration {
        self.first_byte_at.saturating_since(self.requested_at)
    }

    /// Time from first to last byte.
    pub fn transfer_time(&self) -> Duration {
        self.completed_at.saturating_since(self.first_byte_at)
    }

    /// bits/s over the transfer time (latency excluded, as dash.js `useDeadTimeLatency`).
    pub fn throughput_bps(&self) -> f64 {
        let t = self.transfer_time().as_secs_f64().max(1e-3);
        self.bytes as f64 * 8.0 / t
    }
}

/// A download in progress, for abandonment decisions.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub index: usize,
    pub level: usize,
    pub bytes_total: u64,
    pub bytes_received: u64,
    pub requested_at: Time,
    pub first_byte_at: Option<Time>,
    /// Progress events so far (one per batch of in-order bytes delivered to the player).
    pub events: usize,
}

/// What a rule sees when asked for a level.
#[derive(Clone, Debug)]
pub struct AbrContext<'a> {
    pub now: Time,
    pub video: &'a Video,
    /// Segment about to be requested.
    pub index: usize,
    /// Media time buffered ahead of the playhead.
    pub buffer: Duration,
    /// Level of the previous segment of this track (`None` before the first).
    pub last_level: Option<usize>,
    /// Completed downloads of this track, oldest first.
    pub history: &'a [Download],
    pub playback_started: bool,
}

/// A rule's answer: the level, and how long to wait before requesting it (BOLA's pacing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub level: usize,
    pub delay: Duration,
}

impl Decision {
    pub fn now(level: usize) -> Self {
        Decision {
            level,
            delay: Duration::ZERO,
        }
    }
}

pub trait Abr {
    /// Level (and optional delay) for segment `ctx.index`.
    fn decide(&mut self, ctx: &AbrContext) -> Decision;

    /// A download finished (or was abandoned).
    fn on_download(&mut self, _ctx: &AbrContext, _d: &Download) {}

    /// Playback stalled: the buffer ran empty.
    fn on_buffer_empty(&mut self, _now: Time) {}

    /// The buffer level changed (dash.js BUFFER_LEVEL metric): after appends and during playback.
    fn on_buffer_level(&mut self, _now: Time, _buffer: Duration) {}

    /// During a download: `Some(level)` abandons it and re-requests the segment at `level`.
    fn abandon(&mut self, _ctx: &AbrContext, _p: &Progress) -> Option<usize> {
        None
    }

    /// An abandonment's ABANDON_LOAD state holds at `now` (no fast switch then).
    fn abandoning(&self, _now: Time) -> bool {
        false
    }

    /// The rule's current throughput estimate, bits/s (for segments.parquet).
    fn estimate_bps(&self) -> Option<f64>;

    fn name(&self) -> &'static str;
}

#[cfg(test)]
mod tests {
    use super::testkit::{at, secs};
    use super::*;

    fn fetched(bytes: u64, requested_s: f64, first_byte_s: f64, completed_s: f64) -> Download {
        Download {
            index: 0,
            level: 0,
            bytes,
            requested_at: at(requested_s),
            first_byte_at: at(first_byte_s),
            completed_at: at(completed_s),
            buffer_at_request: Duration::ZERO,
            abandoned: false,
        }
    }

    #[test]
    fn throughput_is_over_the_transfer_time_only() {
        // 312 500 bytes (2.5 Mb) from 1.1 s to 1.6 s: 5 Mb/s; the 100 ms before the first byte is latency.
        let d = fetched(312_500, 1.0, 1.1, 1.6);
        assert_eq!(d.latency(), secs(0.1));
        assert_eq!(d.transfer_time(), secs(0.5));
        assert_eq!(d.throughput_bps(), 5e6);
    }

    #[test]
    fn a_transfer_within_one_instant_counts_as_a_millisecond() {
        // 1000 bytes arriving all at once: 8000 bits over 1 ms, not infinity.
        let d = fetched(1000, 2.0, 2.25, 2.25);
        assert_eq!(d.transfer_time(), Duration::ZERO);
        assert_eq!(d.throughput_bps(), 8e6);
    }
}
