//! dash.js throughput and latency estimation (`ThroughputHistory`), shared by
//! the dash.js rules.
//!
//! # In a nutshell
//!
//! One sample per completed media segment: throughput = 8·bytes / download
//! time (first to last byte, latency excluded, `useDeadTimeLatency`), latency
//! = time to first byte. Up to 20 samples are kept. Two averages:
//!
//! ```text
//!   sliding window (v3/v4):  n = 4 (VoD); for i = 1, 2, … while i < n:
//!                              r = ratio of two consecutive samples
//!                              if r ≥ 1.3 or r ≤ 1/1.3 (v5: 0.7): n += 1 (≤ stored)
//!                            throughput = mean of the newest n samples
//!                            latency    = mean of the newest 4 latencies
//!   EWMA (v5):               w = weight_per_second × download seconds (latency: w = 1)
//!                            a = 0.5^(w / half_life);  est = (1 − a)·v + a·est  (est₀ = 0)
//!                            read: est / (1 − 0.5^(Σw / half_life))   (start-up bias fix)
//!                            throughput = min(fast, slow), latency = max(fast, slow)
//!   safe throughput = average × 0.9
//! ```
//!
//! The loop bound `n` grows inside the loop, so a run of unstable samples
//! keeps widening the window. Which samples `r` compares is the profile's
//! `window_scan`: dash.js ≤ v3.1.1 compared the *oldest* stored samples
//! (`arr[i]/arr[i-1]`), later versions the newest backwards.
//!
//! Cache filter (v3): a download shorter than the cache threshold (50 ms video,
//! 5 ms audio) is treated as a cache hit and dropped, unless no uncached sample
//! exists yet; the first uncached sample then clears the cached ones (and the
//! EWMA state). v5 asks Resource Timing instead, and a network fetch is never a
//! cache hit there (thresholds 0; `profile.rs`).
//!
//! # References
//!
//! * dash.js v3.x and v4.7.4 `src/streaming/rules/ThroughputHistory.js`
//!   (`push`, `getSampleSize`, `getAverageSlidingWindow`, `getAverageEwma`,
//!   `updateEwmaEstimate`); dash.js PR #3276 (scan order, June 2020).
//! * bloatlab spec `abr-and-traces.md` §1.2.
//!
//! # Deviations
//!
//! * Times are continuous (ns), not JS integer milliseconds; latency and
//!   download time are floored at 1 ms like dash.js's `|| 1`, and samples are
//!   not rounded to whole kbit/s (< 0.1 % at segment sizes of interest).
//! * Abandoned downloads are not sampled (dash.js v3 clears `onloadend` before
//!   aborting, so no HTTP_REQUEST metric is recorded for them).
//! * MPD fetches are not sampled (no manifest fetch in the simulator).
//!
//! # Constants
//!
//! All tunables live in [`Profile`]
//! (its header has the table); this file adds only:
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `MIN_SAMPLE_TIME` | 1 | ms | floor on latency and download time | ThroughputHistory `|| 1` |

use super::Download;
use crate::app::dash::profile::{Estimator, Profile, WindowScan};
use crate::time::Duration;
use std::collections::VecDeque;

/// Floor on a sample's latency and download time (JS `|| 1` on integer ms). // ThroughputHistory.js
pub const MIN_SAMPLE_TIME: Duration = Duration::from_millis(1);

/// An exponentially weighted average pair with dash.js's start-up correction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Ewma {
    fast: f64,
    slow: f64,
    total_weight: f64,
}

impl Ewma {
    fn update(&mut self, value: f64, weight: f64, half_lives: (f64, f64)) {
        let a_fast = 0.5f64.powf(weight / half_lives.0);
        self.fast = (1.0 - a_fast) * value + a_fast * self.fast;
        let a_slow = 0.5f64.powf(weight / half_lives.1);
        self.slow = (1.0 - a_slow) * value + a_slow * self.slow;
        self.total_weight += weight;
    }

    /// Bias-corrected (fast, slow), or `None` before any weight.
    fn read(&self, half_lives: (f64, f64)) -> Option<(f64, f64)> {
        if self.total_weight <= 0.0 {
            return None;
        }
        let fast = self.fast / (1.0 - 0.5f64.powf(self.total_weight / half_lives.0));
        let slow = self.slow / (1.0 - 0.5f64.powf(self.total_weight / half_lives.1));
        Some((fast, slow))
    }
}

/// dash.js `ThroughputHistory` for one media type.
#[derive(Clone, Debug)]
pub struct ThroughputHistory {
    profile: Profile,
    cache_threshold: Duration,
    /// bits/s, oldest first.
    throughput: VecDeque<f64>,
    /// seconds, oldest first.
    latency: VecDeque<f64>,
    has_cached_entries: bool,
    ewma_throughput: Ewma,
    ewma_latency: Ewma,
}

impl ThroughputHistory {
    /// An empty history for a video (`audio = false`) or audio track.
    pub fn new(profile: &Profile, audio: bool) -> Self {
        ThroughputHistory {
            profile: profile.clone(),
            cache_threshold: if audio {
                profile.cache_threshold_audio
            } else {
                profile.cache_threshold_video
            },
            throughput: VecDeque::new(),
            latency: VecDeque::new(),
            has_cached_entries: false,
            ewma_throughput: Ewma::default(),
            ewma_latency: Ewma::default(),
        }
    }

    /// Records a finished download (abandoned ones are ignored).
    pub fn push(&mut self, d: &Download) {
        if !d.abandoned {
            self.push_sample(d.bytes, d.latency(), d.transfer_time());
        }
    }

    /// Records one sample: `bytes` received in `download` after `latency`.
    pub fn push_sample(&mut self, bytes: u64, latency: Duration, download: Duration) {
        let latency = latency.max(MIN_SAMPLE_TIME).as_secs_f64();
        let download_time = download.max(MIN_SAMPLE_TIME);
        let throughput = bytes as f64 * 8.0 / download_time.as_secs_f64();
        if download_time < self.cache_threshold {
            if !self.throughput.is_empty() && !self.has_cached_entries {
                return; // a cache hit must not skew real measurements
            }
            self.has_cached_entries = true;
        } else if self.has_cached_entries {
            self.clear();
        }
        let max = self.profile.max_measurements;
        push_bounded(&mut self.throughput, throughput, max);
        push_bounded(&mut self.latency, latency, max);
        let w = self.profile.ewma_weight_per_second * download_time.as_secs_f64();
        self.ewma_throughput
            .update(throughput, w, self.throughput_half_lives());
        self.ewma_latency
            .update(latency, 1.0, self.latency_half_lives());
    }

    fn clear(&mut self) {
        self.throughput.clear();
        self.latency.clear();
        self.has_cached_entries = false;
        self.ewma_throughput = Ewma::default();
        self.ewma_latency = Ewma::default();
    }

    fn throughput_half_lives(&self) -> (f64, f64) {
        (
            self.profile.ewma_throughput_fast_half_life,
            self.profile.ewma_throughput_slow_half_life,
        )
    }

    fn latency_half_lives(&self) -> (f64, f64) {
        (
            self.profile.ewma_latency_fast_half_life,
            self.profile.ewma_latency_slow_half_life,
        )
    }

    /// Number of stored samples.
    pub fn len(&self) -> usize {
        self.throughput.len()
    }

    pub fn is_empty(&self) -> bool {
        self.throughput.is_empty()
    }

    /// dash.js `getAverageThroughput`, bits/s (`None` = NaN: no sample yet).
    pub fn average_throughput_bps(&self) -> Option<f64> {
        match self.profile.estimator {
            Estimator::SlidingWindow => {
                let n = self.throughput_window();
                mean_of_newest(&self.throughput, n)
            }
            Estimator::Ewma => self
                .ewma_throughput
                .read(self.throughput_half_lives())
                .map(|(f, s)| f.min(s)),
        }
    }

    /// dash.js `getSafeAverageThroughput`: the average × `bandwidth_safety_factor`.
    pub fn safe_throughput_bps(&self) -> Option<f64> {
        self.average_throughput_bps()
            .map(|t| t * self.profile.bandwidth_safety_factor)
    }

    /// dash.js `getAverageLatency`, seconds.
    pub fn average_latency_s(&self) -> Option<f64> {
        match self.profile.estimator {
            Estimator::SlidingWindow => {
                let n = self.profile.window_latency.min(self.latency.len());
                mean_of_newest(&self.latency, n)
            }
            Estimator::Ewma => self
                .ewma_latency
                .read(self.latency_half_lives())
                .map(|(f, s)| f.max(s)),
        }
    }

    /// dash.js `getSampleSize` for throughput: the window, widened while samples vary.
    pub fn throughput_window(&self) -> usize {
        let arr = &self.throughput;
        let len = arr.len();
        let mut n = self.profile.window_vod;
        if n >= len {
            return len;
        }
        let mut i = 1;
        while i < n {
            let ratio = match self.profile.window_scan {
                WindowScan::Oldest => arr[i] / arr[i - 1],
                WindowScan::Newest => arr[len - i] / arr[len - i - 1],
            };
            if ratio >= self.profile.window_increase_scale
                || ratio <= self.profile.window_decrease_scale
            {
                n += 1;
                if n == len {
                    break;
                }
            }
            i += 1;
        }
        n
    }
}

fn push_bounded(q: &mut VecDeque<f64>, v: f64, max: usize) {
    q.push_back(v);
    while q.len() > max {
        q.pop_front();
    }
}

fn mean_of_newest(q: &VecDeque<f64>, n: usize) -> Option<f64> {
    if n == 0 || q.is_empty() {
        return None;
    }
    let n = n.min(q.len());
    Some(q.iter().skip(q.len() - n).sum::<f64>() / n as f64)
}

#[cfg(test)]
#[path = "estimator_tests.rs"]
mod tests;
