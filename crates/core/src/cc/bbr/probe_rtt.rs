//! min_rtt tracking and PROBE_RTT.
//!
//! `min_rtt` is the lowest RTT sample of the last `min_rtt_window` (10 s). When
//! it expires, BBR enters PROBE_RTT — on that very ACK, even though the ACK
//! also refreshed `min_rtt` with its own, possibly queue-inflated, sample —
//! caps cwnd at 4 packets, and keeps the connection marked app-limited so the
//! low delivery rate does not enter the bandwidth filter.
//!
//! ```text
//!   expired = now > min_rtt_stamp + 10 s                 (evaluated before this ACK's update)
//!   rtt ≤ min_rtt, or expired and not a delayed ACK  →  min_rtt = rtt, stamp = now
//!   PROBE_RTT done when:  inflight first ≤ 4 at t0 (a new round starts then),
//!                         now > t0 + 200 ms, and that round has ended
//!                         (`artifact_base`: t0 = entry, hold min(2·srtt, 200 ms))
//!   exit: min_rtt_stamp = now, cwnd = max(cwnd, prior_cwnd),
//!         PROBE_BW if the pipe was filled, else STARTUP
//! ```
//!
//! An idle restart (`on_tx_start`) suppresses entry until data is acked again,
//! and may end PROBE_RTT itself.

use super::{Bbr, State};
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

/// PROBE_RTT's hold, shared by every BBR version: it starts when inflight first
/// falls to the PROBE_RTT cwnd and lasts `probe_rtt_duration` and one
/// packet-timed round (Linux `probe_rtt_done_stamp`, `probe_rtt_round_done`).
#[derive(Debug, Default)]
pub(crate) struct ProbeRttHold {
    /// When the hold time ends; `None` until inflight has fallen far enough.
    pub(crate) done_stamp: Option<Time>,
    pub(crate) round_done: bool,
}

/// What one ACK in PROBE_RTT did to the hold.
pub(crate) enum HoldStep {
    /// Inflight is still above the PROBE_RTT cwnd, or the round has not ended.
    Waiting,
    /// The hold began on this ACK: the caller starts a new round.
    Started,
    /// The round that began with the hold has ended: leave once the time has passed.
    RoundEnded,
}

impl ProbeRttHold {
    /// Forget the previous hold (on entering PROBE_RTT).
    pub(crate) fn reset(&mut self) {
        self.done_stamp = None;
    }

    /// One ACK in PROBE_RTT with `inflight` packets out against the PROBE_RTT cwnd `target`.
    pub(crate) fn on_ack(
        &mut self,
        now: Time,
        inflight: u32,
        target: u32,
        hold: Duration,
        round_start: bool,
    ) -> HoldStep {
        match self.done_stamp {
            None if inflight <= target => {
                self.done_stamp = Some(now + hold);
                self.round_done = false;
                HoldStep::Started
            }
            None => HoldStep::Waiting,
            Some(_) => {
                self.round_done |= round_start;
                if self.round_done {
                    HoldStep::RoundEnded
                } else {
                    HoldStep::Waiting
                }
            }
        }
    }

    /// The hold time has passed: `now` after the done stamp (Linux), or at it too
    /// (`at_stamp`: the oBBR artifact's `sampler->now < stamp` test on its ms clock).
    pub(crate) fn elapsed(&self, now: Time, at_stamp: bool) -> bool {
        self.done_stamp
            .is_some_and(|done| now > done || (at_stamp && now == done))
    }
}

impl Bbr {
    /// Linux `bbr_update_min_rtt`, including PROBE_RTT entry and exit.
    pub(super) fn update_min_rtt(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let window = Duration::from_millis(self.p.min_rtt_window_ms);
        let expired = now > self.min_rtt_stamp.saturating_add(window);
        if let Some(rtt) = rs.rtt {
            // Linux skips a delayed ACK's inflated RTT on expiry; the artifact's QUIC BBR does not.
            let usable_on_expiry = !rs.is_ack_delayed || self.p.artifact_base;
            if self.min_rtt.is_none_or(|m| rtt <= m) || (expired && usable_on_expiry) {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }

        if self.p.probe_rtt_duration_ms > 0
            && expired
            && !self.idle_restart
            && self.state != State::ProbeRtt
        {
            self.enter_probe_rtt();
        }

        if self.state == State::ProbeRtt {
            // "Ignore low rate samples during this mode."
            self.app_limited_requested = true;
            // Maintain min packets in flight for max(200 ms, 1 round).
            let mut hold = Duration::from_millis(self.p.probe_rtt_duration_ms);
            if let Some(srtt) = conn.srtt.filter(|_| self.p.probe_rtt_srtt_cap > 0.0) {
                hold = hold.min(self.clock().span(srtt).mul_f64(self.p.probe_rtt_srtt_cap));
            }
            // The artifact starts the hold on the entering ACK, drained or not.
            let target = if self.p.probe_rtt_wait_for_drain {
                self.p.min_cwnd
            } else {
                u32::MAX
            };
            let step = self
                .probe_rtt
                .on_ack(now, conn.inflight, target, hold, self.round_start);
            match step {
                HoldStep::Started => self.next_rtt_delivered = conn.delivered,
                HoldStep::RoundEnded => self.check_probe_rtt_done(now, conn),
                HoldStep::Waiting => {}
            }
        }
        // Restart after idle ends only once a new (S)ACK delivers data.
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// Enters PROBE_RTT, remembering cwnd to restore on exit.
    fn enter_probe_rtt(&mut self) {
        self.transition_to(State::ProbeRtt);
        self.save_cwnd();
        self.probe_rtt.reset();
    }

    /// Linux `bbr_check_probe_rtt_done`: leave once the hold time has passed.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time, conn: &Conn) {
        if !self.probe_rtt.elapsed(now, self.p.artifact_base) {
            return;
        }
        self.min_rtt_stamp = now; // wait a while until the next PROBE_RTT
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        if self.full_bw.reached {
            self.enter_probe_bw(conn);
        } else {
            self.enter_startup();
        }
    }
}
