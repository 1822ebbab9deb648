//! Applications on top of connections, and the interface they drive the network through.
//!
//! An application never touches senders, receivers or links. It acts through
//! [`Net`] — open a connection, send a request upstream, write to a socket,
//! set a timer — and the simulation calls it back through [`App`] when a
//! connection is usable, data arrives, a request arrives, a socket has room,
//! or its timer fires. Client and server halves of an application (a DASH
//! player and its web server) live in one object; what they learn about each
//! other still travels through the network.

pub mod bulk;
pub mod dash;
#[cfg(test)]
mod fake_net;

use crate::net::packet::ConnId;
use crate::time::Time;
use bulk::Bulk;
use dash::DashSession;

/// Which end opens a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opener {
    /// The data sender connects (iperf-like): its SYN goes out at once.
    Sender,
    /// The client (data receiver) connects: a connect request travels upstream first.
    Client,
}

/// What an application may ask of the network.
pub trait Net {
    fn now(&self) -> Time;
    /// Opens a new connection of this flow.
    fn open(&mut self, opener: Opener) -> ConnId;
    /// Sends an application message of `bytes` from client to server on `conn`.
    fn send_upstream(&mut self, conn: ConnId, id: u64, bytes: u32);
    /// Server side: hands `bytes` more to `conn`'s sending socket.
    fn write(&mut self, conn: ConnId, bytes: u64);
    /// Server side: payload bytes `conn`'s socket accepts now (Linux's autotuned send
    /// buffer, `transport::send_buffer`). When it accepts none, the server waits: it is
    /// offered `on_writable` once the buffer has drained to 2/3.
    fn write_room(&mut self, conn: ConnId) -> u64;
    /// Server side: forgets data written but not yet sent (an aborted response).
    fn discard_unsent(&mut self, conn: ConnId);
    /// Server side: no more data will be written (the stream ends once acknowledged).
    fn finish(&mut self, conn: ConnId);
    /// Server side: the client reset `conn` (it closed the socket with a response unread):
    /// the server sends nothing more on it, not even retransmissions.
    fn reset(&mut self, conn: ConnId);
    /// Everything written to `conn` has been acknowledged and nothing more will come.
    fn drained(&self, conn: ConnId) -> bool;
    /// Wakes the application at `at` (one timer; a new call replaces the previous one).
    fn set_timer(&mut self, at: Time);
}

/// The applications a flow can run.
pub enum App {
    Bulk(Bulk),
    Dash(Box<DashSession>),
}

impl App {
    pub fn on_start(&mut self, net: &mut dyn Net) {
        match self {
            App::Bulk(a) => a.on_start(net),
            App::Dash(a) => a.on_start(net),
        }
    }

    pub fn on_stop(&mut self, net: &mut dyn Net) {
        match self {
            App::Bulk(a) => a.on_stop(net),
            App::Dash(a) => a.on_stop(net),
        }
    }

    /// Client side: `conn` can carry requests (the server's SYN arrived).
    pub fn on_connected(&mut self, conn: ConnId, net: &mut dyn Net) {
        if let App::Dash(a) = self {
            a.on_connected(conn, net);
        }
    }

    /// Client side: `bytes` arrived in order on `conn`; returns how many the application reads.
    pub fn on_data(&mut self, conn: ConnId, bytes: u64, net: &mut dyn Net) -> u64 {
        match self {
            // A bulk receiver reads everything as it arrives.
            App::Bulk(_) => bytes,
            App::Dash(a) => a.on_data(conn, bytes, net),
        }
    }

    /// Server side: message `id` arrived on `conn`.
    pub fn on_upstream(&mut self, conn: ConnId, id: u64, net: &mut dyn Net) {
        if let App::Dash(a) = self {
            a.on_request(conn, id, net);
        }
    }

    /// Server side: `conn`'s socket has room for more.
    pub fn on_writable(&mut self, conn: ConnId, net: &mut dyn Net) {
        if let App::Dash(a) = self {
            a.on_writable(conn, net);
        }
    }

    /// Whether the server side wants `on_writable` calls.
    pub fn pulls_writes(&self) -> bool {
        matches!(self, App::Dash(_))
    }

    pub fn on_timer(&mut self, net: &mut dyn Net) {
        if let App::Dash(a) = self {
            a.on_timer(net);
        }
    }

    /// The application's own figures for the summary (DASH QoE), merged into its flow's entry.
    pub fn summary(&self, now: Time) -> Option<serde_json::Value> {
        match self {
            App::Bulk(_) => None,
            App::Dash(a) => Some(a.summary(now)),
        }
    }

    /// The application has finished its work.
    pub fn is_done(&self, net: &dyn Net) -> bool {
        match self {
            App::Bulk(a) => a.is_done(net),
            App::Dash(a) => a.is_done(),
        }
    }
}
