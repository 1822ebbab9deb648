//! The packet: one TCP segment or ACK on the wire.

use crate::time::{Duration, Time};

/// Index of a connection in the simulation (a flow has one or more).
pub type ConnId = u32;

/// IPv4 + TCP header bytes with the timestamp option: 1448 B of payload ride in a 1500 B packet.
pub const HEADER_BYTES: u32 = 52;
/// At most this many SACK blocks fit in an ACK next to the timestamp option (RFC 2018, Linux).
pub const MAX_SACK_BLOCKS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Connection request (sender → receiver).
    Syn,
    /// Connection accepted (receiver → sender).
    SynAck,
    Data,
    Ack,
    /// Client asks the server to open the connection (stands in for the client's SYN).
    Connect,
    /// An application message from client to server (an HTTP request); `seq` is its id.
    Request,
}

impl Kind {
    /// Travels from the client (receiving) side to the server (sending) side.
    pub fn is_upstream(self) -> bool {
        matches!(
            self,
            Kind::SynAck | Kind::Ack | Kind::Connect | Kind::Request
        )
    }
}

/// A received byte range `[start, end)` reported in an ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub conn: ConnId,
    pub kind: Kind,
    /// Bytes on the wire (IP packet: headers included).
    pub wire_bytes: u32,
    /// The length the bottleneck's qdisc and shaper charge: `wire_bytes` plus the link-layer
    /// header the router's device adds (Linux `qdisc_pkt_len`, set by the bottleneck on
    /// arrival; `wire_bytes` until then).
    pub qdisc_len: u32,
    /// Data: first payload byte. ACK: cumulative acknowledgement (next byte expected).
    pub seq: u64,
    /// Data: payload bytes.
    pub len: u32,
    /// When the packet left its host.
    pub sent_at: Time,
    /// When it entered the bottleneck queue (set by the bottleneck).
    pub enqueued_at: Time,
    pub is_retrans: bool,
    /// ACK: SACK blocks, most recent first.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    pub sack_len: u8,
    /// ACK: advertised receive window, bytes beyond `seq`.
    pub rwnd: u64,
    /// ACK: sent by the delayed-ACK timer.
    pub delayed: bool,
    /// ACK: how long the receiver held it after the newest data packet arrived (QUIC's
    /// ACK Delay field).
    pub ack_delay: Duration,
    /// ACK: reports duplicate data (stands in for a D-SACK block).
    pub dsack: bool,
}

impl Packet {
    fn new(conn: ConnId, kind: Kind, wire_bytes: u32, now: Time) -> Self {
        Packet {
            conn,
            kind,
            wire_bytes,
            qdisc_len: wire_bytes,
            seq: 0,
            len: 0,
            sent_at: now,
            enqueued_at: now,
            is_retrans: false,
            sack: [SackBlock::default(); MAX_SACK_BLOCKS],
            sack_len: 0,
            rwnd: 0,
            delayed: false,
            ack_delay: Duration::ZERO,
            dsack: false,
        }
    }

    pub fn data(conn: ConnId, seq: u64, len: u32, is_retrans: bool, now: Time) -> Self {
        let mut p = Packet::new(conn, Kind::Data, len + HEADER_BYTES, now);
        p.seq = seq;
        p.len = len;
        p.is_retrans = is_retrans;
        p
    }

    pub fn ack(
        conn: ConnId,
        cum_ack: u64,
        sack: &[SackBlock],
        rwnd: u64,
        delayed: bool,
        now: Time,
    ) -> Self {
        let blocks = sack.len().min(MAX_SACK_BLOCKS);
        // SACK option: 2 bytes + 8 per block, padded to 4 bytes
        let sack_bytes = if blocks == 0 {
            0
        } else {
            (2 + 8 * blocks as u32).div_ceil(4) * 4
        };
        let mut p = Packet::new(conn, Kind::Ack, HEADER_BYTES + sack_bytes, now);
        p.seq = cum_ack;
        p.sack[..blocks].copy_from_slice(&sack[..blocks]);
        p.sack_len = blocks as u8;
        p.rwnd = rwnd;
        p.delayed = delayed;
        p
    }

    /// A client → server control message; `id` names it to the server application.
    pub fn upstream(conn: ConnId, kind: Kind, id: u64, bytes: u32, now: Time) -> Self {
        let mut p = Packet::new(conn, kind, HEADER_BYTES + bytes, now);
        p.seq = id;
        p
    }

    pub fn syn(conn: ConnId, now: Time) -> Self {
        Packet::new(conn, Kind::Syn, HEADER_BYTES + 8, now)
    }

    pub fn syn_ack(conn: ConnId, now: Time) -> Self {
        Packet::new(conn, Kind::SynAck, HEADER_BYTES + 8, now)
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.sack_len as usize]
    }

    pub fn end_seq(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acks_requests_and_handshake_replies_travel_upstream() {
        let upstream = [Kind::SynAck, Kind::Ack, Kind::Connect, Kind::Request];
        let downstream = [Kind::Syn, Kind::Data];
        assert!(upstream.iter().all(|k| k.is_upstream()));
        assert!(downstream.iter().all(|k| !k.is_upstream()));
    }

    #[test]
    fn sack_blocks_add_their_padded_option_to_an_ack_and_at_most_three_fit() {
        let block = |i: u64| SackBlock {
            start: 10 * i,
            end: 10 * i + 5,
        };
        let blocks: Vec<SackBlock> = (1..=4).map(block).collect();
        // option: 2 bytes + 8 per block, padded to a multiple of 4
        let sizes: Vec<u32> = (0..=4)
            .map(|n| Packet::ack(0, 7, &blocks[..n], 0, false, Time::ZERO).wire_bytes)
            .collect();
        assert_eq!(sizes, vec![52, 64, 72, 80, 80]);
        let ack = Packet::ack(0, 7, &blocks, 9000, true, Time::ZERO);
        assert_eq!(ack.sack_blocks(), &blocks[..3]);
        assert_eq!((ack.seq, ack.rwnd, ack.delayed), (7, 9000, true));
    }

    #[test]
    fn a_data_packet_carries_its_payload_behind_the_headers() {
        let p = Packet::data(3, 1000, 1448, true, Time::from_millis(2));
        assert_eq!(
            (p.wire_bytes, p.end_seq(), p.is_retrans),
            (1500, 2448, true)
        );
        assert_eq!(p.sent_at, Time::from_millis(2));
        assert_eq!(Packet::syn(0, Time::ZERO).wire_bytes, 60);
        assert_eq!(Packet::syn_ack(0, Time::ZERO).wire_bytes, 60);
        let request = Packet::upstream(0, Kind::Request, 42, 300, Time::ZERO);
        assert_eq!((request.seq, request.wire_bytes), (42, 352));
    }
}
