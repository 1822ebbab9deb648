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
}

impl Bulk {
    pub fn new(bytes: Option<u64>) -> Self {
        Bulk { bytes, conn: None }
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

    pub fn is_done(&self, net: &dyn Net) -> bool {
        self.conn.is_some_and(|c| net.drained(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::fake_net::FakeNet;

    #[test]
    fn a_sized_transfer_writes_its_bytes_and_ends_the_stream() {
        let mut net = FakeNet::default();
        let mut bulk = Bulk::new(Some(5_000_000));
        bulk.on_start(&mut net);
        assert_eq!(net.opened, vec![0]);
        assert_eq!(net.written[&0], 5_000_000);
        assert_eq!(net.finished, vec![0]);
    }

    #[test]
    fn an_unlimited_transfer_keeps_its_stream_open_until_stopped() {
        let mut net = FakeNet::default();
        let mut bulk = Bulk::new(None);
        bulk.on_start(&mut net);
        assert_eq!(net.written[&0], UNLIMITED);
        assert!(net.finished.is_empty());
        bulk.on_stop(&mut net);
        assert_eq!(net.discarded, vec![0]);
        assert_eq!(net.finished, vec![0]);
    }

    #[test]
    fn stopping_before_the_start_touches_no_connection() {
        let mut net = FakeNet::default();
        Bulk::new(None).on_stop(&mut net);
        assert!(net.discarded.is_empty() && net.finished.is_empty());
    }

    #[test]
    fn the_transfer_is_done_once_its_connection_drains() {
        let mut net = FakeNet::default();
        let mut bulk = Bulk::new(Some(1_000));
        assert!(!bulk.is_done(&net), "not started");
        net.drained.push(0);
        assert!(
            !bulk.is_done(&net),
            "not started, whatever the network says"
        );
        bulk.on_start(&mut net);
        assert!(bulk.is_done(&net));
        net.drained.clear();
        assert!(!bulk.is_done(&net));
    }
}
