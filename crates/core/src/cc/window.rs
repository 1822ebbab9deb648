//! The loss-based window machinery Reno and CUBIC share: the parts of Linux
//! `tcp_cong.c` and `tcp_input.c` that every classic (`cong_avoid`-style)
//! algorithm gets from the kernel rather than writing itself.
//!
//! # In a nutshell
//!
//! The window is counted in packets. An algorithm supplies two things, through
//! [`CaOps`]: its `ssthresh()` (the window to reduce to after a congestion
//! signal) and its congestion-avoidance growth. Everything else lives here:
//!
//! ```text
//! grow (Open/Disorder/Loss, only if cwnd-limited and the ACK advanced snd_una):
//!   slow start   cwnd < ssthresh:  cwnd' = min(cwnd + acked, ssthresh)
//!                                  acked' = acked − (cwnd' − cwnd)   → congestion avoidance
//!   AI(w)        if cnt ≥ w: cnt = 0, cwnd += 1        (credit earned at a larger w)
//!                cnt += acked; cwnd += ⌊cnt / w⌋; cnt = cnt mod w
//! reduce (Recovery/CWR, PRR, per ACK that delivered something):
//!   prr_delivered += acked_sacked;  delta = ssthresh − inflight
//!   delta < 0:  sndcnt = ⌈ssthresh · prr_delivered / prior_cwnd⌉ − prr_out
//!   otherwise:  sndcnt = min(delta, max(prr_delivered − prr_out, acked_sacked)
//!                                   + [snd_una advanced ∧ no new loss])
//!   sndcnt = max(sndcnt, prr_out == 0 ? 1 : 0);  cwnd = inflight + sndcnt
//! end of reduction:   cwnd = ssthresh
//! RTO:                ssthresh = ssthresh() (new episode only), cwnd = inflight + 1
//! idle > RTO:         ssthresh = max(ssthresh, ¾ cwnd); cwnd halves per RTO idle, ≥ min(IW, cwnd)
//! app-limited an RTO: ssthresh = max(ssthresh, ¾ cwnd); cwnd = (cwnd + used) / 2 if used < cwnd
//! ```
//!
//! # States
//!
//! The transport owns Linux's CA state machine; the window only watches
//! `conn.ca_state` on every call and reacts to the edges.
//!
//! ```text
//!              on_recovery_start                      ACK seen with ca_state < Cwr
//!   ┌──────┐  (prior_cwnd = cwnd,       ┌────────┐   (cwnd = ssthresh, then grow
//!   │ GROW │── ssthresh = ssthresh()) ─▶│ REDUCE │── on that same ACK) ─────────▶ GROW
//!   └──────┘                            │ (PRR)  │
//!      │ ▲                              └────────┘
//!      │ │ ACKs advance snd_una              │
//!      │ │ (slow start from cwnd ≈ 1)        │ on_rto
//!      │ │                                   ▼
//!      └─┴────────── on_rto ──────────▶ LOSS (cwnd = inflight + 1)
//! ```
//!
//! # References
//!
//! * Linux `net/ipv4/tcp_cong.c`: `tcp_slow_start`, `tcp_cong_avoid_ai`.
//! * Linux `net/ipv4/tcp_input.c`: `tcp_cong_control`, `tcp_may_raise_cwnd`,
//!   `tcp_init_cwnd_reduction`, `tcp_cwnd_reduction`, `tcp_end_cwnd_reduction`,
//!   `tcp_enter_loss`; `tcp_output.c` for `prr_out`.
//! * RFC 6937 (PRR), RFC 5681 (slow start, congestion avoidance).
//! * bloatlab spec `cca.md` §3.1, §3.3.
//!
//! # Deviations
//!
//! * Reduction end is detected lazily: the first ACK that arrives with
//!   `ca_state` below Cwr ends it (`cwnd = ssthresh`) before growing, which is
//!   the order Linux runs `tcp_end_cwnd_reduction` and `tcp_cong_control` in.
//!   A CWR reduction that Recovery takes over is kept, as `tcp_enter_recovery`
//!   does; whether the CWR had ended on that same ACK is decided with Linux's
//!   CWR exit rule (`snd_una > high_seq`).
//! * `tcp_may_raise_cwnd` is taken as "this ACK advanced `snd_una`"
//!   (`FLAG_DATA_ACKED`). Linux also grows on SACK-only ACKs once the
//!   connection's reordering degree exceeds `sysctl_tcp_reordering`; `Conn`
//!   does not expose that degree.
//! * No undo (`undo_cwnd`, `prior_ssthresh`): the trait has no spurious-loss hook.
//! * `snd_cwnd_clamp` is unlimited (Linux's default), and a PRR result that
//!   would leave cwnd ≤ 0 (Linux warns and stores it) is floored at 1.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `INFINITE_SSTHRESH` | 0x7fff_ffff | packets | ssthresh before the first congestion signal | `TCP_INFINITE_SSTHRESH`, include/net/tcp.h |

use super::{
    CaState, CcInit, CcMetrics, CongestionControl, Conn, SentPacket, Timeout, WindowValidation,
};
use crate::time::Time;
use crate::transport::rate_sample::RateSample;
use crate::units::Rate;

/// Slow-start threshold before any congestion signal ("infinite").
// include/net/tcp.h: #define TCP_INFINITE_SSTHRESH 0x7fffffff
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// What a loss-based algorithm supplies (its slice of Linux `tcp_congestion_ops`).
pub trait CaOps {
    /// `ssthresh()`: the window to reduce to. Called once per congestion
    /// episode, while `w.cwnd` is still the window before the reduction.
    fn ssthresh(&mut self, w: &Window) -> u32;

    /// Congestion-avoidance growth for the `acked` packets left over after
    /// slow start (the part of `cong_avoid` after `tcp_slow_start`).
    fn increase(&mut self, now: Time, w: &mut Window, acked: u32);

    /// `pkts_acked`: every ACK, before the window reacts (CUBIC's HyStart).
    fn on_pkts_acked(&mut self, _now: Time, _conn: &Conn, _rs: &RateSample, _w: &mut Window) {}

    /// `set_state(TCP_CA_Loss)`, right after `ssthresh()` on a timeout.
    fn on_enter_loss(&mut self, _now: Time, _conn: &Conn) {}

    /// `cwnd_event(CA_EVENT_TX_START)`.
    fn on_tx_start(&mut self, _now: Time, _conn: &Conn) {}

    /// Adds the algorithm's own telemetry.
    fn fill_metrics(&self, _m: &mut CcMetrics) {}
}

/// PRR bookkeeping of one cwnd reduction (RFC 6937 names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Prr {
    /// Packets delivered (acked or sacked) since the reduction started.
    delivered: u32,
    /// Packets sent since the reduction started.
    out: u32,
    /// `snd_nxt` when the reduction started (Linux `high_seq`).
    high_seq: u64,
    /// Cwr or Recovery.
    kind: CaState,
}

/// cwnd, ssthresh and the counters Linux keeps next to them in `tcp_sock`.
#[derive(Clone, Debug)]
pub struct Window {
    /// Congestion window, packets (`snd_cwnd`).
    pub(super) cwnd: u32,
    /// Slow-start threshold, packets (`snd_ssthresh`).
    pub(super) ssthresh: u32,
    /// cwnd when the current (or last) reduction started.
    pub(super) prior_cwnd: u32,
    /// Additive-increase credit, packets acked since the last +1 (`snd_cwnd_cnt`).
    pub(super) cwnd_cnt: u32,
    prr: Option<Prr>,
    /// CA state seen on the most recent call.
    ca_state: CaState,
    /// Initial window (`tcp_init_cwnd`), the floor of a restart after idle.
    initial_cwnd: u32,
}

impl Window {
    pub(super) fn new(initial_cwnd: u32) -> Self {
        Window {
            cwnd: initial_cwnd,
            ssthresh: INFINITE_SSTHRESH,
            prior_cwnd: 0,
            cwnd_cnt: 0,
            prr: None,
            ca_state: CaState::Open,
            initial_cwnd,
        }
    }

    /// `tcp_current_ssthresh`: outside a reduction, at least ¾ of cwnd.
    fn current_ssthresh(&self) -> u32 {
        if self.prr.is_some() {
            self.ssthresh
        } else {
            self.ssthresh.max((self.cwnd >> 1) + (self.cwnd >> 2))
        }
    }

    /// RFC 2861 as Linux applies it (`tcp_cwnd_restart`, `tcp_cwnd_application_limited`).
    fn validate(&mut self, event: WindowValidation) {
        match event {
            WindowValidation::RestartAfterIdle { idle, rto } => {
                self.ssthresh = self.current_ssthresh();
                let restart = self.initial_cwnd.min(self.cwnd);
                let mut cwnd = self.cwnd;
                let mut left = idle.as_nanos() as i128;
                loop {
                    left -= rto.as_nanos().max(1) as i128;
                    if left <= 0 || cwnd <= restart {
                        break;
                    }
                    cwnd >>= 1;
                }
                self.cwnd = cwnd.max(restart);
            }
            WindowValidation::ApplicationLimited { used } => {
                if used < self.cwnd {
                    self.ssthresh = self.current_ssthresh();
                    self.cwnd = (self.cwnd + used) >> 1;
                }
            }
        }
    }

    /// `tcp_in_slow_start`.
    pub(super) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// `tcp_slow_start`: grows cwnd by `acked` up to ssthresh and returns the
    /// acked packets left over for congestion avoidance.
    pub(super) fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = cwnd - self.cwnd;
        self.cwnd = cwnd;
        acked - used
    }

    /// `tcp_cong_avoid_ai`: +1 packet per `w` packets acked, with the credit
    /// counter carried across ACKs.
    pub(super) fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        debug_assert!(w > 0, "additive increase needs w ≥ 1");
        let w = w.max(1);
        // Credit accumulated while w was larger: apply it gently, one packet.
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd = self.cwnd.saturating_add(1);
        }
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd = self.cwnd.saturating_add(delta);
        }
    }

    /// `tcp_init_cwnd_reduction` with the algorithm's new `ssthresh`
    /// (computed by the caller while cwnd is still the old window).
    fn start_reduction(&mut self, conn: &Conn, ssthresh: u32) {
        self.cwnd_cnt = 0;
        self.prior_cwnd = self.cwnd;
        self.ssthresh = ssthresh;
        self.prr = Some(Prr {
            delivered: 0,
            out: 0,
            high_seq: conn.snd_nxt,
            kind: conn.ca_state,
        });
    }

    /// Whether a reduction we still hold goes on through this Recovery entry:
    /// only a CWR that has not yet met its exit rule (`snd_una > high_seq`).
    fn keeps_reduction(&self, conn: &Conn) -> bool {
        self.prr
            .is_some_and(|p| p.kind == CaState::Cwr && conn.snd_una <= p.high_seq)
    }

    /// Recovery continues a running CWR reduction instead of starting anew.
    fn take_over_reduction(&mut self, kind: CaState) {
        if let Some(p) = self.prr.as_mut() {
            p.kind = kind;
        }
    }

    /// `tcp_cwnd_reduction`: one ACK's worth of PRR.
    fn cwnd_reduction(&mut self, conn: &Conn, rs: &RateSample) {
        let Some(prr) = self.prr.as_mut() else {
            debug_assert!(false, "Recovery/CWR without on_recovery_start");
            return;
        };
        if rs.acked_sacked == 0 || self.prior_cwnd == 0 {
            return;
        }
        prr.delivered += rs.acked_sacked;
        let (delivered, out) = (prr.delivered as i64, prr.out as i64);
        let ssthresh = self.ssthresh as i64;
        let inflight = conn.inflight as i64;
        let delta = ssthresh - inflight;
        let mut sndcnt = if delta < 0 {
            // Proportional part: spread the reduction over about one RTT.
            let prior = self.prior_cwnd as i64;
            (ssthresh * delivered + prior - 1) / prior - out
        } else {
            // Packet conservation, plus slow start towards ssthresh when the
            // ACK made progress without revealing new losses.
            let mut n = (delivered - out).max(rs.acked_sacked as i64);
            if conn.snd_una_advanced && rs.losses == 0 {
                n += 1;
            }
            delta.min(n)
        };
        // Always allow the fast retransmit on entering the reduction.
        sndcnt = sndcnt.max(if out == 0 { 1 } else { 0 });
        self.cwnd = (inflight + sndcnt).clamp(1, u32::MAX as i64) as u32;
    }

    /// `tcp_end_cwnd_reduction`: the reduction completed (not undone).
    fn end_reduction(&mut self) {
        if self.prr.take().is_some() && self.ssthresh < INFINITE_SSTHRESH {
            self.cwnd = self.ssthresh;
        }
    }

    /// The cwnd part of `tcp_enter_loss`.
    fn enter_loss(&mut self, inflight: u32) {
        self.cwnd = inflight.saturating_add(1);
        self.cwnd_cnt = 0;
        self.prr = None;
        self.ca_state = CaState::Loss;
    }
}

/// A loss-based congestion control: the shared [`Window`] driven by one
/// algorithm's [`CaOps`]. `reno::Reno` and `cubic::Cubic` are instances.
#[derive(Clone, Debug)]
pub struct LossBased<O> {
    pub(super) window: Window,
    pub(super) ops: O,
}

impl<O: CaOps> LossBased<O> {
    pub(super) fn from_ops(ops: O, init: &CcInit) -> Self {
        LossBased {
            window: Window::new(init.initial_cwnd),
            ops,
        }
    }

    /// `tcp_cong_avoid` → the algorithm's `cong_avoid`, slow start included.
    fn cong_avoid(&mut self, now: Time, conn: &Conn, acked: u32) {
        if !conn.is_cwnd_limited {
            return;
        }
        let mut acked = acked;
        if self.window.in_slow_start() {
            acked = self.window.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        self.ops.increase(now, &mut self.window, acked);
    }
}

impl<O: CaOps> CongestionControl for LossBased<O> {
    /// `tcp_cong_control` for an algorithm without `cong_control`, preceded by
    /// `pkts_acked` and the end of a finished reduction.
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        self.ops.on_pkts_acked(now, conn, rs, &mut self.window);
        if self.window.prr.is_some() && conn.ca_state < CaState::Cwr {
            self.window.end_reduction();
        }
        if matches!(conn.ca_state, CaState::Cwr | CaState::Recovery) {
            self.window.cwnd_reduction(conn, rs);
        } else if conn.snd_una_advanced {
            self.cong_avoid(now, conn, rs.acked_sacked);
        }
        self.window.ca_state = conn.ca_state;
    }

    /// `tcp_enter_recovery` (or `tcp_enter_cwr` when `conn.ca_state` is Cwr).
    fn on_recovery_start(&mut self, _now: Time, conn: &Conn) {
        if self.window.keeps_reduction(conn) {
            self.window.take_over_reduction(conn.ca_state);
        } else {
            // A reduction that ended on this same ACK completes first.
            self.window.end_reduction();
            let ssthresh = self.ops.ssthresh(&self.window);
            self.window.start_reduction(conn, ssthresh);
        }
        self.window.ca_state = conn.ca_state;
    }

    /// `tcp_enter_loss`: new ssthresh only for a new episode, then
    /// cwnd = inflight + 1 and `set_state(Loss)`.
    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        if timeout.new_episode {
            self.window.prior_cwnd = self.window.cwnd;
            self.window.ssthresh = self.ops.ssthresh(&self.window);
        }
        self.window.enter_loss(conn.inflight);
        self.ops.on_enter_loss(now, conn);
    }

    /// PRR's `prr_out`: everything sent while in Recovery or CWR.
    fn on_packet_sent(&mut self, _now: Time, conn: &Conn, _sent: &SentPacket) {
        if let Some(prr) = self.window.prr.as_mut() {
            if matches!(conn.ca_state, CaState::Cwr | CaState::Recovery) {
                prr.out += 1;
            }
        }
    }

    fn on_tx_start(&mut self, now: Time, conn: &Conn) {
        self.ops.on_tx_start(now, conn);
    }

    fn on_window_validation(&mut self, _now: Time, _conn: &Conn, event: WindowValidation) {
        self.window.validate(event);
    }

    fn cwnd(&self) -> u32 {
        self.window.cwnd
    }

    /// Unpaced, as Linux CUBIC/Reno without the fq qdisc.
    fn pacing_rate(&self) -> Option<Rate> {
        None
    }

    fn state_name(&self) -> &'static str {
        match self.window.ca_state {
            CaState::Loss => "LOSS",
            CaState::Cwr | CaState::Recovery => "RECOVERY",
            _ if self.window.in_slow_start() => "SLOW_START",
            _ => "CONG_AVOID",
        }
    }

    fn metrics(&self) -> CcMetrics {
        let mut m = CcMetrics {
            ssthresh_pkts: (self.window.ssthresh < INFINITE_SSTHRESH)
                .then_some(self.window.ssthresh),
            ..CcMetrics::default()
        };
        self.ops.fill_metrics(&mut m);
        m
    }
}

#[cfg(test)]
#[path = "window_tests.rs"]
mod tests;
