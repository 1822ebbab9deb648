//! The bottleneck router: random loss, then (optionally) a netem delay in front of the
//! queue, then a queue discipline, then a service (shaper + line, plain line, or trace)
//! that decides when the head packet leaves.
//!
//! The qdisc and the service charge each packet its IP length plus the link-layer header
//! of the router's device (`link_header`; Ethernet's 14 B by the scenario's default), as
//! Linux's do: `qdisc_pkt_len` is `skb->len`, which on an Ethernet device holds the MAC
//! header. A 1500 B packet spends 1514 B of tbf tokens and of a bfifo's limit.
//!
//! The owner calls [`Bottleneck::arrive`] for each packet and then
//! [`Bottleneck::release`] until it answers `Wait` or `Idle`, scheduling a
//! wake-up at the `Wait` time. Departing packets carry the time their last bit
//! leaves the line; propagation is the next link's job.

use super::delay_line::DelayLine;
use super::packet::Packet;
use super::qdisc::{DropReason, Dropped, Qdisc};
use super::service::Service;
use crate::engine::Rng;
use crate::time::Time;
use crate::units::Rate;

pub enum Release {
    /// `packet` left the queue now; its last bit is on the wire at `done`.
    Depart { packet: Packet, done: Time },
    /// Call again at this time (line busy, tokens short, next trace opportunity).
    Wait(Time),
    /// Nothing can leave until a packet arrives or the rate changes.
    Idle,
}

pub struct Bottleneck {
    netem: Option<DelayLine>,
    qdisc: Box<dyn Qdisc>,
    service: Service,
    loss: f64,
    rng: Rng,
    line_free_at: Time,
    /// Bytes charged on top of each packet's IP length.
    link_header: u32,
}

impl Bottleneck {
    pub fn new(qdisc: Box<dyn Qdisc>, service: Service, loss: f64, rng: Rng) -> Self {
        Bottleneck {
            netem: None,
            qdisc,
            service,
            loss,
            rng,
            line_free_at: Time::ZERO,
            link_header: 0,
        }
    }

    /// Charges `bytes` of link-layer header on top of each packet's IP length.
    pub fn with_link_header(mut self, bytes: u32) -> Self {
        self.link_header = bytes;
        self
    }

    /// Puts a netem delay in front of the queue (see [`DelayLine`]).
    pub fn with_netem(mut self, netem: DelayLine) -> Self {
        self.netem = Some(netem);
        self
    }

    /// A packet reaches the router. Random loss applies first, then netem's limit if there is
    /// a netem delay (the qdisc's when the packet leaves it), else the qdisc's limit.
    pub fn arrive(&mut self, now: Time, mut packet: Packet) -> Result<(), Dropped> {
        if self.rng.chance(self.loss) {
            return Err(Dropped {
                packet,
                reason: DropReason::RandomLoss,
            });
        }
        packet.qdisc_len = packet.wire_bytes + self.link_header;
        if let Some(netem) = &mut self.netem {
            return netem.admit(now, packet);
        }
        packet.enqueued_at = now;
        self.qdisc.enqueue(now, packet)
    }

    /// Moves the packets netem has held long enough into the queue (refused ones into
    /// `drops`), then lets the head packet leave if the service allows it now. A `Wait` also
    /// covers the next packet due out of netem.
    pub fn release(&mut self, now: Time, drops: &mut Vec<Dropped>) -> Release {
        let Some(netem) = &mut self.netem else {
            return self.release_head(now, drops);
        };
        while let Some(packet) = netem.take_due(now) {
            if let Err(d) = self.qdisc.enqueue(packet.enqueued_at, packet) {
                drops.push(d);
            }
        }
        let next_due = netem.next_due();
        match (self.release_head(now, drops), next_due) {
            (Release::Wait(t), Some(due)) => Release::Wait(t.min(due)),
            (Release::Idle, Some(due)) => Release::Wait(due),
            (release, _) => release,
        }
    }

    fn release_head(&mut self, now: Time, drops: &mut Vec<Dropped>) -> Release {
        let Some(head) = self.qdisc.peek() else {
            return Release::Idle;
        };
        let bytes = head.qdisc_len;
        let arrived = head.enqueued_at;
        let done = match &mut self.service {
            Service::Shaped { bucket, line_rate } => {
                // the head leaves once the line is free and the bucket covers it: one wake-up
                // for the later of the two (nothing else spends tokens meanwhile, and a rate
                // change serves the queue again)
                let ready = bucket.ready_at(now.max(self.line_free_at), bytes as u64);
                if ready > now {
                    return wait_or_idle(ready);
                }
                bucket.take(now, bytes as u64);
                now + line_rate.tx_time(bytes as u64)
            }
            _ if self.line_free_at > now => return Release::Wait(self.line_free_at),
            Service::Plain { rate } => {
                if rate.is_zero() {
                    return Release::Idle;
                }
                now + rate.tx_time(bytes as u64)
            }
            Service::Trace {
                trace,
                cursor,
                head_sent,
            } => {
                // Opportunities up to the head's arrival went unused: wasted. One at the very
                // instant of arrival is too: mahimahi burns the opportunities due by a packet's
                // millisecond before it enqueues the packet (`rationalize` in `read_packet`).
                while cursor.time(trace) <= arrived {
                    cursor.advance(trace);
                    *head_sent = 0;
                }
                let mut at = cursor.time(trace);
                loop {
                    if at > now {
                        return Release::Wait(at);
                    }
                    let need = bytes - *head_sent;
                    let take = need.min(cursor.bytes_left());
                    cursor.consume(trace, take);
                    if take == need {
                        *head_sent = 0;
                        break;
                    }
                    *head_sent += take;
                    at = cursor.time(trace);
                }
                now
            }
        };
        let packet = self.qdisc.dequeue(now, drops).expect("peeked packet");
        self.line_free_at = done;
        Release::Depart { packet, done }
    }

    /// Scheduled rate change; the owner should call `release` again afterwards.
    pub fn set_rate(&mut self, now: Time, rate: Rate) {
        self.service.set_rate(now, rate);
    }

    pub fn backlog_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }

    pub fn backlog_packets(&self) -> usize {
        self.qdisc.len_packets()
    }

    /// Packets inside netem's delay (not queued: they wait out the path's delay).
    pub fn delayed_packets(&self) -> usize {
        self.netem.as_ref().map_or(0, DelayLine::len_packets)
    }

    pub fn tokens_bytes(&mut self, now: Time) -> f64 {
        self.service.tokens_bytes(now)
    }

    pub fn qdisc(&self) -> &dyn Qdisc {
        self.qdisc.as_ref()
    }
}

fn wait_or_idle(t: Time) -> Release {
    if t == Time::NEVER {
        Release::Idle
    } else {
        Release::Wait(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::mahimahi::Trace;
    use crate::net::qdisc::{DropTail, Limit};
    use crate::net::service::TokenBucket;
    use crate::time::Duration;

    fn tbf(burst: u64) -> Bottleneck {
        let service = Service::Shaped {
            bucket: TokenBucket::new(Rate::from_mbps(25), burst),
            line_rate: Rate::from_mbps(1000),
        };
        Bottleneck::new(
            Box::new(DropTail::new(Limit::Bytes(1_000_000))),
            service,
            0.0,
            Rng::stream(1, 1),
        )
    }

    /// A plain line of `mbps` behind a drop-tail queue of `limit` packets, without loss.
    fn plain(mbps: u64, limit: u32) -> Bottleneck {
        let q = Box::new(DropTail::new(Limit::Packets(limit)));
        let service = Service::Plain {
            rate: Rate::from_mbps(mbps),
        };
        Bottleneck::new(q, service, 0.0, Rng::stream(1, 1))
    }

    /// `n` full-sized packets (1448 B of payload, 1500 B on the wire) arriving at 0.
    fn fill(b: &mut Bottleneck, n: usize) {
        for _ in 0..n {
            b.arrive(Time::ZERO, Packet::data(0, 0, 1448, false, Time::ZERO))
                .unwrap();
        }
    }

    /// Releases until the bottleneck is idle: (start, end) of each departure.
    fn drain(b: &mut Bottleneck, mut now: Time) -> Vec<(Time, Time)> {
        let mut out = Vec::new();
        for _ in 0..10_000 {
            match b.release(now, &mut Vec::new()) {
                Release::Depart { done, .. } => out.push((now, done)),
                Release::Wait(t) => now = t,
                Release::Idle => return out,
            }
        }
        panic!("still busy after 10 000 releases: {out:?}");
    }

    fn over_trace(text: &str) -> Bottleneck {
        let q = Box::new(DropTail::new(Limit::Packets(100)));
        let service = Service::trace(Trace::parse(text).unwrap());
        Bottleneck::new(q, service, 0.0, Rng::stream(1, 1))
    }

    /// Departure times, ms, of packets of `payloads` bytes arriving at `at`.
    fn trace_departures_ms(b: &mut Bottleneck, at: Time, payloads: &[u32]) -> Vec<u64> {
        for &len in payloads {
            b.arrive(at, Packet::data(0, 0, len, false, at)).unwrap();
        }
        drain(b, at).iter().map(|(s, _)| s.as_millis()).collect()
    }

    #[test]
    fn a_full_bucket_lets_a_burst_leave_at_line_rate_then_the_token_rate_takes_over() {
        let mut b = tbf(3000);
        fill(&mut b, 4);
        assert_eq!(b.backlog_bytes(), 6000);
        let d = drain(&mut b, Time::ZERO);
        let starts: Vec<u64> = d.iter().map(|(s, _)| s.as_nanos() / 1000).collect();
        // two packets back to back at 1 Gb/s (12 µs each), then one per 480 µs of tokens:
        // the third needs 1500 B of tokens that have accrued since t=0 → at 480 µs
        assert_eq!(starts, vec![0, 12, 480, 960]);
        assert_eq!(d[0].1, Time::from_micros(12));
        // the last packet emptied the bucket; 480 µs later it holds one packet's tokens
        assert_eq!(b.tokens_bytes(Time::from_micros(960 + 480)), 1500.0);
        assert_eq!(b.backlog_bytes(), 0);
    }

    /// Linux's tbf and bfifo count `skb->len`, the frame with its 14 B Ethernet header: a
    /// 1500 B packet spends 1514 B of tokens, of the line and of the limit.
    #[test]
    fn the_link_header_is_charged_to_the_bucket_the_line_and_the_limit() {
        let shaped = |limit: u64| {
            let service = Service::Shaped {
                bucket: TokenBucket::new(Rate::from_mbps(25), 3028),
                line_rate: Rate::from_mbps(1000),
            };
            let q = Box::new(DropTail::new(Limit::Bytes(limit)));
            Bottleneck::new(q, service, 0.0, Rng::stream(1, 1)).with_link_header(14)
        };
        // 4541 B would hold three bare 1500 B packets, but only two frames
        let mut b = shaped(3 * 1514 - 1);
        fill(&mut b, 2);
        assert_eq!(b.backlog_bytes(), 2 * 1514);
        let third = b.arrive(Time::ZERO, Packet::data(0, 0, 1448, false, Time::ZERO));
        assert_eq!(third.unwrap_err().reason, DropReason::QueueFull);
        let mut b = shaped(1_000_000);
        fill(&mut b, 3);
        let d = drain(&mut b, Time::ZERO);
        let starts: Vec<u64> = d.iter().map(|(s, _)| s.as_nanos()).collect();
        // two frames at 1 Gb/s (12.112 µs each), then 1514 B of tokens at 25 Mb/s: 484.48 µs
        assert_eq!(starts, vec![0, 12_112, 484_480]);
        assert_eq!(d[2].1, Time::from_nanos(484_480 + 12_112));
    }

    #[test]
    fn a_shaped_head_behind_a_busy_line_waits_once_for_the_later_of_line_and_tokens() {
        let mut b = tbf(3000);
        let mut drops = Vec::new();
        fill(&mut b, 3);
        assert!(matches!(
            b.release(Time::ZERO, &mut drops),
            Release::Depart { .. }
        ));
        // the line is busy until 12 µs and the bucket holds tokens for the second packet:
        // the line decides
        let wait = |r: Release| match r {
            Release::Wait(t) => Some(t),
            _ => None,
        };
        assert_eq!(
            wait(b.release(Time::ZERO, &mut drops)),
            Some(Time::from_micros(12))
        );
        assert!(matches!(
            b.release(Time::from_micros(12), &mut drops),
            Release::Depart { .. }
        ));
        // the line is busy until 24 µs, the tokens for the third come at 480 µs: one wait,
        // whichever the time asked at, and telemetry still reads the tokens of the moment
        for at in [12, 20] {
            assert_eq!(
                wait(b.release(Time::from_micros(at), &mut drops)),
                Some(Time::from_micros(480))
            );
        }
        // the two packets took the 3000 B the bucket held; 20 µs of 25 Mb/s have accrued since
        assert_eq!(b.tokens_bytes(Time::from_micros(20)), 62.5);
        // a change of rate refills the bucket (`tc qdisc change`): the third packet leaves as
        // soon as the line is free, at 24 µs
        b.set_rate(Time::from_micros(20), Rate::from_mbps(250));
        assert_eq!(
            wait(b.release(Time::from_micros(20), &mut drops)),
            Some(Time::from_micros(24))
        );
        assert!(matches!(
            b.release(Time::from_micros(24), &mut drops),
            Release::Depart { .. }
        ));
    }

    #[test]
    fn a_plain_line_sends_one_packet_at_a_time_at_its_rate() {
        let mut b = plain(12, 100);
        fill(&mut b, 3);
        // 1500 B on the wire at 12 Mb/s: 1 ms each, back to back
        let ms = |n: u64| Time::from_millis(n);
        assert_eq!(
            drain(&mut b, Time::ZERO),
            vec![(ms(0), ms(1)), (ms(1), ms(2)), (ms(2), ms(3))]
        );
    }

    #[test]
    fn a_rate_change_reaches_the_line() {
        let mut b = plain(12, 100);
        b.set_rate(Time::ZERO, Rate::ZERO);
        fill(&mut b, 1);
        assert!(matches!(
            b.release(Time::ZERO, &mut Vec::new()),
            Release::Idle
        ));
        b.set_rate(Time::from_millis(5), Rate::from_mbps(6));
        // 1500 B at 6 Mb/s: 2 ms on the line
        assert_eq!(
            drain(&mut b, Time::from_millis(5)),
            vec![(Time::from_millis(5), Time::from_millis(7))]
        );
    }

    #[test]
    fn a_trace_delivers_one_full_packet_per_opportunity_and_wastes_idle_ones() {
        let mut b = over_trace("1\n2\n3\n4");
        let at = Time::from_micros(2500);
        assert_eq!(trace_departures_ms(&mut b, at, &[1448, 1448]), vec![3, 4]);
    }

    #[test]
    fn an_opportunity_at_the_instant_a_packet_arrives_is_wasted() {
        // mahimahi's read_packet burns every opportunity due by the arrival, then enqueues
        let mut b = over_trace("1\n2\n3\n4");
        let at = Time::from_millis(2);
        assert_eq!(trace_departures_ms(&mut b, at, &[1448]), vec![3]);
        // while a packet a nanosecond earlier catches it
        let mut b = over_trace("1\n2\n3\n4");
        let at = Time::from_millis(2) - Duration::from_nanos(1);
        assert_eq!(trace_departures_ms(&mut b, at, &[1448]), vec![2]);
    }

    #[test]
    fn small_packets_share_an_opportunity() {
        let mut b = over_trace("10");
        // 500 B on the wire each
        assert_eq!(
            trace_departures_ms(&mut b, Time::ZERO, &[448, 448, 448]),
            vec![10, 10, 10]
        );
    }

    #[test]
    fn a_packet_larger_than_what_is_left_finishes_in_the_next_opportunity() {
        let mut b = over_trace("10\n20");
        // 500 B leave at 10 ms; the 1500-byte packet takes the other 1000 B there and 500 B
        // at 20 ms, which leaves 1000 B at 20 ms for the last packet (1000 B on the wire)
        assert_eq!(
            trace_departures_ms(&mut b, Time::ZERO, &[448, 1448, 948]),
            vec![10, 20, 20]
        );
    }

    #[test]
    fn netem_holds_packets_for_its_delay_before_the_shaper_and_refuses_beyond_its_limit() {
        let mut b = tbf(3000).with_netem(DelayLine::new(Duration::from_millis(100), 3));
        let refused: Vec<bool> = (0..4)
            .map(|_| {
                b.arrive(Time::ZERO, Packet::data(0, 0, 1448, false, Time::ZERO))
                    .is_err()
            })
            .collect();
        assert_eq!(refused, vec![false, false, false, true]);
        assert_eq!((b.delayed_packets(), b.backlog_packets()), (3, 0));
        // nothing is queued yet, but the router must wake when the first packet is due
        assert!(matches!(
            b.release(Time::from_millis(1), &mut Vec::new()),
            Release::Wait(t) if t == Time::from_millis(100)
        ));
        // then as without netem, 100 ms later: two back to back, the third on tokens
        let starts: Vec<u64> = drain(&mut b, Time::from_millis(1))
            .iter()
            .map(|(s, _)| s.as_nanos() / 1000)
            .collect();
        assert_eq!(starts, vec![100_000, 100_012, 100_480]);
        assert_eq!(b.delayed_packets(), 0);
    }

    #[test]
    fn the_queue_behind_netem_still_drops_at_its_own_limit() {
        let mut b = plain(1, 2).with_netem(DelayLine::new(Duration::from_millis(10), 1000));
        fill(&mut b, 5);
        let mut drops = Vec::new();
        let release = b.release(Time::from_millis(10), &mut drops);
        // as netem_dequeue does, every due packet moves into the queue before the head
        // leaves: two fit, three find it full; then the first leaves
        assert!(matches!(release, Release::Depart { .. }));
        assert_eq!(drops.len(), 3);
        assert!(drops.iter().all(|d| d.reason == DropReason::QueueFull));
        assert_eq!((b.backlog_packets(), b.delayed_packets()), (1, 0));
        assert_eq!(b.backlog_bytes(), 1500);
    }

    #[test]
    fn random_loss_drops_about_the_configured_fraction() {
        let q = Box::new(DropTail::new(Limit::Packets(1_000_000)));
        let mut b = Bottleneck::new(
            q,
            Service::Plain {
                rate: Rate::from_mbps(10),
            },
            0.1,
            Rng::stream(3, 9),
        );
        let lost = (0..20_000)
            .filter(|_| {
                b.arrive(Time::ZERO, Packet::data(0, 0, 1, false, Time::ZERO))
                    .is_err()
            })
            .count();
        assert!((1800..2200).contains(&lost), "{lost}");
    }
}
