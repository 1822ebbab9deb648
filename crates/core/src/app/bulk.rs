//! A bulk transfer (iperf-like): the sender connects, writes `bytes` at once
//! (or an unlimited stream), and the receiver reads everything as it arrives.

use super::{Net, Opener};
use crate::net::packet::ConnId;
use crate::transport::sender::UNLIMITED;

#[derive(Clone, Debug)]
pub struct Bulk {
    /// `None` = unlimited.
    bytes: Option<u64>,
    conn: Option<ConnId>,
    received: u64,
}

impl Bulk {
    pub fn new(bytes: Option<u64>) -> Self {
        Bulk {
            bytes,
            conn: None,
            received: 0,
        }
    }

    pub fn on_start(&mut self, net: &mut dyn Net) {
        let conn = net.open(Opener::Sender);
        self.conn = Some(conn);
        net.write(conn, self.bytes.unwrap_or(UNLIMITED));
        if self.bytes.is_some() {
            net.finish(conn);
        }
    }

    /// The application stops writing; what was sent is still delivered.
    pub fn on_stop(&mut self, net: &mut dyn Net) {
        if let Some(conn) = self.conn {
            net.discard_unsent(conn);
            net.finish(conn);
        }
    }

    /// `readable` bytes arrived in order; the receiver reads them all at once.
    pub fn on_receive(&mut self, readable: u64) -> u64 {
        self.received += readable;
        readable
    }

    pub fn is_done(&self, net: &dyn Net) -> bool {
        self.conn.is_some_and(|c| net.drained(c))
    }
}
