//! HTTP/1.1 and HTTP/2 request/response exchanges over the simulated TCP.
//!
//! * **HTTP/1.1** (browser behaviour): persistent connections from a pool of up
//!   to 6 per host; a request goes on an idle connection, or a new one is
//!   opened when all are busy; one exchange at a time per connection (no
//!   pipelining). Of the idle connections it takes the one that became idle last
//!   among those that carried an exchange, else the longest idle (Chromium's
//!   `TransportClientSocketPool::AssignIdleSocketToRequest`: "the newest used idle
//!   socket", otherwise FIFO). Aborting an exchange closes its connection; the
//!   server's side is reset (`Net::reset`: the client's kernel answers further data
//!   with a RST, and `tcp_reset` purges the server's write queue).
//! * **HTTP/2**: one connection; every exchange is a stream; the server
//!   interleaves DATA frames of the active streams round-robin (nginx writes
//!   `http2_chunk_size` = 8 KiB at a time). Aborting sends RST_STREAM: the server
//!   writes nothing more for that stream.
//!
//! The server writes only while its socket has room (Linux's autotuned send
//! buffer, see `Net::write_room`), so what sits unsent in the socket is bounded:
//! streams that start later interleave with the rest of a long response, as they
//! do through a real socket.
//!
//! Requests, connects and aborts travel client → server as small messages on
//! the reverse path. The byte layout of each connection (which exchange owns
//! which bytes) is the `FrameLog` the server appends to and the client reads
//! from — in a real stack the frame and message headers carry it.
//!
//! Sizes (typical browser/nginx values): HTTP/1.1 request 400 B, response
//! header 300 B; HTTP/2 request HEADERS 100 B, response HEADERS 50 B, 9 B of
//! header per DATA frame.

use crate::app::{Net, Opener};
use crate::net::packet::ConnId;
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// Browsers open at most this many HTTP/1.1 connections per host.
pub const H1_MAX_CONNECTIONS: usize = 6;
/// nginx `http2_chunk_size`: bytes of one stream written before moving to the next.
pub const H2_CHUNK: u64 = 8 * 1024;
const H2_FRAME_HEADER: u64 = 9;
/// Set in an upstream message id to mean "abort exchange `id`".
pub const ABORT: u64 = 1 << 63;
/// An upstream message that closes its (idle) connection.
pub const CLOSE: u64 = 1 << 62;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    #[serde(rename = "h1")]
    H1,
    #[default]
    #[serde(rename = "h2")]
    H2,
}

impl Version {
    pub fn request_bytes(self) -> u32 {
        match self {
            Version::H1 => 400,
            Version::H2 => 100,
        }
    }

    pub fn response_header_bytes(self) -> u64 {
        match self {
            Version::H1 => 300,
            Version::H2 => 50,
        }
    }
}

/// One request/response.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub conn: Option<ConnId>,
    /// Response header + body bytes on the wire (frame headers excluded).
    pub response_bytes: u64,
    pub body_bytes: u64,
    /// Response bytes received by the client.
    pub received: u64,
    pub requested_at: Option<Time>,
    pub first_byte_at: Option<Time>,
    pub completed_at: Option<Time>,
    pub aborted: bool,
}

impl Exchange {
    pub fn is_complete(&self) -> bool {
        self.completed_at.is_some()
    }

    /// Body bytes received (the response header arrives first).
    pub fn body_received(&self) -> u64 {
        self.received
            .saturating_sub(self.response_bytes - self.body_bytes)
    }
}

/// What arrived for one exchange in one batch of in-order bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub id: u64,
    pub first: bool,
    pub complete: bool,
}

#[derive(Debug, Default)]
struct ClientConn {
    connected: bool,
    closed: bool,
    /// HTTP/1.1: the exchange in progress.
    busy: Option<u64>,
    /// It has carried an exchange (Chromium's `WasEverUsed`).
    used: bool,
    /// When it last became idle, as a count of such moments (connected, or an exchange done).
    idle_since: u64,
    /// Bytes of this connection's stream and the exchange each belongs to (`None` = framing).
    log: VecDeque<(Option<u64>, u64)>,
}

impl ClientConn {
    /// It becomes idle now: the next of the client's `idled` moments.
    fn become_idle(&mut self, idled: &mut u64) {
        self.idle_since = *idled;
        *idled += 1;
    }
}

#[derive(Debug, Default)]
struct ServerConn {
    /// Exchanges with bytes still to write, in round-robin order: (id, bytes left, header sent).
    streams: VecDeque<(u64, u64, bool)>,
    closed: bool,
}

/// Both ends of one HTTP session between a client and a server.
pub struct Http {
    version: Version,
    max_connections: usize,
    exchanges: Vec<Exchange>,
    client: BTreeMap<ConnId, ClientConn>,
    server: BTreeMap<ConnId, ServerConn>,
    /// Requests waiting for a connection.
    queue: VecDeque<u64>,
    /// Connections that have become idle so far (orders `ClientConn::idle_since`).
    idled: u64,
}

impl Http {
    pub fn new(version: Version, max_connections: usize) -> Self {
        let max_connections = match version {
            Version::H1 => max_connections.clamp(1, H1_MAX_CONNECTIONS),
            Version::H2 => 1,
        };
        Http {
            version,
            max_connections,
            exchanges: Vec::new(),
            client: BTreeMap::new(),
            server: BTreeMap::new(),
            queue: VecDeque::new(),
            idled: 0,
        }
    }

    pub fn exchange(&self, id: u64) -> &Exchange {
        &self.exchanges[id as usize]
    }

    /// Client: issues a request for a response of `body_bytes`; returns its id.
    pub fn request(&mut self, body_bytes: u64, net: &mut dyn Net) -> u64 {
        let id = self.exchanges.len() as u64;
        let header = self.version.response_header_bytes();
        self.exchanges.push(Exchange {
            conn: None,
            response_bytes: header + body_bytes,
            body_bytes,
            received: 0,
            requested_at: Some(net.now()),
            first_byte_at: None,
            completed_at: None,
            aborted: false,
        });
        self.queue.push_back(id);
        self.dispatch(net);
        id
    }

    /// Sends queued requests on usable connections, opening connections as needed.
    fn dispatch(&mut self, net: &mut dyn Net) {
        while let Some(&id) = self.queue.front() {
            // the newest idle among the used ones, else the oldest idle
            let usable = self
                .client
                .iter()
                .filter(|(_, c)| {
                    c.connected && !c.closed && (self.version == Version::H2 || c.busy.is_none())
                })
                .max_by_key(|(_, c)| {
                    (
                        c.used,
                        if c.used {
                            c.idle_since
                        } else {
                            u64::MAX - c.idle_since
                        },
                    )
                })
                .map(|(&k, _)| k);
            match usable {
                Some(conn) => {
                    self.queue.pop_front();
                    let c = self.client.get_mut(&conn).unwrap();
                    if self.version == Version::H1 {
                        c.busy = Some(id);
                    }
                    c.used = true;
                    self.exchanges[id as usize].conn = Some(conn);
                    net.send_upstream(conn, id, self.version.request_bytes());
                }
                None => {
                    let open = self.client.values().filter(|c| !c.closed).count();
                    let pending = self
                        .client
                        .values()
                        .filter(|c| !c.closed && !c.connected)
                        .count();
                    // open another connection only if none is already on its way and the pool allows it
                    if pending == 0 && open < self.max_connections {
                        let conn = net.open(Opener::Client);
                        self.client.insert(conn, ClientConn::default());
                    }
                    return;
                }
            }
        }
    }

    /// Client: `conn` is established.
    pub fn on_connected(&mut self, conn: ConnId, net: &mut dyn Net) {
        if let Some(c) = self.client.get_mut(&conn) {
            c.connected = true;
            c.become_idle(&mut self.idled);
        }
        self.dispatch(net);
    }

    /// Client: `bytes` arrived in order on `conn`; returns what each touched exchange got.
    pub fn on_data(
        &mut self,
        conn: ConnId,
        mut bytes: u64,
        net: &mut dyn Net,
        out: &mut Vec<Arrival>,
    ) {
        let now = net.now();
        let Some(c) = self.client.get_mut(&conn) else {
            return;
        };
        let mut freed = false;
        while bytes > 0 {
            let Some((owner, left)) = c.log.front_mut() else {
                break;
            };
            let take = bytes.min(*left);
            *left -= take;
            bytes -= take;
            let owner = *owner;
            if *left == 0 {
                c.log.pop_front();
            }
            let Some(id) = owner else { continue };
            let x = &mut self.exchanges[id as usize];
            if x.aborted || c.closed {
                continue;
            }
            let first = x.first_byte_at.is_none();
            if first {
                x.first_byte_at = Some(now);
            }
            x.received += take;
            let complete = x.received == x.response_bytes;
            if complete {
                x.completed_at = Some(now);
                if c.busy == Some(id) {
                    c.busy = None;
                    c.become_idle(&mut self.idled);
                    freed = true;
                }
            }
            match out.iter_mut().find(|a| a.id == id) {
                Some(a) => a.complete |= complete,
                None => out.push(Arrival {
                    id,
                    first,
                    complete,
                }),
            }
        }
        if freed {
            self.dispatch(net);
        }
    }

    /// Client: gives up on exchange `id` (dash.js abandonment).
    pub fn abort(&mut self, id: u64, net: &mut dyn Net) {
        let x = &mut self.exchanges[id as usize];
        if x.aborted || x.is_complete() {
            return;
        }
        x.aborted = true;
        x.completed_at = Some(net.now());
        match x.conn {
            None => self.queue.retain(|&q| q != id),
            Some(conn) => {
                net.send_upstream(conn, id | ABORT, self.version.request_bytes());
                if self.version == Version::H1 {
                    // the browser closes an HTTP/1.1 connection to abort its response
                    if let Some(c) = self.client.get_mut(&conn) {
                        c.closed = true;
                        c.busy = None;
                    }
                    self.dispatch(net);
                }
            }
        }
    }

    /// Client: closes every idle connection (a browser dropping the connections a page
    /// was loaded on); later requests open new ones.
    pub fn close_idle(&mut self, net: &mut dyn Net) {
        let exchanges = &self.exchanges;
        let idle = |conn: ConnId| {
            !exchanges
                .iter()
                .any(|x| x.conn == Some(conn) && !x.is_complete())
        };
        for (&conn, c) in &mut self.client {
            if c.connected && !c.closed && idle(conn) {
                c.closed = true;
                net.send_upstream(conn, CLOSE, self.version.request_bytes());
            }
        }
    }

    /// Server: message `msg` (a request, an abort or a close) arrived on `conn`.
    pub fn on_upstream(&mut self, conn: ConnId, msg: u64, net: &mut dyn Net) {
        let s = self.server.entry(conn).or_default();
        if msg == CLOSE {
            s.closed = true;
            net.finish(conn);
            return;
        }
        if msg & ABORT != 0 {
            let id = msg & !ABORT;
            s.streams.retain(|(x, _, _)| *x != id);
            if self.version == Version::H1 {
                // the browser closed the socket with the response unread: Linux answers with a
                // RST, and the server's `tcp_reset` purges its write queue
                s.closed = true;
                net.reset(conn);
            }
            return;
        }
        if s.closed {
            return;
        }
        let size = self.exchanges[msg as usize].response_bytes;
        s.streams.push_back((msg, size, false));
        self.on_writable(conn, net);
    }

    /// Server: writes response bytes into `conn`'s socket while it has room.
    pub fn on_writable(&mut self, conn: ConnId, net: &mut dyn Net) {
        let Some(s) = self.server.get_mut(&conn) else {
            return;
        };
        let Some(c) = self.client.get_mut(&conn) else {
            return;
        };
        let header = self.version.response_header_bytes();
        while let Some((id, left, started)) = s.streams.front_mut() {
            let room = net.write_room(conn);
            if room == 0 {
                break;
            }
            let (id, mut wire) = (*id, 0);
            if self.version == Version::H2 {
                if !*started {
                    c.log.push_back((Some(id), header));
                    wire += header;
                    *left -= header;
                    *started = true;
                }
                let chunk = (*left).min(H2_CHUNK);
                if chunk > 0 {
                    c.log.push_back((None, H2_FRAME_HEADER));
                    c.log.push_back((Some(id), chunk));
                    wire += H2_FRAME_HEADER + chunk;
                    *left -= chunk;
                }
            } else {
                let chunk = (*left).min(room.max(1));
                c.log.push_back((Some(id), chunk));
                wire += chunk;
                *left -= chunk;
            }
            net.write(conn, wire);
            let done = *left == 0;
            let entry = s.streams.pop_front().unwrap();
            if !done {
                s.streams.push_back(entry); // round-robin (HTTP/2); HTTP/1.1 has a single stream
            }
        }
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Connections the client has opened so far.
    pub fn connections(&self) -> usize {
        self.client.len()
    }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
