//! BBR-S: BBR v1 whose bandwidth estimate is a high percentile of recent
//! delivery-rate samples instead of their windowed max (WWW'21 §7.1).
//!
//! # In a nutshell
//!
//! Token-bucket shapers with a large burst let a flow briefly run at line rate;
//! v1's 10-round max filter takes those samples and then paces, and sizes its
//! cwnd, for a rate the link cannot sustain, filling deep buffers. BBR-S
//! replaces `max_bw()` — everywhere v1 uses it: pacing, cwnd, STARTUP's
//! full-pipe test, DRAIN's exit, the gain-cycle targets, ACK-aggregation
//! expectations — with the 85th percentile of the last 100 non-app-limited
//! samples (one per ACK, so the history spans a time that shrinks with the rate):
//!
//! ```text
//!   max_bw = percentile(85, last 100 non-app-limited samples)      (latest sample until 100 are in)
//!   bw     = policed ? lt_bw : max_bw                              (v1's policer detector is kept)
//! ```
//!
//! Everything else is BBR v1 ([`Bbr`], Linux semantics). The filter is
//! [`PercentileFilter`] (`bbr/percentile.rs`).
//!
//! # Faithful (host-wide) versus per-flow history
//!
//! `bbrs.c` keeps the history in module statics, so all BBR-S connections of a
//! host feed and read one ring, interleaving their samples, and a new
//! connection inherits the last one's estimate. `shared_history = true`
//! (default) reproduces that for every BBR-S connection created with the same
//! [`CcInit::host`]; `false` gives each connection its own ring — what the
//! paper's text suggests. With one BBR-S flow per host they coincide.
//!
//! # References
//!
//! * S. Vargas et al., WWW 2021, §7.1 "BBR-S: BBR with Sampled BW Estimation".
//! * SBUNetSys/BBR-Bufferbloat-Video-Project `code/bbrs.c` (module "bbrs", lines marked "SV").
//! * bloatlab `specs/cca.md` §5.
//!
//! # Deviations
//!
//! * Follows the code where the paper is silent: warm-up returns the latest
//!   sample, the history is host-wide (both documented in `percentile.rs`).
//! * v1's max filter, which `bbrs.c` still updates but never reads, is not kept.
//! * A scenario places flows on one sending host with the flow field `host`;
//!   by default every flow is its own host.
//! * Base BBR is bloatlab's Linux v1 with its own deviations (see `bbr/mod.rs`);
//!   `base = { artifact_base = true }` runs the oBBR artifact's QUIC BBR instead.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `HISTORY` | 100 | samples | history length | `bbrs.c`, WWW'21 §7.1 |
//! | `PERCENTILE` | 85 | % | order statistic reported (`sorted[85]` of 100) | `bbrs.c`, WWW'21 §7.1 |
//! | `HOST_KEY` | "bbr-s" | — | one shared history per host for this module | `bbrs.c` statics |

use super::bbr::percentile::{HISTORY, PERCENTILE};
use super::bbr::{Bbr, Params as BbrParams, PercentileFilter};
use super::{CcInit, HostShared};
use serde::{Deserialize, Serialize};

/// The host-wide history's key: `bbrs.c` and `bbr2s.c` are separate modules with separate statics.
pub const HOST_KEY: &str = "bbr-s"; // bbrs.c static bbr_bw_histories[]

/// Parameters of a sampled-bandwidth variant (BBR-S over v1, BBR2-S over v2):
/// the percentile filter's, and the base algorithm's under `base`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct SampledParams<B> {
    /// Percentile of the history reported as `max_bw` (0–100).
    pub percentile: u32,
    /// Non-app-limited samples kept.
    pub history: usize,
    /// One history for all such connections of a host (the code's statics), or one per connection.
    pub shared_history: bool,
    /// The base algorithm's parameters.
    pub base: B,
}

/// BBR-S parameters: the filter's, and BBR v1's under `base`.
pub type Params = SampledParams<BbrParams>;

impl<B: Default> Default for SampledParams<B> {
    fn default() -> Self {
        SampledParams {
            percentile: PERCENTILE,
            history: HISTORY,
            shared_history: true,
            base: B::default(),
        }
    }
}

impl<B> SampledParams<B> {
    /// Range checks of the filter parameters, naming the parameter; `base` checks the rest.
    pub fn validate(&self, base: impl FnOnce(&B) -> Result<(), String>) -> Result<(), String> {
        if self.percentile > 100 {
            return Err(format!(
                "percentile = {} is out of range: allowed 0 ≤ percentile ≤ 100",
                self.percentile
            ));
        }
        if !(1..=100_000).contains(&self.history) {
            return Err(format!(
                "history = {} is out of range: allowed 1 ≤ history ≤ 100000 samples",
                self.history
            ));
        }
        base(&self.base).map_err(|e| format!("base.{e}"))
    }

    /// The percentile filter these parameters describe, shared on `host` under `key` if asked.
    pub fn filter(&self, host: &HostShared, key: &'static str) -> PercentileFilter {
        if self.shared_history {
            PercentileFilter::shared(host, key, self.history, self.percentile)
        } else {
            PercentileFilter::per_flow(self.history, self.percentile)
        }
    }
}

/// A BBR-S sender: BBR v1 reading its bandwidth from the percentile filter.
pub fn new(p: &Params, init: CcInit) -> Bbr {
    let filter = p.filter(&init.host, HOST_KEY);
    Bbr::with_bw_filter(p.base.clone(), init, Box::new(filter))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{CongestionControl, HostShared};
    use crate::testing::{self, Ack, AckDriver};
    use crate::time::Duration;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// 2 packets every 2 ms, min_rtt 10 ms, a sample of `bw` packets/s over 10 ms.
    fn at(bw: f64) -> Ack {
        Ack::new(2, ms(2)).rtt(ms(10)).rate(bw, ms(10))
    }

    fn on_host(p: &Params, host: &HostShared) -> Bbr {
        new(
            p,
            CcInit {
                host: host.clone(),
                ..testing::init()
            },
        )
    }

    #[test]
    fn defaults_match_spec() {
        let p = Params::default();
        assert_eq!((p.percentile, p.history, p.shared_history), (85, 100, true));
        assert_eq!(p.base, BbrParams::default());
        assert_eq!(HOST_KEY, "bbr-s");
        assert!(p.validate(BbrParams::validate).is_ok());
        // both ends of each range are allowed
        for (percentile, history) in [(100, 1), (0, 100_000)] {
            let ok = Params {
                percentile,
                history,
                ..Params::default()
            };
            assert!(ok.validate(BbrParams::validate).is_ok());
        }
        let e = Params {
            percentile: 101,
            ..Params::default()
        };
        assert!(e
            .validate(BbrParams::validate)
            .unwrap_err()
            .contains("percentile = 101"));
        let e = Params {
            history: 0,
            ..Params::default()
        };
        assert!(e
            .validate(BbrParams::validate)
            .unwrap_err()
            .contains("history = 0"));
    }

    #[test]
    fn a_line_rate_burst_raises_v1s_estimate_but_not_bbr_s() {
        let mut v1 = AckDriver::new(Bbr::new(BbrParams::default(), testing::init()));
        let mut s = AckDriver::new(new(&Params::default(), testing::init()));
        // 150 samples at 1000 pkt/s, then 10 at line rate (4000), then 20 more at 1000.
        for a in [(150, 1000.0), (10, 4000.0), (20, 1000.0)] {
            v1.acks(a.0, at(a.1));
            s.acks(a.0, at(a.1));
        }
        assert_eq!(v1.cc.max_bw(), 4000.0);
        // The ring holds 90 samples at 1000 and 10 at 4000: sorted[85] = 1000.
        assert_eq!(s.cc.max_bw(), 1000.0);
        let bw_bps = |m: crate::cc::CcMetrics| m.bw_est_bps.unwrap();
        assert_eq!(bw_bps(s.cc.metrics()), 1000.0 * 1448.0 * 8.0);
        assert_eq!(bw_bps(v1.cc.metrics()), 4000.0 * 1448.0 * 8.0);
    }

    #[test]
    fn more_than_15_percent_of_high_samples_do_raise_the_estimate() {
        let mut s = AckDriver::new(new(&Params::default(), testing::init()));
        s.acks(100, at(1000.0));
        s.acks(14, at(4000.0));
        assert_eq!(s.cc.max_bw(), 1000.0); // 14 high: sorted[85] is still low
        s.ack(at(4000.0));
        assert_eq!(s.cc.max_bw(), 4000.0); // 15 high: sorted[85] is the lowest of them
    }

    #[test]
    fn two_connections_of_one_host_share_the_history() {
        let host = HostShared::default();
        let mut a = AckDriver::new(on_host(&Params::default(), &host));
        let b = on_host(&Params::default(), &host);
        a.ack(at(700.0));
        assert_eq!(b.max_bw(), 700.0);
    }

    #[test]
    fn histories_are_independent_on_different_hosts_or_when_not_shared() {
        let host = HostShared::default();
        let mut a = AckDriver::new(on_host(&Params::default(), &host));
        let other_host = on_host(&Params::default(), &HostShared::default());
        let per_flow = Params {
            shared_history: false,
            ..Params::default()
        };
        let own = on_host(&per_flow, &host);
        a.ack(at(700.0));
        assert_eq!((other_host.max_bw(), own.max_bw()), (0.0, 0.0));
    }
}
