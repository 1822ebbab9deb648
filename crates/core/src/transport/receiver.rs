//! The receiving end of a connection: reassembly, SACK blocks, the ACK policy
//! and the advertised window.
//!
//! ACK policy (Linux `__tcp_ack_snd_check`, simplified as the spec's SIM CHOICE):
//! ACK at once when more than one full segment is unacknowledged, in
//! quick-ACK mode (the first 16 ACKs of a connection and after an idle gap),
//! when out-of-order data is held or a hole has just been filled, and for
//! duplicate data; otherwise the delayed-ACK timer (40 ms) sends it.
//!
//! SACK blocks go most-recently-changed first, at most three on the wire next
//! to the timestamp option (Linux `tcp_sack_new_ofo_skb`, RFC 2018 §4).
//! The window advertised is the receive buffer minus what it holds (data the
//! application has not read, plus out-of-order data), or QUIC stream flow control as the
//! Chromium QUIC client does it (`flow_control = "quiche"`, [`super::flow_control`]).
//!
//! `ack_policy = "quiche"` instead acks as the Chromium QUIC client of the
//! ATC'23 testbed does (QUICHE `QuicReceivedPacketManager`): every second
//! packet (or after 25 ms) for the first 100 packets, then ACK decimation —
//! every 10th packet, or a quarter of the path's minimum RTT (25 ms at most,
//! 1 ms at least) after the first unacknowledged one. Acknowledged at once:
//! data below the highest received (it was missing), duplicates, and the
//! first 4 packets above a new gap (`HasNewMissingPackets`); no quick-ACK
//! mode. The receiver takes the path's RTT from the scenario (a QUIC client
//! measures it during the handshake, on the empty path).
//!
//! Deviations: fixed 40 ms delayed-ACK timeout (Linux adapts `ato` from
//! inter-arrival times, between 40 and 200 ms, and doubles it, up to the RTO, each
//! time the timer fires); no receive-buffer autotuning (the buffer is at its maximum
//! from the start); the advertised window may shrink (`tcp_select_window` never moves
//! its right edge back); duplicate data sets a `dsack` flag on the ACK instead of
//! carrying a D-SACK block, and a duplicate of data held out of order also starts
//! quick-ACK mode (Linux only drops it and D-SACKs it). No SACK compression: Linux
//! 4.18+ acks the first three segments at one `rcv_nxt` at once and then holds SACKs
//! for min(1 ms, RTT/20), up to 44 (`tcp_comp_sack_*`); here each out-of-order
//! segment is acked at once. Modelled alone, compression cut BBR's drops in a half-BDP
//! buffer by up to half and took the retransmissions of 2–3 BBR flows further from the
//! real kernel's (2 flows: 3.9 % against the kernel's 6.6 %, 5.9 % without it), so it
//! waits for whatever else the real stack does there. The kernel's BBR hardly notices
//! compression: in that setting its client held back 210 249 ACKs and sent 193 071, and
//! with compression off (`tools/realstack` `COMP_SACK_NR=0`) 2 flows retransmitted
//! 6.7 / 7.3 % (on: 7.1 / 6.2 / 7.4 %) and 3 flows 12.0 / 11.4 % (on: 10.0 / 11.9 %).
//! The model held back about as many: it sent 0.44–0.45 ACKs per data segment (2 flows,
//! seeds 1–3; 0.66–0.86 without it), the kernel 0.40. So the difference lies in how the
//! sender here reacts to fewer SACKs. The QUICHE policy counts data
//! segments as QUIC packets and a hole in the byte stream as a missing packet number.
//!
//! # Constants
//!
//! | Name | Value | Meaning | Source |
//! |---|---|---|---|
//! | `DELAYED_ACK` | 40 ms | delayed-ACK timeout | Linux `TCP_DELACK_MIN` |
//! | `MAX_QUICKACKS` | 16 | quick ACKs at the start and after idle | Linux `TCP_MAX_QUICKACKS` |
//! | `QUICHE_MIN_RECEIVED_BEFORE_DECIMATION` | 100 | packets acked TCP-style first | `kMinReceivedBeforeAckDecimation` |
//! | `QUICHE_PACKETS_PER_ACK` | 2 | packets per ACK before decimation | `kDefaultRetransmittablePacketsBeforeAck` |
//! | `QUICHE_PACKETS_PER_ACK_DECIMATED` | 10 | packets per ACK once decimating | `kMaxRetransmittablePacketsBeforeAck` |
//! | `QUICHE_MAX_ACK_DELAY` | 25 ms | ACK alarm before decimation; its cap after | `kDefaultDelayedAckTimeMs` |
//! | `QUICHE_DECIMATION_DELAY` | 0.25 | ACK alarm while decimating, × min RTT | `kAckDecimationDelay` |
//! | `QUICHE_ALARM_GRANULARITY` | 1 ms | least ACK delay | `kAlarmGranularity` |
//! | `QUICHE_PACKETS_AFTER_NEW_MISSING` | 4 | packets after a new gap acked at once | `kMaxPacketsAfterNewMissing` |

use super::flow_control::{FlowControlKind, ReceiveWindow};
use crate::engine::Alarm;
use crate::net::packet::{ConnId, Packet, SackBlock, MAX_SACK_BLOCKS};
use crate::time::{Duration, Time};
use serde::{Deserialize, Serialize};

/// Delayed-ACK timeout (`TCP_DELACK_MIN`, initial `ato`).
pub const DELAYED_ACK: Duration = Duration::from_millis(40);
/// Quick ACKs granted at the start and after idle (`TCP_MAX_QUICKACKS`).
pub const MAX_QUICKACKS: u32 = 16;
/// QUICHE `kMinReceivedBeforeAckDecimation`: packets received before ACK decimation starts.
pub const QUICHE_MIN_RECEIVED_BEFORE_DECIMATION: u64 = 100;
/// QUICHE `kDefaultRetransmittablePacketsBeforeAck`: packets per ACK before decimation.
pub const QUICHE_PACKETS_PER_ACK: u32 = 2;
/// QUICHE `kMaxRetransmittablePacketsBeforeAck`: packets per ACK once decimating.
pub const QUICHE_PACKETS_PER_ACK_DECIMATED: u32 = 10;
/// QUICHE `kMaxPacketsAfterNewMissing`: packets after a new gap that are acked at once.
pub const QUICHE_PACKETS_AFTER_NEW_MISSING: u64 = 4;
/// QUICHE `kDefaultDelayedAckTimeMs` (the peer's `max_ack_delay`).
pub const QUICHE_MAX_ACK_DELAY: Duration = Duration::from_millis(25);
/// QUICHE `kAckDecimationDelay`: the ACK alarm while decimating, as a share of min RTT.
pub const QUICHE_DECIMATION_DELAY: f64 = 0.25;
/// QUICHE `kAlarmGranularity`: the least ACK delay.
pub const QUICHE_ALARM_GRANULARITY: Duration = Duration::from_millis(1);
/// Blocks Linux remembers (`TCP_NUM_SACKS`); three fit on the wire with timestamps.
const REMEMBERED_SACKS: usize = 4;

/// When the receiver acknowledges (scenario field `ack_policy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AckPolicy {
    /// Linux TCP's delayed ACKs with quick-ACK mode.
    #[default]
    Linux,
    /// The Chromium QUIC client's ACK decimation.
    Quiche,
}

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub mss: u32,
    /// Receive buffer for payload, bytes.
    pub rcvbuf: u64,
    /// Idle gap after which quick-ACK mode is re-entered (the receiver's RTO).
    pub idle_quickack_gap: Duration,
    pub ack_policy: AckPolicy,
    /// The path's round-trip time as the receiver knows it (the QUICHE ACK alarm).
    pub path_rtt: Duration,
    /// TCP's free buffer, or QUIC stream flow control as QUICHE's client does it.
    pub flow_control: FlowControlKind,
}

pub struct TcpReceiver {
    conn: ConnId,
    cfg: ReceiverConfig,
    established: bool,
    rcv_nxt: u64,
    /// Sequence acknowledged by the last ACK sent (`rcv_wup`).
    rcv_wup: u64,
    /// Out-of-order data held, sorted disjoint ranges.
    ooo: Vec<SackBlock>,
    ooo_bytes: u64,
    /// SACK blocks, most recently changed first.
    recent: Vec<SackBlock>,
    quick: u32,
    first_data_seen: bool,
    last_data_at: Time,
    delack_at: Option<Time>,
    alarm: Alarm,
    unread: u64,
    dup_pending: bool,
    acks_sent: u64,
    /// Data packets received, and since the last ACK (the QUICHE policy counts packets).
    packets_received: u64,
    packets_since_ack: u32,
    /// What its ACKs advertise.
    rwnd: ReceiveWindow,
}

impl TcpReceiver {
    pub fn new(conn: ConnId, cfg: ReceiverConfig) -> Self {
        let rwnd = ReceiveWindow::new(cfg.flow_control, cfg.rcvbuf);
        TcpReceiver {
            conn,
            cfg,
            established: false,
            rcv_nxt: 0,
            rcv_wup: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            recent: Vec::new(),
            quick: 0,
            first_data_seen: false,
            last_data_at: Time::ZERO,
            delack_at: None,
            alarm: Alarm::default(),
            unread: 0,
            dup_pending: false,
            acks_sent: 0,
            packets_received: 0,
            packets_since_ack: 0,
            rwnd,
        }
    }

    /// Handles a packet from the sender; ACKs go to `out`. Returns the payload
    /// bytes that just became readable in order.
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) -> u64 {
        match pkt.kind {
            crate::net::packet::Kind::Syn => {
                self.established = true;
                let mut syn_ack = Packet::syn_ack(self.conn, now);
                syn_ack.rwnd = self.window();
                out.push(syn_ack);
                0
            }
            crate::net::packet::Kind::Data if self.established => self.on_data(now, pkt, out),
            _ => 0,
        }
    }

    fn on_data(&mut self, now: Time, pkt: &Packet, out: &mut Vec<Packet>) -> u64 {
        // tcp_event_data_recv: quick-ACK mode at the first data and after a long gap
        if !self.first_data_seen
            || now.saturating_since(self.last_data_at) > self.cfg.idle_quickack_gap
        {
            self.first_data_seen = true;
            self.quick = self.quick.max(MAX_QUICKACKS);
        }
        self.last_data_at = now;
        let (start, end) = (pkt.seq, pkt.end_seq());
        // QUICHE's "was missing": below the highest data received so far.
        let was_missing = start < self.highest_received();
        let before = self.rcv_nxt;
        let had_ooo = !self.ooo.is_empty();
        let mut ack_now = false;
        if end <= self.rcv_nxt || self.is_held(start, end) {
            // duplicate: force an immediate ACK (Linux enters quick-ACK mode and sends a D-SACK)
            self.dup_pending = true;
            self.quick = self.quick.max(MAX_QUICKACKS);
            ack_now = true;
        } else if start <= self.rcv_nxt {
            self.rcv_nxt = end;
            self.pull_ooo();
            if had_ooo {
                ack_now = true; // a hole was (partly) filled: RFC 5681 §4.2
            }
        } else {
            self.hold(start, end);
        }
        let newly = self.rcv_nxt - before;
        self.unread += newly;
        self.packets_received += 1;
        self.packets_since_ack += 1;
        let (due, delay) = match self.cfg.ack_policy {
            AckPolicy::Linux => (
                !self.ooo.is_empty()
                    || self.rcv_nxt - self.rcv_wup > self.cfg.mss as u64
                    || self.quick > 0,
                DELAYED_ACK,
            ),
            AckPolicy::Quiche => {
                let (count_due, delay) = self.quiche_ack_due();
                (count_due || was_missing || self.quiche_new_missing(), delay)
            }
        };
        if ack_now || due {
            self.send_ack(now, false, out);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + delay);
        }
        newly
    }

    /// QUICHE `HasNewMissingPackets`: a gap lies below the newest data, and the run of
    /// data above the highest gap is at most `kMaxPacketsAfterNewMissing` packets long.
    fn quiche_new_missing(&self) -> bool {
        self.ooo.last().is_some_and(|top| {
            top.end - top.start <= QUICHE_PACKETS_AFTER_NEW_MISSING * self.cfg.mss as u64
        })
    }

    /// QUICHE `MaybeUpdateAckTimeout`'s packet count: ACK now, or the alarm's delay.
    fn quiche_ack_due(&self) -> (bool, Duration) {
        // QUICHE compares the packet number: packets 0–99 are acked TCP-style.
        if self.packets_received <= QUICHE_MIN_RECEIVED_BEFORE_DECIMATION {
            return (
                self.packets_since_ack >= QUICHE_PACKETS_PER_ACK,
                QUICHE_MAX_ACK_DELAY,
            );
        }
        let quarter = self.cfg.path_rtt.mul_f64(QUICHE_DECIMATION_DELAY);
        (
            self.packets_since_ack >= QUICHE_PACKETS_PER_ACK_DECIMATED,
            quarter.clamp(QUICHE_ALARM_GRANULARITY, QUICHE_MAX_ACK_DELAY),
        )
    }

    /// End of the highest data received (QUICHE's largest observed packet): in order up to
    /// `rcv_nxt`, anything beyond it is held out of order.
    fn highest_received(&self) -> u64 {
        self.ooo
            .last()
            .map_or(self.rcv_nxt, |b| b.end.max(self.rcv_nxt))
    }

    fn is_held(&self, start: u64, end: u64) -> bool {
        self.ooo.iter().any(|b| b.start <= start && end <= b.end)
    }

    fn hold(&mut self, start: u64, end: u64) {
        let lo = self.ooo.partition_point(|b| b.end < start);
        let hi = self.ooo.partition_point(|b| b.start <= end);
        let mut merged = SackBlock { start, end };
        for b in &self.ooo[lo..hi] {
            merged.start = merged.start.min(b.start);
            merged.end = merged.end.max(b.end);
            self.ooo_bytes -= b.end - b.start;
        }
        self.ooo.splice(lo..hi, [merged]);
        self.ooo_bytes += merged.end - merged.start;
        self.recent
            .retain(|r| r.end < merged.start || r.start > merged.end);
        self.recent.insert(0, merged);
        self.recent.truncate(REMEMBERED_SACKS);
    }

    fn pull_ooo(&mut self) {
        while let Some(b) = self.ooo.first().copied() {
            if b.start > self.rcv_nxt {
                break;
            }
            self.ooo.remove(0);
            self.ooo_bytes -= b.end - b.start;
            self.rcv_nxt = self.rcv_nxt.max(b.end);
        }
        let nxt = self.rcv_nxt;
        self.recent.retain(|r| r.end > nxt);
    }

    fn send_ack(&mut self, now: Time, delayed: bool, out: &mut Vec<Packet>) {
        let window = self.window();
        let blocks = &self.recent[..self.recent.len().min(MAX_SACK_BLOCKS)];
        let mut ack = Packet::ack(self.conn, self.rcv_nxt, blocks, window, delayed, now);
        ack.dsack = self.dup_pending;
        ack.ack_delay = now.saturating_since(self.last_data_at);
        self.dup_pending = false;
        out.push(ack);
        self.rcv_wup = self.rcv_nxt;
        self.delack_at = None;
        self.quick = self.quick.saturating_sub(1);
        self.packets_since_ack = 0;
        self.acks_sent += 1;
    }

    /// Advertised window, bytes beyond `rcv_nxt` ([`ReceiveWindow`]).
    pub fn window(&mut self) -> u64 {
        self.rwnd
            .advertise(self.rcv_nxt, self.unread, self.ooo_bytes)
    }

    /// The application reads `bytes`; sends a window update if the window had closed.
    pub fn read(&mut self, now: Time, bytes: u64, out: &mut Vec<Packet>) {
        let closed = self.window() < self.cfg.mss as u64;
        self.unread -= bytes.min(self.unread);
        if closed && self.window() >= self.cfg.mss as u64 && self.established {
            self.send_ack(now, false, out);
        }
    }

    pub fn on_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.alarm.on_fire(now) {
            return;
        }
        if self.delack_at.is_some_and(|t| t <= now) {
            self.send_ack(now, true, out);
        }
    }

    /// Time the owner must schedule a timer event at, if any.
    pub fn poll_timer(&mut self) -> Option<Time> {
        self.alarm
            .set(self.delack_at.unwrap_or(Time::NEVER))
            .filter(|t| *t != Time::NEVER)
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    pub fn acks_sent(&self) -> u64 {
        self.acks_sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn rx() -> TcpReceiver {
        rx_with(AckPolicy::Linux)
    }

    fn config(ack_policy: AckPolicy) -> ReceiverConfig {
        ReceiverConfig {
            mss: MSS,
            rcvbuf: 1 << 20,
            idle_quickack_gap: Duration::from_secs(1),
            ack_policy,
            path_rtt: Duration::from_millis(100),
            flow_control: FlowControlKind::Linux,
        }
    }

    fn rx_with(ack_policy: AckPolicy) -> TcpReceiver {
        connected(config(ack_policy))
    }

    /// A receiver with a 5000-byte buffer: five segments fill it.
    fn rx_small() -> TcpReceiver {
        connected(ReceiverConfig {
            rcvbuf: 5000,
            ..config(AckPolicy::Linux)
        })
    }

    fn connected(cfg: ReceiverConfig) -> TcpReceiver {
        let mut r = TcpReceiver::new(0, cfg);
        r.on_packet(Time::ZERO, &Packet::syn(0, Time::ZERO), &mut Vec::new());
        r
    }

    #[test]
    fn quiche_acks_every_second_packet_then_decimates_to_every_tenth() {
        let mut r = rx_with(AckPolicy::Quiche);
        let mut out = Vec::new();
        // No quick-ACK mode: the first packet waits for the 25 ms alarm.
        r.on_packet(Time::ZERO, &seg(0), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.poll_timer(), Some(Time::from_millis(25)));
        r.on_packet(Time::ZERO, &seg(1), &mut out);
        assert_eq!(out.len(), 1);
        deliver(&mut r, Time::ZERO, 2..100, &mut out);
        assert_eq!(out.len(), 50, "an ACK per 2 packets for the first 100");
        out.clear();
        // From the 100th packet on: every 10th, or a quarter of the 100 ms path RTT.
        let later = Time::from_millis(1000);
        deliver(&mut r, later, 100..109, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack_at, Some(Time::from_millis(1025)));
        r.on_packet(later, &seg(109), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 110 * MSS as u64);
    }

    #[test]
    fn quiche_decimation_alarm_is_a_quarter_of_a_short_path_rtt() {
        let mut r = rx_with(AckPolicy::Quiche);
        r.cfg.path_rtt = Duration::from_millis(40);
        let mut out = Vec::new();
        deliver(&mut r, Time::ZERO, 0..101, &mut out);
        assert_eq!(r.poll_timer(), Some(Time::from_millis(10)));
        // A new gap: the first 4 packets above it are acked at once, then decimation resumes.
        out.clear();
        deliver(&mut r, Time::ZERO, 105..109, &mut out);
        assert_eq!(out.len(), 4);
        r.on_packet(Time::ZERO, &seg(109), &mut out);
        assert_eq!(out.len(), 4, "the 5th packet above the gap waits");
        // A retransmission inside the gap was missing: acked at once, though it fills nothing.
        r.on_packet(Time::ZERO, &seg(103), &mut out);
        assert_eq!(out.len(), 5);
        // The retransmission that fills the gap is acked at once.
        r.on_packet(Time::ZERO, &seg(101), &mut out);
        assert_eq!(out.len(), 6);
    }

    fn seg(i: u64) -> Packet {
        Packet::data(0, i * MSS as u64, MSS, false, Time::ZERO)
    }

    /// Segments `segs` reach `r` at `at`, in that order.
    fn deliver(
        r: &mut TcpReceiver,
        at: Time,
        segs: impl IntoIterator<Item = u64>,
        out: &mut Vec<Packet>,
    ) {
        for i in segs {
            r.on_packet(at, &seg(i), out);
        }
    }

    #[test]
    fn after_the_quick_acks_every_second_segment_is_acked_and_a_lone_one_waits_40ms() {
        let mut r = rx();
        let mut out = Vec::new();
        deliver(&mut r, Time::ZERO, 0..16, &mut out);
        assert_eq!(
            out.len(),
            16,
            "quick-ACK mode acks each of the first 16 segments"
        );
        assert_eq!(r.acks_sent(), 16);
        out.clear();
        r.on_packet(Time::ZERO, &seg(16), &mut out);
        assert!(out.is_empty());
        assert_eq!(r.poll_timer(), Some(Time::from_millis(40)));
        r.on_packet(Time::ZERO, &seg(17), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 18 * MSS as u64);
        r.on_packet(Time::from_millis(1), &seg(18), &mut out);
        r.poll_timer();
        r.on_timer(Time::from_millis(41), &mut out);
        assert!(out[1].delayed);
        // each ACK reports how long it was held after the newest data packet arrived
        assert_eq!(out[0].ack_delay, Duration::ZERO);
        assert_eq!(out[1].ack_delay, Duration::from_millis(40));
    }

    /// `tcp_event_data_recv`: quick-ACK mode again only for a gap longer than the RTO.
    #[test]
    fn data_after_an_idle_gap_longer_than_the_rto_is_acked_at_once() {
        let idle = Duration::from_secs(1);
        for (gap, acked) in [(idle, false), (idle + Duration::from_nanos(1), true)] {
            let mut r = rx();
            let mut out = Vec::new();
            deliver(&mut r, Time::ZERO, 0..16, &mut out);
            out.clear();
            r.on_packet(Time::ZERO + gap, &seg(16), &mut out);
            assert_eq!(out.len(), acked as usize, "after {gap:?}");
        }
    }

    #[test]
    fn data_before_the_syn_is_ignored() {
        let mut r = TcpReceiver::new(0, config(AckPolicy::Linux));
        let mut out = Vec::new();
        assert_eq!(r.on_packet(Time::ZERO, &seg(0), &mut out), 0);
        assert!(out.is_empty());
        assert_eq!(r.rcv_nxt(), 0);
    }

    #[test]
    fn sack_blocks_report_the_most_recent_hole_first() {
        let mut r = rx();
        let mut out = Vec::new();
        r.on_packet(Time::ZERO, &seg(0), &mut out);
        r.on_packet(Time::ZERO, &seg(2), &mut out);
        r.on_packet(Time::ZERO, &seg(5), &mut out);
        assert_eq!(
            out.last().unwrap().sack_blocks(),
            &[
                SackBlock {
                    start: 5000,
                    end: 6000
                },
                SackBlock {
                    start: 2000,
                    end: 3000
                }
            ]
        );
        r.on_packet(Time::ZERO, &seg(3), &mut out);
        assert_eq!(r.rcv_nxt(), MSS as u64);
        let last = out.last().unwrap();
        assert_eq!(last.seq, MSS as u64);
        assert_eq!(
            last.sack_blocks(),
            &[
                SackBlock {
                    start: 2000,
                    end: 4000
                },
                SackBlock {
                    start: 5000,
                    end: 6000
                }
            ]
        );
        // filling the first hole delivers 1..4 and acks at once
        let n = r.on_packet(Time::ZERO, &seg(1), &mut out);
        assert_eq!(n, 3 * MSS as u64);
        assert_eq!(
            out.last().unwrap().sack_blocks(),
            &[SackBlock {
                start: 5000,
                end: 6000
            }]
        );
    }

    #[test]
    fn duplicate_data_is_acked_immediately_and_flagged() {
        let mut r = rx();
        let mut out = Vec::new();
        deliver(&mut r, Time::ZERO, 0..20, &mut out);
        out.clear();
        r.on_packet(Time::ZERO, &seg(3), &mut out);
        assert_eq!(out.len(), 1);
        assert!(out[0].dsack);
        // so is a second copy of data held out of order
        r.on_packet(Time::ZERO, &seg(25), &mut out);
        assert!(!out[1].dsack);
        r.on_packet(Time::ZERO, &seg(25), &mut out);
        assert_eq!(out.len(), 3);
        assert!(out[2].dsack);
    }

    #[test]
    fn unread_and_out_of_order_data_shrink_the_window() {
        let mut r = rx_small();
        let mut out = Vec::new();
        r.on_packet(Time::ZERO, &seg(0), &mut out);
        r.on_packet(Time::ZERO, &seg(2), &mut out);
        assert_eq!(r.window(), 3000);
        r.read(Time::ZERO, 1000, &mut out);
        assert_eq!(r.window(), 4000);
        r.on_packet(Time::ZERO, &seg(4), &mut out);
        assert_eq!(r.window(), 3000);
        // segment 3 joins the two held blocks into one of 3000 B
        r.on_packet(Time::ZERO, &seg(3), &mut out);
        assert_eq!(r.window(), 2000);
        // segment 1 fills the hole: 4000 B readable, none held
        assert_eq!(r.on_packet(Time::ZERO, &seg(1), &mut out), 4000);
        assert_eq!(r.window(), 1000);
    }

    #[test]
    fn a_quiche_window_holds_its_limit_behind_a_hole_and_moves_at_half_consumed() {
        let mut r = connected(ReceiverConfig {
            rcvbuf: 6000,
            flow_control: FlowControlKind::Quiche,
            ..config(AckPolicy::Linux)
        });
        let mut out = Vec::new();
        // segment 0 arrives and is read; 1 is lost; 2..4 are held beyond the hole
        r.on_packet(Time::ZERO, &seg(0), &mut out);
        r.read(Time::ZERO, 1000, &mut out);
        deliver(&mut r, Time::ZERO, [2, 3, 4], &mut out);
        // TCP would advertise 6000 − 3000 held; QUIC's limit stays at offset 6000
        let last = out.last().unwrap();
        assert_eq!((last.seq, last.rwnd), (1000, 5000));
        // the hole fills: 5000 consumed, less than half left, the limit moves to 11000
        r.on_packet(Time::ZERO, &seg(1), &mut out);
        r.read(Time::ZERO, 4000, &mut out);
        r.on_packet(Time::ZERO, &seg(5), &mut out);
        let last = out.last().unwrap();
        assert_eq!(last.seq + last.rwnd, 6000 + 5000);
    }

    /// Out-of-order bytes are counted once, however the blocks merge and drain.
    #[test]
    fn held_bytes_follow_merges_and_the_filled_hole() {
        let mut r = rx();
        let mut out = Vec::new();
        let full = 1 << 20;
        deliver(&mut r, Time::ZERO, [2, 4, 7, 8], &mut out);
        assert_eq!(r.window(), full - 4000);
        // 3 joins [2, 3) and [4, 5); [7, 9) stays apart
        r.on_packet(Time::ZERO, &seg(3), &mut out);
        assert_eq!(r.window(), full - 5000);
        // 0 and 1 make 0..5 readable; [7, 9) is still held
        r.on_packet(Time::ZERO, &seg(0), &mut out);
        r.on_packet(Time::ZERO, &seg(1), &mut out);
        assert_eq!(r.window(), full - 5000 - 2000);
    }

    #[test]
    fn a_read_that_reopens_a_closed_window_sends_an_update() {
        let mut r = rx_small();
        let mut out = Vec::new();
        deliver(&mut r, Time::ZERO, 0..5, &mut out);
        assert_eq!(r.window(), 0);
        out.clear();
        r.read(Time::ZERO, 2000, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].seq, out[0].rwnd), (5000, 2000));
        // the window was open: no update
        r.read(Time::ZERO, 1000, &mut out);
        assert_eq!(out.len(), 1);
        // a window of exactly one segment is open too
        let mut one = rx_small();
        deliver(&mut one, Time::ZERO, 0..4, &mut out);
        assert_eq!(one.window(), 1000);
        out.clear();
        one.read(Time::ZERO, 1000, &mut out);
        assert!(out.is_empty());
    }
}
