//! Queue disciplines, shaped after Linux `Qdisc_ops`.
//!
//! A qdisc decides which packets wait and which are dropped; it does not
//! decide *when* the head may leave (that is the bottleneck's service: shaper,
//! line rate or trace) and it does not serialise. AQMs that drop at dequeue
//! return those drops through `drops`, as Linux's `to_free` list does.

use super::packet::Packet;
use crate::time::Time;

pub mod fifo;

pub use fifo::{DropTail, Limit};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The queue's limit would be exceeded (tail drop).
    QueueFull,
    /// Random (Bernoulli) loss on the path.
    RandomLoss,
    /// netem's time queue in front of the queue was full (`net::delay_line`).
    DelayLineFull,
}

#[derive(Debug)]
pub struct Dropped {
    pub packet: Packet,
    pub reason: DropReason,
}

/// Counters every qdisc keeps (conservation: enqueued = dequeued + dropped_at_dequeue + resident).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    pub enqueued_pkts: u64,
    pub enqueued_bytes: u64,
    pub dequeued_pkts: u64,
    pub dequeued_bytes: u64,
    /// Refused at enqueue.
    pub dropped_pkts: u64,
    pub dropped_bytes: u64,
}

pub trait Qdisc {
    /// Accepts `pkt` or hands it back as dropped.
    fn enqueue(&mut self, now: Time, pkt: Packet) -> Result<(), Dropped>;
    /// Removes the head; AQMs push packets they drop on the way into `drops`.
    fn dequeue(&mut self, now: Time, drops: &mut Vec<Dropped>) -> Option<Packet>;
    /// The packet `dequeue` would return next.
    fn peek(&self) -> Option<&Packet>;
    fn len_bytes(&self) -> u64;
    fn len_packets(&self) -> usize;
    fn stats(&self) -> &QdiscStats;
}
