//! `summary.json`: per-flow and bottleneck figures over the summary window.
//!
//! Definitions (all over `[summary_start, summary_end)` ∩ each flow's active time):
//!
//! | key | meaning |
//! |---|---|
//! | `goodput_bps` | payload bytes delivered in order to the receiving app × 8 / active time |
//! | `throughput_bps` | the flow's bytes leaving the bottleneck, each packet counted as its qdisc counts it (IP length + `link_header`), × 8 / active time |
//! | `retrans_ratio` | retransmitted payload bytes / delivered payload bytes |
//! | `loss_rate` | the flow's packets dropped at the bottleneck / its packets arriving there |
//! | `rtt_pXX_s` | percentiles of the per-ACK RTT samples (Karn-valid, most recent segment) |
//! | `state_time_fraction` | share of time in each congestion-control state (a connection's time ends once it has closed and everything it sent is acknowledged) |
//! | `bw_est_mean_bps`, `bw_est_median_bps` | time-weighted, of the algorithm's estimate |
//! | `utilisation` | bits leaving the bottleneck (IP length + `link_header` per packet) / bits its service could carry |
//! | `queue_delay_pXX_s` | per-packet sojourn time in the bottleneck queue (incl. waiting for tokens) |
//! | `backlog_pXX_bdp` | time-weighted backlog divided by rate × base RTT |
//! | `jain_index` | Jain's index of the flows' delivered bytes while all of them were active |

use super::{ConnCounters, Histogram, Metrics, QueueCounters, BIN};
use crate::scenario::Scenario;
use crate::time::{Duration, Time};
use crate::transport::sender::SenderStats;
use serde_json::{json, Map, Number, Value};

/// A figure, or null where there is none (or it is not finite).
fn num(x: Option<f64>) -> Value {
    x.and_then(Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

fn sub(a: ConnCounters, b: ConnCounters) -> ConnCounters {
    ConnCounters {
        delivered_bytes: a.delivered_bytes - b.delivered_bytes,
        arrivals_pkts: a.arrivals_pkts - b.arrivals_pkts,
        drops_pkts: a.drops_pkts - b.drops_pkts,
        departed_bytes: a.departed_bytes - b.departed_bytes,
        sent_bytes: a.sent_bytes - b.sent_bytes,
        retransmitted_bytes: a.retransmitted_bytes - b.retransmitted_bytes,
    }
}

fn add(a: ConnCounters, b: ConnCounters) -> ConnCounters {
    ConnCounters {
        delivered_bytes: a.delivered_bytes + b.delivered_bytes,
        arrivals_pkts: a.arrivals_pkts + b.arrivals_pkts,
        drops_pkts: a.drops_pkts + b.drops_pkts,
        departed_bytes: a.departed_bytes + b.departed_bytes,
        sent_bytes: a.sent_bytes + b.sent_bytes,
        retransmitted_bytes: a.retransmitted_bytes + b.retransmitted_bytes,
    }
}

/// A flow's connections folded together: counters summed over the window,
/// histograms merged, state times added.
#[derive(Default)]
struct FlowTotals {
    window: ConnCounters,
    rtt_ns: Histogram,
    bw_est: Histogram,
    state_ns: Vec<u64>,
    bins: Vec<u64>,
    rto_events: u64,
    recovery_events: u64,
    loss_probes: u64,
    connections: usize,
}

fn totals(m: &Metrics, stats: &[SenderStats], flow: usize) -> FlowTotals {
    let mut t = FlowTotals::default();
    for (acc, st) in m.per_conn.iter().zip(stats).filter(|(a, _)| a.flow == flow) {
        let d = sub(
            acc.at_window_end.unwrap_or(acc.counters),
            acc.at_window_start.unwrap_or_default(),
        );
        t.window = add(t.window, d);
        t.rtt_ns.merge(&acc.rtt_ns);
        t.bw_est.merge(&acc.bw_est.hist);
        if t.state_ns.len() < acc.state_ns.len() {
            t.state_ns.resize(acc.state_ns.len(), 0);
        }
        t.state_ns
            .iter_mut()
            .zip(&acc.state_ns)
            .for_each(|(a, b)| *a += b);
        if t.bins.len() < acc.bins.len() {
            t.bins.resize(acc.bins.len(), 0);
        }
        t.bins.iter_mut().zip(&acc.bins).for_each(|(a, b)| *a += b);
        t.rto_events += st.rto_events;
        t.recovery_events += st.recovery_events;
        t.loss_probes += st.loss_probes;
        t.connections += 1;
    }
    t
}

/// Bits the bottleneck's service can carry over `[a, b)`: the rate schedule integrated, or
/// a trace's opportunities counted.
fn capacity_bits(s: &Scenario, a: Time, b: Time) -> f64 {
    let bn = &s.bottleneck;
    if let Some(t) = &bn.trace {
        return t.trace.capacity_bits(a, b);
    }
    let mut steps = vec![(Time::ZERO, bn.rate.unwrap_or_default())];
    steps.extend(bn.schedule.iter().map(|&(at, r)| (Time::ZERO + at, r)));
    let mut bits = 0.0;
    for (i, &(from, rate)) in steps.iter().enumerate() {
        let to = steps.get(i + 1).map_or(Time::NEVER, |s| s.0);
        let lo = from.max(a);
        let hi = to.min(b);
        bits += rate.bps_f64() * hi.saturating_since(lo).as_secs_f64();
    }
    bits
}

/// The summary of a run. `stats` and `conn_flows` are per connection; `apps`
/// per flow (an application's own figures, e.g. DASH QoE, merged into its entry).
pub fn summarize(
    s: &Scenario,
    m: &Metrics,
    run_end: Time,
    stats: &[SenderStats],
    conn_flows: &[usize],
    apps: Vec<Option<Value>>,
) -> Value {
    debug_assert_eq!(stats.len(), conn_flows.len());
    let w = m.window;
    let secs = |d: Duration| d.as_secs_f64();
    let mut flows = Map::new();
    let mut spans = Vec::new();
    let mut all_bins = Vec::new();
    for (i, (f, app)) in s.flows.iter().zip(apps).enumerate() {
        let t = totals(m, stats, i);
        let span = m.per_flow[i];
        let start = span.started_at.unwrap_or(Time::ZERO + f.start);
        let end = span.done_at.unwrap_or(run_end);
        spans.push((start, end));
        let active = secs(w.overlap(start, end));
        let d = t.window;
        let per_s = |bytes: u64| (active > 0.0).then(|| bytes as f64 * 8.0 / active);
        let total: u64 = t.state_ns.iter().sum();
        let states: Map<String, Value> = t
            .state_ns
            .iter()
            .enumerate()
            .filter(|(_, &ns)| ns > 0)
            .map(|(c, &ns)| {
                (
                    m.state_names[c].to_string(),
                    json!(ns as f64 / total as f64),
                )
            })
            .collect();
        let rtt = |q: f64| num(t.rtt_ns.quantile(q).map(|v| v / 1e9));
        let mut entry = json!({
            "cc": f.cc.name(),
            "connections": t.connections,
            "goodput_bps": num(per_s(d.delivered_bytes)),
            "throughput_bps": num(per_s(d.departed_bytes)),
            "retrans_ratio": num(ratio(d.retransmitted_bytes, d.delivered_bytes)),
            "loss_rate": num(ratio(d.drops_pkts, d.arrivals_pkts)),
            "rtt_p10_s": rtt(0.10), "rtt_p50_s": rtt(0.50), "rtt_p90_s": rtt(0.90), "rtt_p99_s": rtt(0.99),
            "rtt_mean_s": num(t.rtt_ns.mean().map(|v| v / 1e9)),
            "state_time_fraction": states,
            "bw_est_mean_bps": num(t.bw_est.mean()),
            "bw_est_median_bps": num(t.bw_est.quantile(0.5)),
            "bytes_delivered": d.delivered_bytes,
            "bytes_sent": d.sent_bytes,
            "bytes_retransmitted": d.retransmitted_bytes,
            "packets_dropped": d.drops_pkts,
            "active_s": active,
            "completion_time_s": num(span.done_at.map(|t| secs(t.saturating_since(start)))),
            "rto_events": t.rto_events,
            "recovery_events": t.recovery_events,
            "loss_probes": t.loss_probes,
        });
        if let (Some(Value::Object(extra)), Some(e)) = (app, entry.as_object_mut()) {
            e.extend(extra);
        }
        flows.insert(f.name.clone(), entry);
        all_bins.push(t.bins);
    }
    json!({ "flows": flows, "bottleneck": bottleneck(s, m, run_end, &spans, &all_bins) })
}

fn bottleneck(
    s: &Scenario,
    m: &Metrics,
    run_end: Time,
    spans: &[(Time, Time)],
    bins: &[Vec<u64>],
) -> Value {
    let w = m.window;
    let q = &m.bottleneck;
    let end = q.at_window_end.unwrap_or(q.counters);
    let start = q.at_window_start.unwrap_or_default();
    let d = QueueCounters {
        arrivals: end.arrivals - start.arrivals,
        queue_drops: end.queue_drops - start.queue_drops,
        random_drops: end.random_drops - start.random_drops,
        departed_bytes: end.departed_bytes - start.departed_bytes,
    };
    let cap = capacity_bits(s, w.start, w.end.min(run_end));
    let bdp = s.bottleneck.bdp_bytes as f64;
    let delay = |p: f64| num(q.sojourn_ns.quantile(p).map(|v| v / 1e9));
    let backlog = |p: f64| q.backlog.hist.quantile(p);
    let in_bdp = |x: Option<f64>| num(x.filter(|_| bdp > 0.0).map(|v| v / bdp));
    let window_s = w.end.min(run_end).saturating_since(w.start).as_secs_f64();
    json!({
        "utilisation": num((cap > 0.0).then(|| d.departed_bytes as f64 * 8.0 / cap)),
        "capacity_bps": num((window_s > 0.0).then(|| cap / window_s)),
        "drop_rate": num(ratio(d.queue_drops + d.random_drops, d.arrivals)),
        "queue_drop_rate": num(ratio(d.queue_drops, d.arrivals)),
        "packets_arrived": d.arrivals,
        "packets_dropped": d.queue_drops + d.random_drops,
        "queue_delay_p50_s": delay(0.5), "queue_delay_p90_s": delay(0.9), "queue_delay_p99_s": delay(0.99),
        "queue_delay_mean_s": num(q.sojourn_ns.mean().map(|v| v / 1e9)),
        "backlog_mean_bytes": num(q.backlog.hist.mean()),
        "backlog_p50_bytes": num(backlog(0.5)), "backlog_p90_bytes": num(backlog(0.9)),
        "backlog_mean_bdp": in_bdp(q.backlog.hist.mean()),
        "backlog_p50_bdp": in_bdp(backlog(0.5)), "backlog_p90_bdp": in_bdp(backlog(0.9)), "backlog_p99_bdp": in_bdp(backlog(0.99)),
        "bdp_bytes": s.bottleneck.bdp_bytes,
        "jain_index": num(jain(bins, spans, w.start, w.end.min(run_end))),
    })
}

/// Jain's index over the bins in which every flow was active (and in the window).
fn jain(bins: &[Vec<u64>], spans: &[(Time, Time)], a: Time, b: Time) -> Option<f64> {
    let from = spans.iter().map(|s| s.0).max()?.max(a);
    let to = spans.iter().map(|s| s.1).min()?.min(b);
    let bin = BIN.as_nanos();
    let (lo, hi) = (
        from.as_nanos().div_ceil(bin) as usize,
        (to.as_nanos() / bin) as usize,
    );
    if hi <= lo {
        return None;
    }
    let x: Vec<f64> = bins
        .iter()
        .map(|f| {
            f.get(lo..hi.min(f.len()))
                .map_or(0, |s| s.iter().sum::<u64>()) as f64
        })
        .collect();
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}
