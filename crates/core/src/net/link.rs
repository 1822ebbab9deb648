//! A one-way link: an optional serialiser followed by a propagation delay.
//!
//! Packets leave in the order they entered (htsim splits this into a Queue
//! and a Pipe; here a link without a rate is a pure pipe). Only the head of the
//! link needs an event, so the scheduler's heap stays small however many
//! packets are in flight.

use super::packet::Packet;
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
        }
    }

    pub fn delay(&self) -> Duration {
        self.delay
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
        let arrives = leaves + self.delay;
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

    pub fn packets_in_flight(&self) -> usize {
        self.in_flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    #[test]
    fn back_to_back_packets_are_serialised_then_delayed() {
        let mut l = Link::new(Some(Rate::from_mbps(1000)), Duration::from_millis(10));
        let p = || Packet::data(0, 0, 1448, false, Time::ZERO);
        assert_eq!(l.send(Time::ZERO, p()), Some(Time::from_micros(10_012)));
        assert_eq!(l.send(Time::ZERO, p()), None);
        let (a, next) = l.deliver(Time::from_micros(10_012));
        assert!(a.is_some());
        assert_eq!(next, Some(Time::from_micros(10_024)));
        let (early, _) = l.deliver(Time::from_micros(10_020));
        assert!(early.is_none());
    }
}
