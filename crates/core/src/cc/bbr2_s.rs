//! BBR2-S: BBRv2 whose `max_bw()` is a high percentile of recent
//! delivery-rate samples instead of the two-cycle max filter (WWW'21 §7.2).
//!
//! # In a nutshell
//!
//! The same change as BBR-S ([`super::bbr_s`]), applied to BBRv2 v2alpha
//! (`bbr2s.c`, based on google/bbr 8d11b540): every valid non-app-limited
//! sample enters a ring of the last N; `max_bw` is its 85th percentile
//! (the latest sample until N are in); BBRv2's bounds still apply:
//!
//! ```text
//!   max_bw = percentile(85, last 100 non-app-limited samples)
//!   bw     = min(max_bw, bw_lo)
//! ```
//!
//! The two-cycle `bw_hi[]` filter that `bbr2s.c` still updates but never reads
//! is not kept. The history is host-wide by default (the module's statics,
//! separate from BBR-S's), per connection with `shared_history = false`.
//!
//! # References
//!
//! * S. Vargas et al., WWW 2021, §7.1 (BBR-S) and §7.2 (BBR2-S).
//! * SBUNetSys/BBR-Bufferbloat-Video-Project `code/bbr2s.c`.
//! * bloatlab `specs/cca.md` §5.
//!
//! # Deviations
//!
//! * No 0.85 factor on the estimate. The paper says BBR2-S sets its estimate to
//!   "85% of the value" (§7.2), as it says BBRv2 itself does with its maximum;
//!   `bbr2s.c` has no such factor (`bbr_max_bw` returns the percentile), and the
//!   only 0.85 in BBRv2 is its inflight headroom, kept unchanged. We follow the
//!   code, which is what produced the paper's figures.
//! * Base BBRv2 is bloatlab's v2alpha with its deviations (see `bbr2/mod.rs`).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | history | 100 | samples | history length | `bbr2s.c`, WWW'21 §7.1 |
//! | percentile | 85 | % | order statistic reported | `bbr2s.c`, WWW'21 §7.2 |
//! | `HOST_KEY` | "bbr2-s" | — | one shared history per host for this module | `bbr2s.c` statics |

use super::bbr2::{Bbr2, Params as Bbr2Params};
use super::bbr_s::SampledParams;
use super::CcInit;

/// The host-wide history's key (`bbr2s.c` is a module of its own, with its own statics).
pub const HOST_KEY: &str = "bbr2-s";

/// BBR2-S parameters: the filter's, and BBRv2's under `base`.
pub type Params = SampledParams<Bbr2Params>;

/// A BBR2-S sender: BBRv2 reading `max_bw` from the percentile filter.
pub fn new(p: &Params, init: CcInit) -> Bbr2 {
    let filter = p.filter(&init.host, HOST_KEY);
    Bbr2::with_bw_filter(p.base.clone(), init, Box::new(filter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionControl;
    use crate::testing::{self, Ack, AckDriver};
    use crate::time::Duration;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn defaults_match_spec() {
        let p = Params::default();
        assert_eq!((p.percentile, p.history, p.shared_history), (85, 100, true));
        assert_eq!(p.base, Bbr2Params::default());
        assert_eq!(HOST_KEY, "bbr2-s");
    }

    #[test]
    fn a_burst_of_line_rate_samples_does_not_become_the_estimate() {
        // 100 samples at 1000 pkt/s fill the history, then 10 samples at 50 000 pkt/s (a token burst)
        let per_flow = Params {
            shared_history: false,
            ..Params::default()
        };
        let mut d = AckDriver::new(new(&per_flow, testing::init()));
        d.acks(100, Ack::new(2, ms(2)).rtt(ms(10)).rate(1000.0, ms(10)));
        d.acks(10, Ack::new(2, ms(2)).rtt(ms(10)).rate(50_000.0, ms(10)));
        let bw = d.cc.metrics().bw_est_bps.unwrap() / (testing::MSS as f64 * 8.0);
        // sorted[85] of 90 × 1000 and 10 × 50 000 is still 1000
        assert!((bw - 1000.0).abs() < 1.0, "estimate {bw} pkt/s");
    }

    #[test]
    fn bbr2_s_and_bbr_s_keep_separate_host_histories() {
        assert_ne!(HOST_KEY, crate::cc::bbr_s::HOST_KEY);
    }
}
