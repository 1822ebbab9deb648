//! A netem delay in front of the router's queue: Linux `tc qdisc add … root netem delay D`
//! with the shaper (`tbf`) and its queue attached as netem's child — the rate-control recipe
//! of the netem documentation, which testbeds that "use NetEm to impose delays and regulate
//! bandwidth" (WWW'21 §3) commonly follow.
//!
//! Every packet waits `delay` in netem's time queue and then enters the child queue, where the
//! configured buffer limit applies. netem itself refuses an arrival while its time queue holds
//! `limit` packets (`sch_netem.c` `netem_enqueue`: `q->t_len >= sch->limit`; packets move to the
//! child in `netem_dequeue` once their time has come and stop counting). A sender whose rate
//! exceeds `limit / delay` packets per second therefore loses packets at netem, however deep
//! the child queue behind it is: 1000 packets in 100 ms is about 120 Mb/s of 1500-byte packets.
//! The delay is constant, so the time queue is a FIFO.
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `DEFAULT_LIMIT` | 1000 | packets | netem's limit when `tc` is not given one | iproute2 `q_netem.c` (`opt.limit = 1000`) |

use super::packet::Packet;
use super::qdisc::{DropReason, Dropped};
use crate::time::{Duration, Time};
use std::collections::VecDeque;

/// netem's time-queue limit when `tc … netem` is not given `limit`.
pub const DEFAULT_LIMIT: u32 = 1000; // iproute2 q_netem.c: opt.limit = 1000

#[derive(Debug)]
pub struct DelayLine {
    delay: Duration,
    limit: usize,
    /// Packets still inside the delay, each stamped with its arrival (`enqueued_at`).
    held: VecDeque<Packet>,
}

impl DelayLine {
    pub fn new(delay: Duration, limit: u32) -> Self {
        DelayLine {
            delay,
            limit: limit as usize,
            held: VecDeque::new(),
        }
    }

    /// A packet reaches netem at `now`: held for `delay`, or dropped if the time queue is full.
    pub fn admit(&mut self, now: Time, mut packet: Packet) -> Result<(), Dropped> {
        if self.held.len() >= self.limit {
            return Err(Dropped {
                packet,
                reason: DropReason::DelayLineFull,
            });
        }
        packet.enqueued_at = now;
        self.held.push_back(packet);
        Ok(())
    }

    /// When the oldest held packet is due to leave netem.
    pub fn next_due(&self) -> Option<Time> {
        self.held.front().map(|p| p.enqueued_at + self.delay)
    }

    /// The oldest held packet if it is due by `now`, stamped with the time it left netem.
    pub fn take_due(&mut self, now: Time) -> Option<Packet> {
        let due = self.next_due().filter(|&t| t <= now)?;
        let mut packet = self.held.pop_front()?;
        packet.enqueued_at = due;
        Some(packet)
    }

    pub fn len_packets(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(at: Time) -> Packet {
        Packet::data(0, 0, 1448, false, at)
    }

    #[test]
    fn packets_leave_after_the_delay_in_arrival_order() {
        let mut d = DelayLine::new(Duration::from_millis(100), 10);
        d.admit(Time::ZERO, pkt(Time::ZERO)).unwrap();
        d.admit(Time::from_millis(3), pkt(Time::ZERO)).unwrap();
        assert_eq!(d.next_due(), Some(Time::from_millis(100)));
        assert!(d.take_due(Time::from_micros(99_999)).is_none());
        let first = d.take_due(Time::from_millis(150)).unwrap();
        assert_eq!(first.enqueued_at, Time::from_millis(100));
        assert_eq!(d.next_due(), Some(Time::from_millis(103)));
        assert_eq!(
            d.take_due(Time::from_millis(150)).unwrap().enqueued_at,
            Time::from_millis(103)
        );
        assert_eq!(
            (d.take_due(Time::from_secs(9)).is_none(), d.len_packets()),
            (true, 0)
        );
    }

    #[test]
    fn a_full_time_queue_refuses_arrivals_until_a_packet_leaves() {
        let mut d = DelayLine::new(Duration::from_millis(100), 2);
        d.admit(Time::ZERO, pkt(Time::ZERO)).unwrap();
        d.admit(Time::ZERO, pkt(Time::ZERO)).unwrap();
        let refused = d.admit(Time::from_millis(50), pkt(Time::ZERO)).unwrap_err();
        assert_eq!(refused.reason, DropReason::DelayLineFull);
        d.take_due(Time::from_millis(100)).unwrap();
        assert!(d.admit(Time::from_millis(100), pkt(Time::ZERO)).is_ok());
        assert_eq!(d.len_packets(), 2);
    }
}
