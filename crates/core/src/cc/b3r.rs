//! B3R as the oBBR artifact implements it: BBR v1 whose PROBE_BW probing gain
//! backs off on loss.
//!
//! # In a nutshell
//!
//! A counter `g` (50 at start) sets the probing phase's pacing gain to `g/40`
//! (1.25 at 50). Each ACK that reports loss lowers g by 2 (not below 42, i.e.
//! 1.05) and rewrites the gain table with the new value; each ACK more than one
//! min_rtt after the last loss raises g by 2 (up to 50) — but the table is only
//! rewritten at the next loss, so after a quiet period that loss sets
//! (50 − 2)/40 = 1.20, not 1.25 (a quirk of the code). The probing phase picks
//! the table entry up when it next begins.
//!
//! ```text
//!   loss on this ACK:        g = max(42, g − 2);  table[0] = g / 40;  t_loss = now
//!   now − t_loss > min_rtt:  g = min(50, g + 2)                       (table unchanged)
//!   entering phase 0:        pacing_gain = table[0]
//! ```
//!
//! Everything else is BBR v1 ([`Bbr`], Linux semantics).
//!
//! # References
//!
//! * The B3R paper was not available; the only definition used is bpq233/oBBR
//!   `nginx-quic/src/event/quic/ngx_bbr.c` (`ngx_bbr_on_ack`, "B3R"), the
//!   baseline of the oBBR paper (ATC'23 §5.1). Treat this as "B3R as evaluated
//!   in oBBR", not as its authors' design.
//! * bloatlab `specs/cca.md` §8.
//!
//! # Deviations
//!
//! * The artifact keeps g, the loss time and the gain table in process globals
//!   shared by every connection. `shared_state = true` (default) shares them
//!   among the B3R connections created with the same [`CcInit::host`];
//!   `false` gives each connection its own. Each connection's own min_rtt
//!   decides its regrowth, as there.
//! * The artifact sets `pacing_gain` from the table only when a phase begins;
//!   v1 re-reads its table on every ACK, so the table entry is rewritten only
//!   while the connection is not in the probing phase (the same effect).
//! * Base BBR is bloatlab's Linux v1 (`bbr = { artifact_base = true }` switches
//!   to the artifact's QUIC BBR where it differs in v1 parameters); B3R's step
//!   runs on every ACK on the Linux base, and only on ACKs with a valid rate
//!   sample on the artifact's, as there. Its quiet-min_rtt timer runs on the base's
//!   clock: whole ms (`ngx_current_msec`) on the artifact's, ns on Linux's.
//!
//! "Loss on this ACK" is the artifact's `sampler->loss`: the packets this ACK's
//! loss detection found (`rs.losses`). `ngx_quic_detect_lost` zeroes it first on
//! every ACK, so packets a timer declared lost in between never reach it.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `G_INIT` | 50 | — | initial and largest g (gain 1.25) | `int gum = 50` |
//! | `G_MIN` | 42 | — | smallest g (gain 1.05) | `ngx_max(42, gum - 2)` |
//! | `G_STEP` | 2 | — | change of g per ACK | `gum - 2`, `gum + 2` |
//! | `G_DIVISOR` | 40 | — | probing gain = g / 40 | `1.0 * gum / 40` |
//! | `HOST_KEY` | "b3r" | — | the host-wide state's key | the artifact's globals |

use super::bbr::{Bbr, Params as BbrParams};
use super::{CcInit, CcMetrics, CongestionControl, Conn, Timeout};
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// Initial (and largest) g: a probing gain of 50/40 = 1.25.
pub const G_INIT: u32 = 50; // ngx_bbr.c int gum = 50
/// Smallest g: a probing gain of 42/40 = 1.05.
pub const G_MIN: u32 = 42; // ngx_bbr.c ngx_max(42, gum - 2)
/// Change of g per lossy or quiet ACK.
pub const G_STEP: u32 = 2; // ngx_bbr.c gum - 2, gum + 2
/// The probing gain is g / 40.
pub const G_DIVISOR: f64 = 40.0; // ngx_bbr.c ngx_bbr_pacing_gain[0] = 1.0 * gum / 40
/// Key of the host-wide state.
pub const HOST_KEY: &str = "b3r"; // ngx_bbr.c globals gum, b3r_timer, ngx_bbr_pacing_gain[]

/// B3R parameters; `bbr` holds the v1 parameters underneath.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Share g, the loss time and the gain table among the host's B3R connections (the artifact's globals).
    pub shared_state: bool,
    /// BBR v1 parameters (Linux defaults).
    pub bbr: BbrParams,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            shared_state: true,
            bbr: BbrParams::default(),
        }
    }
}

impl Params {
    pub fn validate(&self) -> Result<(), String> {
        self.bbr.validate().map_err(|e| format!("bbr.{e}"))
    }
}

/// g, the last loss and the probing gain written into the table.
#[derive(Clone, Debug, PartialEq)]
pub struct GainState {
    pub g: u32,
    pub last_loss: Option<Time>,
    /// The artifact's `ngx_bbr_pacing_gain[0]`.
    pub probe_gain: f64,
}

impl GainState {
    fn new(probe_gain: f64) -> Self {
        GainState {
            g: G_INIT,
            last_loss: None,
            probe_gain,
        }
    }

    /// One ACK's step (the "B3R" block of `ngx_bbr_on_ack`).
    fn on_ack(&mut self, now: Time, lost: bool, min_rtt: Option<Duration>) {
        if lost {
            self.g = (self.g - G_STEP).max(G_MIN);
            self.probe_gain = self.g as f64 / G_DIVISOR;
            self.last_loss = Some(now);
        }
        // b3r_timer starts at 0 on a wall clock, so "quiet" holds until the first loss;
        // an unknown min_rtt is the artifact's "infinite" one.
        let quiet = match (self.last_loss, min_rtt) {
            (None, _) => true,
            (Some(t), Some(m)) => now.saturating_since(t) > m,
            (Some(_), None) => false,
        };
        if quiet {
            self.g = (self.g + G_STEP).min(G_INIT);
        }
    }
}

/// A B3R sender.
pub struct B3r {
    bbr: Bbr,
    state: Rc<RefCell<GainState>>,
}

impl B3r {
    pub fn new(p: Params, init: CcInit) -> Self {
        if let Err(e) = p.validate() {
            panic!("invalid B3R parameters: {e}");
        }
        let probe_gain = p.bbr.pacing_gain_cycle[0];
        let state = init
            .host
            .cell(HOST_KEY, p.shared_state, || GainState::new(probe_gain));
        B3r {
            bbr: Bbr::new(p.bbr, init),
            state,
        }
    }

    /// The BBR v1 model underneath.
    pub fn bbr(&self) -> &Bbr {
        &self.bbr
    }

    /// g, the loss time and the table's probing gain (possibly shared with other connections).
    pub fn gain_state(&self) -> GainState {
        self.state.borrow().clone()
    }
}

impl CongestionControl for B3r {
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let now = self.bbr.clock().time(now);
        let lost = rs.losses > 0;
        let probe_gain = {
            let mut s = self.state.borrow_mut();
            s.on_ack(now, lost, self.bbr.min_rtt());
            s.probe_gain
        };
        if !self.bbr.is_probing_phase() {
            self.bbr.set_cycle_gain(0, probe_gain);
        }
        self.bbr.on_ack(now, conn, rs);
    }

    fn on_recovery_start(&mut self, now: Time, conn: &Conn) {
        self.bbr.on_recovery_start(now, conn);
    }

    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        self.bbr.on_rto(now, conn, timeout);
    }

    fn on_loss_detected(&mut self, now: Time, conn: &Conn, newest_sent: Time) {
        self.bbr.on_loss_detected(now, conn, newest_sent);
    }

    fn on_tx_start(&mut self, now: Time, conn: &Conn) {
        self.bbr.on_tx_start(now, conn);
    }

    super::bbr_outputs::outputs_of_inner_v1!();

    fn metrics(&self) -> CcMetrics {
        self.bbr.metrics()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::bbr::{Kernel, State};
    use crate::cc::HostShared;
    use crate::engine::Rng;
    use crate::testing::{self, Ack, AckDriver};

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// 2 packets every 2 ms on the 1000 pkt/s, min_rtt 10 ms path.
    fn steady() -> Ack {
        Ack::new(2, ms(2)).rtt(ms(10)).rate(1000.0, ms(10))
    }

    /// B3R in PROBE_BW phase 2 on `host`.
    fn probe_bw(p: &Params, host: &HostShared) -> AckDriver<B3r> {
        for seed in 0..500 {
            let init = CcInit {
                rng: Rng::stream(seed, 7),
                host: host.clone(),
                ..testing::init()
            };
            let mut d = AckDriver::new(B3r::new(p.clone(), init));
            while d.cc.bbr().state() != State::ProbeBw {
                d.fill_window = d.cc.bbr().state() == State::Startup;
                d.ack(steady());
            }
            d.fill_window = true;
            if d.cc.bbr().cycle_idx() == 2 {
                return d;
            }
        }
        panic!("no seed starts in phase 2")
    }

    /// Acks until the probing phase begins; returns its pacing gain.
    fn next_probe_gain(d: &mut AckDriver<B3r>) -> f64 {
        while d.cc.bbr().is_probing_phase() {
            d.ack(steady());
        }
        while !d.cc.bbr().is_probing_phase() {
            d.ack(steady());
        }
        d.cc.metrics().pacing_gain.unwrap()
    }

    fn fresh() -> AckDriver<B3r> {
        probe_bw(&Params::default(), &HostShared::default())
    }

    #[test]
    fn defaults_match_spec() {
        assert_eq!((G_INIT, G_MIN, G_STEP, G_DIVISOR), (50, 42, 2, 40.0));
        assert_eq!(G_INIT as f64 / G_DIVISOR, 1.25);
        assert_eq!(G_MIN as f64 / G_DIVISOR, 1.05);
        let p = Params::default();
        assert!(p.shared_state && p.bbr == BbrParams::default() && p.validate().is_ok());
        assert_eq!(HOST_KEY, "b3r");
    }

    #[test]
    fn bad_v1_parameters_are_named_under_bbr() {
        let p = Params {
            bbr: BbrParams {
                cwnd_gain: -1.0,
                ..BbrParams::default()
            },
            ..Params::default()
        };
        assert_eq!(
            p.validate(),
            Err("bbr.cwnd_gain = -1 is out of range: allowed finite cwnd_gain ≥ 0".into())
        );
    }

    #[test]
    fn without_loss_the_probing_gain_is_v1s() {
        let mut d = fresh();
        assert_eq!(next_probe_gain(&mut d), 1.25);
    }

    #[test]
    fn each_lossy_ack_lowers_the_probing_gain_by_0_05_down_to_1_05() {
        let mut d = fresh();
        d.ack(steady().lost(1));
        assert_eq!(d.cc.gain_state().g, 48);
        assert_eq!(next_probe_gain(&mut d), 1.2);
        let mut d = fresh();
        for _ in 0..6 {
            d.ack(steady().lost(1)); // 2 ms apart: no quiet min_rtt in between
        }
        assert_eq!(d.cc.gain_state().g, 42);
        assert_eq!(next_probe_gain(&mut d), 1.05);
    }

    #[test]
    fn losses_a_timer_declared_between_acks_do_not_lower_g() {
        let mut d = fresh();
        d.conn.lost += 3; // the reorder timer marked three packets lost
        d.ack(steady());
        assert_eq!(d.cc.gain_state().g, G_INIT);
    }

    #[test]
    fn g_recovers_after_a_quiet_min_rtt_but_the_table_only_at_the_next_loss() {
        let mut d = fresh();
        d.acks(3, steady().lost(1)); // g = 44, gain 1.10
        d.acks(5, steady()); // 2 … 10 ms after the loss: not yet quiet
        assert_eq!(d.cc.gain_state().g, 44);
        d.ack(steady()); // 12 ms: +2
        assert_eq!(d.cc.gain_state().g, 46);
        d.acks(2, steady()); // 14, 16 ms: +2 each
        let s = d.cc.gain_state();
        assert_eq!((s.g, s.probe_gain), (50, 1.1));
        assert_eq!(next_probe_gain(&mut d), 1.1);
        d.ack(steady().lost(1)); // (50 − 2) / 40
        assert_eq!(next_probe_gain(&mut d), 1.2);
    }

    #[test]
    fn on_the_artifact_base_the_quiet_min_rtt_is_timed_on_a_millisecond_clock() {
        // A loss at a whole millisecond L; an ACK at L + 10.5 ms is quiet for 10.5 ms > min_rtt
        // on the Linux base, for 10 ms (not > 10) on nginx's clock.
        for (artifact_base, g_after_10_5_ms) in [(false, 50), (true, 48)] {
            let p = Params {
                bbr: BbrParams::preset(artifact_base, crate::cc::bbr::Kernel::V5),
                ..Params::default()
            };
            let mut d = probe_bw(&p, &HostShared::default());
            d.ack(steady().lost(1)); // g = 48
            let loss = d.now;
            assert_eq!(loss, loss.floor_millis());
            d.ack(Ack {
                after: Duration::from_micros(10_500),
                ..steady()
            });
            assert_eq!(
                d.cc.gain_state().g,
                g_after_10_5_ms,
                "artifact_base {artifact_base}"
            );
            d.ack(Ack {
                after: Duration::from_micros(500),
                ..steady()
            }); // L + 11 ms
            assert_eq!(d.cc.gain_state().g, 50, "artifact_base {artifact_base}");
        }
    }

    #[test]
    fn a_probing_phase_keeps_the_gain_it_began_with() {
        let mut d = fresh();
        assert_eq!(next_probe_gain(&mut d), 1.25);
        d.ack(steady().lost(1)); // 2 ms into the phase: too early to end it
        assert!(d.cc.bbr().is_probing_phase());
        assert_eq!(d.cc.metrics().pacing_gain, Some(1.25));
        assert_eq!(next_probe_gain(&mut d), 1.2);
    }

    #[test]
    fn outside_probe_bw_b3r_is_v1_hook_for_hook() {
        for bbr in [BbrParams::default(), BbrParams::preset(true, Kernel::V5)] {
            let init = || CcInit {
                rng: Rng::stream(3, 7),
                ..testing::init()
            };
            let p = Params {
                bbr: bbr.clone(),
                ..Params::default()
            };
            let b3r = testing::hook_tour(B3r::new(p, init()), &steady());
            let v1 = testing::hook_tour(Bbr::new(bbr.clone(), init()), &steady());
            let label = format!("artifact_base {}", bbr.artifact_base);
            assert_eq!(v1[1].4, "PROBE_RTT", "{label}");
            assert!(v1.iter().all(|o| o.4 != "PROBE_BW"), "{label}");
            testing::assert_same_tour(&b3r, &v1, &label);
        }
    }

    #[test]
    fn connections_of_one_host_share_g_unless_told_not_to() {
        let host = HostShared::default();
        let mut a = probe_bw(&Params::default(), &host);
        let mut b = probe_bw(&Params::default(), &host);
        a.ack(steady().lost(1));
        assert_eq!(b.cc.gain_state().g, 48);
        assert_eq!(next_probe_gain(&mut b), 1.2);
        let own = Params {
            shared_state: false,
            ..Params::default()
        };
        let mut c = probe_bw(&own, &host);
        assert_eq!(c.cc.gain_state().g, G_INIT);
        assert_eq!(next_probe_gain(&mut c), 1.25);
    }
}
