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

impl Bbr {
    /// Linux `bbr_update_min_rtt`, including PROBE_RTT entry and exit.
    pub(super) fn update_min_rtt(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let window = Duration::from_millis(self.p.min_rtt_window_ms);
        let expired = now > self.min_rtt_stamp.saturating_add(window);
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || (expired && !rs.is_ack_delayed) {
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
            match self.probe_rtt_done_stamp {
                None if conn.inflight <= self.p.min_cwnd => {
                    // Maintain min packets in flight for max(200 ms, 1 round).
                    let hold = Duration::from_millis(self.p.probe_rtt_duration_ms);
                    self.probe_rtt_done_stamp = Some(now + hold);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = conn.delivered;
                }
                None => {}
                Some(_) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done {
                        self.check_probe_rtt_done(now, conn);
                    }
                }
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
        self.probe_rtt_done_stamp = None;
    }

    /// Linux `bbr_check_probe_rtt_done`: leave once the hold time has passed.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time, conn: &Conn) {
        let Some(done) = self.probe_rtt_done_stamp else {
            return;
        };
        if now <= done {
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
