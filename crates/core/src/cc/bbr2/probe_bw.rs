//! PROBE_BW: the DOWN → CRUISE → REFILL → UP cycle.
//!
//! ```text
//!   DOWN    pace 0.75 (v3: 0.906) until in_net ≤ inflight_with_headroom and ≤ inflight(max_bw, 1)
//!           → CRUISE (with drain_to_target off, also after min_rtt); may go straight to REFILL
//!   CRUISE  pace 1.0, cwnd ≤ inflight_hi − 15 %, reacting to loss only through bw_lo/inflight_lo
//!   DOWN|CRUISE → REFILL when  now − cycle_start > probe_wait (2 s + rand[0, 1 s))
//!                          or  rounds_since_probe ≥ min(63, reno_gain · target_inflight)
//!                              (rounds_since_probe starts at rand[0, 2) on entering DOWN)
//!   REFILL  pace 1.0 for one packet-timed round with the lower bounds forgotten → UP
//!   UP      pace 1.25, cwnd ≤ inflight_hi (+2), inflight_hi grows while cwnd-limited at it;
//!           → DOWN when: loss/ECN too high (bounds.rs); or the last probe was too high and
//!           in_net ≥ inflight_hi ("risky", re-probe right after its feedback ends);
//!           v2: ≥ min_rtt in UP and in_net ≥ inflight(max_bw, 1.25);
//!           v3: the full-bandwidth detector sees a plateau, unless inflight_hi is what limits
//! ```
//!
//! Each phase change starts a fresh packet-timed round (`next_rtt_delivered =
//! delivered`). The ACK phases track which ACKs carry feedback from a probe:
//! REFILLING → PROBE_STARTING (UP) → PROBE_FEEDBACK (one round later) →
//! PROBE_STOPPING (DOWN) → INIT one round after that, when the max-bw filter
//! advances to a new cycle and `bw_probe_samples` ends.

use super::{Bbr2, Phase, State};
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

/// How the incoming ACK stream relates to bandwidth probing (Linux `enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AckPhase {
    /// Not probing; not getting probe feedback.
    #[default]
    Init,
    /// Sending at the estimated bw to fill the pipe.
    Refilling,
    /// Inflight rising to probe bw.
    ProbeStarting,
    /// Getting feedback from bw probing.
    ProbeFeedback,
    /// Stopped probing; still getting feedback.
    ProbeStopping,
}

/// Bandwidth-probing state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    pub ack_phase: AckPhase,
    /// Rate samples reflect bandwidth probing (from a round into REFILL until the probe's feedback ends).
    pub bw_probe_samples: bool,
    /// The last UP went too high (loss/ECN).
    pub prev_probe_too_high: bool,
    /// The last UP stopped at inflight_hi because the one before was too high.
    pub stopped_risky_probe: bool,
    /// Rounds into UP's inflight_hi growth (growth 2^rounds per round).
    pub up_rounds: u32,
    /// Packets acked per +1 of inflight_hi; `None` = not growing.
    pub up_cnt: Option<u32>,
    /// Packets acked since the last inflight_hi increment.
    pub up_acks: u32,
    /// Packet-timed rounds since the last probe (saturates at 255).
    pub rounds_since_probe: u32,
    /// Wall-clock time DOWN/CRUISE wait before the next probe.
    pub wait: Duration,
}

impl Probe {
    /// The ACK-phase steps of `bbr2_adapt_upper_bounds`; true when a probe's
    /// feedback has just ended (PROBE_STOPPING → INIT).
    pub fn end_of_probe_feedback(&mut self, round_start: bool) -> bool {
        if !round_start {
            return false;
        }
        match self.ack_phase {
            AckPhase::ProbeStarting => {
                self.ack_phase = AckPhase::ProbeFeedback;
                false
            }
            AckPhase::ProbeStopping => {
                self.bw_probe_samples = false;
                self.ack_phase = AckPhase::Init;
                true
            }
            _ => false,
        }
    }
}

impl Bbr2 {
    /// Linux `bbr2_is_probing_bandwidth`: STARTUP, REFILL and UP push inflight up.
    pub(super) fn is_probing_bandwidth(&self) -> bool {
        matches!(
            self.state,
            State::Startup | State::ProbeBw(Phase::Refill | Phase::Up)
        )
    }

    /// Linux `bbr2_has_elapsed_in_phase`: more than `interval` since the phase began.
    fn has_elapsed_in_phase(&self, now: Time, interval: Option<Duration>) -> bool {
        interval.is_some_and(|i| now > self.cycle_stamp.saturating_add(i))
    }

    /// Linux `bbr2_update_cycle_phase` (after the pipe is first full).
    pub(super) fn update_cycle_phase(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        if !self.full_bw.reached {
            return;
        }
        // In DRAIN, PROBE_BW or PROBE_RTT, adjust the upper bounds.
        if self.adapt_upper_bounds(now, conn, rs) {
            return;
        }
        let State::ProbeBw(phase) = self.state else {
            return;
        };
        let inflight = if self.p.prior_inflight_raw {
            rs.prior_in_flight
        } else {
            self.in_net_at_edt(now, conn, rs.prior_in_flight)
        };
        let bw = self.max_bw();
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(now, conn);
            }
            Phase::Refill => {
                if self.round_start {
                    // One round of REFILL: samples now reflect the probe.
                    self.probe.bw_probe_samples = true;
                    self.start_probe_up(now, conn);
                }
            }
            Phase::Up => {
                if self.is_probe_up_done(now, conn, inflight, bw) {
                    self.probe.prev_probe_too_high = false; // "no loss/ECN (yet)"
                    self.start_probe_down(now, conn);
                }
            }
            Phase::Down => {
                if !self.check_time_to_probe_bw(now, conn)
                    && self.check_time_to_cruise(now, inflight, bw)
                {
                    self.start_cruise();
                }
            }
        }
    }

    /// The UP exits checked per ACK (loss and ECN end UP in bounds.rs).
    fn is_probe_up_done(&mut self, now: Time, conn: &Conn, inflight: u32, bw: f64) -> bool {
        let hi = self.b.inflight_hi;
        if self.probe.prev_probe_too_high && hi.is_some_and(|h| inflight >= h) {
            self.probe.stopped_risky_probe = true;
            return true;
        }
        if !self.p.full_bw_per_sample {
            // v2: "probed for at least 1*min_rtt_us, and ... inflight > 1.25 * estimated_bdp"
            return self.has_elapsed_in_phase(now, self.min_rtt)
                && inflight >= self.inflight(bw, self.p.bw_probe_pif_gain);
        }
        if conn.cwnd_fully_used && hi.is_some_and(|h| self.cwnd >= h) {
            // v3: "inflight_hi is limiting bw growth": restart the plateau detector.
            self.reset_full_bw();
            self.full_bw.bw = self.sample_bw;
            return false;
        }
        self.full_bw_now // "Plateau in estimated bw. Pipe looks full."
    }

    /// Linux `bbr2_check_time_to_probe_bw`: start REFILL when it is time to probe.
    fn check_time_to_probe_bw(&mut self, now: Time, conn: &Conn) -> bool {
        let p = &self.p;
        if p.ecn_reprobe_gain > 0.0
            && self.ecn.eligible
            && self.ecn.in_cycle
            && !self.sig.loss_in_cycle
            && conn.ca_state == crate::cc::CaState::Open
        {
            // Start inflight_hi growth at about ecn_reprobe_gain × inflight_hi.
            let hi = self.b.inflight_hi.unwrap_or(u32::MAX) as f64;
            let target = (hi * p.ecn_reprobe_gain).floor() as u64;
            self.start_refill(conn, target.max(1).ilog2());
            return true;
        }
        let wait = Some(self.probe.wait);
        if self.has_elapsed_in_phase(now, wait) || self.is_reno_coexistence_probe_time() {
            self.start_refill(conn, 0);
            return true;
        }
        false
    }

    /// Linux `bbr2_is_reno_coexistence_probe_time`: probe at least as often (in
    /// rounds) as a Reno flow with this BDP would fill the pipe.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let mut rounds = self.p.bw_probe_max_rounds;
        if self.p.bw_probe_reno_gain > 0.0 {
            let reno = (self.target_inflight() as f64 * self.p.bw_probe_reno_gain).floor();
            rounds = rounds.min(reno as u32);
        }
        self.probe.rounds_since_probe >= rounds
    }

    /// Linux `bbr2_check_time_to_cruise`: DOWN has drained to the headroom target and one BDP.
    fn check_time_to_cruise(&self, now: Time, inflight: u32, bw: f64) -> bool {
        if inflight > self.inflight_with_headroom() {
            return false; // "always need to pull inflight down to leave headroom in queue"
        }
        let is_under_bdp = inflight <= self.inflight(bw, 1.0);
        if self.p.drain_to_target {
            return is_under_bdp;
        }
        is_under_bdp || self.has_elapsed_in_phase(now, self.min_rtt)
    }

    /// Linux `bbr2_pick_probe_wait`: randomised rounds head start and wall-clock wait.
    pub(super) fn pick_probe_wait(&mut self) {
        let p = &self.p;
        self.probe.rounds_since_probe = match p.bw_probe_rand_rounds {
            0 => 0,
            n => self.rng.below(n as u64) as u32,
        };
        let rand_us = match p.bw_probe_rand_us {
            0 => 0,
            // the QUIC port's `ngx_random() % 1000` whole milliseconds
            n if p.millisecond_clock && n >= 1_000 => self.rng.below(n / 1_000) * 1_000,
            n => self.rng.below(n),
        };
        self.probe.wait = Duration::from_micros(p.bw_probe_base_us + rand_us);
    }

    /// Linux `bbr2_start_bw_probe_refill`: forget the lower bounds and refill the pipe for a round.
    pub(super) fn start_refill(&mut self, conn: &Conn, up_rounds: u32) {
        self.reset_lower_bounds();
        if let Some(hi) = self.b.inflight_hi.as_mut() {
            *hi = hi.saturating_add(self.p.refill_add_inc);
        }
        self.probe.up_rounds = up_rounds;
        self.probe.up_acks = 0;
        self.probe.stopped_risky_probe = false;
        self.probe.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = conn.delivered;
        self.transition_to(State::ProbeBw(Phase::Refill));
    }

    /// Linux `bbr2_start_bw_probe_up` (v3 also restarts the plateau detector at this sample).
    fn start_probe_up(&mut self, now: Time, conn: &Conn) {
        self.probe.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = conn.delivered;
        self.cycle_stamp = now;
        if self.p.full_bw_per_sample {
            self.reset_full_bw();
            self.full_bw.bw = self.sample_bw;
        }
        self.transition_to(State::ProbeBw(Phase::Up));
        self.raise_inflight_hi_slope();
    }

    /// Linux `bbr2_start_bw_probe_down`: a new cycle with a fresh, random probe wait.
    pub(super) fn start_probe_down(&mut self, now: Time, conn: &Conn) {
        self.reset_congestion_signals();
        self.probe.up_cnt = None; // "not growing inflight_hi any more"
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.probe.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = conn.delivered;
        self.transition_to(State::ProbeBw(Phase::Down));
    }

    /// Linux `bbr2_start_bw_probe_cruise`.
    pub(super) fn start_cruise(&mut self) {
        if let Some(lo) = self.b.inflight_lo {
            self.b.inflight_lo = Some(lo.min(self.b.inflight_hi.unwrap_or(u32::MAX)));
        }
        self.transition_to(State::ProbeBw(Phase::Cruise));
    }
}
