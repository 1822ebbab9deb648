//! Delivery-rate sampling, as Linux `net/ipv4/tcp_rate.c` does it.
//!
//! In a nutshell: every (re)transmitted packet carries a snapshot of the
//! connection's delivery counters ([`TxSnapshot`]). When an ACK delivers
//! packets, the most recently *sent* of them is the reference; the sample is
//!
//! ```text
//!   delivered = conn.delivered_now − ref.delivered_at_send
//!   interval  = max(send interval, ack interval)
//!             = max(ref.sent − ref.first_tx, now − ref.delivered_time)
//!   rate      = delivered / interval
//! ```
//!
//! and is discarded (`interval = None`) when shorter than the connection's
//! minimum RTT. A sample is app-limited when its reference packet was sent
//! while the connection had a bubble of idle capacity (`app_limited` marker).
//!
//! References: Linux tcp_rate.c (upstream 26b76320), google/bbr tree for the
//! v2/v3 fields (`lost`, `tx_in_flight`, `delivered_ce`); IETF
//! draft-cheng-iccrg-delivery-rate-estimation-02.
//!
//! Deviations: the reference packet is chosen by send time with ties broken
//! by higher end sequence (google/bbr tree and newer upstream), not by
//! `delivered` (5.x). Counts are packets (segments) as in Linux.
//!
//! # The nginx-quic sampler (`rate_sampler = "nginx-quic"`)
//!
//! The ATC'23 testbed's QUIC stack (bpq233/oBBR `ngx_sample.c`, `ngx_update_sample` and
//! `ngx_generate_sample`) follows the same draft, with one structural difference: its sample
//! lives in the connection (`cg->sampler`) and is not cleared between ACKs. A newly acked
//! packet becomes the reference only if its snapshot's `delivered` is *larger* than the
//! reference's (`f->po_delivered > sampler->prior_delivered`), so
//!
//! ```text
//!   an ACK that delivers only packets sent before the reference's first successor
//!   (e.g. the rest of one pacer burst, sent before any ACK came back) keeps the previous
//!   ACK's reference and its intervals:
//!     delivered = conn.delivered_now − ref.delivered_at_send     (grows)
//!     interval  = max(send interval, ack interval) of the previous ACK   (does not)
//! ```
//!
//! which inflates those samples by the packets delivered since. Among packets with equal
//! snapshots the first processed (the earliest sent) is the reference. The ACK interval is
//! taken when the reference is chosen (`ack_elapse = delivered_time − po_delivered_time`).
//! A packet QUIC has declared lost is gone from its sent queue, and its retransmission is a
//! new packet: an ACK that reaches the original later delivers nothing to the sampler. TCP
//! keeps one segment, whose snapshot the retransmission overwrote; here a retransmitted
//! segment (s)acked within a minimum RTT of its resend (so it was its original that arrived)
//! is no candidate for the reference. (It still counts as delivered, where QUIC counts it
//! when the new packet is acked.)
//!
//! Its times are nginx's millisecond clock (`ngx_current_msec`): every time the sampler
//! stores is floored to the millisecond, and so is the minimum RTT an interval must reach
//! (QUIC's `min_rtt`, the least of whole-millisecond RTT samples). The RTT it hands the
//! algorithm is QUIC's `latest_rtt` on that clock (`sampler->rtt = qc->latest_rtt`, the
//! millisecond of the ACK less that of the send), so a BBR whose min_rtt filter takes any
//! sample at or below the minimum is refreshed by every RTT in the minimum's millisecond.
//! The connection's own RTT estimator (RTO, RACK) stays in nanoseconds; the artifact's
//! algorithms put their own timers on the millisecond clock (`bbr` with `artifact_base`,
//! `bbr2-quic`'s `millisecond_clock`, `cubic-quic`).

use crate::time::{Clock, Duration, Time};
use serde::{Deserialize, Serialize};

/// Which delivery-rate sampler a flow's sender runs (scenario field `rate_sampler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SamplerKind {
    /// Linux `tcp_rate.c`: every ACK picks its own reference packet.
    #[default]
    Linux,
    /// The oBBR artifact's `ngx_sample.c`: the reference persists until a packet with a
    /// later snapshot is acked.
    NginxQuic,
}

/// What `tcp_rate_skb_sent` stores in a packet at each (re)transmission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    /// `delivered` when the packet was sent.
    pub delivered: u64,
    /// `delivered_time` when sent; `None` once a SACK has used this snapshot.
    pub delivered_time: Option<Time>,
    /// Start of the send phase this packet belongs to.
    pub first_tx_time: Time,
    /// `lost` when sent (v2/v3).
    pub lost: u64,
    /// `delivered_ce` when sent (v2/v3).
    pub delivered_ce: u64,
    /// Packets in flight right after this one was sent (v2/v3).
    pub tx_in_flight: u32,
    /// Sent while the connection was application-limited.
    pub is_app_limited: bool,
}

/// A sample's reference packet (Linux: the most recently sent packet the ACK delivers):
/// the connection's counters when it was sent, and the intervals measured from it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reference {
    /// `delivered` when the reference packet was sent.
    pub prior_delivered: u64,
    /// `delivered_time` when it was sent.
    pub prior_time: Option<Time>,
    /// When it was sent, on the sampler's clock (Linux `first_tx_mstamp` after the
    /// update; the nginx-quic sampler's `po_sent_time`).
    pub prior_sent: Option<Time>,
    /// It was sent while the connection was application-limited.
    pub is_app_limited: bool,
    pub is_retrans: bool,
    /// v2/v3: inflight right after it was sent.
    pub tx_in_flight: u32,
    /// `lost` and `delivered_ce` when it was sent (v2/v3).
    pub lost: u64,
    pub delivered_ce: u64,
    /// Its end sequence: the tie-break among packets sent at one instant.
    pub end_seq: u64,
    pub send_interval: Duration,
    pub ack_interval: Duration,
}

/// One ACK's rate sample (Linux `struct rate_sample`), in packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Packets delivered over `interval`; `None` = no valid reference packet.
    pub delivered: Option<u64>,
    /// Sampling interval; `None` = invalid (no reference, or shorter than min RTT).
    pub interval: Option<Duration>,
    /// The reference packet the sample measures from.
    pub reference: Reference,
    /// Packets newly acked or sacked by this ACK.
    pub acked_sacked: u32,
    /// Packets newly marked lost while processing this ACK.
    pub losses: u32,
    /// Packets in flight before this ACK was processed.
    pub prior_in_flight: u32,
    /// RTT of the most recently sent, never-retransmitted packet this ACK covers.
    pub rtt: Option<Duration>,
    /// The receiver held this ACK on its delayed-ACK timer.
    pub is_ack_delayed: bool,
    /// v2/v3: packets marked lost since the reference packet was sent.
    pub lost: u64,
    /// v2/v3: CE-marked deliveries over the interval.
    pub delivered_ce: u64,
    /// The ACK carried ECN-Echo.
    pub is_ece: bool,
}

impl RateSample {
    /// Delivery rate in packets per second, when the sample is valid.
    pub fn rate_pkts_per_sec(&self) -> Option<f64> {
        match (self.delivered, self.interval) {
            (Some(d), Some(i)) if !i.is_zero() => Some(d as f64 / i.as_secs_f64()),
            _ => None,
        }
    }

    pub fn is_valid(&self) -> bool {
        self.delivered.is_some() && self.interval.is_some_and(|i| !i.is_zero())
    }
}

/// The connection-level counters `tcp_rate.c` maintains (fields of `tcp_sock`).
#[derive(Clone, Debug, Default)]
pub struct RateState {
    kind: SamplerKind,
    /// nginx-quic: the reference of the last ACK that chose one, kept across ACKs.
    kept: Option<Reference>,
    /// nginx-quic: the ACK being processed, its arrival and the path's minimum RTT.
    ack: Option<(Time, Duration)>,
    /// Packets delivered (acked or sacked), each counted once.
    pub delivered: u64,
    pub delivered_ce: u64,
    /// Packets ever marked lost.
    pub lost: u64,
    /// Time of the most recent ACK that delivered data.
    pub delivered_time: Time,
    /// Send time of the most recently delivered reference packet.
    pub first_tx_time: Time,
    /// 0, or the `delivered` count at which the app-limited bubble ends.
    pub app_limited: u64,
}

/// `app_limited` at connection start: Linux initialises it to ~0U, which its
/// wrap-around comparison clears at the first ACK, so the first flight's
/// samples are app-limited.
const APP_LIMITED_AT_START: u64 = u64::MAX;

impl RateState {
    pub fn new(kind: SamplerKind) -> Self {
        RateState {
            kind,
            app_limited: APP_LIMITED_AT_START,
            ..RateState::default()
        }
    }

    /// `tcp_rate_skb_sent`: snapshot for a packet being (re)transmitted at `now`.
    /// `packets_out` counts outstanding packets before this one is sent.
    pub fn on_send(&mut self, now: Time, packets_out: u32, inflight_after: u32) -> TxSnapshot {
        let now = self.clock().time(now);
        if packets_out == 0 {
            self.first_tx_time = now;
            self.delivered_time = now;
        }
        TxSnapshot {
            delivered: self.delivered,
            delivered_time: Some(self.delivered_time),
            first_tx_time: self.first_tx_time,
            lost: self.lost,
            delivered_ce: self.delivered_ce,
            tx_in_flight: inflight_after,
            is_app_limited: self.app_limited != 0,
        }
    }

    /// The start of an ACK's processing (`now`, the connection's minimum RTT), for the
    /// nginx-quic sampler's test of a retransmitted packet delivered too soon to be itself.
    pub fn begin_ack(&mut self, now: Time, min_rtt: Option<Duration>) {
        self.ack = min_rtt.map(|m| (now, m));
    }

    /// `tcp_rate_skb_delivered`: a packet sent at `sent` with `end_seq` is newly
    /// acked (or sacked, `by_sack`) by the ACK being processed.
    pub fn on_delivered(
        &mut self,
        snap: &mut TxSnapshot,
        sent: Time,
        end_seq: u64,
        is_retrans: bool,
        by_sack: bool,
        rs: &mut RateSample,
    ) {
        let Some(delivered_time) = snap.delivered_time else {
            return;
        };
        // The artifact's clock for what it stores; the path's own time for what is physical.
        let (sent_ns, sent) = (sent, self.clock().time(sent));
        let newer = match self.kind {
            SamplerKind::Linux => {
                rs.reference.prior_time.is_none()
                    || sent > self.first_tx_time
                    || (sent == self.first_tx_time && end_seq > rs.reference.end_seq)
            }
            SamplerKind::NginxQuic => {
                let reference = match rs.reference.prior_time {
                    Some(_) => Some(rs.reference.prior_delivered),
                    None => self.kept.map(|k| k.prior_delivered),
                };
                // A retransmission (s)acked within a minimum RTT of being sent cannot have
                // arrived: its original did. QUIC sent the retransmission as a new packet and
                // ignores the ACK of one it declared lost, so it is no candidate.
                let its_original = is_retrans
                    && self
                        .ack
                        .is_some_and(|(now, min_rtt)| now.saturating_since(sent_ns) < min_rtt);
                !its_original && reference.is_none_or(|d| snap.delivered > d)
            }
        };
        if newer {
            self.first_tx_time = sent;
            let r = &mut rs.reference;
            r.prior_delivered = snap.delivered;
            r.prior_time = Some(delivered_time);
            r.prior_sent = Some(sent);
            r.is_app_limited = snap.is_app_limited;
            r.is_retrans = is_retrans;
            r.tx_in_flight = snap.tx_in_flight;
            r.lost = snap.lost;
            r.delivered_ce = snap.delivered_ce;
            r.end_seq = end_seq;
            r.send_interval = sent.saturating_since(snap.first_tx_time);
        }
        if by_sack {
            snap.delivered_time = None;
        }
    }

    /// `tcp_rate_gen`: completes `rs` after all deliveries of one ACK.
    /// `newly_delivered`/`newly_lost` count this ACK's packets; `min_rtt` is the
    /// connection's windowed minimum RTT (`None` = no RTT sample yet = infinite).
    pub fn generate(
        &mut self,
        now: Time,
        newly_delivered: u32,
        newly_lost: u32,
        min_rtt: Option<Duration>,
        rs: &mut RateSample,
    ) {
        let now = self.clock().time(now);
        if self.app_limited == APP_LIMITED_AT_START
            || (self.app_limited != 0 && self.delivered > self.app_limited)
        {
            self.app_limited = 0;
        }
        if newly_delivered > 0 {
            self.delivered_time = now;
        }
        rs.acked_sacked = newly_delivered;
        rs.losses = newly_lost;
        match (self.kind, rs.reference.prior_time, self.kept) {
            (_, Some(prior_time), _) => {
                rs.reference.ack_interval = now.saturating_since(prior_time);
                if self.kind == SamplerKind::NginxQuic {
                    self.kept = Some(rs.reference);
                }
            }
            // The nginx-quic sampler: an ACK without a newer reference packet reuses the
            // kept reference and both its intervals.
            (SamplerKind::NginxQuic, None, Some(kept)) => rs.reference = kept,
            _ => {
                rs.delivered = None;
                rs.interval = None;
                return;
            }
        }
        let r = &rs.reference;
        rs.delivered = Some(self.delivered - r.prior_delivered);
        rs.lost = self.lost - r.lost;
        rs.delivered_ce = self.delivered_ce - r.delivered_ce;
        let interval = r.send_interval.max(r.ack_interval);
        // The minimum RTT the interval must reach is, in the artifact, QUIC's `min_rtt`,
        // the least of whole-millisecond RTT samples.
        rs.interval = match min_rtt.map(|m| self.clock().span(m)) {
            Some(m) if interval >= m => Some(interval),
            _ => None,
        };
    }

    /// The RTT sample the sampler hands the algorithm for a packet sent at `sent`: on
    /// nginx's clock, QUIC's `latest_rtt` = `ngx_current_msec` now − at the send.
    pub fn rtt(&self, now: Time, sent: Time) -> Duration {
        self.clock()
            .time(now)
            .saturating_since(self.clock().time(sent))
    }

    /// The sampler's clock: nanoseconds, or nginx's millisecond `ngx_current_msec`.
    fn clock(&self) -> Clock {
        Clock::millisecond_if(self.kind == SamplerKind::NginxQuic)
    }

    /// `tcp_rate_check_app_limited`: mark a bubble when the sender has less than
    /// one MSS to send, none of its packets still in the host (Linux: `sk_wmem_alloc`,
    /// skbs in a qdisc or the NIC), spare window, and no loss waiting for retransmission.
    pub fn check_app_limited(
        &mut self,
        has_full_segment_to_send: bool,
        host_holds_packets: bool,
        inflight: u32,
        cwnd: u32,
        lost_out: u32,
        retrans_out: u32,
    ) {
        if !has_full_segment_to_send
            && !host_holds_packets
            && inflight < cwnd
            && lost_out <= retrans_out
        {
            self.mark_app_limited(inflight);
        }
    }

    /// Starts an app-limited bubble that ends when everything now in flight is delivered.
    pub fn mark_app_limited(&mut self, inflight: u32) {
        self.app_limited = (self.delivered + inflight as u64).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// Ten packets sent back to back at t=0..9 ms, all acked at t=100..109 ms:
    /// each ACK's sample spans one RTT of deliveries.
    #[test]
    fn steady_flight_gives_one_packet_per_millisecond() {
        let mut st = RateState::default();
        let mut snaps = Vec::new();
        for i in 0..10u32 {
            snaps.push((ms(i as u64), st.on_send(ms(i as u64), i, i + 1)));
        }
        let mut last = None;
        for (i, (sent, snap)) in snaps.iter_mut().enumerate() {
            let mut rs = RateSample::default();
            st.delivered += 1;
            st.on_delivered(snap, *sent, (i as u64 + 1) * 1448, false, false, &mut rs);
            st.generate(
                ms(100 + i as u64),
                1,
                0,
                Some(Duration::from_millis(50)),
                &mut rs,
            );
            last = Some(rs);
        }
        let rs = last.unwrap();
        // last packet: delivered since its send = 10 − 0 = 10 (its snapshot saw 0 delivered),
        // interval = max(9 ms send phase, 109 ms since delivered_time 0) = 109 ms
        assert_eq!(rs.delivered, Some(10));
        assert_eq!(rs.interval, Some(Duration::from_millis(109)));
    }

    /// Four packets leave at t = 0 in one burst; ACKs at 50 ms (packets 1–2) and 60 ms (3–4),
    /// then packet 5, sent at 60 ms, is acked at 110 ms. The rate each sampler reports.
    fn burst_then_one(kind: SamplerKind) -> Vec<(Option<u64>, Option<Duration>)> {
        let mut st = RateState::new(kind);
        let mut snaps: Vec<_> = (0..4u32).map(|i| st.on_send(ms(0), i, i + 1)).collect();
        let min_rtt = Some(Duration::from_millis(40));
        let mut out = Vec::new();
        let ack = |st: &mut RateState, now, packets: &mut [(u64, &mut TxSnapshot, Time)]| {
            let mut rs = RateSample::default();
            for (end, snap, sent) in packets.iter_mut() {
                st.delivered += 1;
                st.on_delivered(snap, *sent, *end, false, false, &mut rs);
            }
            st.generate(now, packets.len() as u32, 0, min_rtt, &mut rs);
            (rs.delivered, rs.interval)
        };
        let [a, b, c, d] = &mut snaps[..] else {
            unreachable!()
        };
        out.push(ack(&mut st, ms(50), &mut [(1, a, ms(0)), (2, b, ms(0))]));
        out.push(ack(&mut st, ms(60), &mut [(3, c, ms(0)), (4, d, ms(0))]));
        let mut e = st.on_send(ms(60), 0, 1);
        out.push(ack(&mut st, ms(110), &mut [(5, &mut e, ms(60))]));
        out
    }

    #[test]
    fn the_nginx_quic_sampler_keeps_its_reference_until_a_later_snapshot_is_acked() {
        let ms = Duration::from_millis;
        assert_eq!(
            burst_then_one(SamplerKind::Linux),
            [
                (Some(2), Some(ms(50))),
                (Some(4), Some(ms(60))),
                (Some(1), Some(ms(50)))
            ]
        );
        // The second ACK finds no snapshot later than the first's reference (all four saw 0
        // delivered): 4 packets over the first ACK's 50 ms, 20 % above Linux's 4 in 60 ms.
        assert_eq!(
            burst_then_one(SamplerKind::NginxQuic),
            [
                (Some(2), Some(ms(50))),
                (Some(4), Some(ms(50))),
                (Some(1), Some(ms(50)))
            ]
        );
    }

    /// Packets 1 and 2 leave at 0; the ACK at 40 ms delivers 2 (1 is missing); 1 is resent at
    /// 41 ms, and the ACK at 45 ms delivers it: its original, 4 ms after the resend.
    fn late_original(kind: SamplerKind, acked_at: Time) -> RateSample {
        let mut st = RateState::new(kind);
        st.on_send(ms(0), 0, 1); // packet 1, lost
        let mut two = st.on_send(ms(0), 1, 2);
        let min_rtt = Some(Duration::from_millis(40));
        let mut rs = RateSample::default();
        st.begin_ack(ms(40), min_rtt);
        st.delivered += 1;
        st.on_delivered(&mut two, ms(0), 2, false, true, &mut rs);
        st.generate(ms(40), 1, 0, min_rtt, &mut rs);
        let mut one = st.on_send(ms(41), 1, 1);
        let mut rs = RateSample::default();
        st.begin_ack(acked_at, min_rtt);
        st.delivered += 1;
        st.on_delivered(&mut one, ms(41), 1, true, false, &mut rs);
        st.generate(acked_at, 1, 0, min_rtt, &mut rs);
        rs
    }

    #[test]
    fn a_resent_packet_delivered_within_a_min_rtt_is_no_nginx_quic_reference() {
        let sample = |kind| {
            let rs = late_original(kind, ms(45));
            (rs.delivered, rs.interval)
        };
        // Linux takes the resend as the reference: 1 packet since it left, over its 41 ms
        // send interval (an ACK interval of 5 ms).
        assert_eq!(
            sample(SamplerKind::Linux),
            (Some(1), Some(Duration::from_millis(41)))
        );
        // QUIC acks the original's packet number, which it no longer tracks: the kept
        // reference (packet 2's) spans both deliveries over its 40 ms.
        assert_eq!(
            sample(SamplerKind::NginxQuic),
            (Some(2), Some(Duration::from_millis(40)))
        );
        // a whole min RTT after the resend, it is the resend that arrived
        let rs = late_original(SamplerKind::NginxQuic, ms(81));
        assert_eq!(rs.reference.prior_sent, Some(ms(41)));
    }

    /// A fresh packet acked sooner than the minimum RTT known before its ACK (the path got
    /// faster) is still a candidate: only a retransmission can be "its original".
    #[test]
    fn a_fresh_packet_acked_within_the_old_min_rtt_is_an_nginx_quic_reference() {
        let mut st = RateState::new(SamplerKind::NginxQuic);
        let mut one = st.on_send(ms(0), 0, 1);
        let mut rs = RateSample::default();
        st.begin_ack(ms(39), Some(Duration::from_millis(40)));
        st.delivered += 1;
        st.on_delivered(&mut one, ms(0), 1, false, false, &mut rs);
        assert_eq!(rs.reference.prior_sent, Some(ms(0)));
    }

    #[test]
    fn the_nginx_quic_sampler_runs_on_a_millisecond_clock() {
        let interval = |kind| {
            let mut st = RateState::new(kind);
            let mut snap = st.on_send(Time::from_micros(600), 0, 1);
            let mut rs = RateSample::default();
            st.delivered = 1;
            st.on_delivered(&mut snap, Time::from_micros(600), 1, false, false, &mut rs);
            let min_rtt = Duration::from_micros(49_900);
            st.generate(Time::from_micros(50_300), 1, 0, Some(min_rtt), &mut rs);
            rs.interval
        };
        // Linux: 49.7 ms, shorter than the 49.9 ms min RTT: discarded. nginx: 50 − 0 ms,
        // against a min RTT of 49 whole ms.
        assert_eq!(interval(SamplerKind::Linux), None);
        assert_eq!(
            interval(SamplerKind::NginxQuic),
            Some(Duration::from_millis(50))
        );
    }

    #[test]
    fn the_nginx_quic_sampler_hands_the_algorithm_rtts_on_the_millisecond_clock() {
        // Sent at 10.9996 s, acked 40.3 ms later: QUIC's latest_rtt is 11039 − 10999 ms.
        let (sent, now) = (Time::from_micros(10_999_600), Time::from_micros(11_039_900));
        let rtt = |kind| RateState::new(kind).rtt(now, sent);
        assert_eq!(rtt(SamplerKind::Linux), Duration::from_micros(40_300));
        assert_eq!(rtt(SamplerKind::NginxQuic), Duration::from_millis(40));
        let later = Time::from_micros(10_999_950); // 40.35 ms before 11.0403 s: 41 whole ms
        assert_eq!(
            RateState::new(SamplerKind::NginxQuic).rtt(Time::from_micros(11_040_300), later),
            Duration::from_millis(41)
        );
    }

    #[test]
    fn sample_shorter_than_min_rtt_is_discarded_and_no_reference_is_invalid() {
        let mut st = RateState::default();
        let mut snap = st.on_send(ms(0), 0, 1);
        let mut rs = RateSample::default();
        st.delivered = 1;
        st.on_delivered(&mut snap, ms(0), 1448, false, false, &mut rs);
        st.generate(ms(10), 1, 0, Some(Duration::from_millis(20)), &mut rs);
        assert_eq!(rs.delivered, Some(1));
        assert_eq!(rs.interval, None);

        let mut rs = RateSample::default();
        st.generate(ms(11), 0, 0, Some(Duration::from_millis(1)), &mut rs);
        assert_eq!((rs.delivered, rs.interval), (None, None));
    }

    #[test]
    fn a_sacked_snapshot_is_used_once() {
        let mut st = RateState::default();
        let mut snap = st.on_send(ms(0), 0, 1);
        let mut rs = RateSample::default();
        st.on_delivered(&mut snap, ms(0), 1448, false, true, &mut rs);
        assert!(snap.delivered_time.is_none());
        let mut rs2 = RateSample::default();
        st.on_delivered(&mut snap, ms(0), 1448, false, false, &mut rs2);
        assert!(rs2.reference.prior_time.is_none());
    }

    #[test]
    fn a_sample_needs_both_a_reference_and_a_nonzero_interval() {
        let sample = |delivered, interval| RateSample {
            delivered,
            interval,
            ..RateSample::default()
        };
        let valid = sample(Some(10), Some(Duration::from_millis(100)));
        assert!(valid.is_valid());
        assert_eq!(valid.rate_pkts_per_sec(), Some(100.0));
        for invalid in [
            sample(Some(10), None),
            sample(None, Some(Duration::from_millis(100))),
            sample(Some(10), Some(Duration::ZERO)),
        ] {
            assert!(!invalid.is_valid(), "{invalid:?}");
            assert_eq!(invalid.rate_pkts_per_sec(), None, "{invalid:?}");
        }
    }

    /// The first packet an ACK delivers is its reference even if it was sent before the
    /// previous ACK's reference (`!rs->prior_delivered` in `tcp_rate_skb_delivered`): packets
    /// sent at 3 and 5 ms, the ACK at 60 ms delivers the later, the one at 70 ms the earlier.
    #[test]
    fn an_acks_first_delivered_packet_is_its_reference_whenever_it_was_sent() {
        let mut st = RateState::default();
        let mut early = st.on_send(ms(3), 0, 1);
        let mut late = st.on_send(ms(5), 1, 2);
        let min_rtt = Some(Duration::from_millis(40));
        let mut rs = RateSample::default();
        st.delivered += 1;
        st.on_delivered(&mut late, ms(5), 2, false, true, &mut rs);
        st.generate(ms(60), 1, 0, min_rtt, &mut rs);
        let mut rs = RateSample::default();
        st.delivered += 1;
        st.on_delivered(&mut early, ms(3), 1, false, false, &mut rs);
        st.generate(ms(70), 1, 0, min_rtt, &mut rs);
        assert_eq!(rs.reference.prior_sent, Some(ms(3)));
        // 2 delivered since its send, over the 67 ms since delivered_time was set at 3 ms
        assert_eq!(
            (rs.delivered, rs.interval),
            (Some(2), Some(Duration::from_millis(67)))
        );
    }

    /// One ACK delivers A (sent at 0, ends at 1), D (new data sent at 1 ms, ends at 4) and B
    /// and C (ends 2 and 3, retransmitted together at 2 ms), B and C in either order: the
    /// reference is the most recently sent, and among packets sent at one instant the one
    /// with the higher end sequence (`tcp_skb_sent_after`), whatever the processing order.
    #[test]
    fn the_reference_is_the_latest_sent_and_then_the_highest_sequence() {
        for b_first in [true, false] {
            let mut st = RateState::default();
            let mut packets: Vec<_> = [(0, 1), (1, 4), (2, 2), (2, 3)]
                .into_iter()
                .enumerate()
                .map(|(i, (sent, end_seq))| (st.on_send(ms(sent), i as u32, 1), sent, end_seq))
                .collect();
            // A, then B and C in either order, then D
            let order = if b_first { [0, 2, 3, 1] } else { [0, 3, 2, 1] };
            let mut rs = RateSample::default();
            for i in order {
                let (snap, sent, end_seq) = &mut packets[i];
                st.delivered += 1;
                st.on_delivered(snap, ms(*sent), *end_seq, false, false, &mut rs);
            }
            assert_eq!(
                (rs.reference.prior_sent, rs.reference.end_seq),
                (Some(ms(2)), 3),
                "B first: {b_first}"
            );
        }
    }

    /// Linux starts `app_limited` at ~0U, which the first ACK clears: the first flight is
    /// app-limited, what is sent after it is not. A bubble lasts until the ACK that takes
    /// `delivered` past its mark; an ACK that delivers nothing leaves `delivered_time`.
    #[test]
    fn the_start_marker_clears_at_the_first_ack_and_a_bubble_outlasts_its_mark() {
        let mut st = RateState::new(SamplerKind::Linux);
        assert!(st.on_send(ms(0), 0, 1).is_app_limited);
        st.generate(ms(1), 0, 0, None, &mut RateSample::default());
        assert!(!st.on_send(ms(1), 1, 2).is_app_limited);
        assert_eq!(st.delivered_time, ms(0), "nothing delivered: not moved");
        (st.delivered, st.app_limited) = (8, 8);
        st.generate(ms(2), 1, 0, None, &mut RateSample::default());
        assert_eq!((st.app_limited, st.delivered_time), (8, ms(2)));
    }

    /// v2/v3: the losses and CE marks a sample reports are those since its reference was sent.
    #[test]
    fn losses_and_ce_marks_count_from_the_reference_packets_send() {
        let mut st = RateState::default();
        (st.lost, st.delivered_ce) = (2, 1);
        let mut snap = st.on_send(ms(0), 0, 1);
        (st.lost, st.delivered_ce, st.delivered) = (7, 4, 1);
        let mut rs = RateSample::default();
        st.on_delivered(&mut snap, ms(0), 1, false, false, &mut rs);
        st.generate(ms(50), 1, 2, Some(Duration::from_millis(40)), &mut rs);
        assert_eq!((rs.lost, rs.delivered_ce, rs.losses), (5, 3, 2));
    }

    #[test]
    fn app_limited_bubble_ends_once_its_packets_are_delivered() {
        let mut st = RateState {
            delivered: 5,
            ..Default::default()
        };
        st.check_app_limited(false, false, 3, 10, 0, 0);
        assert_eq!(st.app_limited, 8);
        assert!(st.on_send(ms(1), 3, 4).is_app_limited);
        st.delivered = 9;
        let mut rs = RateSample::default();
        st.generate(ms(2), 1, 0, None, &mut rs);
        assert_eq!(st.app_limited, 0);
    }

    #[test]
    fn no_bubble_while_data_waits_packets_are_in_the_host_the_window_is_full_or_losses_wait() {
        let marks = |full_segment, in_host, inflight, lost_out| {
            let mut st = RateState::default();
            st.check_app_limited(full_segment, in_host, inflight, 10, lost_out, 0);
            st.app_limited != 0
        };
        assert!(marks(false, false, 3, 0));
        assert!(!marks(true, false, 3, 0));
        assert!(!marks(false, true, 3, 0));
        assert!(!marks(false, false, 10, 0));
        assert!(!marks(false, false, 3, 1));
    }
}
