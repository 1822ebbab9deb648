//! The bounds on BBRv2's model and the congestion signals that move them.
//!
//! ```text
//!   upper, long-term:  max_bw = max(bw_hi[0], bw_hi[1])      max sample of this and the last cycle
//!                      inflight_hi                           ∞ until a probe (or STARTUP) sees too much loss
//!   lower, short-term: bw_lo, inflight_lo                    ∞ except between a lossy round and the next probe
//!
//!   inflight_too_high(rs) = rs.lost > loss_thresh · rs.tx_in_flight
//!                        or (ECN) rs.delivered_ce ≥ ecn_thresh · rs.delivered
//!   while probing, too high  → inflight_hi = max(rs.tx_in_flight, (1 − β) · target_inflight),
//!                              once per probe; UP → DOWN
//!   otherwise                → inflight_hi = max(inflight_hi, rs.tx_in_flight); in UP it also grows
//!                              by 1 per bw_probe_up_cnt acked while cwnd-limited at inflight_hi,
//!                              with bw_probe_up_cnt = cwnd / 2^k in the k-th round (1, 2, 4, ... per round)
//!   each loss round, if not probing and it saw loss:
//!        bw_lo       = max(bw_latest,       (1 − β) · bw_lo)          (bw_lo starts from max_bw)
//!        inflight_lo = max(inflight_latest, (1 − β) · inflight_lo)    (inflight_lo starts from cwnd)
//!   cwnd cap = inflight_hi (DOWN, REFILL, UP) | inflight_hi − headroom (CRUISE, PROBE_RTT);
//!              min with inflight_lo; at least 4
//! ```
//!
//! A "loss round" is its own packet-timed round: the first loss marked in a
//! round restarts it (`loss_round_delivered = delivered`), so the once-per-round
//! reaction comes one round after the first loss, with `bw_latest` and
//! `inflight_latest` (the round's highest delivery rate and volume) as the
//! floor of the cut.

use super::{Bbr2, Phase, State};
use crate::cc::bbr::BwFilter;
use crate::cc::Conn;
use crate::time::Time;
use crate::transport::rate_sample::RateSample;
use crate::transport::rate_sample::TxSnapshot;

/// BBRv2's max-bw filter, `bw_hi[2]`: the max sample of the current and the
/// previous PROBE_BW bandwidth-probe cycle. App-limited samples count only if
/// they are at least the current max.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CycleMaxBwFilter {
    bw_hi: [f64; 2],
}

impl BwFilter for CycleMaxBwFilter {
    /// Linux `bbr2_take_bw_hi_sample`, behind `update_congestion_signals`' app-limited gate.
    fn update(&mut self, _round: u64, sample_pps: f64, is_app_limited: bool) {
        if !is_app_limited || sample_pps >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(sample_pps);
        }
    }

    fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    fn reset(&mut self, _round: u64) {
        self.bw_hi = [0.0; 2];
    }

    /// Linux `bbr2_advance_bw_hi_filter`: "keep max of last 1-2 cycles".
    fn advance_cycle(&mut self) {
        if self.bw_hi[1] == 0.0 {
            return; // "no samples in this window; remember old window"
        }
        self.bw_hi = [self.bw_hi[1], 0.0];
    }
}

/// The model's bounds; `None` is Linux's `~0U` (unbounded).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bounds {
    /// Short-term lower bound on the sending rate, packets/s.
    pub bw_lo: Option<f64>,
    /// Short-term lower bound on inflight, packets.
    pub inflight_lo: Option<u32>,
    /// Long-term upper bound on inflight, packets.
    pub inflight_hi: Option<u32>,
    /// Highest delivery rate (packets/s) and volume (packets) in the latest round.
    pub bw_latest: f64,
    pub inflight_latest: u32,
}

/// Loss signals, counted per loss round and per PROBE_BW cycle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Signals {
    /// `delivered` that ends the current loss round.
    pub loss_round_delivered: u64,
    pub loss_round_start: bool,
    pub loss_in_round: bool,
    pub loss_in_cycle: bool,
    /// ACKs that marked losses in this STARTUP loss round (a 4-bit counter).
    pub loss_events_in_round: u32,
}

impl Signals {
    pub fn new(loss_round_delivered: u64) -> Self {
        Signals {
            loss_round_delivered,
            ..Signals::default()
        }
    }
}

/// What `is_inflight_too_high` looks at: a rate sample, or one built for a lost packet.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossSample {
    /// Packets marked lost since the reference packet was sent.
    pub lost: u64,
    /// Packets in flight when the reference packet was sent.
    pub tx_in_flight: u32,
    pub delivered: u64,
    pub delivered_ce: u64,
    pub is_app_limited: bool,
}

impl From<&RateSample> for LossSample {
    fn from(rs: &RateSample) -> Self {
        LossSample {
            lost: rs.lost,
            tx_in_flight: rs.reference.tx_in_flight,
            delivered: rs.delivered.unwrap_or(0),
            delivered_ce: rs.delivered_ce,
            is_app_limited: rs.reference.is_app_limited,
        }
    }
}

impl Bbr2 {
    /// Linux `bbr2_update_congestion_signals` (v3: the latest-delivery part runs earlier).
    pub(super) fn update_congestion_signals(&mut self, conn: &Conn, rs: &RateSample) {
        if !self.p.split_latest_signals {
            self.sig.loss_round_start = false;
        }
        if !super::has_interval(rs) || rs.acked_sacked == 0 {
            return; // "not a valid observation"
        }
        let bw = self.sample_bw;
        self.bw_filter
            .update(self.round_count, bw, rs.reference.is_app_limited);
        self.sig.loss_in_round |= rs.losses > 0;
        if !self.p.split_latest_signals {
            self.take_latest(bw, rs);
            if rs.reference.prior_delivered < self.sig.loss_round_delivered {
                return; // "skip the per-round-trip updates"
            }
            self.sig.loss_round_delivered = conn.delivered;
            self.sig.loss_round_start = true;
        } else if !self.sig.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.sig.loss_in_round = false;
        self.ecn.in_round = false;
        if !self.p.split_latest_signals {
            self.b.bw_latest = bw;
            self.b.inflight_latest = rs.delivered.unwrap_or(0) as u32;
        }
    }

    fn take_latest(&mut self, bw: f64, rs: &RateSample) {
        let delivered = rs.delivered.unwrap_or(0) as u32;
        self.b.bw_latest = self.b.bw_latest.max(bw);
        self.b.inflight_latest = self.b.inflight_latest.max(delivered);
    }

    /// v3 `bbr_update_latest_delivery_signals`: the round's maxima and the loss round, before the model.
    pub(super) fn update_latest_delivery_signals(&mut self, conn: &Conn, rs: &RateSample) {
        self.sig.loss_round_start = false;
        if !super::has_interval(rs) || rs.acked_sacked == 0 {
            return;
        }
        self.take_latest(self.sample_bw, rs);
        if rs.reference.prior_delivered >= self.sig.loss_round_delivered {
            self.sig.loss_round_delivered = conn.delivered;
            self.sig.loss_round_start = true;
        }
    }

    /// v3 `bbr_advance_latest_delivery_signals`: once per loss round, after the ACK.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample) {
        if self.sig.loss_round_start {
            self.b.bw_latest = self.sample_bw;
            self.b.inflight_latest = rs.delivered.unwrap_or(0) as u32;
        }
    }

    /// Linux `bbr2_adapt_lower_bounds`: once per loss round, outside bandwidth probing.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = u32::MAX;
        if self.ecn.in_round && self.ecn.eligible && self.p.ecn_factor > 0.0 {
            let lo = *self.b.inflight_lo.get_or_insert(self.cwnd);
            let cut = 1.0 - self.ecn.alpha * self.p.ecn_factor;
            ecn_inflight_lo = (lo as f64 * cut).floor() as u32;
        }
        if self.sig.loss_in_round {
            let max_bw = self.max_bw();
            let cut = 1.0 - self.p.beta;
            let bw_lo = self.b.bw_lo.unwrap_or(max_bw);
            let inflight_lo = self.b.inflight_lo.unwrap_or(self.cwnd);
            self.b.bw_lo = Some(self.b.bw_latest.max(bw_lo * cut));
            let cut_lo = (inflight_lo as f64 * cut).floor() as u32;
            self.b.inflight_lo = Some(self.b.inflight_latest.max(cut_lo));
        }
        if let Some(lo) = self.b.inflight_lo {
            self.b.inflight_lo = Some(lo.min(ecn_inflight_lo));
        }
        if self.p.v3_refinements {
            // v3: bw_lo ≥ 1 unit (2^-24 pkt/µs)
            self.b.bw_lo = self.b.bw_lo.map(|b| b.max(1e6 / (1u64 << 24) as f64));
        }
    }

    /// Linux `bbr2_reset_lower_bounds`.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.b.bw_lo = None;
        self.b.inflight_lo = None;
    }

    /// Linux `bbr2_reset_congestion_signals`: after probing, before adapting the lower bounds.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.sig.loss_in_round = false;
        self.ecn.in_round = false;
        self.sig.loss_in_cycle = false;
        self.ecn.in_cycle = false;
        self.b.bw_latest = 0.0;
        self.b.inflight_latest = 0;
    }

    /// Linux `bbr2_is_inflight_too_high`: loss above `loss_thresh` of the flight,
    /// or (ECN-eligible) CE marks at or above `ecn_thresh` of the deliveries (v3: above).
    pub(super) fn is_inflight_too_high(&self, s: &LossSample) -> bool {
        if s.lost > 0 && s.tx_in_flight > 0 {
            let thresh = (s.tx_in_flight as f64 * self.p.loss_thresh).floor() as u64;
            if s.lost > thresh {
                return true;
            }
        }
        if s.delivered_ce > 0 && s.delivered > 0 && self.ecn.eligible && self.p.ecn_thresh > 0.0 {
            let thresh = (s.delivered as f64 * self.p.ecn_thresh).floor() as u64;
            let strict = self.p.v3_refinements;
            if s.delivered_ce > thresh || (!strict && s.delivered_ce == thresh) {
                return true;
            }
        }
        false
    }

    /// Linux `bbr2_handle_inflight_too_high`: react once per probe; cut inflight_hi
    /// unless app-limited, and stop probing up.
    pub(super) fn handle_inflight_too_high(&mut self, now: Time, conn: &Conn, s: &LossSample) {
        self.probe.prev_probe_too_high = true;
        self.probe.bw_probe_samples = false;
        if !s.is_app_limited {
            let floor = (self.target_inflight() as f64 * (1.0 - self.p.beta)).floor() as u32;
            self.b.inflight_hi = Some(s.tx_in_flight.max(floor));
        }
        if self.state == State::ProbeBw(Phase::Up) {
            self.start_probe_down(now, conn);
        }
    }

    /// Linux `bbr2_adapt_upper_bounds`; true if it started REFILL (a re-probe).
    pub(super) fn adapt_upper_bounds(&mut self, now: Time, conn: &Conn, rs: &RateSample) -> bool {
        if self.probe.end_of_probe_feedback(self.round_start) {
            if matches!(self.state, State::ProbeBw(_)) && !rs.reference.is_app_limited {
                // "now is the best time to forget the bw samples from the previous cycle"
                self.bw_filter.advance_cycle();
            }
            if matches!(self.state, State::ProbeBw(_))
                && self.probe.stopped_risky_probe
                && !self.probe.prev_probe_too_high
            {
                self.start_refill(conn, 0);
                return true;
            }
        }
        let s = LossSample::from(rs);
        if self.is_inflight_too_high(&s) {
            if self.probe.bw_probe_samples {
                self.handle_inflight_too_high(now, conn, &s);
            }
            return false;
        }
        let Some(hi) = self.b.inflight_hi else {
            return false; // "no excess queue signals yet"
        };
        // "To be resilient to random loss, we must raise inflight_hi if we observe
        // in any phase that a higher level is safe."
        self.b.inflight_hi = Some(hi.max(rs.reference.tx_in_flight));
        if self.state == State::ProbeBw(Phase::Up) {
            self.probe_inflight_hi_upward(conn, rs);
        }
        false
    }

    /// Linux `bbr2_probe_inflight_hi_upward`: while cwnd-limited at inflight_hi, add
    /// 1 packet per `bw_probe_up_cnt` acked; the slope doubles every round.
    fn probe_inflight_hi_upward(&mut self, conn: &Conn, rs: &RateSample) {
        let hi = self.b.inflight_hi.unwrap_or(u32::MAX);
        let cwnd_limited = if self.p.prior_inflight_raw {
            // ngx_bbr2.c: limited unless a datagram (NGX_QUIC_MSS, one packet) of cwnd is free
            self.cwnd <= rs.prior_in_flight
        } else {
            conn.cwnd_fully_used
        };
        if !cwnd_limited || self.cwnd < hi {
            if !self.p.keep_probe_up_credit {
                self.probe.up_acks = 0; // "don't accumulate unused credits"
            }
            return; // "not fully using inflight_hi, so don't grow it"
        }
        self.probe.up_acks += rs.acked_sacked;
        if let Some(cnt) = self.probe.up_cnt.filter(|&c| self.probe.up_acks >= c) {
            let delta = self.probe.up_acks / cnt;
            self.probe.up_acks -= delta * cnt;
            self.b.inflight_hi = Some(hi.saturating_add(delta));
            if self.p.v3_refinements {
                self.try_fast_path = false; // v3: "Need to update cwnd"
            }
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// Linux `bbr2_raise_inflight_hi_slope`: `bw_probe_up_cnt = cwnd / 2^rounds`.
    pub(super) fn raise_inflight_hi_slope(&mut self) {
        let growth = 1u32 << self.probe.up_rounds;
        self.probe.up_rounds = (self.probe.up_rounds + 1).min(30);
        self.probe.up_cnt = Some((self.cwnd / growth).max(1));
    }

    /// Linux `bbr2_inflight_with_headroom`: inflight_hi less 15 % (at least 1), at least 4.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        let Some(hi) = self.b.inflight_hi else {
            return u32::MAX;
        };
        let headroom = ((hi as f64 * self.p.inflight_headroom).floor() as u32).max(1);
        hi.saturating_sub(headroom).max(self.p.min_cwnd)
    }

    /// Linux `bbr2_bound_cwnd_for_inflight_model`.
    pub(super) fn bound_cwnd_for_inflight_model(&mut self) {
        let cap = match self.state {
            State::ProbeBw(Phase::Cruise) | State::ProbeRtt => self.inflight_with_headroom(),
            State::ProbeBw(_) => self.b.inflight_hi.unwrap_or(u32::MAX),
            State::Startup | State::Drain => u32::MAX,
        };
        let cap = cap
            .min(self.b.inflight_lo.unwrap_or(u32::MAX))
            .max(self.p.min_cwnd);
        self.cwnd = self.cwnd.min(cap);
    }

    /// Linux `bbr2_skb_marked_lost` (v3 `bbr_skb_marked_lost`): a packet marked lost
    /// notes a loss round and, if it was sent while probing and `lost_packet_check` is on,
    /// is judged on its own flight. If the losses since it was sent are too high,
    /// inflight_hi is set where that flight's loss rate crossed `loss_thresh`.
    pub(super) fn packet_lost(&mut self, now: Time, conn: &Conn, sent: &TxSnapshot) {
        self.note_loss(conn);
        // "not an skb sent while probing for bandwidth"; a snapshot a SACK used is no flight
        if !self.p.lost_packet_check
            || !self.probe.bw_probe_samples
            || sent.delivered_time.is_none()
        {
            return;
        }
        let mut s = LossSample {
            lost: conn.lost - sent.lost,
            tx_in_flight: sent.tx_in_flight,
            is_app_limited: sent.is_app_limited,
            ..LossSample::default()
        };
        if self.is_inflight_too_high(&s) {
            s.tx_in_flight = self.inflight_at_loss(&s);
            self.handle_inflight_too_high(now, conn, &s);
        }
    }

    /// Linux `bbr2_inflight_hi_from_lost_skb`: the in-flight level within the lost
    /// packet's flight (one packet, `tcp_skb_pcount`) at which the loss rate crossed
    /// `loss_thresh`: the flight before it, plus the prefix of further sending that the
    /// loss budget left, `(budget − lost before it) / (1 − loss_thresh)`.
    fn inflight_at_loss(&self, s: &LossSample) -> u32 {
        let inflight_prev = s.tx_in_flight - 1;
        let lost_prev = s.lost - 1;
        let budget = (inflight_prev as f64 * self.p.loss_thresh).ceil() as u64;
        let prefix = if lost_prev >= budget {
            0 // "previous losses crossed loss_thresh"
        } else {
            ((budget - lost_prev) as f64 / (1.0 - self.p.loss_thresh)).floor() as u32
        };
        inflight_prev.saturating_add(prefix)
    }

    /// v3 `bbr_note_loss`: the first loss of a round restarts the loss round (unless
    /// `loss_round_restart` is off, as in the QUIC port).
    fn note_loss(&mut self, conn: &Conn) {
        if !self.sig.loss_in_round && self.p.loss_round_restart {
            self.sig.loss_round_delivered = conn.delivered;
        }
        self.sig.loss_in_round = true;
        self.sig.loss_in_cycle = true;
    }

    /// v3 `bbr_run_loss_probe_recovery`: a tail-loss probe repaired one lost packet.
    pub(super) fn run_loss_probe_recovery(&mut self, now: Time, conn: &Conn) {
        self.note_loss(conn);
        if !self.probe.bw_probe_samples {
            return;
        }
        let s = LossSample {
            lost: 1,
            tx_in_flight: self.b.inflight_latest + 1,
            ..LossSample::default()
        };
        if self.is_inflight_too_high(&s) {
            self.handle_inflight_too_high(now, conn, &s);
        }
    }
}
