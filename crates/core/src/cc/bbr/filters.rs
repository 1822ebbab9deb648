//! Windowed min/max filters and the bandwidth-filter interface.
//!
//! [`WindowedFilter`] is Kathleen Nichols' algorithm as in Linux
//! `lib/win_minmax.c`: it keeps the best, 2nd-best and 3rd-best samples of the
//! last `window` time units (with non-decreasing times) in constant space.
//!
//! ```text
//!   on (t, v):  v at least as good as best, or t − third.t > W  →  reset all three to (t, v)
//!               v at least as good as 2nd  →  2nd = 3rd = (t, v)
//!               v at least as good as 3rd  →  3rd = (t, v)
//!               t − best.t > W             →  best ← 2nd ← 3rd ← (t, v)  (up to twice)
//!               2nd.t == best.t, dt > W/4  →  2nd = 3rd = (t, v)
//!               3rd.t == 2nd.t,  dt > W/2  →  3rd = (t, v)
//! ```
//!
//! A new best forgets everything older: the filter never remembers lower
//! samples from before a new peak. Time is whatever the caller counts in
//! (BBR v1: packet-timed rounds; BBRv2's min_rtt: ns).
//!
//! [`BwFilter`] is what BBR reads `max_bw()` from. [`MaxBwFilter`] is Linux v1's
//! windowed max over 10 rounds; BBRv2's two-cycle `bw_hi` filter
//! (`bbr2::CycleMaxBwFilter`) and BBR-S's percentile filter are other implementations.

use std::fmt::Debug;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample<T> {
    t: u64,
    v: T,
}

/// Whether a [`WindowedFilter`] tracks the maximum or the minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extremum {
    Max,
    Min,
}

/// A windowed running max or min (Linux `struct minmax`).
#[derive(Clone, Debug)]
pub struct WindowedFilter<T> {
    kind: Extremum,
    window: u64,
    s: [Sample<T>; 3],
}

impl<T: Copy + PartialOrd> WindowedFilter<T> {
    /// Running max over `window`, starting from `(t, v)` (Linux `minmax_reset`).
    pub fn max(window: u64, t: u64, v: T) -> Self {
        WindowedFilter {
            kind: Extremum::Max,
            window,
            s: [Sample { t, v }; 3],
        }
    }

    /// Running min over `window`, starting from `(t, v)`.
    pub fn min(window: u64, t: u64, v: T) -> Self {
        WindowedFilter {
            kind: Extremum::Min,
            window,
            s: [Sample { t, v }; 3],
        }
    }

    /// The current best value.
    pub fn get(&self) -> T {
        self.s[0].v
    }

    /// Forgets every sample and restarts from `(t, v)`.
    pub fn reset(&mut self, t: u64, v: T) -> T {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// `a` is at least as good as `b` (≥ for a max, ≤ for a min).
    fn at_least(&self, a: T, b: T) -> bool {
        match self.kind {
            Extremum::Max => a >= b,
            Extremum::Min => a <= b,
        }
    }

    /// Takes sample `v` at time `t` (`minmax_running_max`/`_min`); returns the best.
    pub fn update(&mut self, t: u64, v: T) -> T {
        let val = Sample { t, v };
        if self.at_least(v, self.s[0].v) || t.wrapping_sub(self.s[2].t) > self.window {
            return self.reset(t, v);
        }
        if self.at_least(v, self.s[1].v) {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.at_least(v, self.s[2].v) {
            self.s[2] = val;
        }
        self.subwin_update(val)
    }

    /// `minmax_subwin_update`: ages the three choices as time advances.
    fn subwin_update(&mut self, val: Sample<T>) -> T {
        let win = self.window;
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best expired: promote the 2nd and 3rd choices. The 2nd may have
            // expired too (the 3rd was checked on entry), so at most twice.
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter window without a new best: take a 2nd choice from the 2nd quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half a window: take a 3rd choice from the last half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

/// Where BBR's `max_bw()` comes from: one delivery-rate sample per valid ACK in,
/// one estimate out. Implementations decide how app-limited samples count.
pub trait BwFilter: Debug {
    /// Offers a delivery-rate sample (packets/s) taken in packet-timed round `round`.
    fn update(&mut self, round: u64, sample_pps: f64, is_app_limited: bool);

    /// The estimate BBR calls `max_bw()`, packets/s (0 before any sample).
    fn max_bw(&self) -> f64;

    /// Forgets all samples (oBBR's bandwidth-drop reset); the estimate becomes 0.
    fn reset(&mut self, round: u64);

    /// BBRv2/v3 end a PROBE_BW cycle's bandwidth-probe feedback here (Linux
    /// `bbr2_advance_bw_hi_filter`). Filters windowed in rounds ignore it.
    fn advance_cycle(&mut self) {}
}

/// Linux BBR v1's bandwidth filter: the windowed max over `bw_filter_rounds`
/// rounds. An app-limited sample is taken only if it is at least the current max
/// ("describes the path bw at least as well as our bw model").
#[derive(Clone, Debug)]
pub struct MaxBwFilter(WindowedFilter<f64>);

impl MaxBwFilter {
    pub fn new(window_rounds: u64) -> Self {
        MaxBwFilter(WindowedFilter::max(window_rounds, 0, 0.0))
    }
}

impl BwFilter for MaxBwFilter {
    fn update(&mut self, round: u64, sample_pps: f64, is_app_limited: bool) {
        if !is_app_limited || sample_pps >= self.0.get() {
            self.0.update(round, sample_pps);
        }
    }

    fn max_bw(&self) -> f64 {
        self.0.get()
    }

    fn reset(&mut self, round: u64) {
        self.0.reset(round, 0.0);
    }
}
