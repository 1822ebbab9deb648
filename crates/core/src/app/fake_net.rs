//! A network double for the applications' unit tests (bulk, and DASH's HTTP layer and
//! session): it records what they ask for, and a socket's unsent bytes leave only when a
//! test says so.

use crate::app::{Net, Opener};
use crate::net::packet::ConnId;
use crate::time::Time;
use std::collections::BTreeMap;

/// A network double: records what an application asks for; a socket's unsent
/// bytes leave only when the test says so.
#[derive(Default)]
pub struct FakeNet {
    pub now: Time,
    pub opened: Vec<ConnId>,
    pub upstream: Vec<(ConnId, u64)>,
    /// Bytes of all the upstream messages.
    pub upstream_bytes: u64,
    pub unsent: BTreeMap<ConnId, u64>,
    pub written: BTreeMap<ConnId, u64>,
    pub room: u64,
    pub discarded: Vec<ConnId>,
    /// Connections whose writer said no more will come.
    pub finished: Vec<ConnId>,
    /// Connections the client reset.
    pub reset: Vec<ConnId>,
    /// Connections whose data has all been acknowledged.
    pub drained: Vec<ConnId>,
    /// The application's timer, if set.
    pub timer: Option<Time>,
}

impl Net for FakeNet {
    fn now(&self) -> Time {
        self.now
    }
    fn open(&mut self, _opener: Opener) -> ConnId {
        let c = self.opened.len() as ConnId;
        self.opened.push(c);
        c
    }
    fn send_upstream(&mut self, conn: ConnId, id: u64, bytes: u32) {
        self.upstream.push((conn, id));
        self.upstream_bytes += u64::from(bytes);
    }
    fn write(&mut self, conn: ConnId, bytes: u64) {
        *self.unsent.entry(conn).or_default() += bytes;
        *self.written.entry(conn).or_default() += bytes;
    }
    fn write_room(&mut self, conn: ConnId) -> u64 {
        let unsent = self.unsent.get(&conn).copied().unwrap_or(0);
        self.room.saturating_sub(unsent)
    }
    fn discard_unsent(&mut self, conn: ConnId) {
        self.discarded.push(conn);
        self.unsent.insert(conn, 0);
    }
    fn finish(&mut self, conn: ConnId) {
        self.finished.push(conn);
    }
    fn reset(&mut self, conn: ConnId) {
        self.reset.push(conn);
        self.unsent.insert(conn, 0);
    }
    fn drained(&self, conn: ConnId) -> bool {
        self.drained.contains(&conn)
    }
    fn set_timer(&mut self, at: Time) {
        self.timer = Some(at);
    }
}

impl FakeNet {
    /// A network whose sockets each accept `room` unsent bytes.
    pub fn with_room(room: u64) -> Self {
        FakeNet {
            room,
            ..FakeNet::default()
        }
    }

    /// The socket of `conn` sends everything it holds.
    pub fn send_all(&mut self, conn: ConnId) -> u64 {
        self.unsent.insert(conn, 0).unwrap_or(0)
    }
}
