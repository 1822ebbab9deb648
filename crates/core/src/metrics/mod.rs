//! Measurement: what the simulation observes, recorded as columnar tables
//! and accumulated for the run's summary.
//!
//! The simulation calls the `on_*` hooks as things happen; nothing here
//! touches the network. Accumulators that feed the summary (histograms,
//! time-weighted gauges, counters) only count what falls inside the summary
//! window `[summary_start, summary_end)`.

mod histogram;
mod summary;
#[cfg(test)]
mod summary_tests;
pub mod tables;

pub use histogram::Histogram;
pub use summary::summarize;

use crate::cc::CcMetrics;
use crate::net::packet::Packet;
use crate::net::qdisc::DropReason;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;
use tables::{FlowTable, QueueTable, SampleRow, SampleTable, SegmentTable};

/// Width of the per-connection delivered-bytes bins used for fairness.
pub const BIN: Duration = Duration::from_millis(100);

/// The summary window.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub start: Time,
    pub end: Time,
}

impl Window {
    pub fn contains(&self, t: Time) -> bool {
        t >= self.start && t < self.end
    }

    /// Length of `[a, b) ∩ window`.
    pub fn overlap(&self, a: Time, b: Time) -> Duration {
        let lo = a.max(self.start);
        let hi = b.min(self.end);
        hi.saturating_since(lo)
    }
}

/// A value that holds between changes, accumulated as time × value into a histogram.
#[derive(Clone, Debug, Default)]
pub struct Gauge {
    value: Option<u64>,
    since: Time,
    pub hist: Histogram,
}

impl Gauge {
    pub fn set(&mut self, now: Time, value: Option<u64>, w: &Window) {
        if let Some(v) = self.value {
            self.hist.add(v, w.overlap(self.since, now).as_nanos());
        }
        self.value = value;
        self.since = now;
    }

    pub fn close(&mut self, now: Time, w: &Window) {
        let v = self.value;
        self.set(now, v, w);
    }
}

/// Cumulative per-connection counters (snapshotted at the window edges).
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnCounters {
    pub delivered_bytes: u64,
    pub arrivals_pkts: u64,
    pub drops_pkts: u64,
    pub departed_bytes: u64,
    pub sent_bytes: u64,
    pub retransmitted_bytes: u64,
}

/// What one connection accumulates for the summary.
#[derive(Debug, Default)]
pub struct ConnAcc {
    /// The flow this connection belongs to.
    pub flow: usize,
    pub counters: ConnCounters,
    pub at_window_start: Option<ConnCounters>,
    pub at_window_end: Option<ConnCounters>,
    pub rtt_ns: Histogram,
    pub bw_est: Gauge,
    pub state: Option<(u8, Time)>,
    pub state_ns: Vec<u64>,
    /// The delivery rate `tcp_info` would report (`on_rate_sample`), payload bits/s.
    pub last_rate_bps: f64,
    /// Delivered payload bytes per `BIN`.
    pub bins: Vec<u64>,
    /// Closed and fully acknowledged: its state and estimate no longer count.
    pub closed: bool,
}

/// When a flow (its application) started and finished.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowSpan {
    pub started_at: Option<Time>,
    pub done_at: Option<Time>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct QueueCounters {
    pub arrivals: u64,
    pub queue_drops: u64,
    pub random_drops: u64,
    pub departed_bytes: u64,
}

#[derive(Debug, Default)]
pub struct QueueAcc {
    pub counters: QueueCounters,
    pub at_window_start: Option<QueueCounters>,
    pub at_window_end: Option<QueueCounters>,
    pub sojourn_ns: Histogram,
    pub backlog: Gauge,
}

pub struct Metrics {
    pub window: Window,
    pub flows: FlowTable,
    pub queue: QueueTable,
    pub samples: SampleTable,
    pub record_samples: bool,
    pub segments: SegmentTable,
    pub state_names: Vec<&'static str>,
    pub per_conn: Vec<ConnAcc>,
    pub per_flow: Vec<FlowSpan>,
    pub bottleneck: QueueAcc,
}

impl Metrics {
    pub fn new(n_flows: usize, window: Window, record_samples: bool) -> Self {
        Metrics {
            window,
            flows: FlowTable::default(),
            queue: QueueTable::default(),
            samples: SampleTable::default(),
            segments: SegmentTable::default(),
            record_samples,
            state_names: Vec::new(),
            per_conn: Vec::new(),
            per_flow: vec![FlowSpan::default(); n_flows],
            bottleneck: QueueAcc::default(),
        }
    }

    /// A connection of `flow` was opened; it gets the next index.
    pub fn add_conn(&mut self, flow: usize) {
        self.per_conn.push(ConnAcc {
            flow,
            ..ConnAcc::default()
        });
    }

    /// Dictionary code of a state name.
    pub fn state_code(&mut self, name: &'static str) -> u8 {
        match self.state_names.iter().position(|n| *n == name) {
            Some(i) => i as u8,
            None => {
                self.state_names.push(name);
                (self.state_names.len() - 1) as u8
            }
        }
    }

    // ----- bottleneck ---------------------------------------------------------

    /// A packet reached the bottleneck. Reverse-path packets (a loopback topology) count for
    /// the queue but not for their connection, whose counters describe its data.
    pub fn on_arrival(&mut self, now: Time, conn: usize, upstream: bool, backlog_bytes: u64) {
        self.bottleneck.counters.arrivals += 1;
        if !upstream {
            self.per_conn[conn].counters.arrivals_pkts += 1;
        }
        self.bottleneck
            .backlog
            .set(now, Some(backlog_bytes), &self.window);
    }

    pub fn on_drop(&mut self, pkt: &Packet, reason: DropReason) {
        match reason {
            // netem's limit is the root qdisc's: a drop for a full queue at the router.
            DropReason::QueueFull | DropReason::DelayLineFull => {
                self.bottleneck.counters.queue_drops += 1
            }
            DropReason::RandomLoss => self.bottleneck.counters.random_drops += 1,
        }
        if !pkt.kind.is_upstream() {
            self.per_conn[pkt.conn as usize].counters.drops_pkts += 1;
        }
    }

    pub fn on_departure(&mut self, now: Time, pkt: &Packet, backlog_bytes: u64) {
        let q = &mut self.bottleneck;
        q.counters.departed_bytes += pkt.qdisc_len as u64;
        if !pkt.kind.is_upstream() {
            self.per_conn[pkt.conn as usize].counters.departed_bytes += pkt.qdisc_len as u64;
        }
        if self.window.contains(now) {
            q.sojourn_ns
                .add(now.saturating_since(pkt.enqueued_at).as_nanos(), 1);
        }
        q.backlog.set(now, Some(backlog_bytes), &self.window);
    }

    // ----- connections and flows ----------------------------------------------

    pub fn on_delivered(&mut self, now: Time, conn: usize, bytes: u64) {
        let f = &mut self.per_conn[conn];
        f.counters.delivered_bytes += bytes;
        let bin = (now.as_nanos() / BIN.as_nanos()) as usize;
        if f.bins.len() <= bin {
            f.bins.resize(bin + 1, 0);
        }
        f.bins[bin] += bytes;
    }

    pub fn on_rate_sample(&mut self, now: Time, conn: usize, rs: &RateSample, mss: u32) {
        let rate = rs.rate_pkts_per_sec().map(|r| r * mss as f64 * 8.0);
        let f = &mut self.per_conn[conn];
        // What tcp_info's delivery_rate reports (`tcp_rate_gen`): the last sample that was not
        // app-limited, or an app-limited one at or above it.
        if let Some(r) = rate.filter(|&r| !rs.reference.is_app_limited || r >= f.last_rate_bps) {
            f.last_rate_bps = r;
        }
        if let Some(rtt) = rs.rtt {
            if self.window.contains(now) {
                f.rtt_ns.add(rtt.as_nanos(), 1);
            }
        }
        if self.record_samples && rs.delivered.is_some() {
            self.samples.push(SampleRow {
                t: now.as_secs_f64(),
                flow: conn as u16,
                rate_bps: rate.unwrap_or(f64::NAN),
                app_limited: rs.reference.is_app_limited,
                rtt_s: rs.rtt.map_or(f64::NAN, |d| d.as_secs_f64()),
                delivered_pkts: rs.delivered.unwrap_or(0),
                interval_s: rs.interval.map_or(f64::NAN, |d| d.as_secs_f64()),
                acked_sacked: rs.acked_sacked,
                losses: rs.losses,
                prior_in_flight: rs.prior_in_flight,
            });
        }
    }

    /// After the algorithm changed (ACK, timer): track its state and bandwidth estimate over time.
    pub fn on_cc_update(&mut self, now: Time, conn: usize, state: &'static str, m: &CcMetrics) {
        let code = self.state_code(state);
        let w = self.window;
        let f = &mut self.per_conn[conn];
        if f.closed {
            return;
        }
        match f.state {
            Some((c, _)) if c == code => {}
            Some((c, since)) => {
                add_state_time(&mut f.state_ns, c, w.overlap(since, now));
                f.state = Some((code, now));
            }
            None => f.state = Some((code, now)),
        }
        let bw = m.bw_est_bps.map(|b| b.max(0.0).round() as u64);
        f.bw_est.set(now, bw, &w);
    }

    /// `conn` has closed and everything it sent is acknowledged (an HTTP/1.1 connection the
    /// browser closed, a finished transfer): its time in states and its estimate stop here.
    pub fn on_conn_closed(&mut self, now: Time, conn: usize) {
        let w = self.window;
        let f = &mut self.per_conn[conn];
        if f.closed {
            return;
        }
        f.closed = true;
        if let Some((c, since)) = f.state.take() {
            add_state_time(&mut f.state_ns, c, w.overlap(since, now));
        }
        f.bw_est.set(now, None, &w);
    }

    pub fn on_flow_start(&mut self, now: Time, flow: usize) {
        self.per_flow[flow].started_at = Some(now);
    }

    pub fn on_flow_done(&mut self, now: Time, flow: usize) {
        self.per_flow[flow].done_at.get_or_insert(now);
    }

    /// Snapshot counters at the window's start (`start = true`) or end.
    pub fn snapshot(&mut self, start: bool, sender_bytes: &[(u64, u64)]) {
        for (f, &(sent, retx)) in self.per_conn.iter_mut().zip(sender_bytes) {
            f.counters.sent_bytes = sent;
            f.counters.retransmitted_bytes = retx;
            if start {
                f.at_window_start = Some(f.counters);
            } else {
                f.at_window_end = Some(f.counters);
            }
        }
        if start {
            self.bottleneck.at_window_start = Some(self.bottleneck.counters);
        } else {
            self.bottleneck.at_window_end = Some(self.bottleneck.counters);
        }
    }

    /// Closes every gauge at the end of the run.
    pub fn finish(&mut self, now: Time) {
        let w = self.window;
        for f in &mut self.per_conn {
            if let Some((c, since)) = f.state {
                add_state_time(&mut f.state_ns, c, w.overlap(since, now));
                f.state = Some((c, now));
            }
            f.bw_est.close(now, &w);
        }
        self.bottleneck.backlog.close(now, &w);
    }
}

fn add_state_time(v: &mut Vec<u64>, code: u8, d: Duration) {
    if v.len() <= code as usize {
        v.resize(code as usize + 1, 0);
    }
    v[code as usize] += d.as_nanos();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Time {
        Time::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn a_closed_connection_stops_counting_state_time_and_its_estimate() {
        let window = Window {
            start: Time::ZERO,
            end: at(10_000),
        };
        let mut m = Metrics::new(1, window, false);
        m.add_conn(0);
        let bw = |bps: f64| CcMetrics {
            bw_est_bps: Some(bps),
            ..CcMetrics::default()
        };
        m.on_cc_update(at(0), 0, "STARTUP", &bw(1e6));
        m.on_cc_update(at(1_000), 0, "PROBE_BW", &bw(2e6));
        m.on_conn_closed(at(3_000), 0);
        // later updates (a stray ACK) and the end of the run add nothing
        m.on_cc_update(at(5_000), 0, "PROBE_RTT", &bw(9e6));
        m.finish(at(10_000));
        let startup = m.state_code("STARTUP") as usize;
        let probe_bw = m.state_code("PROBE_BW") as usize;
        let f = &m.per_conn[0];
        assert_eq!(f.state_ns.iter().sum::<u64>(), 3_000_000_000);
        assert_eq!(
            (f.state_ns[startup], f.state_ns[probe_bw]),
            (1_000_000_000, 2_000_000_000)
        );
        assert_eq!(f.bw_est.hist.mean(), Some(5e6 / 3.0));
    }

    #[test]
    fn the_delivery_rate_is_tcp_infos_the_last_not_app_limited_sample_or_a_higher_one() {
        let window = Window {
            start: at(0),
            end: at(10_000),
        };
        // `packets` of 1000 B in 1 s: `packets` × 8 kb/s
        let sample = |packets: u64, app_limited: bool| RateSample {
            delivered: Some(packets),
            interval: Some(Duration::from_secs(1)),
            reference: crate::transport::rate_sample::Reference {
                is_app_limited: app_limited,
                ..Default::default()
            },
            ..RateSample::default()
        };
        let mut m = Metrics::new(1, window, false);
        m.add_conn(0);
        let mut reported = Vec::new();
        for (packets, app_limited) in [
            (4, true),
            (5, false),
            (3, true),
            (5, true),
            (6, true),
            (2, false),
        ] {
            m.on_rate_sample(at(1_000), 0, &sample(packets, app_limited), 1000);
            reported.push(m.per_conn[0].last_rate_bps / 8e3);
        }
        // an app-limited sample below the one reported leaves it; at or above it replaces it
        assert_eq!(reported, [4.0, 5.0, 5.0, 5.0, 6.0, 2.0]);
    }

    #[test]
    fn rate_samples_are_recorded_in_bits_per_second_when_asked_and_rtts_within_the_window() {
        let window = Window {
            start: at(1_000),
            end: at(2_000),
        };
        let sample = |delivered: Option<u64>, interval_ms: Option<u64>, rtt_ms: u64| RateSample {
            delivered,
            interval: interval_ms.map(Duration::from_millis),
            rtt: Some(Duration::from_millis(rtt_ms)),
            acked_sacked: 3,
            losses: 1,
            prior_in_flight: 9,
            ..RateSample::default()
        };
        for record in [false, true] {
            let mut m = Metrics::new(1, window, record);
            m.add_conn(0);
            // 10 packets of 1000 B in 20 ms: 4 Mb/s
            m.on_rate_sample(at(1_000), 0, &sample(Some(10), Some(20), 40), 1000);
            // no rate (no interval): the last rate stays; no reference: no row
            m.on_rate_sample(at(1_500), 0, &sample(Some(10), None, 50), 1000);
            m.on_rate_sample(at(1_999), 0, &sample(None, None, 60), 1000);
            // the window's end is outside it, as is what came before it
            m.on_rate_sample(at(2_000), 0, &sample(None, None, 500), 1000);
            m.on_rate_sample(at(999), 0, &sample(None, None, 500), 1000);
            let f = &m.per_conn[0];
            assert_eq!(f.last_rate_bps, 4e6);
            assert_eq!(f.rtt_ns.mean(), Some(50e6));
            let t = &m.samples;
            if !record {
                assert!(t.is_empty());
                continue;
            }
            assert_eq!(t.len(), 2);
            assert_eq!((t.t[0], t.rate_bps[0], t.interval_s[0]), (1.0, 4e6, 0.02));
            assert!(t.rate_bps[1].is_nan() && t.interval_s[1].is_nan());
            assert_eq!((t.delivered_pkts[1], t.rtt_s[1]), (10, 0.05));
            assert_eq!(
                (t.acked_sacked[0], t.losses[0], t.prior_in_flight[0]),
                (3, 1, 9)
            );
        }
    }
}
