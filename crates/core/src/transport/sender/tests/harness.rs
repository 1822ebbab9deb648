//! The sender against a receiver over a path of fixed delay and unlimited rate that may
//! drop the sender's packets, and an algorithm that records what the sender tells it.

use super::super::*;
use crate::cc::CcMetrics;
use crate::net::packet::SackBlock;
use crate::transport::flow_control::FlowControlKind;
use crate::transport::rate_sample::TxSnapshot;
use crate::transport::receiver::{AckPolicy, ReceiverConfig, TcpReceiver};
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

pub const ONE_WAY: Duration = Duration::from_millis(10);
pub const MSS: u32 = 1448;

/// The sender of `cc` writing `bytes` (then finishing) over a lossless path before `until`:
/// its sends as [`Run::sends`] gives them, and the sender.
pub fn run(cc: CcConfig, tso: bool, bytes: u64, until: Time) -> (Vec<(usize, u32)>, TcpSender) {
    let r = run_path(sender(cc, tso), bytes, until, lossless, None);
    (r.sends, r.tx)
}

/// The lossless path: every packet arrives [`ONE_WAY`] after it was sent.
pub fn lossless(_: &Packet, now: Time) -> Option<Time> {
    Some(now + ONE_WAY)
}

/// CUBIC with its defaults.
pub fn cubic() -> CcConfig {
    CcConfig::Cubic(Default::default())
}

/// A CUBIC sender without TSO after [`run`].
pub fn cubic_run(bytes: u64, until: Time) -> TcpSender {
    run(cubic(), false, bytes, until).1
}

/// `cc`'s sender once five segments, written at the start, are all acknowledged (at 2 s).
pub fn idle_after_five(cc: CcConfig) -> TcpSender {
    let tx = run(cc, false, 5 * MSS as u64, Time::from_secs(2)).1;
    assert_eq!((tx.sb.packets_out, tx.acked_bytes()), (0, 5 * MSS as u64));
    tx
}

/// What [`run_path`] saw.
pub struct Run {
    pub tx: TcpSender,
    /// Per event that sent data: the data packets sent at that instant and the algorithm's
    /// TSO goal then (0 for an algorithm without one).
    pub sends: Vec<(usize, u32)>,
}

/// `tx` writing `bytes` (then finishing, unless `UNLIMITED`) until `until`. `path` gives
/// when a packet the sender sends at `now` reaches the receiver (`None`: it is lost);
/// ACKs take [`ONE_WAY`]. `spy`, if given, replaces the algorithm as soon as the handshake
/// has built it.
pub fn run_path(
    mut tx: TcpSender,
    bytes: u64,
    until: Time,
    mut path: impl FnMut(&Packet, Time) -> Option<Time>,
    mut spy: Option<Spy>,
) -> Run {
    let mut rx = TcpReceiver::new(
        0,
        ReceiverConfig {
            mss: MSS,
            rcvbuf: 1 << 30,
            idle_quickack_gap: Duration::from_millis(200),
            ack_policy: AckPolicy::Linux,
            path_rtt: ONE_WAY + ONE_WAY,
            flow_control: FlowControlKind::Linux,
        },
    );
    let mut events = Events::default();
    let mut out = Outbox::default();
    let mut now = Time::ZERO;
    let mut acks = Vec::new();
    let mut sends = Vec::new();
    tx.connect(now, &mut out);
    tx.write(now, bytes, false, &mut out);
    if bytes != UNLIMITED {
        tx.finish();
    }
    loop {
        let data = out.packets.iter().filter(|p| p.kind == Kind::Data).count();
        if data > 0 {
            sends.push((data, tx.cc().and_then(|cc| cc.tso_segs()).unwrap_or(0)));
        }
        for p in out.packets.drain(..) {
            if let Some(at) = path(&p, now) {
                events.push(at, true, Some(p));
            }
        }
        out.samples.clear();
        for p in acks.drain(..) {
            events.push(now + ONE_WAY, false, Some(p));
        }
        for t in tx.poll_timer().collect::<Vec<_>>() {
            events.push(t, false, None);
        }
        if let Some(t) = rx.poll_timer() {
            events.push(t, true, None);
        }
        let Some((t, event)) = events.pop() else {
            break;
        };
        if t >= until {
            break;
        }
        now = t;
        match event {
            (true, Some(p)) => {
                rx.on_packet(now, &p, &mut acks);
            }
            (true, None) => rx.on_timer(now, &mut acks),
            (false, Some(p)) => tx.on_packet(now, &p, &mut out),
            (false, None) => tx.on_timer(now, &mut out),
        }
        if tx.cc.is_some() {
            if let Some(spy) = spy.take() {
                tx.cc = Some(Box::new(spy));
            }
        }
    }
    Run { tx, sends }
}

/// A path through a bottleneck that sends one packet per `gap` and drops those `lose`
/// picks, then [`ONE_WAY`] of delay.
pub fn bottleneck(
    gap: Duration,
    lose: impl Fn(&Packet) -> bool,
) -> impl FnMut(&Packet, Time) -> Option<Time> {
    let mut free = Time::ZERO;
    move |p, now| {
        if lose(p) {
            return None;
        }
        free = free.max(now) + gap;
        Some(free + ONE_WAY)
    }
}

/// A sender of `cc`, not yet connected.
pub fn sender(cc: CcConfig, tso: bool) -> TcpSender {
    sender_on(cc, tso, SendQueueKind::Linux)
}

/// A sender of `cc` on `send_queue`, not yet connected.
pub fn sender_on(cc: CcConfig, tso: bool, send_queue: SendQueueKind) -> TcpSender {
    let cfg = SenderConfig {
        mss: MSS,
        initial_cwnd: 10,
        slow_start_after_idle: true,
        pacer: PacerKind::Linux,
        tso,
        rate_sampler: SamplerKind::Linux,
        send_queue,
    };
    TcpSender::new(0, cfg, cc, Rng::stream(1, 0), HostShared::default())
}

/// A plain cumulative ACK of everything below `seq`, sent at `at`, with an open window.
pub fn ack_to(seq: u64, at: Time) -> Packet {
    Packet::ack(0, seq, &[], 1 << 30, false, at)
}

/// A duplicate ACK, sent at `at`, that SACKs segments `from..to` of `tx`'s scoreboard
/// (absolute indices).
pub fn sack(tx: &TcpSender, from: u64, to: u64, at: Time) -> Packet {
    let block = SackBlock {
        start: tx.sb.get(from).unwrap().seq,
        end: tx.sb.get(to - 1).unwrap().end(),
    };
    Packet::ack(0, tx.snd_una, &[block], 1 << 30, false, at)
}

/// A cumulative ACK, sent at `at`, of `tx`'s segments up to and including `last`.
pub fn ack_through(tx: &TcpSender, last: u64, at: Time) -> Packet {
    ack_to(tx.sb.get(last).unwrap().end(), at)
}

/// When tests take over from the path and feed the sender ACKs by hand.
pub const NOW: Time = Time::from_millis(95);

/// A sender of `cc` in slow start behind a 1 ms-per-packet bottleneck, at `NOW`: its
/// packets out left in groups of two to four, 2 ms apart.
pub fn mid_slow_start(cc: CcConfig) -> TcpSender {
    let path = bottleneck(Duration::from_millis(1), |_| false);
    let tx = run_path(sender(cc, false), UNLIMITED, NOW, path, None).tx;
    assert!(tx.sb.packets_out >= 10);
    tx
}

/// Segment `idx`, lost and resent at `NOW`.
pub fn resend(tx: &mut TcpSender, idx: u64) {
    tx.sb.mark_lost(idx);
    tx.retransmit(NOW, idx, false, &mut Outbox::default());
}

/// [`feed`] a duplicate ACK that SACKs `from..to`.
pub fn feed_sack(tx: &mut TcpSender, from: u64, to: u64, at: Time) -> RateSample {
    let p = sack(tx, from, to, at);
    feed(tx, &p)
}

/// [`feed`] a cumulative ACK through segment `last`.
pub fn feed_through(tx: &mut TcpSender, last: u64, at: Time) -> RateSample {
    let p = ack_through(tx, last, at);
    feed(tx, &p)
}

/// The sender takes `pkt`, arriving when it was sent; its rate sample.
pub fn feed(tx: &mut TcpSender, pkt: &Packet) -> RateSample {
    let mut out = Outbox::default();
    tx.on_packet(pkt.sent_at, pkt, &mut out);
    let [rs] = out.samples[..] else {
        panic!("{} samples", out.samples.len())
    };
    rs
}

/// What the sender told its algorithm.
#[derive(Default)]
pub struct Heard {
    /// Per ACK: the connection and the rate sample.
    pub acks: Vec<(Conn, RateSample)>,
    /// Per recovery start (fast recovery, or a probe's CWR): the connection then.
    pub reductions: Vec<Conn>,
    pub validations: Vec<WindowValidation>,
    /// Per retransmission timeout: the connection then, and what it marked lost.
    pub timeouts: Vec<(Conn, Timeout)>,
    /// Per loss detection: when the newest packet marked lost was sent.
    pub losses: Vec<Time>,
    /// Sending resumed with nothing in flight (`CA_EVENT_TX_START`).
    pub tx_starts: usize,
    /// Per packet marked lost: the connection then, and the packet's send-time snapshot.
    pub lost_packets: Vec<(Conn, TxSnapshot)>,
    /// The hooks called, in order.
    pub order: Vec<&'static str>,
}

/// An algorithm with a fixed window and slow-start threshold that records what it hears.
pub struct Spy {
    pub cwnd: u32,
    pub ssthresh: Option<u32>,
    /// Asks to hear only ACKs with a valid rate sample (the QUIC stacks' algorithms).
    pub valid_samples_only: bool,
    pub heard: Rc<RefCell<Heard>>,
}

impl Spy {
    pub fn new(cwnd: u32, ssthresh: Option<u32>) -> (Self, Rc<RefCell<Heard>>) {
        let heard = Rc::new(RefCell::new(Heard::default()));
        let spy = Spy {
            cwnd,
            ssthresh,
            valid_samples_only: false,
            heard: heard.clone(),
        };
        (spy, heard)
    }
}

impl CongestionControl for Spy {
    fn on_ack(&mut self, _now: Time, conn: &Conn, rs: &RateSample) {
        let mut heard = self.heard.borrow_mut();
        heard.acks.push((conn.clone(), *rs));
        heard.order.push("ack");
    }

    fn on_recovery_start(&mut self, _now: Time, conn: &Conn) {
        let mut heard = self.heard.borrow_mut();
        heard.reductions.push(conn.clone());
        heard.order.push("recovery");
    }

    fn on_rto(&mut self, _now: Time, conn: &Conn, timeout: &Timeout) {
        let mut heard = self.heard.borrow_mut();
        heard.timeouts.push((conn.clone(), *timeout));
        heard.order.push("rto");
    }

    fn on_packet_lost(&mut self, _now: Time, conn: &Conn, sent: &TxSnapshot) {
        let mut heard = self.heard.borrow_mut();
        heard.lost_packets.push((conn.clone(), *sent));
        heard.order.push("lost");
    }

    fn on_loss_detected(&mut self, _now: Time, _conn: &Conn, newest_sent: Time) {
        let mut heard = self.heard.borrow_mut();
        heard.losses.push(newest_sent);
        heard.order.push("losses");
    }

    fn on_tx_start(&mut self, _now: Time, _conn: &Conn) {
        self.heard.borrow_mut().tx_starts += 1;
    }

    fn valid_samples_only(&self) -> bool {
        self.valid_samples_only
    }

    fn on_window_validation(&mut self, _now: Time, _conn: &Conn, event: WindowValidation) {
        self.heard.borrow_mut().validations.push(event);
    }

    fn cwnd(&self) -> u32 {
        self.cwnd
    }

    fn pacing_rate(&self) -> Option<Rate> {
        None
    }

    fn state_name(&self) -> &'static str {
        "SPY"
    }

    fn metrics(&self) -> CcMetrics {
        CcMetrics {
            ssthresh_pkts: self.ssthresh,
            ..CcMetrics::default()
        }
    }
}

/// Events in time order, each for the receiver or not, with a packet or a timer's `None`.
#[derive(Default)]
struct Events {
    queue: BinaryHeap<Reverse<(Time, usize)>>,
    what: Vec<(bool, Option<Packet>)>,
}

impl Events {
    fn push(&mut self, t: Time, to_rx: bool, p: Option<Packet>) {
        self.queue.push(Reverse((t, self.what.len())));
        self.what.push((to_rx, p));
    }

    fn pop(&mut self) -> Option<(Time, (bool, Option<Packet>))> {
        let Reverse((t, i)) = self.queue.pop()?;
        Some((t, std::mem::take(&mut self.what[i])))
    }
}
