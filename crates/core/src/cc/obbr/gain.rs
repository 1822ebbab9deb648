//! oBBR's adaptive cwnd gain `g`.
//!
//! ```text
//!   loss on this ACK:   g = min(1 + μ · (rtt_latest − min_rtt) / min_rtt, g_max)     (set, not min(g, ·))
//!   else, not in recovery:  g = min(g + α · acked / max(bdp, 4), g_max)
//!   BBR enters a mode:  g = that mode's v1 cwnd gain (STARTUP/DRAIN 2.885, PROBE_BW 2, PROBE_RTT 1)
//!
//!   gain used for cwnd = g, raised while pacing_gain > 1 to max(g, 1.25),
//!                        and to max(g, g_max) once 3 s have passed without loss
//! ```
//!
//! `min_rtt` and `bdp` are BBR's from before this ACK's model update (the
//! artifact runs `update_cc_mode` first). `rtt_latest` is the newest RTT sample
//! (QUIC `latest_rtt`, which persists between ACKs). In the artifact the ms
//! subtraction `rtt_latest − min_rtt` is unsigned: below min_rtt it wraps and g
//! saturates to g_max; `clamp_rtt_excess` clamps the excess at 0 instead.
//!
//! The recovery epoch that stops g regrowing is the artifact BBR's, not the
//! transport's (`Bbr::in_artifact_recovery`, `cc/bbr/recovery.rs`): every loss
//! (re)starts it, and it ends on the first ACK for a packet sent after the
//! latest loss, so repeated losses keep g from regrowing.

use super::Params;
use crate::time::{Duration, Time};

/// `g` and what decides how it moves.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct AdaptiveGain {
    /// The artifact's `bbr->cwnd_gain`, a C `float`: each value it takes is rounded to f32.
    pub g: f32,
    /// Newest RTT sample (QUIC `latest_rtt`).
    pub rtt_latest: Option<Duration>,
    /// When a loss was last detected (the artifact's `loss_timer`).
    pub last_loss: Option<Time>,
}

impl AdaptiveGain {
    pub fn new(g: f64) -> Self {
        AdaptiveGain {
            g: g as f32,
            rtt_latest: None,
            last_loss: None,
        }
    }

    /// `update_cc_mode`'s gain step. `bdp1` is `ngx_bbr_target_cwnd(1.0)` in packets
    /// (`max(bdp(max_bw), min_cwnd)` bytes over the MSS, fractional);
    /// `in_recovery`: inside the artifact BBR's recovery epoch.
    pub fn on_ack(
        &mut self,
        p: &Params,
        lost: bool,
        in_recovery: bool,
        acked: u32,
        min_rtt: Option<Duration>,
        bdp1: f64,
    ) {
        if lost && min_rtt != Some(Duration::ZERO) {
            let excess = match (self.rtt_latest, min_rtt) {
                (Some(rtt), Some(m)) if rtt >= m => (rtt - m).as_secs_f64() / m.as_secs_f64(),
                (Some(_), Some(_)) if p.clamp_rtt_excess => 0.0,
                // Unsigned wrap (rtt < min_rtt), or min_rtt still "infinite": saturates.
                _ => f64::INFINITY,
            };
            self.g = (1.0 + p.mu * excess).min(p.g_max) as f32;
        } else if !in_recovery {
            self.g = (f64::from(self.g) + p.alpha * acked as f64 / bdp1).min(p.g_max) as f32;
        }
    }

    /// The gain `set_cwnd` uses: the probing floor and the no-loss boost on top of `g`.
    /// Like g, it is a `float` in the artifact (`float gain = bbr->cwnd_gain`).
    pub fn effective(&self, p: &Params, now: Time, pacing_gain: f64) -> f64 {
        let mut gain = f64::from(self.g);
        if pacing_gain > 1.0 {
            gain = gain.max(p.probe_floor);
            let quiet = Duration::from_millis(p.no_loss_boost_ms);
            if self
                .last_loss
                .is_none_or(|t| now.saturating_since(t) > quiet)
            {
                gain = gain.max(p.g_max);
            }
        }
        f64::from(gain as f32)
    }

    /// The artifact's test for its hard cap, `bbr->cwnd_gain < max_ngx_bbr_cwnd_gain`: a
    /// `float` against a `double`. A g_max that a float cannot hold exactly (2.05) is stored
    /// below itself, so g at g_max still passes and the cap holds in every mode but STARTUP
    /// and DRAIN (g = 2.885).
    pub fn below_max(&self, p: &Params) -> bool {
        f64::from(self.g) < p.g_max
    }
}
