//! Reno, as Linux `tcp_reno_cong_avoid` / `tcp_reno_ssthresh` (tcp_cong.c).
//!
//! # In a nutshell
//!
//! Slow start doubles cwnd every round trip until ssthresh; congestion
//! avoidance then adds one packet per window of acknowledged packets; a loss
//! halves the window. The shared machinery (slow start, the additive-increase
//! credit counter, PRR in recovery, RTO) is in `window.rs`; Reno only
//! supplies its two functions:
//!
//! ```text
//!   ssthresh() = max(⌊cwnd / 2⌋, 2)
//!   increase   = cong_avoid_ai(w = cwnd, acked)      ≈ +1 packet per RTT
//! ```
//!
//! States are the window's (SLOW_START → CONG_AVOID → RECOVERY/LOSS), see
//! `window.rs`.
//!
//! # References
//!
//! * Linux `net/ipv4/tcp_cong.c`: `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`,
//!   `tcp_reno_undo_cwnd`.
//! * RFC 5681 §3.1; RFC 6937 (PRR, in `window.rs`).
//!
//! # Deviations
//!
//! * No undo (`tcp_reno_undo_cwnd`): the trait has no spurious-loss hook.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `MIN_SSTHRESH` | 2 | packets | floor of the post-loss window | tcp_cong.c `tcp_reno_ssthresh` |
//! | `initial ssthresh` | 0x7fff_ffff | packets | "infinite" until the first loss | `TCP_INFINITE_SSTHRESH` |

use super::window::{CaOps, LossBased, Window};
use super::CcInit;
use crate::time::Time;
use serde::Deserialize;

/// Smallest ssthresh a loss can leave.
// tcp_cong.c tcp_reno_ssthresh: return max(tcp_snd_cwnd(tp) >> 1U, 2U);
pub const MIN_SSTHRESH: u32 = 2;

/// Reno has no tunables; the struct exists so configs read `{ kind = "reno" }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {}

/// Reno's `tcp_congestion_ops`; stateless.
#[derive(Clone, Debug, Default)]
pub struct Ops;

/// Reno congestion control.
pub type Reno = LossBased<Ops>;

impl Reno {
    pub fn new(_params: Params, init: CcInit) -> Self {
        LossBased::from_ops(Ops, &init)
    }
}

impl CaOps for Ops {
    fn ssthresh(&mut self, w: &Window) -> u32 {
        (w.cwnd / 2).max(MIN_SSTHRESH)
    }

    fn increase(&mut self, _now: Time, w: &mut Window, acked: u32) {
        let cwnd = w.cwnd;
        w.cong_avoid_ai(cwnd, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CongestionControl;
    use crate::testing::{init, Ack, AckDriver};
    use crate::time::Duration;

    fn reno() -> AckDriver<Reno> {
        AckDriver::new(Reno::new(Params::default(), init()))
    }

    #[test]
    fn defaults_match_spec() {
        assert_eq!(MIN_SSTHRESH, 2);
        assert_eq!(super::super::window::INFINITE_SSTHRESH, 0x7fff_ffff);
        let d = reno();
        assert_eq!(d.cc.cwnd(), 10, "IW10 from CcInit");
        assert_eq!(
            d.cc.metrics().ssthresh_pkts,
            None,
            "ssthresh starts infinite"
        );
        let p: Params = serde_json::from_str("{}").unwrap();
        assert_eq!(p, Params::default());
        assert!(serde_json::from_str::<Params>(r#"{"beta":0.5}"#).is_err());
    }

    /// 25 → ⌊25/2⌋ = 12; 3 → max(1, 2) = 2.
    #[test]
    fn a_loss_halves_the_window_but_not_below_two() {
        let mut d = reno();
        d.cc.window.cwnd = 25;
        d.enter_recovery();
        assert_eq!(d.cc.metrics().ssthresh_pkts, Some(12));
        let mut d = reno();
        d.cc.window.cwnd = 3;
        d.enter_recovery();
        assert_eq!(d.cc.metrics().ssthresh_pkts, Some(2));
    }

    /// In congestion avoidance at cwnd 10, nine 1-packet ACKs only build
    /// credit (cnt 1..9); the tenth makes cnt = 10 = w → cwnd 11, cnt 0. The
    /// next window needs 11 ACKs.
    #[test]
    fn congestion_avoidance_adds_one_packet_per_window_of_acks() {
        let mut d = reno();
        d.cc.window.ssthresh = 10;
        let ack = Ack::new(1, Duration::from_millis(1));
        d.acks(9, ack.clone());
        assert_eq!((d.cc.cwnd(), d.cc.window.cwnd_cnt), (10, 9));
        d.ack(ack.clone());
        assert_eq!((d.cc.cwnd(), d.cc.window.cwnd_cnt), (11, 0));
        d.acks(10, ack.clone());
        assert_eq!(d.cc.cwnd(), 11);
        d.ack(ack);
        assert_eq!(d.cc.cwnd(), 12);
        assert_eq!(d.cc.state_name(), "CONG_AVOID");
    }
}
