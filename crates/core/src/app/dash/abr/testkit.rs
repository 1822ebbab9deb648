//! Builders for rule tests: contexts, downloads and progress reports in
//! seconds and bit/s, so hand-computed expectations read naturally.

use super::controller::{BufferState, RuleInput};
use super::estimator::ThroughputHistory;
use super::{AbrContext, Download, Progress};
use crate::app::dash::profile::Profile;
use crate::app::dash::video::Video;
use crate::time::{Duration, Time};

pub fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

pub fn at(s: f64) -> Time {
    Time::from_nanos(secs(s).as_nanos())
}

/// A context at time `now_s` for segment `index` with `buffer_s` buffered.
pub fn ctx<'a>(
    video: &'a Video,
    history: &'a [Download],
    now_s: f64,
    index: usize,
    buffer_s: f64,
) -> AbrContext<'a> {
    AbrContext {
        now: at(now_s),
        video,
        index,
        buffer: secs(buffer_s),
        last_level: history.last().map(|d| d.level),
        history,
        playback_started: true,
    }
}

/// A download of `index` at `level`: requested at `start_s`, first byte `latency_s` later,
/// then `bps` for `transfer_s` seconds.
pub fn download(
    index: usize,
    level: usize,
    start_s: f64,
    latency_s: f64,
    transfer_s: f64,
    bps: f64,
) -> Download {
    Download {
        index,
        level,
        bytes: (bps * transfer_s / 8.0).round() as u64,
        requested_at: at(start_s),
        first_byte_at: at(start_s + latency_s),
        completed_at: at(start_s + latency_s + transfer_s),
        buffer_at_request: Duration::ZERO,
        abandoned: false,
    }
}

/// A chain of back-to-back downloads at the given rates (bit/s), each `transfer_s` long
/// with `latency_s` before it, at `level`, starting at t = 0.
pub fn chain(level: usize, latency_s: f64, transfer_s: f64, rates: &[f64]) -> Vec<Download> {
    let mut t = 0.0;
    rates
        .iter()
        .enumerate()
        .map(|(i, &bps)| {
            let d = download(i, level, t, latency_s, transfer_s, bps);
            t += latency_s + transfer_s;
            d
        })
        .collect()
}

/// A download in flight: `received` of `total` bytes, first byte at `first_byte_s`.
pub fn progress(
    index: usize,
    level: usize,
    total: u64,
    received: u64,
    first_byte_s: f64,
    events: usize,
) -> Progress {
    Progress {
        index,
        level,
        bytes_total: total,
        bytes_received: received,
        requested_at: at((first_byte_s - 0.05).max(0.0)),
        first_byte_at: Some(at(first_byte_s)),
        events,
    }
}

/// Pensieve's ladder (300 … 4300 kb/s), 4 s segments, 48 segments.
pub fn pensieve() -> Video {
    let kbps = [300.0, 750.0, 1200.0, 1850.0, 2850.0, 4300.0];
    Video::constant(
        "pensieve",
        kbps.iter().map(|k| k * 1e3).collect(),
        secs(4.0),
        48,
    )
}

/// A throughput history of one 1 s download per rate in `mbps`, each after `latency_s`.
pub fn history(profile: &Profile, mbps: &[f64], latency_s: f64) -> ThroughputHistory {
    let mut h = ThroughputHistory::new(profile, false);
    for m in mbps {
        h.push(&download(0, 0, 0.0, latency_s, 1.0, m * 1e6));
    }
    h
}

/// What a rule sees outside ABANDON_LOAD.
pub fn rule_input<'a>(
    ctx: &'a AbrContext<'a>,
    profile: &'a Profile,
    history: &'a ThroughputHistory,
    buffer_state: Option<BufferState>,
) -> RuleInput<'a> {
    RuleInput {
        ctx,
        profile,
        history,
        buffer_state,
        abandoning: false,
    }
}
