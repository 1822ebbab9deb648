//! Test drivers shared by unit tests (behind `cfg(test)` or the `testing` feature).
//!
//! [`AckDriver`] feeds a congestion-control algorithm a hand-written script of
//! ACKs, losses and timeouts, keeping the connection counters it lends the
//! algorithm (`delivered`, `lost`, `inflight`, ...) consistent, the way
//! quiche's `TestSender` does. It is not a network: the script decides what
//! each ACK delivers, and the driver refills the window after every ACK (a
//! cwnd-limited bulk sender) unless told the sender is app-limited.

use crate::cc::{CaState, CcInit, CcMetrics, CongestionControl, Conn, SentPacket, Timeout};
use crate::engine::Rng;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::{RateSample, Reference, TxSnapshot};
use crate::units::Rate;

pub const MSS: u32 = 1448;
/// More ACKs than any script needs (tens of simulated minutes at 2 ms).
const MAX_ACKS: usize = 1_000_000;

/// `CcInit` for tests: MSS 1448, IW10, a fixed random stream.
pub fn init() -> CcInit {
    CcInit {
        mss: MSS,
        initial_cwnd: 10,
        srtt: None,
        rng: Rng::stream(1, 1),
        host: Default::default(),
    }
}

/// One scripted ACK. Build with [`Ack::new`] and the setters.
#[derive(Clone, Debug)]
pub struct Ack {
    /// Packets newly acked or sacked.
    pub acked: u32,
    /// Packets newly marked lost.
    pub lost: u32,
    /// RTT sample carried by the ACK.
    pub rtt: Option<Duration>,
    /// Delivery-rate sample as (packets delivered, interval); `None` = invalid sample.
    pub sample: Option<(u64, Duration)>,
    pub app_limited: bool,
    /// The receiver held this ACK on its delayed-ACK timer.
    pub delayed: bool,
    /// Time that passes before this ACK arrives.
    pub after: Duration,
    /// How long before this ACK the newest lost packet was sent (default: its RTT sample).
    pub lost_sent_ago: Option<Duration>,
    /// Each lost packet's send-time snapshot (default: none, as a SACK leaves it).
    pub lost_snapshot: TxSnapshot,
}

impl Ack {
    /// `acked` packets, arriving `after` the previous event, with no RTT or rate sample.
    pub fn new(acked: u32, after: Duration) -> Self {
        Ack {
            acked,
            lost: 0,
            rtt: None,
            sample: None,
            app_limited: false,
            delayed: false,
            after,
            lost_sent_ago: None,
            lost_snapshot: TxSnapshot::default(),
        }
    }
    pub fn rtt(mut self, rtt: Duration) -> Self {
        self.rtt = Some(rtt);
        self
    }
    pub fn lost(mut self, n: u32) -> Self {
        self.lost = n;
        self
    }
    /// `n` packets lost, the newest of them sent `ago` before this ACK.
    pub fn lost_sent(mut self, n: u32, ago: Duration) -> Self {
        self.lost = n;
        self.lost_sent_ago = Some(ago);
        self
    }
    /// The lost packets were sent with this snapshot of the connection.
    pub fn lost_snapshot(mut self, sent: TxSnapshot) -> Self {
        self.lost_snapshot = sent;
        self
    }
    /// A rate sample of `pkts_per_sec` measured over `interval`.
    pub fn rate(mut self, pkts_per_sec: f64, interval: Duration) -> Self {
        let delivered = (pkts_per_sec * interval.as_secs_f64()).round() as u64;
        self.sample = Some((delivered.max(1), interval));
        self
    }
    pub fn app_limited(mut self) -> Self {
        self.app_limited = true;
        self
    }
    pub fn delayed(mut self) -> Self {
        self.delayed = true;
        self
    }
}

/// Drives one algorithm through a script.
pub struct AckDriver<C: CongestionControl> {
    pub cc: C,
    pub now: Time,
    pub conn: Conn,
    /// Refill inflight to cwnd after each ACK (cwnd-limited sender).
    pub fill_window: bool,
    /// Every rate sample handed to the algorithm, in order.
    pub samples: Vec<RateSample>,
}

impl<C: CongestionControl> AckDriver<C> {
    pub fn new(cc: C) -> Self {
        let inflight = cc.cwnd();
        let conn = Conn {
            mss: MSS,
            inflight,
            snd_nxt: inflight as u64 * MSS as u64,
            is_cwnd_limited: true,
            cwnd_fully_used: true,
            ..Conn::default()
        };
        AckDriver {
            cc,
            now: Time::ZERO,
            conn,
            fill_window: true,
            samples: Vec::new(),
        }
    }

    /// Delivers one scripted ACK and returns the rate sample the algorithm saw.
    pub fn ack(&mut self, a: Ack) -> RateSample {
        // A script waiting for a state that never comes fails here, not by exhausting memory.
        assert!(
            self.samples.len() < MAX_ACKS,
            "more than {MAX_ACKS} scripted ACKs: the script is stuck"
        );
        self.now += a.after;
        let prior_in_flight = self.conn.inflight;
        self.conn.delivered += a.acked as u64;
        for _ in 0..a.lost {
            self.conn.lost += 1;
            self.cc
                .on_packet_lost(self.now, &self.conn, &a.lost_snapshot);
        }
        self.conn.inflight = self.conn.inflight.saturating_sub(a.acked + a.lost);
        self.conn.snd_una_advanced = a.acked > 0;
        self.conn.snd_una += a.acked as u64 * MSS as u64;
        if let Some(rtt) = a.rtt {
            self.conn.min_rtt = Some(self.conn.min_rtt.map_or(rtt, |m| m.min(rtt)));
            self.conn.srtt = Some(self.conn.srtt.map_or(rtt, |s| {
                Duration::from_nanos((s.as_nanos() * 7 + rtt.as_nanos()) / 8)
            }));
        }
        if a.acked > 0 {
            self.conn.delivered_time = self.now;
        }
        if a.lost > 0 {
            let ago = a.lost_sent_ago.or(a.rtt).unwrap_or_default();
            let newest_sent = self.now.saturating_sub(ago);
            self.cc.on_loss_detected(self.now, &self.conn, newest_sent);
        }
        let rs = RateSample {
            delivered: a.sample.map(|(d, _)| d),
            interval: a.sample.map(|(_, i)| i),
            reference: Reference {
                prior_delivered: a
                    .sample
                    .map_or(0, |(d, _)| self.conn.delivered.saturating_sub(d)),
                prior_time: a.sample.map(|(_, i)| self.now.saturating_sub(i)),
                // The reference packet is the one whose RTT this ACK measured.
                prior_sent: a.rtt.map(|rtt| self.now.saturating_sub(rtt)),
                is_app_limited: a.app_limited,
                ..Reference::default()
            },
            acked_sacked: a.acked,
            losses: a.lost,
            prior_in_flight,
            rtt: a.rtt,
            is_ack_delayed: a.delayed,
            ..RateSample::default()
        };
        if crate::cc::hears_ack(&self.cc, &rs) {
            self.cc.on_ack(self.now, &self.conn, &rs);
        }
        self.refill(a.app_limited);
        self.samples.push(rs);
        rs
    }

    /// The connection's first packet leaves at `at` (now moves there).
    pub fn first_send(&mut self, at: Time) {
        self.now = at;
        let first = SentPacket {
            payload_bytes: MSS,
            is_retrans: false,
            inflight: 1,
        };
        self.cc.on_packet_sent(at, &self.conn, &first);
    }

    /// Sending resumes now from idle: nothing in flight, the app-limited bubble open.
    pub fn send_from_idle(&mut self) {
        let idle = Conn {
            app_limited: true,
            inflight: 0,
            ..self.conn.clone()
        };
        self.cc.on_tx_start(self.now, &idle);
    }

    /// Loss detected: the transport enters fast recovery.
    pub fn enter_recovery(&mut self) {
        self.conn.ca_state = CaState::Recovery;
        self.cc.on_recovery_start(self.now, &self.conn);
    }

    /// Recovery ends (snd_una passed high_seq).
    pub fn exit_recovery(&mut self) {
        self.conn.ca_state = CaState::Open;
    }

    /// Retransmission timeout after `after`: everything in flight is marked lost.
    pub fn rto(&mut self, after: Duration) {
        self.rto_marking(after, Timeout::default());
    }

    /// As [`Self::rto`], with `marked` telling the algorithm what the timeout marked lost (its
    /// `new_episode` is set here, from the CA state).
    pub fn rto_marking(&mut self, after: Duration, marked: Timeout) {
        self.now += after;
        let timeout = Timeout {
            new_episode: self.conn.ca_state < CaState::Recovery,
            ..marked
        };
        for _ in 0..self.conn.inflight {
            self.conn.lost += 1;
            self.cc
                .on_packet_lost(self.now, &self.conn, &TxSnapshot::default());
        }
        self.conn.inflight = 0;
        self.conn.ca_state = CaState::Loss;
        self.cc.on_rto(self.now, &self.conn, &timeout);
        self.refill(false);
    }

    /// Runs `n` identical ACKs.
    pub fn acks(&mut self, n: usize, a: Ack) {
        for _ in 0..n {
            self.ack(a.clone());
        }
    }

    fn refill(&mut self, app_limited: bool) {
        let cwnd = self.cc.cwnd();
        self.conn.is_cwnd_limited = !app_limited;
        self.conn.cwnd_fully_used = !app_limited;
        if self.fill_window && !app_limited && self.conn.inflight < cwnd {
            let sent = cwnd - self.conn.inflight;
            self.conn.inflight = cwnd;
            self.conn.snd_nxt += sent as u64 * MSS as u64;
        }
    }
}

/// What a sender shows the transport: cwnd, pacing rate, TSO goal, the app-limited
/// request, state and telemetry.
pub type Outputs = (
    u32,
    Option<Rate>,
    Option<u32>,
    bool,
    &'static str,
    CcMetrics,
);

pub fn outputs(cc: &impl CongestionControl) -> Outputs {
    (
        cc.cwnd(),
        cc.pacing_rate(),
        cc.tso_segs(),
        cc.wants_app_limited(),
        cc.state_name(),
        cc.metrics(),
    )
}

/// A send from empty on a connection that is not app-limited (say, the first resend after a
/// timeout) is no restart from idle (Linux's `bbr_cwnd_event` checks `tp->app_limited`): the
/// outputs stay as they were.
pub fn assert_busy_send_is_no_idle_restart<C: CongestionControl>(d: &mut AckDriver<C>) {
    let before = outputs(&d.cc);
    let busy = Conn {
        app_limited: false,
        ..d.conn.clone()
    };
    d.cc.on_tx_start(d.now, &busy);
    assert_eq!(outputs(&d.cc), before);
}

/// Asserts that two tours agree, naming the first step where they do not.
pub fn assert_same_tour(ours: &[Outputs], theirs: &[Outputs], label: &str) {
    for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(a, b, "step {k}, {label}");
    }
    assert_eq!(ours.len(), theirs.len(), "{label}");
}

/// Every hook of a BBR-like sender, with `step` (an ACK of a 10 ms path) in between,
/// and the outputs after each: a first send 15 s in; ACKs from 10 s later, when a
/// 10 s min_rtt window begun at that send has expired (PROBE_RTT), until 4 packets are
/// in flight; a send from idle 300 ms on (past a 200 ms PROBE_RTT hold); ACKs; a loss;
/// fast recovery with more losses, then its exit; a timeout; ACKs.
pub fn hook_tour<C: CongestionControl>(cc: C, step: &Ack) -> Vec<Outputs> {
    let mut d = AckDriver::new(cc);
    let mut out = Vec::new();
    d.first_send(Time::from_secs(15));
    out.push(outputs(&d.cc));
    d.now += Duration::from_secs(10);
    d.fill_window = false;
    while d.conn.inflight > 4 {
        d.ack(step.clone());
        out.push(outputs(&d.cc));
    }
    d.ack(step.clone());
    d.now += Duration::from_millis(300);
    d.send_from_idle();
    out.push(outputs(&d.cc));
    d.fill_window = true;
    let mut acks = |d: &mut AckDriver<C>, a: Ack, n: usize| {
        for _ in 0..n {
            d.ack(a.clone());
            out.push(outputs(&d.cc));
        }
    };
    acks(&mut d, step.clone(), 3);
    acks(&mut d, step.clone().lost(2), 1);
    d.enter_recovery();
    acks(&mut d, step.clone().lost(2), 2); // cwnd falls below the one saved at entry
    acks(&mut d, step.clone(), 2);
    d.exit_recovery();
    acks(&mut d, step.clone(), 3);
    d.rto(Duration::from_millis(200));
    acks(&mut d, step.clone(), 4);
    out
}

/// A range-check table's row: `got` is accepted when `want` is `None`, and otherwise refused
/// with a message containing `want`.
pub fn assert_validation(got: Result<(), String>, want: Option<&str>, case: &dyn std::fmt::Debug) {
    match (got, want) {
        (Ok(()), None) => {}
        (Err(e), Some(w)) => assert!(e.contains(w), "{case:?}: {e}"),
        (got, _) => panic!("{case:?}: {got:?}, want {want:?}"),
    }
}
