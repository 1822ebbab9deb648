//! One run: a dumbbell built from a [`Scenario`], driven event by event.
//!
//! ```text
//!  sender i ─access link i (line rate, ½ extra_rtt)─► bottleneck ─forward link (½ rtt)─► receiver i
//!      ▲                                                                                     │
//!      └────────────────────── reverse link i (½ rtt + ½ extra_rtt) ◄────────────────────────┘
//! ```
//!
//! Each event names its target by index; components never hold references
//! to each other. A run is a pure function of the scenario (and its seed).

use crate::app::bulk::Bulk;
use crate::cc::HostShared;
use crate::engine::{Alarm, Rng, Scheduler};
use crate::metrics::tables::{FlowRow, QueueRow};
use crate::metrics::{summarize, Metrics, Window};
use crate::net::bottleneck::{Bottleneck, Release};
use crate::net::link::Link;
use crate::net::packet::{Kind, Packet};
use crate::net::qdisc::{DropTail, Dropped};
use crate::net::service::{Service, TokenBucket};
use crate::scenario::{App, Scenario, Shaper};
use crate::time::{Duration, Time};
use crate::transport::receiver::{ReceiverConfig, TcpReceiver};
use crate::transport::rtt::RTO_MIN;
use crate::transport::sender::{SenderConfig, TcpSender};
use crate::transport::Outbox;
use crate::units::Rate;

/// Random-stream ids: one per component kind, offset by flow index.
const STREAM_LOSS: u64 = 1;
const STREAM_CC: u64 = 1 << 32;

#[derive(Clone, Copy, Debug)]
enum Event {
    FlowStart(u32),
    FlowStop(u32),
    AccessArrive(u32),
    ForwardArrive,
    ReverseArrive(u32),
    BottleneckWake,
    SenderTimer(u32),
    ReceiverTimer(u32),
    RateChange(u32),
    Tick,
    WindowStart,
    WindowEnd,
}

struct FlowRuntime {
    sender: TcpSender,
    receiver: TcpReceiver,
    access: Link,
    reverse: Link,
    app: Bulk,
    done: bool,
}

/// Counts for the benchmark and for conservation checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub events: u64,
    /// Packets put on the wire by senders and receivers.
    pub packets: u64,
    /// Packets that reached a host.
    pub packets_received: u64,
    /// Packets dropped at the bottleneck.
    pub packets_dropped: u64,
    /// Packets still on a link or in the queue when the run ended.
    pub packets_in_network: u64,
    pub sim_time: Duration,
}

/// Everything a run produced.
pub struct Output {
    pub summary: serde_json::Value,
    pub metrics: Metrics,
    pub flow_names: Vec<String>,
    pub stats: RunStats,
}

pub struct Simulation {
    scenario: Scenario,
    sched: Scheduler<Event>,
    flows: Vec<FlowRuntime>,
    bottleneck: Bottleneck,
    bn_alarm: Alarm,
    forward: Link,
    metrics: Metrics,
    outbox: Outbox,
    acks: Vec<Packet>,
    drops: Vec<Dropped>,
    interval: Option<Duration>,
    end: Option<Time>,
    flows_done: usize,
    packets: u64,
    received: u64,
}

impl Simulation {
    pub fn new(scenario: Scenario) -> Self {
        let b = &scenario.bottleneck;
        let half_rtt = b.rtt.div(2);
        let service = match (&b.trace, &b.shaper, b.rate) {
            (Some((_, trace)), _, _) => Service::trace(trace.clone()),
            (None, Shaper::Tbf { burst_bytes }, Some(rate)) => Service::Shaped {
                bucket: TokenBucket::new(rate, *burst_bytes),
                line_rate: b.line_rate,
            },
            (None, _, rate) => Service::Plain {
                rate: rate.unwrap_or(Rate::ZERO),
            },
        };
        let bottleneck = Bottleneck::new(
            Box::new(DropTail::new(b.limit)),
            service,
            b.loss,
            Rng::stream(scenario.seed, STREAM_LOSS),
        );
        let flows = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let extra = f.extra_rtt.div(2);
                let cfg = SenderConfig {
                    mss: f.mss,
                    initial_cwnd: f.initial_cwnd,
                    slow_start_after_idle: f.slow_start_after_idle,
                };
                let rx = ReceiverConfig {
                    mss: f.mss,
                    rcvbuf: f.rcvbuf,
                    idle_quickack_gap: RTO_MIN + b.rtt + f.extra_rtt,
                };
                FlowRuntime {
                    sender: TcpSender::new(
                        i as u32,
                        cfg,
                        f.cc.clone(),
                        Rng::stream(scenario.seed, STREAM_CC + i as u64),
                        HostShared::default(),
                    ),
                    receiver: TcpReceiver::new(i as u32, rx),
                    access: Link::new(Some(b.line_rate), extra),
                    reverse: Link::new(None, (b.rtt - half_rtt) + (f.extra_rtt - extra)),
                    app: match f.app {
                        App::Bulk { bytes } => Bulk::new(bytes),
                    },
                    done: false,
                }
            })
            .collect();
        let t = &scenario.telemetry;
        let end = scenario.duration.map(|d| Time::ZERO + d);
        let window_end = match (t.summary_end, end) {
            (Some(e), Some(d)) => (Time::ZERO + e).min(d),
            (Some(e), None) => Time::ZERO + e,
            (None, Some(d)) => d,
            (None, None) => Time::NEVER,
        };
        let window = Window {
            start: Time::ZERO + t.summary_start,
            end: window_end,
        };
        let metrics = Metrics::new(scenario.flows.len(), window, t.rate_samples);
        Simulation {
            sched: Scheduler::new(),
            flows,
            bottleneck,
            bn_alarm: Alarm::default(),
            forward: Link::new(None, half_rtt),
            metrics,
            outbox: Outbox::default(),
            acks: Vec::new(),
            drops: Vec::new(),
            interval: t.interval,
            end,
            flows_done: 0,
            packets: 0,
            received: 0,
            scenario,
        }
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> Output {
        for (i, f) in self.scenario.flows.iter().enumerate() {
            self.sched
                .schedule(Time::ZERO + f.start, Event::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                self.sched
                    .schedule(Time::ZERO + stop, Event::FlowStop(i as u32));
            }
        }
        for (k, (at, _)) in self.scenario.bottleneck.schedule.iter().enumerate() {
            self.sched
                .schedule(Time::ZERO + *at, Event::RateChange(k as u32));
        }
        if self.interval.is_some() {
            self.sched.schedule(Time::ZERO, Event::Tick);
        }
        self.sched
            .schedule(self.metrics.window.start, Event::WindowStart);
        if self.metrics.window.end != Time::NEVER {
            self.sched
                .schedule(self.metrics.window.end, Event::WindowEnd);
        }
        let until = self.end.unwrap_or(Time::NEVER);
        while let Some((now, ev)) = self.sched.pop_until(until) {
            self.dispatch(now, ev);
            if self.end.is_none() && self.flows_done == self.flows.len() {
                break;
            }
        }
        let now = self.end.unwrap_or(self.sched.now());
        self.sched.advance_to(now);
        self.finish(now)
    }

    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::FlowStart(i) => {
                let f = &mut self.flows[i as usize];
                f.sender.connect(now, &mut self.outbox);
                f.app.on_start(now, &mut f.sender, &mut self.outbox);
                self.metrics.on_flow_start(now, i as usize);
                self.flush_sender(now, i as usize);
            }
            Event::FlowStop(i) => {
                self.flows[i as usize].sender.stop_writing();
                self.check_done(now, i as usize);
            }
            Event::AccessArrive(i) => {
                let (pkt, next) = self.flows[i as usize].access.deliver(now);
                if let Some(t) = next {
                    self.sched.schedule(t, Event::AccessArrive(i));
                }
                if let Some(pkt) = pkt {
                    self.enqueue(now, pkt);
                }
            }
            Event::BottleneckWake => {
                if self.bn_alarm.on_fire(now) {
                    self.serve(now);
                }
            }
            Event::ForwardArrive => {
                let (pkt, next) = self.forward.deliver(now);
                if let Some(t) = next {
                    self.sched.schedule(t, Event::ForwardArrive);
                }
                if let Some(pkt) = pkt {
                    self.deliver_to_receiver(now, pkt);
                }
            }
            Event::ReverseArrive(i) => {
                let i = i as usize;
                let (pkt, next) = self.flows[i].reverse.deliver(now);
                if let Some(t) = next {
                    self.sched.schedule(t, Event::ReverseArrive(i as u32));
                }
                if let Some(pkt) = pkt {
                    self.received += 1;
                    self.flows[i].sender.on_packet(now, &pkt, &mut self.outbox);
                    self.flush_sender(now, i);
                    if pkt.kind == Kind::Ack {
                        self.on_cc_update(now, i);
                        self.check_done(now, i);
                    }
                }
            }
            Event::SenderTimer(i) => {
                self.flows[i as usize]
                    .sender
                    .on_timer(now, &mut self.outbox);
                self.flush_sender(now, i as usize);
                self.on_cc_update(now, i as usize);
            }
            Event::ReceiverTimer(i) => {
                let f = &mut self.flows[i as usize];
                f.receiver.on_timer(now, &mut self.acks);
                self.flush_receiver(now, i as usize);
            }
            Event::RateChange(k) => {
                let (_, rate) = self.scenario.bottleneck.schedule[k as usize];
                self.bottleneck.set_rate(now, rate);
                self.serve(now);
            }
            Event::Tick => {
                self.record_tick(now);
                if let Some(iv) = self.interval {
                    self.sched.schedule(now + iv, Event::Tick);
                }
            }
            Event::WindowStart | Event::WindowEnd => {
                let bytes = self.sender_bytes();
                self.metrics
                    .snapshot(matches!(ev, Event::WindowStart), &bytes);
            }
        }
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) {
        let flow = pkt.flow as usize;
        let result = self.bottleneck.arrive(now, pkt);
        self.metrics
            .on_arrival(now, flow, self.bottleneck.backlog_bytes());
        if let Err(d) = result {
            self.metrics.on_drop(&d.packet, d.reason);
        }
        self.serve(now);
    }

    /// Lets packets leave the bottleneck until it must wait.
    fn serve(&mut self, now: Time) {
        loop {
            match self.bottleneck.release(now, &mut self.drops) {
                Release::Depart { packet, done } => {
                    self.metrics
                        .on_departure(now, &packet, self.bottleneck.backlog_bytes());
                    if let Some(t) = self.forward.send(done, packet) {
                        self.sched.schedule(t, Event::ForwardArrive);
                    }
                }
                Release::Wait(t) => {
                    if let Some(t) = self.bn_alarm.set(t) {
                        self.sched.schedule(t, Event::BottleneckWake);
                    }
                    break;
                }
                Release::Idle => break,
            }
        }
        for d in self.drops.drain(..) {
            self.metrics.on_drop(&d.packet, d.reason);
        }
    }

    fn deliver_to_receiver(&mut self, now: Time, pkt: Packet) {
        self.received += 1;
        let i = pkt.flow as usize;
        let f = &mut self.flows[i];
        let readable = f.receiver.on_packet(now, &pkt, &mut self.acks);
        if readable > 0 {
            let read = f.app.on_receive(readable);
            f.receiver.read(now, read, &mut self.acks);
            self.metrics.on_delivered(now, i, read);
        }
        self.flush_receiver(now, i);
    }

    fn flush_sender(&mut self, now: Time, i: usize) {
        let f = &mut self.flows[i];
        for pkt in self.outbox.packets.drain(..) {
            self.packets += 1;
            if let Some(t) = f.access.send(now, pkt) {
                self.sched.schedule(t, Event::AccessArrive(i as u32));
            }
        }
        let mss = self.scenario.flows[i].mss;
        for rs in self.outbox.samples.drain(..) {
            self.metrics.on_rate_sample(now, i, &rs, mss);
        }
        if let Some(t) = f.sender.poll_timer() {
            self.sched.schedule(t, Event::SenderTimer(i as u32));
        }
    }

    fn flush_receiver(&mut self, now: Time, i: usize) {
        let f = &mut self.flows[i];
        for ack in self.acks.drain(..) {
            self.packets += 1;
            if let Some(t) = f.reverse.send(now, ack) {
                self.sched.schedule(t, Event::ReverseArrive(i as u32));
            }
        }
        if let Some(t) = f.receiver.poll_timer() {
            self.sched.schedule(t, Event::ReceiverTimer(i as u32));
        }
    }

    fn on_cc_update(&mut self, now: Time, i: usize) {
        let Some(cc) = self.flows[i].sender.cc() else {
            return;
        };
        let (state, m) = (cc.state_name(), cc.metrics());
        self.metrics.on_cc_update(now, i, state, &m);
        if self.interval.is_none() {
            self.record_flow(now, i);
        }
    }

    fn check_done(&mut self, now: Time, i: usize) {
        let f = &mut self.flows[i];
        if !f.done && f.sender.is_drained() {
            f.done = true;
            self.flows_done += 1;
            self.metrics.on_flow_done(now, i);
        }
    }

    fn record_tick(&mut self, now: Time) {
        for i in 0..self.flows.len() {
            self.record_flow(now, i);
        }
        let counters = self.metrics.bottleneck.counters;
        let tokens = self.bottleneck.tokens_bytes(now);
        self.metrics.queue.push(QueueRow {
            t: now.as_secs_f64(),
            backlog_bytes: self.bottleneck.backlog_bytes(),
            backlog_pkts: self.bottleneck.backlog_packets() as u32,
            drops: counters.queue_drops + counters.random_drops,
            arrivals: counters.arrivals,
            departed_bytes: counters.departed_bytes,
            tokens_bytes: tokens,
        });
    }

    fn record_flow(&mut self, now: Time, i: usize) {
        let f = &self.flows[i];
        let Some(cc) = f.sender.cc() else { return };
        let snap = f.sender.snapshot(now);
        let m = cc.metrics();
        let state = self.metrics.state_code(cc.state_name());
        let secs = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        let opt = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let acc = &self.metrics.per_flow[i];
        let row = FlowRow {
            t: now.as_secs_f64(),
            flow: i as u16,
            cc_state: state,
            cwnd_pkts: cc.cwnd(),
            inflight_pkts: snap.inflight,
            pacing_rate_bps: cc.pacing_rate().map_or(f64::NAN, |r| r.bps_f64()),
            delivery_rate_bps: acc.last_rate_bps,
            srtt_s: secs(snap.srtt),
            min_rtt_s: secs(snap.min_rtt),
            bw_est_bps: opt(m.bw_est_bps),
            delivered_bytes: acc.counters.delivered_bytes,
            acked_bytes: snap.snd_una,
            retransmitted_bytes: f.sender.stats.bytes_retransmitted,
            lost_pkts: snap.lost_pkts,
            ssthresh_pkts: m.ssthresh_pkts.map_or(f64::NAN, |s| s as f64),
            pacing_gain: opt(m.pacing_gain),
            cwnd_gain: opt(m.cwnd_gain),
            round: m.round.map_or(f64::NAN, |r| r as f64),
        };
        self.metrics.flows.push(row);
    }

    fn sender_bytes(&self) -> Vec<(u64, u64)> {
        self.flows
            .iter()
            .map(|f| {
                (
                    f.sender.stats.bytes_sent,
                    f.sender.stats.bytes_retransmitted,
                )
            })
            .collect()
    }

    fn finish(mut self, now: Time) -> Output {
        if self.metrics.window.end > now {
            self.metrics.window.end = now;
        }
        self.metrics.finish(now);
        if self.metrics.bottleneck.at_window_end.is_none() {
            let bytes = self.sender_bytes();
            self.metrics.snapshot(false, &bytes);
        }
        let stats: Vec<_> = self.flows.iter().map(|f| f.sender.stats.clone()).collect();
        let counters = self.metrics.bottleneck.counters;
        let in_network = (self.forward.packets_in_flight()
            + self.bottleneck.backlog_packets()
            + self
                .flows
                .iter()
                .map(|f| f.access.packets_in_flight() + f.reverse.packets_in_flight())
                .sum::<usize>()) as u64;
        let mut summary = summarize(&self.scenario, &self.metrics, now, &stats);
        let head = serde_json::json!({
            "name": self.scenario.name,
            "seed": self.scenario.seed,
            "version": crate::VERSION,
            "duration_s": now.as_secs_f64(),
            "summary_window_s": [self.metrics.window.start.as_secs_f64(), self.metrics.window.end.as_secs_f64()],
            "scenario": self.scenario.to_json(),
        });
        if let (Some(s), serde_json::Value::Object(h)) = (summary.as_object_mut(), head) {
            s.extend(h);
        }
        Output {
            summary,
            flow_names: self.scenario.flows.iter().map(|f| f.name.clone()).collect(),
            stats: RunStats {
                events: self.sched.events_processed(),
                packets: self.packets,
                packets_received: self.received,
                packets_dropped: counters.queue_drops + counters.random_drops,
                packets_in_network: in_network,
                sim_time: now.saturating_since(Time::ZERO),
            },
            metrics: self.metrics,
        }
    }
}
