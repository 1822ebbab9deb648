//! CUBIC with HyStart, as Linux `net/ipv4/tcp_cubic.c` (recent upstream).
//!
//! # In a nutshell
//!
//! After a loss at window W_max, CUBIC sets ssthresh = β·cwnd and grows the
//! window along a cubic curve of real time since the reduction (the *epoch*),
//! concave up to W_max, flat around it, convex beyond it, independent of RTT.
//! A Reno-equivalent window that grows like AIMD(β) keeps it no slower than
//! Reno where the curve is too flat (small BDP). cwnd chases the curve's value
//! one `delay_min` ahead through the additive-increase counter: +1 packet per
//! `cnt` packets acked.
//!
//! ```text
//!   ssthresh()   W_max = cwnd·(1+β)/2 if cwnd < W_max and fast convergence, else cwnd
//!                ssthresh = max(⌊β·cwnd⌋, 2);  epoch ends
//!   epoch start  K = ∛((W_max − cwnd)/C)  (K = 0, origin = cwnd if cwnd ≥ W_max)
//!   target       W(t) = origin ± ⌊C·|t − K|³⌋,   t = now − epoch_start + delay_min
//!   cnt          cwnd / (W(t) − cwnd)  (100·cwnd if W(t) ≤ cwnd; ≤ 20 before any loss)
//!   Reno-eq.     W_est += 1 per ⌊15·cwnd/8⌋ acked  (15 = ⌊8(1+β)/(3(1−β))⌋)
//!                cnt = min(cnt, cwnd / (W_est − cwnd)) if W_est > cwnd;  cnt ≥ 2
//! ```
//!
//! HyStart (slow start only, cwnd ≥ 16, once per connection until an RTO)
//! leaves slow start by setting ssthresh = cwnd when either
//! * ACK train: ACKs ≤ 2 ms apart have spanned more than
//!   (delay_min + cushion)/2 since the round started, or
//! * delay: the round's minimum RTT over ≥ 8 samples exceeds
//!   delay_min + clamp(delay_min/8, 4 ms, 16 ms).
//!
//! # States
//!
//! ```text
//!                  HyStart fires, or cwnd reaches ssthresh
//!   SLOW_START ───────────────────────────────────────────▶ CONG_AVOID
//!       ▲                                                    │       ▲
//!       │                             loss: ssthresh(),      │       │ recovery ends:
//!       │                             the epoch ends         ▼       │ cwnd = ssthresh; the
//!       │                                                 RECOVERY ──┘ next growth ACK
//!       │ slow start from cwnd = inflight + 1               (PRR)      starts a new epoch
//!     LOSS ◀──── RTO from any state: CUBIC and HyStart state reset
//! ```
//!
//! # References
//!
//! * Linux `net/ipv4/tcp_cubic.c` (upstream v6.x: `bictcp_update` with the
//!   HZ/32 rate limit, HyStart with `hystart_ack_delay` and the halved
//!   ACK-train threshold for unpaced sockets).
//! * RFC 9438 (CUBIC) §4.2–4.7 for the model; Linux is followed where they differ.
//! * S. Ha, I. Rhee, "Taming the Elephants: New TCP Slow Start" (HyStart),
//!   NCSU tech. report 2008 (cited by tcp_cubic.c); Computer Networks 55(9), 2011.
//! * bloatlab spec `cca.md` §3.2.
//!
//! # Deviations
//!
//! * K uses `f64::cbrt` instead of the integer table + one Newton step
//!   (≈0.2 % error in Linux); the time since the epoch is continuous seconds
//!   instead of jiffies scaled to 2⁻¹⁰ s. The curve's offset ⌊C·|t−K|³⌋ is
//!   still truncated to whole packets and `cnt` uses integer division.
//! * Epoch, rate limit and HyStart guard are in nanoseconds, not jiffies: the
//!   recompute limit is HZ/32 = 31.25 ms exactly (Linux with HZ=1000: 31
//!   jiffies), "same jiffy" means the same instant, and `delay_min` is added
//!   to t unrounded (Linux rounds it up to a jiffy).
//! * HyStart timestamps and RTTs are in µs as Linux (`tcp_mstamp`).
//! * The ACK-train cushion uses the pacing rate Linux would hold
//!   (ratio · max(cwnd, inflight) · mss / srtt, with this ACK's srtt rather
//!   than the previous one's) and `sk_gso_max_size` = 64 KiB; the socket is
//!   unpaced (no fq), so the threshold is halved (spec §3.2 REF CHOICE).
//! * `pkts_acked` runs inside `on_ack`, after the transport has entered
//!   Recovery for this ACK; Linux runs it just before `tcp_fastretrans_alert`.
//! * `beta` and `c` are floats; with the defaults (717/1024, 410/1024, exact
//!   in binary) every product is bit-identical to Linux's integer math.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `BETA` | 717/1024 ≈ 0.7002 | — | multiplicative decrease | tcp_cubic.c `beta` |
//! | `C` | 410/1024 ≈ 0.4004 | packets/s³ | cubic scaling (`bic_scale` 41 × 10 / 1024) | tcp_cubic.c `bic_scale`, `cube_rtt_scale` |
//! | `FAST_CONVERGENCE` | on | — | release bandwidth when W_max shrinks | tcp_cubic.c |
//! | `TCP_FRIENDLINESS` | on | — | Reno-equivalent floor | tcp_cubic.c |
//! | `INITIAL_SSTHRESH` | 0 (infinite) | packets | only used with HyStart off | tcp_cubic.c |
//! | `HYSTART` | on | — | hybrid slow start | tcp_cubic.c |
//! | `HYSTART_DETECT` | both | — | ACK train and delay | tcp_cubic.c |
//! | `HYSTART_LOW_WINDOW` | 16 | packets | HyStart needs cwnd ≥ this | tcp_cubic.c |
//! | `HYSTART_ACK_DELTA_US` | 2000 | µs | max spacing of ACKs in a train | tcp_cubic.c |
//! | `HYSTART_MIN_SAMPLES` | 8 | RTT samples | samples before the delay test | tcp_cubic.c |
//! | `HYSTART_DELAY_MIN_US` | 4000 | µs | lower clamp of delay_min/8 | tcp_cubic.c |
//! | `HYSTART_DELAY_MAX_US` | 16000 | µs | upper clamp of delay_min/8 | tcp_cubic.c |
//! | `GSO_MAX_SIZE_BYTES` | 65536 | bytes | `sk_gso_max_size` in the ACK-train cushion | `GSO_LEGACY_MAX_SIZE` |
//! | `UPDATE_INTERVAL` | 31.25 | ms | min time between `cnt` recomputes at equal cwnd | tcp_cubic.c `HZ / 32` |
//! | `CNT_CAP_BEFORE_LOSS` | 20 | ACKs | cnt cap while W_max = 0 (≥ 5 %/RTT) | tcp_cubic.c |
//! | `MIN_CNT` | 2 | ACKs | cnt floor (≤ 1.5×/RTT) | tcp_cubic.c |
//! | `FLAT_CNT_FACTOR` | 100 | — | cnt = 100·cwnd when the target is reached | tcp_cubic.c |
//! | `HYSTART_GUARD` | 1 | s | RTT samples ignored after an epoch starts | tcp_cubic.c `HZ` |
//! | `ACK_DELAY_CAP_US` | 1000 | µs | cap of the ACK-train cushion | tcp_cubic.c `USEC_PER_MSEC` |
//! | `PACING_SS_RATIO` / `PACING_CA_RATIO` | 200 / 120 | % | Linux pacing rate factors | sysctl `tcp_pacing_{ss,ca}_ratio` |
//!
//! The first thirteen (Linux module parameters, HyStart `#define`s and the GSO
//! size) are overridable through [`Params`]; the rest are literals in Linux's
//! code and stay fixed here.

use super::window::{CaOps, LossBased, Window};
use super::{CcInit, CcMetrics, Conn};
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;
use serde::Deserialize;

/// Multiplicative decrease factor β.
// tcp_cubic.c: static int beta = 717;  /* = 717/1024 (BICTCP_BETA_SCALE) */
pub const BETA: f64 = 717.0 / 1024.0;
/// Cubic scaling constant C, packets/s³.
// tcp_cubic.c: bic_scale = 41; cube_rtt_scale = bic_scale * 10;  /* 1024*c/rtt */
pub const C: f64 = 410.0 / 1024.0;
/// Lower W_max further when a loss comes before the previous W_max was regained.
// tcp_cubic.c: static int fast_convergence = 1;
pub const FAST_CONVERGENCE: bool = true;
/// Never grow slower than the Reno-equivalent window.
// tcp_cubic.c: static int tcp_friendliness = 1;
pub const TCP_FRIENDLINESS: bool = true;
/// Initial ssthresh, packets; 0 = infinite. Linux applies it only with HyStart off.
// tcp_cubic.c: static int initial_ssthresh;  cubictcp_init: if (!hystart && initial_ssthresh)
pub const INITIAL_SSTHRESH: u32 = 0;
/// Hybrid slow start on.
// tcp_cubic.c: static int hystart = 1;
pub const HYSTART: bool = true;
/// Both HyStart detectors.
// tcp_cubic.c: hystart_detect = HYSTART_ACK_TRAIN | HYSTART_DELAY;
pub const HYSTART_DETECT: HystartDetect = HystartDetect::Both;
/// HyStart only acts from this cwnd (packets) up.
// tcp_cubic.c: static int hystart_low_window = 16;
pub const HYSTART_LOW_WINDOW: u32 = 16;
/// ACKs closer than this (µs) belong to one train.
// tcp_cubic.c: static int hystart_ack_delta_us = 2000;
pub const HYSTART_ACK_DELTA_US: u64 = 2000;
/// RTT samples per round before the delay test runs.
// tcp_cubic.c: #define HYSTART_MIN_SAMPLES 8
pub const HYSTART_MIN_SAMPLES: u32 = 8;
/// Lower clamp of the delay-increase threshold, µs.
// tcp_cubic.c: #define HYSTART_DELAY_MIN (4000U)
pub const HYSTART_DELAY_MIN_US: u64 = 4000;
/// Upper clamp of the delay-increase threshold, µs.
// tcp_cubic.c: #define HYSTART_DELAY_MAX (16000U)
pub const HYSTART_DELAY_MAX_US: u64 = 16000;
/// `sk_gso_max_size` used by the ACK-train cushion, bytes.
// include/linux/netdevice.h: #define GSO_LEGACY_MAX_SIZE 65536u (default dev gso_max_size)
pub const GSO_MAX_SIZE_BYTES: u64 = 65536;

/// `cnt` is recomputed at most this often while cwnd is unchanged.
// tcp_cubic.c bictcp_update: (s32)(tcp_jiffies32 - ca->last_time) <= HZ / 32
const UPDATE_INTERVAL: Duration = Duration::from_micros(31_250);
/// Before the first loss, grow at least 1 packet per 20 acked (5 %/RTT).
// tcp_cubic.c: if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20;
const CNT_CAP_BEFORE_LOSS: u32 = 20;
/// At most +1 packet per 2 acked (1.5× per RTT).
// tcp_cubic.c: ca->cnt = max(ca->cnt, 2U);
const MIN_CNT: u32 = 2;
/// "Very small increment" once the target is reached: cnt = 100·cwnd.
// tcp_cubic.c: ca->cnt = 100 * cwnd;
const FLAT_CNT_FACTOR: u32 = 100;
/// RTT samples within this long after an epoch started are ignored.
// tcp_cubic.c cubictcp_acked: (s32)(tcp_jiffies32 - ca->epoch_start) < HZ
const HYSTART_GUARD: Duration = Duration::from_secs(1);
/// Cap of the ACK-train cushion, µs.
// tcp_cubic.c hystart_ack_delay: min_t(u64, USEC_PER_MSEC, ...)
const ACK_DELAY_CAP_US: u64 = 1000;
/// Pacing-rate factors (percent) Linux applies in slow start / otherwise.
// sysctl tcp_pacing_ss_ratio = 200, tcp_pacing_ca_ratio = 120 (tcp_ipv4.c)
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// Which HyStart detectors run (`hystart_detect` bits 1 and 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HystartDetect {
    AckTrain,
    Delay,
    Both,
}

impl HystartDetect {
    fn ack_train(self) -> bool {
        matches!(self, HystartDetect::AckTrain | HystartDetect::Both)
    }
    fn delay(self) -> bool {
        matches!(self, HystartDetect::Delay | HystartDetect::Both)
    }
}

/// CUBIC's tunables; `Default` is Linux's module defaults.
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    pub beta: f64,
    /// Packets/s³.
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    /// Packets, 0 = infinite; ignored while `hystart` is on (as Linux).
    pub initial_ssthresh: u32,
    pub hystart: bool,
    pub hystart_detect: HystartDetect,
    pub hystart_low_window: u32,
    pub hystart_ack_delta_us: u64,
    pub hystart_min_samples: u32,
    pub hystart_delay_min_us: u64,
    pub hystart_delay_max_us: u64,
    pub gso_max_size_bytes: u64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            beta: BETA,
            c: C,
            fast_convergence: FAST_CONVERGENCE,
            tcp_friendliness: TCP_FRIENDLINESS,
            initial_ssthresh: INITIAL_SSTHRESH,
            hystart: HYSTART,
            hystart_detect: HYSTART_DETECT,
            hystart_low_window: HYSTART_LOW_WINDOW,
            hystart_ack_delta_us: HYSTART_ACK_DELTA_US,
            hystart_min_samples: HYSTART_MIN_SAMPLES,
            hystart_delay_min_us: HYSTART_DELAY_MIN_US,
            hystart_delay_max_us: HYSTART_DELAY_MAX_US,
            gso_max_size_bytes: GSO_MAX_SIZE_BYTES,
        }
    }
}

impl Params {
    /// Range checks, naming the parameter.
    pub fn validate(&self) -> Result<(), String> {
        check_beta(self.beta)?;
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(format!("c = {} is out of range: allowed c > 0", self.c));
        }
        // HyStart clamps its delay threshold between the two
        if self.hystart_delay_min_us > self.hystart_delay_max_us {
            return Err(format!(
                "hystart_delay_min_us = {} is above hystart_delay_max_us = {}: allowed min ≤ max",
                self.hystart_delay_min_us, self.hystart_delay_max_us
            ));
        }
        Ok(())
    }
}

/// β must leave a window: 0 < β < 1 (CUBIC's and the artifact CUBIC's check).
pub(crate) fn check_beta(beta: f64) -> Result<(), String> {
    if beta > 0.0 && beta < 1.0 {
        Ok(())
    } else {
        Err(format!(
            "beta = {beta} is out of range: allowed 0 < beta < 1"
        ))
    }
}

/// The cubic curve's per-connection state (Linux `struct bictcp` up to `unused`).
#[derive(Clone, Debug, Default)]
struct Epoch {
    /// Packets acked per +1 cwnd.
    cnt: u32,
    /// W_max, packets; 0 until the first reduction.
    last_max_cwnd: u32,
    /// cwnd and time of the last `cnt` recompute.
    last_cwnd: u32,
    last_time: Time,
    /// The curve's plateau (W_max, or cwnd if that is already above it).
    origin_point: u32,
    /// Seconds from epoch start to the plateau.
    k: f64,
    /// Minimum RTT seen, µs; 0 = none yet.
    delay_min_us: u64,
    /// Start of the current growth epoch; `None` after a reduction.
    epoch_start: Option<Time>,
    /// Packets acked since the Reno-equivalent window last grew.
    ack_cnt: u32,
    /// Reno-equivalent window, packets.
    tcp_cwnd: u32,
}

/// HyStart's per-round state (timestamps in µs, as `tcp_mstamp`).
#[derive(Clone, Debug, Default)]
struct Hystart {
    found: bool,
    round_start_us: u64,
    /// The round ends when `snd_una` passes this (`snd_nxt` at round start).
    end_seq: u64,
    last_ack_us: u64,
    /// Minimum RTT of the current round, µs.
    curr_rtt_us: u64,
    sample_cnt: u32,
}

impl Hystart {
    /// `bictcp_hystart_reset`.
    fn start_round(&mut self, now_us: u64, snd_nxt: u64) {
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt_us = u64::MAX;
        self.sample_cnt = 0;
    }
}

/// CUBIC's `tcp_congestion_ops` and per-connection state.
#[derive(Clone, Debug)]
pub struct Ops {
    p: Params,
    /// ⌊8(1+β)/(3(1−β))⌋: the Reno-equivalent window grows 1 per cwnd·beta_scale/8 acked.
    beta_scale: u32,
    ep: Epoch,
    hy: Hystart,
}

/// CUBIC congestion control.
pub type Cubic = LossBased<Ops>;

impl Cubic {
    pub fn new(params: Params, init: CcInit) -> Self {
        let beta = params.beta;
        let beta_scale = (8.0 * (1.0 + beta) / (3.0 * (1.0 - beta))).floor() as u32;
        let initial_ssthresh =
            (!params.hystart && params.initial_ssthresh != 0).then_some(params.initial_ssthresh);
        let ops = Ops {
            p: params,
            beta_scale,
            ep: Epoch::default(),
            hy: Hystart::default(),
        };
        let mut cc = LossBased::from_ops(ops, &init);
        if let Some(s) = initial_ssthresh {
            cc.window.ssthresh = s;
        }
        cc
    }
}

impl Ops {
    /// `bictcp_update`: recompute `cnt` from the cubic curve and the
    /// Reno-equivalent window.
    fn update(&mut self, now: Time, cwnd: u32, acked: u32) {
        let ep = &mut self.ep;
        ep.ack_cnt = ep.ack_cnt.saturating_add(acked);
        if ep.last_cwnd == cwnd && now.saturating_since(ep.last_time) <= UPDATE_INTERVAL {
            return;
        }
        // At most one curve evaluation per instant ("per jiffy" in Linux).
        if !(ep.epoch_start.is_some() && now == ep.last_time) {
            self.update_curve(now, cwnd, acked);
        }
        if self.p.tcp_friendliness {
            self.update_reno_equivalent(cwnd);
        }
        self.ep.cnt = self.ep.cnt.max(MIN_CNT);
    }

    fn update_curve(&mut self, now: Time, cwnd: u32, acked: u32) {
        let c = self.p.c;
        let ep = &mut self.ep;
        ep.last_cwnd = cwnd;
        ep.last_time = now;
        let epoch_start = match ep.epoch_start {
            Some(t) => t,
            None => {
                ep.epoch_start = Some(now);
                ep.ack_cnt = acked;
                ep.tcp_cwnd = cwnd;
                if ep.last_max_cwnd <= cwnd {
                    ep.k = 0.0;
                    ep.origin_point = cwnd;
                } else {
                    ep.k = ((ep.last_max_cwnd - cwnd) as f64 / c).cbrt();
                    ep.origin_point = ep.last_max_cwnd;
                }
                now
            }
        };
        // Evaluate the curve one delay_min ahead of now.
        let t = now.saturating_since(epoch_start).as_secs_f64() + ep.delay_min_us as f64 * 1e-6;
        let offs = (t - ep.k).abs();
        let delta = (c * offs * offs * offs).min(u32::MAX as f64) as u32;
        let target = if t < ep.k {
            ep.origin_point.saturating_sub(delta)
        } else {
            ep.origin_point.saturating_add(delta)
        };
        ep.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            FLAT_CNT_FACTOR.saturating_mul(cwnd)
        };
        if ep.last_max_cwnd == 0 {
            ep.cnt = ep.cnt.min(CNT_CAP_BEFORE_LOSS);
        }
    }

    /// TCP friendliness: grow `tcp_cwnd` by 1 per ⌊cwnd·beta_scale/8⌋ acked and
    /// make cwnd at least as fast.
    fn update_reno_equivalent(&mut self, cwnd: u32) {
        let ep = &mut self.ep;
        let delta = cwnd.saturating_mul(self.beta_scale) >> 3;
        if delta > 0 && ep.ack_cnt > delta {
            // Linux: while (ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }
            let n = (ep.ack_cnt - 1) / delta;
            ep.ack_cnt -= n * delta;
            ep.tcp_cwnd = ep.tcp_cwnd.saturating_add(n);
        }
        if ep.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (ep.tcp_cwnd - cwnd);
            ep.cnt = ep.cnt.min(max_cnt);
        }
    }

    /// `hystart_update` for one RTT sample `delay_us`.
    fn hystart_update(&mut self, now: Time, conn: &Conn, w: &mut Window, delay_us: u64) {
        let now_us = now.as_nanos() / 1000;
        let (p, hy, delay_min) = (&self.p, &mut self.hy, self.ep.delay_min_us);
        // `cubictcp_acked` calls `hystart_update`, where rounds restart, only from
        // `hystart_low_window` on.
        if w.cwnd < p.hystart_low_window {
            return;
        }
        if conn.snd_una > hy.end_seq {
            hy.start_round(now_us, conn.snd_nxt);
        }
        if p.hystart_detect.ack_train()
            && now_us.saturating_sub(hy.last_ack_us) <= p.hystart_ack_delta_us
        {
            hy.last_ack_us = now_us;
            // Unpaced socket (no fq): trigger at half the minimum RTT.
            let threshold = (delay_min + hystart_ack_delay_us(conn, w, p.gso_max_size_bytes)) >> 1;
            if now_us.saturating_sub(hy.round_start_us) > threshold {
                hy.found = true;
                w.ssthresh = w.cwnd;
            }
        }
        if p.hystart_detect.delay() {
            hy.curr_rtt_us = hy.curr_rtt_us.min(delay_us);
            if hy.sample_cnt < p.hystart_min_samples {
                hy.sample_cnt += 1;
            } else {
                let margin = (delay_min >> 3).clamp(p.hystart_delay_min_us, p.hystart_delay_max_us);
                if hy.curr_rtt_us > delay_min + margin {
                    hy.found = true;
                    w.ssthresh = w.cwnd;
                }
            }
        }
    }
}

/// `hystart_ack_delay`, µs: time for four GSO bursts at the pacing rate Linux
/// keeps even for an unpaced socket (`tcp_update_pacing_rate`), capped at 1 ms.
fn hystart_ack_delay_us(conn: &Conn, w: &Window, gso_max_size_bytes: u64) -> u64 {
    let Some(srtt) = conn.srtt else { return 0 };
    let ratio = if w.cwnd < w.ssthresh / 2 {
        PACING_SS_RATIO
    } else {
        PACING_CA_RATIO
    };
    // bytes/s = mss · (ratio/100) · max(cwnd, inflight) / srtt
    let rate = conn.mss as u64 * 10_000 * ratio * w.cwnd.max(conn.inflight) as u64
        / srtt.as_micros().max(1);
    if rate == 0 {
        return 0;
    }
    (gso_max_size_bytes * 4 * 1_000_000 / rate).min(ACK_DELAY_CAP_US)
}

impl CaOps for Ops {
    /// `cubictcp_recalc_ssthresh`.
    fn ssthresh(&mut self, w: &Window) -> u32 {
        let cwnd = w.cwnd;
        let ep = &mut self.ep;
        ep.epoch_start = None;
        ep.last_max_cwnd = if cwnd < ep.last_max_cwnd && self.p.fast_convergence {
            (cwnd as f64 * (1.0 + self.p.beta) / 2.0) as u32
        } else {
            cwnd
        };
        ((cwnd as f64 * self.p.beta) as u32).max(2)
    }

    /// The growth half of `cubictcp_cong_avoid`.
    fn increase(&mut self, now: Time, w: &mut Window, acked: u32) {
        self.update(now, w.cwnd, acked);
        w.cong_avoid_ai(self.ep.cnt, acked);
    }

    /// `cubictcp_acked`: track delay_min and run HyStart.
    fn on_pkts_acked(&mut self, now: Time, conn: &Conn, rs: &RateSample, w: &mut Window) {
        let Some(rtt) = rs.rtt else { return };
        // Discard delay samples right after a reduction.
        if self
            .ep
            .epoch_start
            .is_some_and(|e| now.saturating_since(e) < HYSTART_GUARD)
        {
            return;
        }
        let delay_us = rtt.as_micros().max(1);
        if self.ep.delay_min_us == 0 || self.ep.delay_min_us > delay_us {
            self.ep.delay_min_us = delay_us;
        }
        if self.p.hystart && !self.hy.found && w.in_slow_start() {
            self.hystart_update(now, conn, w, delay_us);
        }
    }

    /// `cubictcp_state(TCP_CA_Loss)`: restart CUBIC and HyStart from scratch.
    fn on_enter_loss(&mut self, now: Time, conn: &Conn) {
        self.ep = Epoch::default();
        self.hy.found = false;
        self.hy.start_round(now.as_nanos() / 1000, conn.snd_nxt);
    }

    /// `cubictcp_cwnd_event(CA_EVENT_TX_START)`: shift the epoch by the idle
    /// time so the curve resumes where it left off.
    fn on_tx_start(&mut self, now: Time, conn: &Conn) {
        let idle = now.saturating_since(conn.last_send);
        if let Some(start) = self.ep.epoch_start.as_mut() {
            if !idle.is_zero() {
                *start = (*start + idle).min(now);
            }
        }
    }

    fn fill_metrics(&self, m: &mut CcMetrics) {
        m.min_rtt = (self.ep.delay_min_us > 0).then(|| Duration::from_micros(self.ep.delay_min_us));
    }
}

#[cfg(test)]
#[path = "cubic_tests.rs"]
mod tests;
