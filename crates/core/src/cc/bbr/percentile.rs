//! BBR-S's bandwidth filter: a percentile of the last N delivery-rate samples,
//! exactly as the WWW'21 reference code (`bbrs.c`, `bbr2s.c`) computes it.
//!
//! # In a nutshell
//!
//! Every valid, non-app-limited rate sample is written into a ring of N slots;
//! the estimate is an order statistic of the ring once it has been filled, and
//! the newest sample before that:
//!
//! ```text
//!   insert(s):  idx += 1; if idx > N − 1 { full = true; idx = 0 }; hist[idx] = s
//!   estimate =  full ? sort(hist)[⌊percentile · N / 100⌋]   (N = 100, 85 → copy[85], the 86th smallest)
//!                    : s                                     (warm-up: the latest sample)
//! ```
//!
//! The code's warm-up branch sorts `copy[0..idx)` and returns `copy[idx]`, the
//! slot just written, so until N samples have arrived the "percentile" is the
//! latest sample (not the max, despite the code's comment). The ring starts at
//! slot 1: the first insert advances `idx` from 0, so slot 0 is first written by
//! the N-th sample, which is also the one that sets `full`.
//!
//! [`PercentileHistory`] is the ring and its estimate; [`PercentileFilter`]
//! adapts it to BBR v1's [`BwFilter`] (BBR-S). BBR2-S can hold the same history
//! (under its own host key, as `bbr2s.c` has its own statics) and read
//! `estimate()` where v2 reads `max_bw`.
//!
//! # Shared or per-flow history
//!
//! In the reference code the ring, its index and the estimate are `static`
//! module variables: one history per host and module, fed by every BBR-S
//! connection on that host, whose ACKs interleave in it; a new connection
//! starts from whatever the previous ones left. [`PercentileFilter::shared`]
//! reproduces that through [`HostShared`] (the faithful default, `shared_history =
//! true`); [`PercentileFilter::per_flow`] gives each connection its own ring,
//! which is very likely what the authors meant (`shared_history = false`). With
//! one flow per host the two are identical.
//!
//! # References
//!
//! * S. Vargas et al., "BBR bufferbloat in DASH video", WWW 2021, §7.1 (BBR-S) and §7.2 (BBR2-S).
//! * SBUNetSys/BBR-Bufferbloat-Video-Project `code/bbrs.c` `bbr_update_bw` (the "SV" lines).
//! * bloatlab `specs/cca.md` §5.
//!
//! # Deviations
//!
//! * Samples are `f64` packets/s, not u32 `pkts/µs << 24` (the code's `int` cast
//!   in its sort comparison only matters above ~1.5 Tb/s).
//! * Connections on one host with different `history`/`percentile` settings get
//!   separate shared rings (the code has one setting per module).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `HISTORY` | 100 | samples | ring length N | `bbr_bw_histories[100]` |
//! | `PERCENTILE` | 85 | % | index `⌊85 · N / 100⌋` into the sorted ring | `bbr_bw_hist_percentile` |

use super::filters::BwFilter;
use crate::cc::HostShared;
use std::cell::RefCell;
use std::rc::Rc;

/// Samples kept: "we use a sample history size of 100".
pub const HISTORY: usize = 100; // bbrs.c bbr_bw_histories[100]; WWW'21 §7.1
/// "we set hist_percentile = 85%ile"; the code reads `sorted[85]` of 100.
pub const PERCENTILE: u32 = 85; // bbrs.c bbr_bw_hist_percentile = 85; WWW'21 §7.1

/// The ring of the last N samples and its current estimate (the code's statics).
#[derive(Clone, Debug, PartialEq)]
pub struct PercentileHistory {
    hist: Vec<f64>,
    idx: usize,
    full: bool,
    /// Index into the sorted ring once it is full.
    rank: usize,
    estimate: f64,
}

impl PercentileHistory {
    /// An empty ring of `history` slots (≥ 1) reporting `percentile` (0–100).
    pub fn new(history: usize, percentile: u32) -> Self {
        assert!(history >= 1 && percentile <= 100, "validated by the caller");
        PercentileHistory {
            hist: vec![0.0; history],
            idx: 0,
            full: false,
            rank: (percentile as usize * history / 100).min(history - 1),
            estimate: 0.0,
        }
    }

    /// Records one sample and recomputes the estimate (bbrs.c, after the max-filter update).
    pub fn insert(&mut self, sample: f64) {
        let n = self.hist.len();
        self.idx += 1;
        if self.idx > n - 1 {
            self.full = true;
            self.idx = 0;
        }
        self.hist[self.idx] = sample;
        self.estimate = if self.full {
            let mut sorted = self.hist.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            sorted[self.rank]
        } else {
            // Warm-up: the code sorts copy[0..idx) and reads copy[idx], the new sample.
            sample
        };
    }

    /// The percentile of the full ring, or the latest sample during warm-up; 0 before any.
    pub fn estimate(&self) -> f64 {
        self.estimate
    }

    /// Whether N samples have been collected.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        let n = self.hist.len();
        let rank = self.rank;
        *self = PercentileHistory {
            rank,
            ..PercentileHistory::new(n, 0)
        };
    }
}

/// Per host: the shared rings, one per (history, percentile) setting.
type SharedRings = RefCell<Vec<((usize, u32), Rc<RefCell<PercentileHistory>>)>>;

/// BBR-S's [`BwFilter`]: a [`PercentileHistory`] fed with non-app-limited samples.
#[derive(Clone, Debug)]
pub struct PercentileFilter(Rc<RefCell<PercentileHistory>>);

impl PercentileFilter {
    /// A history of this connection's own.
    pub fn per_flow(history: usize, percentile: u32) -> Self {
        PercentileFilter(Rc::new(RefCell::new(PercentileHistory::new(
            history, percentile,
        ))))
    }

    /// The history every connection created with `host` and the same `key`
    /// (one per algorithm, like a kernel module's statics) and settings shares.
    pub fn shared(host: &HostShared, key: &'static str, history: usize, percentile: u32) -> Self {
        let rings = host.entry::<SharedRings>(key, Default::default);
        let mut rings = rings.borrow_mut();
        let settings = (history, percentile);
        if let Some((_, h)) = rings.iter().find(|(s, _)| *s == settings) {
            return PercentileFilter(h.clone());
        }
        let h = Rc::new(RefCell::new(PercentileHistory::new(history, percentile)));
        rings.push((settings, h.clone()));
        PercentileFilter(h)
    }

    /// A copy of the history as it stands (for tests and telemetry).
    pub fn history(&self) -> PercentileHistory {
        self.0.borrow().clone()
    }
}

impl BwFilter for PercentileFilter {
    /// App-limited samples never enter (unlike v1's max filter, which takes them
    /// when they raise the max); the round is not used.
    fn update(&mut self, _round: u64, sample_pps: f64, is_app_limited: bool) {
        if !is_app_limited {
            self.0.borrow_mut().insert(sample_pps);
        }
    }

    fn max_bw(&self) -> f64 {
        self.0.borrow().estimate()
    }

    /// Clears the (possibly shared) history; BBR-S itself never resets.
    fn reset(&mut self, _round: u64) {
        self.0.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter_with(samples: impl IntoIterator<Item = f64>) -> PercentileFilter {
        let mut f = PercentileFilter::per_flow(HISTORY, PERCENTILE);
        for s in samples {
            f.update(0, s, false);
        }
        f
    }

    #[test]
    fn defaults_match_spec() {
        assert_eq!((HISTORY, PERCENTILE), (100, 85));
        assert_eq!(PercentileHistory::new(100, 85).rank, 85);
        assert_eq!(PercentileHistory::new(10, 85).rank, 8);
        assert_eq!(PercentileHistory::new(100, 100).rank, 99);
    }

    #[test]
    fn warm_up_returns_the_latest_sample_not_the_max() {
        let mut f = filter_with([]);
        assert_eq!(f.max_bw(), 0.0);
        for (i, s) in [500.0, 900.0, 100.0, 300.0].into_iter().enumerate() {
            f.update(i as u64, s, false);
            assert_eq!(f.max_bw(), s);
        }
        let f = filter_with((1..=99).map(|i| i as f64 * 10.0).rev());
        assert!(!f.history().is_full());
        assert_eq!(f.max_bw(), 10.0); // the 99th sample, though 990 was seen
    }

    #[test]
    fn after_n_samples_the_estimate_is_the_86th_smallest_of_the_last_100() {
        // 1..=100 in a scrambled order: sorted[85] = 86.
        let scrambled = (0..100).map(|i| ((i * 37) % 100 + 1) as f64);
        let mut f = filter_with(scrambled);
        assert!(f.history().is_full());
        assert_eq!(f.max_bw(), 86.0);
        // The 101st sample overwrites slot 1, the first sample (37·0 % 100 + 1 = 1).
        f.update(0, 1000.0, false);
        // Ring now holds 2..=100 and 1000: sorted[85] = 87.
        assert_eq!(f.max_bw(), 87.0);
    }

    #[test]
    fn the_ring_starts_at_slot_one_and_the_hundredth_sample_fills_slot_zero() {
        let f = filter_with((1..=100).map(f64::from));
        let h = f.history();
        assert_eq!(
            (h.idx, h.hist[0], h.hist[1], h.hist[99]),
            (0, 100.0, 1.0, 99.0)
        );
    }

    #[test]
    fn app_limited_samples_never_enter_the_history() {
        let mut f = filter_with([400.0]);
        f.update(1, 9000.0, true); // would raise v1's max; BBR-S ignores it
        f.update(2, 10.0, true);
        assert_eq!(f.max_bw(), 400.0);
        assert_eq!(f.history().idx, 1);
    }

    #[test]
    fn shared_history_is_per_host_and_key() {
        let host = HostShared::default();
        let mut a = PercentileFilter::shared(&host, "bbr-s", 100, 85);
        let b = PercentileFilter::shared(&host, "bbr-s", 100, 85);
        let other_key = PercentileFilter::shared(&host, "bbr2-s", 100, 85);
        let other_host = PercentileFilter::shared(&HostShared::default(), "bbr-s", 100, 85);
        let other_setting = PercentileFilter::shared(&host, "bbr-s", 50, 85);
        a.update(0, 700.0, false);
        assert_eq!(b.max_bw(), 700.0);
        for f in [&other_key, &other_host, &other_setting] {
            assert_eq!(f.max_bw(), 0.0);
        }
    }

    #[test]
    fn reset_clears_the_history() {
        let mut f = filter_with((1..=120).map(f64::from));
        f.reset(0);
        assert_eq!(f.max_bw(), 0.0);
        assert!(!f.history().is_full());
        f.update(0, 5.0, false);
        assert_eq!(f.max_bw(), 5.0);
        assert_eq!(f.history().rank, 85);
    }
}
