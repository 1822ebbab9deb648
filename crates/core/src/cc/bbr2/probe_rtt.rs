//! min_rtt tracking and PROBE_RTT (v2: every 5 s, at half a BDP).
//!
//! Two windows: `probe_rtt_min` is the lowest RTT of the last 5 s and times
//! PROBE_RTT; `min_rtt`, the model's, takes it whenever it is at least as low
//! or the 10 s window has expired.
//!
//! ```text
//!   expired5  = now > probe_rtt_min_stamp + 5 s                  (before this ACK's sample)
//!   rtt ≤ probe_rtt_min (v3: <), or expired5 and not a delayed ACK (the QUIC port: any ACK)
//!                                                                → probe_rtt_min = rtt, stamp = now
//!   probe_rtt_min ≤ min_rtt, or now > min_rtt_stamp + 10 s       → min_rtt = probe_rtt_min (and its stamp)
//!   expired5, not restarting from idle, not in PROBE_RTT         → PROBE_RTT
//!   PROBE_RTT: cwnd ≤ max(4, bdp(bw, 0.5)); connection marked app-limited on every ACK;
//!              once inflight ≤ that cwnd at t0 (a new round starts then):
//!              done when now > t0 + 200 ms and that round has ended
//!   exit:      probe_rtt_min_stamp = now, cwnd = max(cwnd, prior_cwnd), bw_lo = inflight_lo = ∞,
//!              PROBE_BW via DOWN straight into CRUISE if the pipe was filled, else STARTUP
//! ```

use super::probe_bw::AckPhase;
use super::{Bbr2, State};
use crate::cc::bbr::HoldStep;
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

/// Linux compares RTTs to `~0U` ("no sample"): an absent RTT is infinite.
fn at_most(a: Option<Duration>, b: Option<Duration>) -> bool {
    a.unwrap_or(Duration::MAX) <= b.unwrap_or(Duration::MAX)
}

impl Bbr2 {
    /// Linux `bbr_update_min_rtt` (v2), including PROBE_RTT entry and exit.
    pub(super) fn update_min_rtt(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let p = &self.p;
        let window = Duration::from_millis(p.probe_rtt_window_ms.min(p.min_rtt_window_ms));
        let probe_rtt_expired = now > self.probe_rtt_min_stamp.saturating_add(window);
        if let Some(rtt) = rs.rtt {
            let lower = match self.probe_rtt_min {
                None => true,
                Some(m) if p.v3_refinements => rtt < m,
                Some(m) => rtt <= m,
            };
            let usable_on_expiry = !rs.is_ack_delayed || p.delayed_ack_rtt_on_expiry;
            if lower || (probe_rtt_expired && usable_on_expiry) {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_window = Duration::from_millis(p.min_rtt_window_ms);
        let min_rtt_expired = now > self.min_rtt_stamp.saturating_add(min_rtt_window);
        if at_most(self.probe_rtt_min, self.min_rtt) || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }

        if self.p.probe_rtt_duration_ms > 0
            && probe_rtt_expired
            && !self.idle_restart
            && self.state != State::ProbeRtt
        {
            self.enter_probe_rtt(conn);
        }
        if self.state == State::ProbeRtt {
            // "Ignore low rate samples during this mode."
            self.app_limited_requested = true;
            // "Maintain min packets in flight for max(200 ms, 1 round)."
            let hold = Duration::from_millis(self.p.probe_rtt_duration_ms);
            let target = self.probe_rtt_cwnd();
            match self
                .probe_rtt
                .on_ack(now, conn.inflight, target, hold, self.round_start)
            {
                HoldStep::Started => self.next_rtt_delivered = conn.delivered,
                HoldStep::RoundEnded => self.check_probe_rtt_done(now, conn),
                HoldStep::Waiting => {}
            }
        }
        // "Restart after idle ends only once we process a new S/ACK for data."
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// Enters PROBE_RTT ("dip, drain queue"), remembering cwnd; the probe's feedback ends.
    /// Linux starts a new round here; the QUIC port lets the current one run on.
    fn enter_probe_rtt(&mut self, conn: &Conn) {
        self.transition_to(State::ProbeRtt);
        self.save_cwnd();
        self.probe_rtt.reset();
        self.probe.ack_phase = AckPhase::ProbeStopping;
        if self.p.probe_rtt_round_restart {
            self.next_rtt_delivered = conn.delivered;
        }
    }

    /// Linux `bbr_probe_rtt_cwnd`: `max(4, bdp(bw, probe_rtt_cwnd_gain))`, or 4 with gain 0.
    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        if self.p.probe_rtt_cwnd_gain == 0.0 {
            return self.p.min_cwnd;
        }
        self.bdp(self.bw(), self.p.probe_rtt_cwnd_gain)
            .max(self.p.min_cwnd)
    }

    /// Linux `bbr_check_probe_rtt_done`: leave once the hold time has passed.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time, conn: &Conn) {
        if !self.probe_rtt.elapsed(now, self.p.millisecond_clock) {
            return;
        }
        self.probe_rtt_min_stamp = now; // "schedule next PROBE_RTT"
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.exit_probe_rtt(now, conn);
    }

    /// Linux `bbr2_exit_probe_rtt`: back to probing in STARTUP or PROBE_BW.
    fn exit_probe_rtt(&mut self, now: Time, conn: &Conn) {
        self.reset_lower_bounds();
        if self.full_bw.reached {
            // "Raising inflight after PROBE_RTT may cause loss, so reset the PROBE_BW
            // clock ... Since we are exiting PROBE_RTT, we know inflight is below our
            // estimated BDP, so it is reasonable to cruise."
            self.start_probe_down(now, conn);
            self.start_cruise();
        } else {
            self.enter_startup();
        }
    }
}
