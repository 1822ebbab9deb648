//! A bulk transfer (iperf-like): the sender writes `bytes` at once, or an
//! unlimited stream, and the receiver reads everything as soon as it arrives.

use crate::time::Time;
use crate::transport::sender::{TcpSender, UNLIMITED};
use crate::transport::Outbox;

#[derive(Clone, Debug)]
pub struct Bulk {
    /// `None` = unlimited.
    bytes: Option<u64>,
    received: u64,
}

impl Bulk {
    pub fn new(bytes: Option<u64>) -> Self {
        Bulk { bytes, received: 0 }
    }

    pub fn on_start(&mut self, now: Time, sender: &mut TcpSender, out: &mut Outbox) {
        sender.write(now, self.bytes.unwrap_or(UNLIMITED), out);
    }

    /// `readable` bytes arrived in order; returns how many the application reads now (all).
    pub fn on_receive(&mut self, readable: u64) -> u64 {
        self.received += readable;
        readable
    }

    pub fn received(&self) -> u64 {
        self.received
    }
}
