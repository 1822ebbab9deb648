//! One run: a dumbbell built from a [`Scenario`], driven event by event.
//!
//! ```text
//!  server side of conn c ─access link c (line rate, ½ extra_rtt)─► bottleneck ─forward link (½ rtt + jitter)─► client side of c
//!            ▲                                                                                            │
//!            └──────────────────── reverse link c (½ rtt + ½ extra_rtt): ACKs, requests ◄──────────────────┘
//! ```
//!
//! With `bottleneck.netem`, its delay is spent inside the bottleneck, in front of the queue,
//! and the two links share only what is left of the RTT (`rtt − netem.delay`, half each).
//!
//! In the `loopback` topology (`tc` on `lo`: one netem delay, then one qdisc, for both
//! directions) the half RTT moves in front of the bottleneck and the reverse link ends there:
//!
//! ```text
//!  server ─access link (line rate, ½ rtt + ½ extra_rtt)─► bottleneck ─forward link (jitter)─► client
//!  client ─reverse link (½ rtt + ½ extra_rtt)──────────► bottleneck ─forward link (jitter)─► server
//! ```
//!
//! A flow runs one application over one or more connections (a DASH player
//! over an HTTP/1.1 pool opens several). Each event names its target by
//! index; components never hold references to each other. A run is a pure
//! function of the scenario (and its seed).

use crate::app::bulk::Bulk;
use crate::app::dash::DashSession;
use crate::app::{App, Net, Opener};
use crate::cc::HostShared;
use crate::engine::{Alarm, Rng, Scheduler};
use crate::metrics::tables::{FlowRow, QueueRow};
use crate::metrics::{summarize, Metrics, Window};
use crate::net::bottleneck::{Bottleneck, Release};
use crate::net::delay_line::DelayLine;
use crate::net::link::Link;
use crate::net::packet::{ConnId, Kind, Packet};
use crate::net::qdisc::{DropTail, Dropped};
use crate::net::service::{Service, TokenBucket};
use crate::scenario::{AppSpec, Scenario, Shaper, Topology};
use crate::time::{Duration, Time};
use crate::transport::receiver::{ReceiverConfig, TcpReceiver};
use crate::transport::rtt::RTO_MIN;
use crate::transport::sender::{SenderConfig, TcpSender};
use crate::transport::Outbox;
use crate::units::Rate;

/// Random-stream ids: one per component kind, offset by connection index.
const STREAM_LOSS: u64 = 1;
const STREAM_JITTER: u64 = 2;
const STREAM_CC: u64 = 1 << 32;
// A connection's algorithm stream (STREAM_CC + its index) must never be the loss or jitter stream.
const _: () = assert!(STREAM_CC > STREAM_LOSS && STREAM_CC > STREAM_JITTER);

#[derive(Clone, Copy, Debug)]
enum Event {
    FlowStart(u32),
    FlowStop(u32),
    AppTimer(u32),
    AccessArrive(ConnId),
    ForwardArrive,
    ReverseArrive(ConnId),
    BottleneckWake,
    SenderTimer(ConnId),
    ReceiverTimer(ConnId),
    RateChange(u32),
    Tick,
    WindowStart,
    WindowEnd,
}

struct Connection {
    flow: usize,
    opener: Opener,
    sender: TcpSender,
    receiver: TcpReceiver,
    access: Link,
    reverse: Link,
    /// The client has seen the server's SYN and may send requests.
    connected: bool,
}

struct FlowState {
    host: HostShared,
    conns: Vec<ConnId>,
    timer: Alarm,
    done: bool,
}

/// Counts for the benchmark and for conservation checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub events: u64,
    /// The most events pending at once in the event queue.
    pub peak_pending_events: usize,
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
    /// Names of the connections, indexed like the `flow` column of the tables.
    pub conn_names: Vec<String>,
    pub stats: RunStats,
}

/// Everything but the applications, so an application can be handed `&mut` access to it.
struct Network {
    scenario: Scenario,
    sched: Scheduler<Event>,
    conns: Vec<Connection>,
    flows: Vec<FlowState>,
    bottleneck: Bottleneck,
    bn_alarm: Alarm,
    forward: Link,
    metrics: Metrics,
    outbox: Outbox,
    acks: Vec<Packet>,
    drops: Vec<Dropped>,
    conn_names: Vec<String>,
    packets: u64,
    received: u64,
}

pub struct Simulation {
    net: Network,
    apps: Vec<App>,
    interval: Option<Duration>,
    end: Option<Time>,
    flows_done: usize,
}

impl Simulation {
    pub fn new(scenario: Scenario) -> Self {
        let b = &scenario.bottleneck;
        let service = match (&b.trace, &b.shaper, b.rate) {
            (Some(t), _, _) => Service::trace(t.trace.clone()),
            (None, Shaper::Tbf { burst_bytes }, Some(rate)) => Service::Shaped {
                bucket: TokenBucket::new(rate, *burst_bytes),
                line_rate: b.line_rate,
            },
            (None, _, rate) => Service::Plain {
                rate: rate.unwrap_or(Rate::ZERO),
            },
        };
        let mut bottleneck = Bottleneck::new(
            Box::new(DropTail::new(b.limit)),
            service,
            b.loss,
            Rng::stream(scenario.seed, STREAM_LOSS),
        )
        .with_link_header(b.link_header);
        if let Some(n) = b.netem {
            bottleneck = bottleneck.with_netem(DelayLine::new(n.delay, n.limit));
        }
        let mut hosts: Vec<(String, HostShared)> = Vec::new();
        let flows = scenario
            .flows
            .iter()
            .map(|f| {
                let host = match hosts.iter().find(|(h, _)| *h == f.host) {
                    Some((_, shared)) => shared.clone(),
                    None => {
                        hosts.push((f.host.clone(), HostShared::default()));
                        hosts.last().unwrap().1.clone()
                    }
                };
                FlowState {
                    host,
                    conns: Vec::new(),
                    timer: Alarm::default(),
                    done: false,
                }
            })
            .collect();
        let apps = scenario
            .flows
            .iter()
            .map(|f| match &f.app {
                AppSpec::Bulk { bytes } => App::Bulk(Bulk::new(*bytes)),
                AppSpec::Dash(cfg) => App::Dash(Box::new(DashSession::new((**cfg).clone()))),
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
        let interval = t.interval;
        let propagation = match b.topology {
            Topology::Dumbbell => b.link_rtt().div(2),
            Topology::Loopback => Duration::ZERO,
        };
        let forward = Link::new(None, propagation)
            .with_jitter(b.jitter, Rng::stream(scenario.seed, STREAM_JITTER));
        Simulation {
            net: Network {
                sched: Scheduler::new(),
                conns: Vec::new(),
                flows,
                bottleneck,
                bn_alarm: Alarm::default(),
                forward,
                metrics,
                outbox: Outbox::default(),
                acks: Vec::new(),
                drops: Vec::new(),
                conn_names: Vec::new(),
                packets: 0,
                received: 0,
                scenario,
            },
            apps,
            interval,
            end,
            flows_done: 0,
        }
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> Output {
        let net = &mut self.net;
        for (i, f) in net.scenario.flows.iter().enumerate() {
            net.sched
                .schedule(Time::ZERO + f.start, Event::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                net.sched
                    .schedule(Time::ZERO + stop, Event::FlowStop(i as u32));
            }
        }
        for (k, (at, _)) in net.scenario.bottleneck.schedule.iter().enumerate() {
            net.sched
                .schedule(Time::ZERO + *at, Event::RateChange(k as u32));
        }
        if self.interval.is_some() {
            net.sched.schedule(Time::ZERO, Event::Tick);
        }
        net.sched
            .schedule(net.metrics.window.start, Event::WindowStart);
        if net.metrics.window.end != Time::NEVER {
            net.sched.schedule(net.metrics.window.end, Event::WindowEnd);
        }
        let until = self.end.unwrap_or(Time::NEVER);
        while let Some((now, ev)) = self.net.sched.pop_until(until) {
            self.dispatch(now, ev);
            if self.end.is_none() && self.flows_done == self.apps.len() {
                break;
            }
        }
        let now = self.end.unwrap_or(self.net.sched.now());
        self.net.sched.advance_to(now);
        self.finish(now)
    }

    fn dispatch(&mut self, now: Time, ev: Event) {
        match ev {
            Event::FlowStart(i) => {
                self.net.metrics.on_flow_start(now, i as usize);
                let (app, mut io) = self.app(now, i as usize);
                app.on_start(&mut io);
                self.check_done(now, i as usize);
            }
            Event::FlowStop(i) => {
                let (app, mut io) = self.app(now, i as usize);
                app.on_stop(&mut io);
                self.check_done(now, i as usize);
            }
            Event::AppTimer(i) => {
                let timer = &mut self.net.flows[i as usize].timer;
                if timer.on_fire(now) {
                    let (app, mut io) = self.app(now, i as usize);
                    app.on_timer(&mut io);
                    self.check_done(now, i as usize);
                } else if let Some(t) = timer.rearm() {
                    self.net.sched.schedule(t, Event::AppTimer(i));
                }
            }
            Event::AccessArrive(c) => {
                let (pkt, next) = self.net.conns[c as usize].access.deliver(now);
                if let Some(t) = next {
                    self.net.sched.schedule(t, Event::AccessArrive(c));
                }
                if let Some(pkt) = pkt {
                    self.net.enqueue(now, pkt);
                }
            }
            Event::BottleneckWake => {
                if self.net.bn_alarm.on_fire(now) {
                    self.net.serve(now);
                } else if let Some(t) = self.net.bn_alarm.rearm() {
                    self.net.sched.schedule(t, Event::BottleneckWake);
                }
            }
            Event::ForwardArrive => {
                let (pkt, next) = self.net.forward.deliver(now);
                if let Some(t) = next {
                    self.net.sched.schedule(t, Event::ForwardArrive);
                }
                match pkt {
                    Some(pkt) if pkt.kind.is_upstream() => self.deliver_to_server(now, pkt),
                    Some(pkt) => self.deliver_to_client(now, pkt),
                    None => {}
                }
            }
            Event::ReverseArrive(c) => {
                let (pkt, next) = self.net.conns[c as usize].reverse.deliver(now);
                if let Some(t) = next {
                    self.net.sched.schedule(t, Event::ReverseArrive(c));
                }
                if let Some(pkt) = pkt {
                    match self.net.scenario.bottleneck.topology {
                        Topology::Dumbbell => self.deliver_to_server(now, pkt),
                        Topology::Loopback => self.net.enqueue(now, pkt),
                    }
                }
            }
            Event::SenderTimer(c) => {
                self.net.conns[c as usize]
                    .sender
                    .on_timer(now, &mut self.net.outbox);
                self.net.flush_sender(now, c);
                self.net.on_cc_update(now, c, self.interval.is_none());
                self.offer_writes(now, c);
            }
            Event::ReceiverTimer(c) => {
                self.net.conns[c as usize]
                    .receiver
                    .on_timer(now, &mut self.net.acks);
                self.net.flush_receiver(now, c);
            }
            Event::RateChange(k) => {
                let (_, rate) = self.net.scenario.bottleneck.schedule[k as usize];
                self.net.bottleneck.set_rate(now, rate);
                self.net.serve(now);
            }
            Event::Tick => {
                self.net.record_tick(now);
                if let Some(iv) = self.interval {
                    self.net.sched.schedule(now + iv, Event::Tick);
                }
            }
            Event::WindowStart | Event::WindowEnd => {
                self.net.snapshot(matches!(ev, Event::WindowStart))
            }
        }
    }

    fn deliver_to_client(&mut self, now: Time, pkt: Packet) {
        self.net.received += 1;
        let c = pkt.conn;
        let conn = &mut self.net.conns[c as usize];
        let flow = conn.flow;
        let readable = conn.receiver.on_packet(now, &pkt, &mut self.net.acks);
        let newly_connected =
            pkt.kind == Kind::Syn && conn.opener == Opener::Client && !conn.connected;
        conn.connected |= pkt.kind == Kind::Syn;
        self.net.flush_receiver(now, c);
        let (app, mut io) = self.app(now, flow);
        if newly_connected {
            app.on_connected(c, &mut io);
        }
        if readable > 0 {
            let read = app.on_data(c, readable, &mut io);
            let net = io.net;
            net.conns[c as usize]
                .receiver
                .read(now, read, &mut net.acks);
            net.metrics.on_delivered(now, c as usize, read);
            net.flush_receiver(now, c);
        }
        self.check_done(now, flow);
    }

    fn deliver_to_server(&mut self, now: Time, pkt: Packet) {
        self.net.received += 1;
        let c = pkt.conn;
        let flow = self.net.conns[c as usize].flow;
        match pkt.kind {
            Kind::Connect => {
                self.net.conns[c as usize]
                    .sender
                    .connect(now, &mut self.net.outbox);
                self.net.flush_sender(now, c);
            }
            Kind::Request => {
                let (app, mut io) = self.app(now, flow);
                app.on_upstream(c, pkt.seq, &mut io);
            }
            _ => {
                self.net.conns[c as usize]
                    .sender
                    .on_packet(now, &pkt, &mut self.net.outbox);
                self.net.flush_sender(now, c);
                if pkt.kind == Kind::Ack {
                    self.net.on_cc_update(now, c, self.interval.is_none());
                }
                self.offer_writes(now, c);
            }
        }
        self.check_done(now, flow);
    }

    /// Wakes a pulling server application that waits for room in `c`'s socket.
    fn offer_writes(&mut self, now: Time, c: ConnId) {
        let flow = self.net.conns[c as usize].flow;
        if !self.apps[flow].pulls_writes() {
            return;
        }
        if self.net.conns[c as usize].sender.writer_woken() {
            let (app, mut io) = self.app(now, flow);
            app.on_writable(c, &mut io);
        }
    }

    /// Flow `flow`'s application and its handle onto the network.
    fn app(&mut self, now: Time, flow: usize) -> (&mut App, Io<'_>) {
        let io = Io {
            now,
            flow,
            net: &mut self.net,
        };
        (&mut self.apps[flow], io)
    }

    fn check_done(&mut self, now: Time, flow: usize) {
        if self.net.flows[flow].done {
            return;
        }
        let (app, io) = self.app(now, flow);
        if app.is_done(&io) {
            self.net.flows[flow].done = true;
            self.flows_done += 1;
            self.net.metrics.on_flow_done(now, flow);
        }
    }

    fn finish(mut self, now: Time) -> Output {
        let net = &mut self.net;
        if net.metrics.window.end > now {
            net.metrics.window.end = now;
        }
        net.metrics.finish(now);
        if net.metrics.bottleneck.at_window_end.is_none() {
            net.snapshot(false);
        }
        let stats: Vec<_> = net.conns.iter().map(|c| c.sender.stats.clone()).collect();
        let conn_flows: Vec<usize> = net.conns.iter().map(|c| c.flow).collect();
        let app_summaries: Vec<_> = self.apps.iter().map(|a| a.summary(now)).collect();
        let mut summary = summarize(
            &net.scenario,
            &net.metrics,
            now,
            &stats,
            &conn_flows,
            app_summaries,
        );
        let head = serde_json::json!({
            "name": net.scenario.name,
            "seed": net.scenario.seed,
            "version": crate::VERSION,
            "duration_s": now.as_secs_f64(),
            "summary_window_s": [net.metrics.window.start.as_secs_f64(), net.metrics.window.end.as_secs_f64()],
            "scenario": net.scenario.to_json(),
        });
        if let (Some(s), serde_json::Value::Object(h)) = (summary.as_object_mut(), head) {
            s.extend(h);
        }
        let counters = net.metrics.bottleneck.counters;
        let in_network = (net.forward.packets_in_flight()
            + net.bottleneck.backlog_packets()
            + net.bottleneck.delayed_packets()
            + net
                .conns
                .iter()
                .map(|c| c.access.packets_in_flight() + c.reverse.packets_in_flight())
                .sum::<usize>()) as u64;
        let stats = RunStats {
            events: net.sched.events_processed(),
            peak_pending_events: net.sched.peak_pending(),
            packets: net.packets,
            packets_received: net.received,
            packets_dropped: counters.queue_drops + counters.random_drops,
            packets_in_network: in_network,
            sim_time: now.saturating_since(Time::ZERO),
        };
        for (flow, app) in self.apps.iter().enumerate() {
            if let (App::Dash(dash), Some(&first)) = (app, net.flows[flow].conns.first()) {
                dash.write_segments(&mut net.metrics.segments, first as u16, |c| c as u16);
            }
        }
        let Network {
            metrics,
            conn_names,
            ..
        } = self.net;
        Output {
            summary,
            metrics,
            conn_names,
            stats,
        }
    }
}

impl Network {
    /// Creates connection `c` of `flow`; a sender-opened one connects at once.
    fn open_conn(&mut self, now: Time, flow: usize, opener: Opener) -> ConnId {
        let c = self.conns.len() as ConnId;
        let f = &self.scenario.flows[flow];
        let b = &self.scenario.bottleneck;
        let half_rtt = b.link_rtt().div(2);
        let extra = f.extra_rtt.div(2);
        let cfg = SenderConfig {
            mss: f.mss,
            initial_cwnd: f.initial_cwnd,
            slow_start_after_idle: f.slow_start_after_idle,
            pacer: f.pacer,
            tso: f.tso,
            rate_sampler: f.rate_sampler,
            send_queue: f.send_queue,
        };
        let rx = ReceiverConfig {
            mss: f.mss,
            rcvbuf: f.rcvbuf,
            idle_quickack_gap: RTO_MIN + b.rtt + f.extra_rtt,
            ack_policy: f.ack_policy,
            path_rtt: b.rtt + f.extra_rtt,
            flow_control: f.flow_control,
        };
        let rng = Rng::stream(self.scenario.seed, STREAM_CC + c as u64);
        let k = self.flows[flow].conns.len();
        self.conn_names.push(if k == 0 {
            f.name.clone()
        } else {
            format!("{}#{k}", f.name)
        });
        self.conns.push(Connection {
            flow,
            opener,
            sender: TcpSender::new(c, cfg, f.cc.clone(), rng, self.flows[flow].host.clone()),
            receiver: TcpReceiver::new(c, rx),
            access: Link::new(
                Some(b.line_rate),
                match b.topology {
                    Topology::Dumbbell => extra,
                    Topology::Loopback => half_rtt + extra,
                },
            ),
            reverse: Link::new(None, (b.link_rtt() - half_rtt) + (f.extra_rtt - extra)),
            connected: false,
        });
        self.flows[flow].conns.push(c);
        self.metrics.add_conn(flow);
        match opener {
            Opener::Sender => {
                self.conns[c as usize].sender.connect(now, &mut self.outbox);
                self.flush_sender(now, c);
            }
            Opener::Client => {
                self.send_upstream(now, c, Packet::upstream(c, Kind::Connect, 0, 0, now))
            }
        }
        c
    }

    fn send_upstream(&mut self, now: Time, c: ConnId, pkt: Packet) {
        self.packets += 1;
        if let Some(t) = self.conns[c as usize].reverse.send(now, pkt) {
            self.sched.schedule(t, Event::ReverseArrive(c));
        }
    }

    fn enqueue(&mut self, now: Time, pkt: Packet) {
        let (conn, upstream) = (pkt.conn as usize, pkt.kind.is_upstream());
        let result = self.bottleneck.arrive(now, pkt);
        self.metrics
            .on_arrival(now, conn, upstream, self.bottleneck.backlog_bytes());
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

    fn flush_sender(&mut self, now: Time, c: ConnId) {
        let conn = &mut self.conns[c as usize];
        for pkt in self.outbox.packets.drain(..) {
            self.packets += 1;
            if let Some(t) = conn.access.send(now, pkt) {
                self.sched.schedule(t, Event::AccessArrive(c));
            }
        }
        let mss = self.scenario.flows[conn.flow].mss;
        for rs in self.outbox.samples.drain(..) {
            self.metrics.on_rate_sample(now, c as usize, &rs, mss);
        }
        for t in conn.sender.poll_timer() {
            self.sched.schedule(t, Event::SenderTimer(c));
        }
    }

    fn flush_receiver(&mut self, now: Time, c: ConnId) {
        let conn = &mut self.conns[c as usize];
        for ack in self.acks.drain(..) {
            self.packets += 1;
            if let Some(t) = conn.reverse.send(now, ack) {
                self.sched.schedule(t, Event::ReverseArrive(c));
            }
        }
        if let Some(t) = conn.receiver.poll_timer() {
            self.sched.schedule(t, Event::ReceiverTimer(c));
        }
    }

    fn on_cc_update(&mut self, now: Time, c: ConnId, per_ack_rows: bool) {
        let Some(cc) = self.conns[c as usize].sender.cc() else {
            return;
        };
        let (state, m) = (cc.state_name(), cc.metrics());
        self.metrics.on_cc_update(now, c as usize, state, &m);
        if per_ack_rows {
            self.record_conn(now, c);
        }
        if self.conns[c as usize].sender.is_drained() {
            self.metrics.on_conn_closed(now, c as usize);
        }
    }

    fn record_tick(&mut self, now: Time) {
        for c in 0..self.conns.len() {
            self.record_conn(now, c as ConnId);
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

    fn record_conn(&mut self, now: Time, c: ConnId) {
        if self.metrics.per_conn[c as usize].closed {
            return;
        }
        let conn = &self.conns[c as usize];
        let Some(cc) = conn.sender.cc() else { return };
        let snap = conn.sender.snapshot(now);
        let m = cc.metrics();
        let state = self.metrics.state_code(cc.state_name());
        let secs = |d: Option<Duration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        let opt = |x: Option<f64>| x.unwrap_or(f64::NAN);
        let acc = &self.metrics.per_conn[c as usize];
        let row = FlowRow {
            t: now.as_secs_f64(),
            flow: c as u16,
            cc_state: state,
            cwnd_pkts: cc.cwnd(),
            inflight_pkts: snap.inflight,
            pacing_rate_bps: conn.sender.pacing_rate().map_or(f64::NAN, |r| r.bps_f64()),
            delivery_rate_bps: acc.last_rate_bps,
            srtt_s: secs(snap.srtt),
            min_rtt_s: secs(snap.min_rtt),
            bw_est_bps: opt(m.bw_est_bps),
            cc_min_rtt_s: secs(m.min_rtt),
            delivered_bytes: acc.counters.delivered_bytes,
            acked_bytes: snap.snd_una,
            retransmitted_bytes: conn.sender.stats.bytes_retransmitted,
            lost_pkts: snap.lost_pkts,
            ssthresh_pkts: m.ssthresh_pkts.map_or(f64::NAN, |s| s as f64),
            pacing_gain: opt(m.pacing_gain),
            cwnd_gain: opt(m.cwnd_gain),
            round: m.round.map_or(f64::NAN, |r| r as f64),
        };
        self.metrics.flows.push(row);
    }

    fn snapshot(&mut self, start: bool) {
        let bytes: Vec<_> = self
            .conns
            .iter()
            .map(|c| {
                (
                    c.sender.stats.bytes_sent,
                    c.sender.stats.bytes_retransmitted,
                )
            })
            .collect();
        self.metrics.snapshot(start, &bytes);
    }
}

/// The network as one flow's application sees it.
struct Io<'a> {
    now: Time,
    flow: usize,
    net: &'a mut Network,
}

impl Net for Io<'_> {
    fn now(&self) -> Time {
        self.now
    }

    fn open(&mut self, opener: Opener) -> ConnId {
        self.net.open_conn(self.now, self.flow, opener)
    }

    fn send_upstream(&mut self, conn: ConnId, id: u64, bytes: u32) {
        let pkt = Packet::upstream(conn, Kind::Request, id, bytes, self.now);
        self.net.send_upstream(self.now, conn, pkt);
    }

    fn write(&mut self, conn: ConnId, bytes: u64) {
        let c = &mut self.net.conns[conn as usize];
        let nic_busy = c.access.is_transmitting(self.now);
        c.sender
            .write(self.now, bytes, nic_busy, &mut self.net.outbox);
        self.net.flush_sender(self.now, conn);
    }

    fn write_room(&mut self, conn: ConnId) -> u64 {
        self.net.conns[conn as usize].sender.write_room()
    }

    fn discard_unsent(&mut self, conn: ConnId) {
        self.net.conns[conn as usize].sender.discard_unsent();
    }

    fn finish(&mut self, conn: ConnId) {
        let sender = &mut self.net.conns[conn as usize].sender;
        sender.finish();
        if sender.is_drained() {
            // closed while idle: no ACK will come to tell `on_cc_update`
            self.net.metrics.on_conn_closed(self.now, conn as usize);
        }
    }

    fn reset(&mut self, conn: ConnId) {
        self.net.conns[conn as usize].sender.reset();
        self.net.metrics.on_conn_closed(self.now, conn as usize);
    }

    fn drained(&self, conn: ConnId) -> bool {
        self.net.conns[conn as usize].sender.is_drained()
    }

    fn set_timer(&mut self, at: Time) {
        if let Some(t) = self.net.flows[self.flow].timer.set(at) {
            self.net
                .sched
                .schedule(t, Event::AppTimer(self.flow as u32));
        }
    }
}
