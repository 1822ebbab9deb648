//! The oBBR artifact's QUIC CUBIC (`kind = "cubic-quic"`): `nginx-quic/src/event/quic/cubic.c`
//! of bpq233/oBBR (3ae3fc9, xquic's `xqc_cubic.c` ported to nginx), the CUBIC that the
//! USENIX ATC'23 paper's figures run as "CUBIC". It is not Linux's `tcp_cubic.c`
//! ([`super::cubic`]); what differs changes how it shares a link:
//!
//! * **No HyStart.** Slow start (cwnd += acked bytes) lasts until the first loss.
//! * **Loss is answered per lost packet, at once.** QUIC has no fast-recovery state and no
//!   PRR: the first lost packet sent after the last reduction cuts cwnd to β·cwnd and opens
//!   a recovery period; later losses of packets sent before it are ignored. An ACK does not
//!   grow the window while its rate sample's reference packet was sent inside that period.
//! * **One growth step per ACK frame.** cwnd jumps to the curve's value (at most +acked/2),
//!   and the Reno-equivalent window grows by MSS²/W once per ACK *frame*, not per packet
//!   acknowledged: a tenth of Reno's pace behind the QUIC client's 1-in-10 ACKs.
//! * **Clocks.** Times are nginx's whole milliseconds. The curve's K is in 1/1024 s (as
//!   Linux's), but the elapsed time t is in ms: `(...) << CUBIC_TIME_SCALE / MICROS_PER_SECOND`
//!   shifts by 10 / 1000 = 0 bits, so the curve runs 1000/1024 as fast as written. Its own
//!   minimum RTT is that of the ACKs' reference packets (`now − po_sent_time`).
//! * **Timeouts.** QUIC's probe timeout changes no window; the packets it leaves unacknowledged
//!   are declared lost later and answered as any loss. Here a TCP RTO stands for that: its
//!   losses reach `on_lost`, and if two or more of them, with nothing acknowledged between,
//!   span more than 3 · (srtt + max(4·rttvar, 1 ms) + max_ack_delay), that is *persistent
//!   congestion*, which resets cwnd, the Reno window and W_max to the minimum window and keeps
//!   ssthresh, so it slow-starts back to it.
//!
//! ```text
//!   ACK frame (valid rate sample; acked bytes, reference sent at s):
//!     min_rtt = min(min_rtt, now − s);  s ≤ recovery_start → no growth
//!     cwnd < ssthresh:  cwnd += acked;  W_reno += acked
//!     otherwise:        W_reno += MSS²/W_reno
//!                       first ACK of an epoch: K = ⌊∛(2⁴⁰/(C·MSS) · (W_max − cwnd))⌋,
//!                       origin = W_max  (K = 0, origin = cwnd if cwnd ≥ W_max)
//!                       t = now + min_rtt − epoch;  Δ = ⌊C·|t − K|³·MSS / 2⁴⁰⌋
//!                       cwnd = max(W_reno, min(origin ± Δ, cwnd + acked/2))
//!   timeout: as a loss of its newest marked packet; then, if the marked packets span over
//!     3 · (srtt + max(4·rttvar, 1 ms) + 25 ms): cwnd = W_reno = W_max = 4·MSS
//!   lost packet sent at s > recovery_start:
//!     recovery_start = now; the epoch ends
//!     W_max = cwnd·(1 + β)/2 if fast convergence and cwnd < W_max, else cwnd
//!     cwnd = W_reno = ssthresh = max(β·cwnd, 4·MSS)
//! ```
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source (`cubic.c`) |
//! |---|---|---|---|---|
//! | `BETA` | 718/1024 ≈ 0.701 | — | multiplicative decrease | `CUBIC_BETA` / `CUBIC_BETA_SCALE` |
//! | `C` | 410/1024 ≈ 0.4 | MSS/(1024 ms)³ | curve's scale | `CUBIC_C` |
//! | `FAST_CONVERGENCE` | on | — | release bandwidth when W_max shrinks | `CUBIC_FAST_CONVERGENCE` |
//! | `MIN_WINDOW_PKTS` | 4 | MSS | smallest window | `CUBIC_MIN_WIN` |
//! | `CUBE_SCALE` | 40 | bits | fixed point of the curve (2⁴⁰ = 1024 · 1024³) | `CUBE_SCALE` |
//! | `K_LIMIT` | 10 000 | 1/1024 s | upper end of K's bisection | `CubicUpdate` (`r = 10000`) |
//! | `K_PRECISION` | 10⁻⁴ | 1/1024 s | width where K's bisection stops | `CubicUpdate` |
//! | `MAX_CWND_BYTES` | 10 MiB | B | most the sender may have in flight | `NGX_QUIC_MAX_CWND` (`ngx_event_quic_ack.c`) |
//! | `PERSISTENT_CONGESTION_FACTOR` | 3 | PTO periods | span of losses that resets the window | `NGX_QUIC_PERSISTENT_CONGESTION_THR` |
//! | `GRANULARITY_MS` | 1 | ms | least 4·rttvar in a PTO period | `NGX_QUIC_TIME_GRANULARITY` |
//! | max_ack_delay | 25 | ms | the client's, in a PTO period | QUICHE `kDefaultDelayedAckTimeMs` |
//! | clock tick | 1 | ms | every time stamp | `ngx_current_msec` |
//!
//! The initial window is the flow's `initial_cwnd` (the artifact's `CUBIC_INIT_WIN` is 32).
//!
//! # Deviations
//!
//! * A timeout's losses reach the algorithm when the timer fires, where the artifact learns of
//!   them from the first ACK after its probes; srtt and rttvar are the transport's (Linux's
//!   `srtt_us` and `mdev_us`), not QUIC's `avg_rtt` and `rttvar`.
//! * A new window applies at once; the artifact copies it to the sender's window
//!   (`cg->window`) at the end of each ACK frame, so a cut made by the loss timer waits for
//!   the next ACK.
//! * The first flight is the whole initial window; the artifact's is at most 14 720 B
//!   (`ngx_quic_congestion` before the first ACK frame copies CUBIC's window over it).
//! * The window the sender may fill is ⌈cwnd / MSS⌉ packets: QUIC sends while the bytes in
//!   flight are below cwnd.

use super::cubic::check_beta;
use super::{CcInit, CcMetrics, CongestionControl, Conn, Timeout};
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;
use crate::transport::receiver::QUICHE_MAX_ACK_DELAY;
use crate::units::Rate;
use serde::Deserialize;

/// β as `cubic.c` writes it: 718/1024.
pub const BETA: f64 = 718.0 / 1024.0; // cubic.c CUBIC_BETA
/// C as `cubic.c` writes it: 410/1024.
pub const C: f64 = 410.0 / 1024.0; // cubic.c CUBIC_C
/// Fast convergence on.
pub const FAST_CONVERGENCE: bool = true; // cubic.c CUBIC_FAST_CONVERGENCE
/// Smallest window, packets.
pub const MIN_WINDOW_PKTS: u64 = 4; // cubic.c CUBIC_MIN_WIN
/// The curve's fixed point, bits.
const CUBE_SCALE: u32 = 40; // cubic.c CUBE_SCALE
/// β and C are applied as k/1024.
const FIXED_POINT: f64 = 1024.0; // cubic.c CUBIC_BETA_SCALE
/// Upper end of the bisection for K, 1/1024 s.
const K_LIMIT: f64 = 10_000.0; // cubic.c CubicUpdate `r = 10000`
/// Width at which the bisection for K stops.
const K_PRECISION: f64 = 1e-4; // cubic.c CubicUpdate `r - l > 1e-4`
/// The window the sender may use, bytes.
const MAX_CWND_BYTES: u64 = 10 * 1024 * 1024; // ngx_event_quic_ack.c NGX_QUIC_MAX_CWND
/// Persistent congestion: lost packets spanning this many PTO periods.
const PERSISTENT_CONGESTION_FACTOR: u64 = 3; // NGX_QUIC_PERSISTENT_CONGESTION_THR
/// The least 4·rttvar in a PTO period, ms.
const GRANULARITY_MS: u64 = 1; // NGX_QUIC_TIME_GRANULARITY

/// K as `CubicUpdate` finds it: bisection on [0, 10 000] until narrower than 10⁻⁴, keeping
/// the lower end (so an exact cube gives one less), truncated.
fn cube_root(n: u64) -> u64 {
    let n = n as f64;
    let (mut lo, mut hi) = (0.0f64, K_LIMIT);
    while hi - lo > K_PRECISION {
        let mid = (lo + hi) / 2.0;
        if mid * mid * mid < n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo as u64
}

/// The artifact CUBIC's tunables; `Default` is `cubic.c`.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// Multiplicative decrease, applied as ⌊β·1024⌉/1024.
    pub beta: f64,
    /// The curve's scale in MSS per (1024 ms)³, applied as ⌊C·1024⌉/1024.
    pub c: f64,
    pub fast_convergence: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            beta: BETA,
            c: C,
            fast_convergence: FAST_CONVERGENCE,
        }
    }
}

impl Params {
    /// Range checks, naming the parameter.
    pub fn validate(&self) -> Result<(), String> {
        check_beta(self.beta)?;
        if !(self.c >= 1.0 / FIXED_POINT && self.c <= 1000.0) {
            return Err(format!(
                "c = {} is out of range: allowed 1/1024 ≤ c ≤ 1000",
                self.c
            ));
        }
        Ok(())
    }
}

/// The artifact's `Cubic` struct; windows in bytes, times in whole ms.
pub struct CubicQuic {
    mss: u64,
    beta_fixed: u64,
    c_fixed: u64,
    fast_convergence: bool,
    init_cwnd: u64,
    cwnd: u64,
    /// The Reno-equivalent window.
    tcp_cwnd: u64,
    last_max_cwnd: u64,
    /// `None` = the artifact's `CUBIC_MAX_SSTHRESH`.
    ssthresh: Option<u64>,
    origin: u64,
    k: u64,
    epoch_start_ms: Option<u64>,
    /// 0 until the first ACK, as the artifact's zeroed struct.
    min_rtt_ms: u64,
    /// `None` until the first reduction (the artifact's 0 precedes every send time).
    recovery_start_ms: Option<u64>,
}

impl CubicQuic {
    pub fn new(p: Params, init: CcInit) -> Self {
        let mss = init.mss as u64;
        let init_cwnd = init.initial_cwnd as u64 * mss;
        CubicQuic {
            mss,
            beta_fixed: (p.beta * FIXED_POINT).round() as u64,
            c_fixed: (p.c * FIXED_POINT).round() as u64,
            fast_convergence: p.fast_convergence,
            init_cwnd,
            cwnd: init_cwnd,
            tcp_cwnd: init_cwnd,
            last_max_cwnd: init_cwnd,
            ssthresh: None,
            origin: 0,
            k: 0,
            epoch_start_ms: None,
            min_rtt_ms: 0,
            recovery_start_ms: None,
        }
    }

    fn in_recovery(&self, sent_ms: u64) -> bool {
        self.recovery_start_ms.is_some_and(|r| sent_ms <= r)
    }

    fn in_slow_start(&self) -> bool {
        self.ssthresh.is_none_or(|s| self.cwnd < s)
    }

    /// `CubicUpdate`.
    fn update(&mut self, acked: u64, now_ms: u64) {
        let epoch = *self.epoch_start_ms.get_or_insert_with(|| {
            if self.cwnd >= self.last_max_cwnd {
                self.k = 0;
                self.origin = self.cwnd;
            } else {
                let cube_factor = (1u64 << CUBE_SCALE) / self.c_fixed / self.mss;
                self.k = cube_root(cube_factor.wrapping_mul(self.last_max_cwnd - self.cwnd));
                self.origin = self.last_max_cwnd;
            }
            now_ms
        });
        let t = (now_ms + self.min_rtt_ms).saturating_sub(epoch);
        let offs = t.abs_diff(self.k);
        // uint64_t as in cubic.c: the product wraps once |t − K| passes about 33 s
        let delta = self
            .c_fixed
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(offs)
            .wrapping_mul(self.mss)
            >> CUBE_SCALE;
        // and a Δ beyond the origin wraps, which the cap below then binds
        let target = if t < self.k {
            self.origin.wrapping_sub(delta)
        } else {
            self.origin.wrapping_add(delta)
        };
        let target = target.min(self.cwnd + acked / 2).max(self.tcp_cwnd);
        self.cwnd = if target == 0 { self.init_cwnd } else { target };
    }

    /// `CubicOnLost` for a packet sent at `sent_ms`.
    fn on_lost(&mut self, sent_ms: u64, now_ms: u64) {
        if self.in_recovery(sent_ms) {
            return;
        }
        self.recovery_start_ms = Some(now_ms);
        self.epoch_start_ms = None;
        self.last_max_cwnd = if self.fast_convergence && self.cwnd < self.last_max_cwnd {
            self.cwnd * (1024 + self.beta_fixed) / 2048
        } else {
            self.cwnd
        };
        self.cwnd = (self.cwnd * self.beta_fixed / 1024).max(MIN_WINDOW_PKTS * self.mss);
        self.tcp_cwnd = self.cwnd;
        self.ssthresh = Some(self.cwnd);
    }
}

impl CongestionControl for CubicQuic {
    /// `CubicOnAck`, which the artifact's stack calls for ACK frames with a valid rate sample
    /// (`valid_samples_only`), with the bytes they acknowledged and the send time of the
    /// sample's reference packet.
    fn on_ack(&mut self, now: Time, _conn: &Conn, rs: &RateSample) {
        let Some(sent) = rs.reference.prior_sent else {
            return;
        };
        let (now_ms, sent_ms) = (now.as_millis(), sent.as_millis());
        let rtt = now_ms.saturating_sub(sent_ms);
        if self.min_rtt_ms == 0 || rtt < self.min_rtt_ms {
            self.min_rtt_ms = rtt;
        }
        if self.in_recovery(sent_ms) {
            return;
        }
        let acked = rs.acked_sacked as u64 * self.mss;
        if self.in_slow_start() {
            self.tcp_cwnd += acked;
            self.cwnd += acked;
        } else {
            self.tcp_cwnd += self.mss * self.mss / self.tcp_cwnd;
            self.update(acked, now_ms);
        }
    }

    fn valid_samples_only(&self) -> bool {
        true
    }

    /// QUIC has no fast-recovery state: losses are answered in `on_loss_detected`.
    fn on_recovery_start(&mut self, _now: Time, _conn: &Conn) {}

    /// A timeout's losses as the artifact's ACK-driven detection later reports them: each lost
    /// packet (`CubicOnLost`), then persistent congestion (`CubicReset`) if two or more of them,
    /// with nothing acknowledged between, span more than 3 · (srtt + max(4·rttvar, 1 ms) +
    /// max_ack_delay) (`ngx_quic_persistent_congestion`). The PTO itself changes nothing.
    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        let now_ms = now.as_millis();
        if let Some(newest) = timeout.newest_lost_sent {
            self.on_lost(newest.as_millis(), now_ms);
        }
        let Some((oldest, newest)) = timeout.unbroken_loss_span else {
            return;
        };
        let srtt_ms = conn.srtt.map_or(0, Duration::as_millis);
        let deviation_ms = timeout.rtt_deviation4.as_millis().max(GRANULARITY_MS);
        let persistent_ms = PERSISTENT_CONGESTION_FACTOR
            * (srtt_ms + deviation_ms + QUICHE_MAX_ACK_DELAY.as_millis());
        if newest.as_millis() - oldest.as_millis() > persistent_ms {
            let min = MIN_WINDOW_PKTS * self.mss;
            self.epoch_start_ms = None;
            self.cwnd = min;
            self.tcp_cwnd = min;
            self.last_max_cwnd = min;
        }
    }

    fn on_loss_detected(&mut self, now: Time, _conn: &Conn, newest_sent: Time) {
        self.on_lost(newest_sent.as_millis(), now.as_millis());
    }

    /// The sender's window, `min(NGX_QUIC_MAX_CWND, cwnd)`.
    fn cwnd(&self) -> u32 {
        self.cwnd.min(MAX_CWND_BYTES).div_ceil(self.mss) as u32
    }

    fn pacing_rate(&self) -> Option<Rate> {
        None
    }

    fn state_name(&self) -> &'static str {
        if self.in_slow_start() {
            "SLOW_START"
        } else {
            "CONG_AVOID"
        }
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            ssthresh_pkts: self.ssthresh.map(|s| (s / self.mss) as u32),
            ..CcMetrics::default()
        }
    }
}

#[cfg(test)]
#[path = "cubic_quic_tests.rs"]
mod tests;
