//! A one-way link: an optional serialiser followed by a propagation delay.
//!
//! Packets leave in the order they entered (htsim splits this into a Queue
//! and a Pipe; here a link without a rate is a pure pipe). Only the head of the
//! link needs an event, so the scheduler's heap stays small however many
//! packets are in flight.
//!
//! Optional jitter adds to each packet's delay a uniform draw from
//! [0, jitter] ns, but never lets a packet overtake the one before it (a path
//! whose delay varies without reordering, like netem's jitter with a rate):
//!
//! ```text
//!   arrives = max(leaves + delay + U{0 … jitter}, arrival of the previous packet)
//! ```

use super::packet::Packet;
use crate::engine::Rng;
use crate::time::{Duration, Time};
use crate::units::Rate;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct Link {
    rate: Option<Rate>,
    delay: Duration,
    busy_until: Time,
    in_flight: VecDeque<(Time, Packet)>,
    head_scheduled: bool,
    /// Boxed: the generator's state is large and most links have no jitter.
    jitter: Option<Box<(Duration, Rng)>>,
    last_arrival: Time,
}

impl Link {
    /// A link serialising at `rate` (`None` = instantaneous) with propagation `delay`.
    pub fn new(rate: Option<Rate>, delay: Duration) -> Self {
        Link {
            rate,
            delay,
            busy_until: Time::ZERO,
            in_flight: VecDeque::new(),
            head_scheduled: false,
            jitter: None,
            last_arrival: Time::ZERO,
        }
    }

    /// Adds up to `max` of random extra delay per packet, drawn from `rng` (no effect if 0).
    pub fn with_jitter(mut self, max: Duration, rng: Rng) -> Self {
        self.jitter = (!max.is_zero()).then(|| Box::new((max, rng)));
        self
    }

    /// Puts `pkt` on the link at `at` (≥ any earlier `at`). Returns the time at which the
    /// owner must schedule a delivery event, when the link had none pending.
    #[must_use]
    pub fn send(&mut self, at: Time, pkt: Packet) -> Option<Time> {
        let leaves = match self.rate {
            Some(r) => {
                let start = at.max(self.busy_until);
                self.busy_until = start + r.tx_time(pkt.wire_bytes as u64);
                self.busy_until
            }
            None => at,
        };
        let mut arrives = leaves + self.delay;
        if let Some(j) = &mut self.jitter {
            let (max, rng) = &mut **j;
            let extra = Duration::from_nanos(rng.below(max.as_nanos() + 1));
            arrives = (arrives + extra).max(self.last_arrival);
            self.last_arrival = arrives;
        }
        debug_assert!(self.in_flight.back().is_none_or(|(t, _)| *t <= arrives));
        self.in_flight.push_back((arrives, pkt));
        self.schedule_head()
    }

    /// Takes the head packet when its delivery event fires, and says when to schedule the next.
    pub fn deliver(&mut self, now: Time) -> (Option<Packet>, Option<Time>) {
        self.head_scheduled = false;
        let pkt = match self.in_flight.front() {
            Some((t, _)) if *t <= now => self.in_flight.pop_front().map(|(_, p)| p),
            _ => None,
        };
        (pkt, self.schedule_head())
    }

    fn schedule_head(&mut self) -> Option<Time> {
        if self.head_scheduled {
            return None;
        }
        let (t, _) = self.in_flight.front()?;
        self.head_scheduled = true;
        Some(*t)
    }

    /// Still serialising a packet at `now` (the NIC has not completed its transmission;
    /// never for a link without a rate, whose `busy_until` stays at zero).
    pub fn is_transmitting(&self, now: Time) -> bool {
        self.busy_until > now
    }

    pub fn packets_in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    #[test]
    fn transmitting_until_the_last_byte_is_serialised() {
        let mut l = Link::new(Some(Rate::from_mbps(1000)), Duration::from_millis(10));
        let p = || Packet::data(0, 0, 1448, false, Time::ZERO);
        assert!(!l.is_transmitting(Time::ZERO));
        let _ = l.send(Time::ZERO, p());
        let _ = l.send(Time::ZERO, p());
        assert!(l.is_transmitting(Time::from_micros(23)));
        assert!(!l.is_transmitting(Time::from_micros(24)));
        assert!(!Link::new(None, Duration::ZERO).is_transmitting(Time::ZERO));
    }

    #[test]
    fn back_to_back_packets_are_serialised_then_delayed() {
        let mut l = Link::new(Some(Rate::from_mbps(1000)), Duration::from_millis(10));
        let p = || Packet::data(0, 0, 1448, false, Time::ZERO);
        assert_eq!(l.send(Time::ZERO, p()), Some(Time::from_micros(10_012)));
        assert_eq!(l.send(Time::ZERO, p()), None);
        assert_eq!(l.packets_in_flight(), 2);
        let (a, next) = l.deliver(Time::from_micros(10_012));
        assert!(a.is_some());
        assert_eq!(next, Some(Time::from_micros(10_024)));
        let (early, _) = l.deliver(Time::from_micros(10_020));
        assert!(early.is_none());
        assert_eq!(l.packets_in_flight(), 1);
    }

    /// Puts 2000 packets on the link `gap` apart, then delivers them event by event: checks
    /// that they leave in order and returns each one's delay.
    fn jittered_delays(gap: Duration, base: Duration, max: Duration) -> Vec<u64> {
        let mut l = Link::new(None, base).with_jitter(max, Rng::stream(3, 9));
        let sent_at = |i: u64| Time::ZERO + Duration::from_nanos(i * gap.as_nanos());
        let mut next = None;
        for i in 0..2000u64 {
            let at = sent_at(i);
            next = next.or(l.send(at, Packet::data(0, i, 1448, false, at)));
        }
        let mut delays = Vec::new();
        while let Some(t) = next {
            let (p, following) = l.deliver(t);
            let p = p.expect("the head is due at its event");
            assert_eq!(p.seq, delays.len() as u64, "packets leave in order");
            delays.push((t - sent_at(p.seq)).as_nanos());
            next = following;
        }
        assert_eq!(delays.len(), 2000);
        delays
    }

    #[test]
    fn jitter_spreads_the_delay_uniformly() {
        let (base, max) = (Duration::from_millis(10), Duration::from_micros(500));
        // Packets 1 ms apart never catch up with each other: the delay is base + U[0, 500 µs].
        let delays = jittered_delays(Duration::from_millis(1), base, max);
        assert!(delays
            .iter()
            .all(|&d| d >= base.as_nanos() && d <= (base + max).as_nanos()));
        let mean = delays.iter().sum::<u64>() as f64 / delays.len() as f64;
        // 2000 draws: the mean's standard error is 500 µs / √12 / √2000 ≈ 3.2 µs.
        assert!(
            (mean - 10_250_000.0).abs() < 15_000.0,
            "mean delay {mean} ns"
        );
    }

    #[test]
    fn jitter_reaches_its_maximum() {
        // U{0 … jitter} includes the bound: with 1 ns of jitter, about half the packets gain it
        let delays = jittered_delays(
            Duration::from_millis(1),
            Duration::ZERO,
            Duration::from_nanos(1),
        );
        let late = delays.iter().filter(|&&d| d == 1).count();
        assert!(delays.iter().all(|&d| d <= 1));
        assert!(
            (900..1100).contains(&late),
            "{late} of 2000 delayed by 1 ns"
        );
    }

    #[test]
    fn jitter_never_reorders_close_packets() {
        let (base, max) = (Duration::from_millis(10), Duration::from_micros(500));
        // 10 µs apart, a packet often waits for its predecessor: later, never earlier.
        let delays = jittered_delays(Duration::from_micros(10), base, max);
        assert!(delays.iter().all(|&d| d >= base.as_nanos()));
        assert!(delays.windows(2).any(|w| w[0] != w[1]), "the delay varies");
    }

    #[test]
    fn zero_jitter_is_a_plain_pipe() {
        let mut l = Link::new(None, Duration::from_millis(1))
            .with_jitter(Duration::ZERO, Rng::stream(1, 1));
        assert_eq!(
            l.send(Time::ZERO, Packet::data(0, 0, 1448, false, Time::ZERO)),
            Some(Time::from_millis(1))
        );
    }
}
