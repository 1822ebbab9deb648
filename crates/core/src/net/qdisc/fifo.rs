//! Drop-tail FIFO: Linux `bfifo` (limit in bytes) and `pfifo` (limit in packets).
//!
//! bfifo drops an arriving packet if `backlog + len > limit`; pfifo drops it if
//! `qlen >= limit` (net/sched/sch_fifo.c). `len` is `qdisc_pkt_len`, the IP packet with
//! the device's link-layer header (`Packet::qdisc_len`). The packet being serialised on
//! the line has already left the queue and does not count.
//!
//! Constants: none; the limit is the scenario's `bottleneck.queue.limit` (default
//! 1000 packets, Linux's `txqueuelen`).

use super::{DropReason, Dropped, Qdisc, QdiscStats};
use crate::net::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Bytes(u64),
    Packets(u32),
}

#[derive(Debug)]
pub struct DropTail {
    limit: Limit,
    queue: VecDeque<Packet>,
    bytes: u64,
    stats: QdiscStats,
}

impl DropTail {
    pub fn new(limit: Limit) -> Self {
        DropTail {
            limit,
            queue: VecDeque::new(),
            bytes: 0,
            stats: QdiscStats::default(),
        }
    }

    fn fits(&self, pkt: &Packet) -> bool {
        match self.limit {
            Limit::Bytes(b) => self.bytes + pkt.qdisc_len as u64 <= b,
            Limit::Packets(n) => self.queue.len() < n as usize,
        }
    }
}

impl Qdisc for DropTail {
    fn enqueue(&mut self, _now: Time, pkt: Packet) -> Result<(), Dropped> {
        if !self.fits(&pkt) {
            self.stats.dropped_pkts += 1;
            self.stats.dropped_bytes += pkt.qdisc_len as u64;
            return Err(Dropped {
                packet: pkt,
                reason: DropReason::QueueFull,
            });
        }
        self.stats.enqueued_pkts += 1;
        self.stats.enqueued_bytes += pkt.qdisc_len as u64;
        self.bytes += pkt.qdisc_len as u64;
        self.queue.push_back(pkt);
        Ok(())
    }

    fn dequeue(&mut self, _now: Time, _drops: &mut Vec<Dropped>) -> Option<Packet> {
        let pkt = self.queue.pop_front()?;
        self.bytes -= pkt.qdisc_len as u64;
        self.stats.dequeued_pkts += 1;
        self.stats.dequeued_bytes += pkt.qdisc_len as u64;
        Some(pkt)
    }

    fn peek(&self) -> Option<&Packet> {
        self.queue.front()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn len_packets(&self) -> usize {
        self.queue.len()
    }

    fn stats(&self) -> &QdiscStats {
        &self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pkt(len: u32) -> Packet {
        Packet::data(0, 0, len, false, Time::ZERO)
    }

    #[test]
    fn bfifo_drops_the_packet_that_would_exceed_the_byte_limit() {
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert!(q.enqueue(Time::ZERO, pkt(1448)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1448)).is_ok());
        let d = q.enqueue(Time::ZERO, pkt(1)).unwrap_err();
        assert_eq!(d.reason, DropReason::QueueFull);
        assert_eq!(q.len_bytes(), 3000);
    }

    #[test]
    fn pfifo_counts_packets_whatever_their_size() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1448)).is_ok());
        assert!(q.enqueue(Time::ZERO, pkt(1)).is_err());
    }

    proptest! {
        /// in = out + dropped + resident, in packets and in bytes, for any operation sequence.
        #[test]
        fn queue_conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 1u32..1449), 1..400), limit in 1500u64..20_000) {
            let mut q = DropTail::new(Limit::Bytes(limit));
            let mut arrived = (0u64, 0u64);
            for (enq, len) in ops {
                if enq {
                    arrived.0 += 1;
                    arrived.1 += (len + 52) as u64;
                    let _ = q.enqueue(Time::ZERO, pkt(len));
                } else {
                    q.dequeue(Time::ZERO, &mut Vec::new());
                }
                let s = q.stats();
                prop_assert!(q.len_bytes() <= limit);
                prop_assert_eq!(arrived.0, s.dequeued_pkts + s.dropped_pkts + q.len_packets() as u64);
                prop_assert_eq!(arrived.1, s.dequeued_bytes + s.dropped_bytes + q.len_bytes());
                prop_assert_eq!(arrived, (s.enqueued_pkts + s.dropped_pkts, s.enqueued_bytes + s.dropped_bytes));
            }
        }
    }
}
