//! `summarize` against figures computed by hand from hook calls: every per-flow and bottleneck
//! key of the definitions table, over a window that cuts off what happened before it.

use super::*;
use crate::cc::CcMetrics;
use crate::net::packet::{Kind, Packet};
use crate::net::qdisc::DropReason;
use crate::scenario::Scenario;
use crate::transport::rate_sample::RateSample;
use crate::transport::sender::SenderStats;
use serde_json::{json, Value};

fn at(ms: u64) -> Time {
    Time::ZERO + Duration::from_millis(ms)
}

/// 10 Mb/s, 8 Mb/s from 1 s, 5 Mb/s from 6 s; 100 ms (BDP 125 000 B); flow `b` is due at 3 s
/// (its application starts it at 4 s).
fn scenario() -> Scenario {
    let v = json!({
        "name": "t", "duration": "10s",
        "bottleneck": {"rate": "10Mbps", "rtt": "100ms",
                       "queue": {"kind": "droptail", "limit": "1BDP"},
                       "schedule": [{"at": "1s", "rate": "8Mbps"}, {"at": "6s", "rate": "5Mbps"}]},
        "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}},
                 {"name": "b", "cc": "cubic", "app": {"kind": "bulk"}, "start": "3s"}]
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

fn data(conn: u32, enqueued_at: Time) -> Packet {
    let mut p = Packet::data(conn, 0, 1448, false, enqueued_at);
    p.enqueued_at = enqueued_at;
    p
}

fn rtt(now: Time, m: &mut Metrics, conn: usize, ms: u64) {
    let rs = RateSample {
        rtt: Some(Duration::from_millis(ms)),
        ..RateSample::default()
    };
    m.on_rate_sample(now, conn, &rs, 1448);
}

fn cc(now: Time, m: &mut Metrics, conn: usize, state: &'static str, bw: Option<f64>) {
    let est = CcMetrics {
        bw_est_bps: bw,
        ..CcMetrics::default()
    };
    m.on_cc_update(now, conn, state, &est);
}

fn stats(rto_events: u64, recovery_events: u64, loss_probes: u64) -> SenderStats {
    SenderStats {
        rto_events,
        recovery_events,
        loss_probes,
        ..SenderStats::default()
    }
}

fn close(got: &Value, want: f64, rel: f64) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("{got} is not a number"));
    assert!((g - want).abs() <= want.abs() * rel, "{g} vs {want}");
}

/// Window [2 s, 10 s). Flow `a` has connection 0, flow `b` connections 1 and 2.
fn run() -> Value {
    let s = scenario();
    let window = Window {
        start: at(2_000),
        end: at(10_000),
    };
    let mut m = Metrics::new(2, window, false);
    for flow in [0, 1, 1] {
        m.add_conn(flow);
    }
    m.on_flow_start(at(0), 0);
    m.on_flow_start(at(4_000), 1);
    // before the window: cut off by the snapshot
    m.on_delivered(at(1_000), 0, 1_000);
    for reason in [
        None,
        Some(DropReason::QueueFull),
        Some(DropReason::RandomLoss),
    ] {
        m.on_arrival(at(1_000), 0, false, 1_500);
        if let Some(r) = reason {
            m.on_drop(&data(0, at(1_000)), r);
        }
    }
    m.on_departure(at(1_500), &data(0, at(1_000)), 1_500);
    rtt(at(1_000), &mut m, 0, 500);
    cc(at(0), &mut m, 0, "STARTUP", Some(1e6));
    m.snapshot(true, &[(2_000, 500), (0, 0), (0, 0)]);
    // in it
    cc(at(3_000), &mut m, 0, "PROBE_BW", Some(2e6));
    cc(at(5_000), &mut m, 0, "PROBE_BW", Some(4e6));
    cc(at(9_000), &mut m, 0, "PROBE_RTT", Some(4e6));
    cc(at(4_000), &mut m, 1, "CA_OPEN", None);
    cc(at(4_000), &mut m, 2, "CA_OPEN", None);
    cc(at(6_000), &mut m, 2, "CA_RECOVERY", None);
    m.on_conn_closed(at(7_000), 2);
    m.on_conn_closed(at(8_000), 1);
    for (t, ms) in [(3_000, 100), (5_000, 200), (7_000, 300)] {
        rtt(at(t), &mut m, 0, ms);
    }
    rtt(at(5_000), &mut m, 2, 120);
    m.on_delivered(at(5_000), 0, 3_500_000);
    m.on_delivered(at(9_000), 0, 500_000); // after b finished
    m.on_delivered(at(5_000), 1, 1_000_000);
    m.on_delivered(at(6_000), 2, 1_000_000);
    m.on_arrival(at(4_000), 0, false, 3_000);
    m.on_arrival(at(4_000), 1, true, 3_052); // an ACK: the queue's, not its connection's
    m.on_arrival(at(6_000), 0, false, 3_052);
    m.on_drop(&data(0, at(6_000)), DropReason::QueueFull);
    m.on_arrival(at(6_000), 1, false, 3_052);
    m.on_drop(&data(1, at(6_000)), DropReason::RandomLoss);
    m.on_departure(at(8_000), &data(0, at(2_000)), 1_552);
    let mut ack = Packet::ack(1, 0, &[], 0, false, at(4_000));
    ack.enqueued_at = at(4_000);
    assert_eq!(ack.kind, Kind::Ack);
    m.on_departure(at(8_000), &ack, 1_500);
    m.on_departure(at(9_000), &data(0, at(4_000)), 0);
    m.on_flow_done(at(8_000), 1);
    m.on_flow_done(at(9_000), 1); // the first finish counts
    m.snapshot(
        false,
        &[(5_000_000, 100_500), (1_100_000, 50_000), (1_000_000, 0)],
    );
    m.finish(at(10_000));
    let senders = [stats(1, 2, 3), stats(0, 1, 0), stats(2, 0, 1)];
    let apps = vec![None, Some(json!({"avg_quality": 7.5}))];
    summarize(&s, &m, at(10_000), &senders, &[0, 1, 1], apps)
}

#[test]
fn a_flows_figures_count_only_the_window_and_fold_its_connections() {
    let out = run();
    let a = &out["flows"]["a"];
    let b = &out["flows"]["b"];
    assert_eq!((&a["cc"], &b["cc"]), (&json!("bbr"), &json!("cubic")));
    assert_eq!(
        (&a["connections"], &b["connections"]),
        (&json!(1), &json!(2))
    );
    // a: active 2–10 s; b: 4–8 s (done at its first finish)
    assert_eq!((&a["active_s"], &b["active_s"]), (&json!(8.0), &json!(4.0)));
    assert_eq!(a["completion_time_s"], Value::Null);
    assert_eq!(b["completion_time_s"], 4.0);
    // 4 MB in 8 s and 2 MB in 4 s; 100 kB and 50 kB retransmitted
    assert_eq!(
        (&a["goodput_bps"], &b["goodput_bps"]),
        (&json!(4e6), &json!(4e6))
    );
    assert_eq!(
        [
            &a["bytes_delivered"],
            &a["bytes_sent"],
            &a["bytes_retransmitted"]
        ],
        [4_000_000, 4_998_000, 100_000]
    );
    assert_eq!(
        [
            &b["bytes_delivered"],
            &b["bytes_sent"],
            &b["bytes_retransmitted"]
        ],
        [2_000_000, 2_100_000, 50_000]
    );
    assert_eq!(a["retrans_ratio"], 0.025);
    assert_eq!(b["retrans_ratio"], 0.025);
    // a's two data packets left the queue (3000 B on the wire), b's ACK is not its data
    assert_eq!(a["throughput_bps"], 3_000.0);
    assert_eq!(b["throughput_bps"], 0.0);
    // a: 1 of its 2 arrivals in the window dropped; b: its one data arrival lost at random
    assert_eq!(
        (&a["loss_rate"], &b["loss_rate"]),
        (&json!(0.5), &json!(1.0))
    );
    assert_eq!([&a["packets_dropped"], &b["packets_dropped"]], [1, 1]);
    assert_eq!(
        [&a["rto_events"], &a["recovery_events"], &a["loss_probes"]],
        [1, 2, 3]
    );
    assert_eq!(
        [&b["rto_events"], &b["recovery_events"], &b["loss_probes"]],
        [2, 1, 1]
    );
    assert_eq!(b["avg_quality"], 7.5);
}

#[test]
fn rtts_states_and_estimates_are_weighed_over_the_window() {
    let out = run();
    let a = &out["flows"]["a"];
    let b = &out["flows"]["b"];
    // RTTs 100, 200, 300 ms (the 500 ms sample came before the window)
    close(&a["rtt_mean_s"], 0.2, 1e-12);
    close(&a["rtt_p10_s"], 0.1, 0.008);
    close(&a["rtt_p50_s"], 0.2, 0.008);
    close(&a["rtt_p90_s"], 0.3, 0.008);
    close(&a["rtt_p99_s"], 0.3, 0.008);
    close(&b["rtt_mean_s"], 0.12, 1e-12);
    // STARTUP 2–3 s, PROBE_BW 3–9 s, PROBE_RTT 9–10 s
    assert_eq!(
        a["state_time_fraction"],
        json!({"STARTUP": 0.125, "PROBE_BW": 0.75, "PROBE_RTT": 0.125})
    );
    // b: Open 4–8 s on one connection and 4–6 s on the other, Recovery 6–7 s; closed after
    let open = b["state_time_fraction"]["CA_OPEN"].as_f64().unwrap();
    let recovery = b["state_time_fraction"]["CA_RECOVERY"].as_f64().unwrap();
    assert_eq!(b["state_time_fraction"].as_object().unwrap().len(), 2);
    assert!((open - 6.0 / 7.0).abs() < 1e-12 && (recovery - 1.0 / 7.0).abs() < 1e-12);
    // 1 Mb/s for 1 s, 2 Mb/s for 2 s, 4 Mb/s for 5 s
    close(&a["bw_est_mean_bps"], 3.125e6, 1e-12);
    close(&a["bw_est_median_bps"], 4e6, 0.008);
    assert_eq!(b["bw_est_mean_bps"], Value::Null);
}

#[test]
fn the_bottleneck_is_measured_against_its_rate_schedule() {
    let q = &run()["bottleneck"];
    // 8 Mb/s for 2–6 s and 5 Mb/s for 6–10 s: 52 Mbit, 6.5 Mb/s on average
    assert_eq!(q["capacity_bps"], 6.5e6);
    // 1500 + 52 + 1500 B left
    close(&q["utilisation"], 3_052.0 * 8.0 / 52e6, 1e-12);
    assert_eq!([&q["packets_arrived"], &q["packets_dropped"]], [4, 2]);
    assert_eq!(
        (&q["drop_rate"], &q["queue_drop_rate"]),
        (&json!(0.5), &json!(0.25))
    );
    // sojourns 6, 4 and 5 s
    assert_eq!(q["queue_delay_mean_s"], 5.0);
    close(&q["queue_delay_p50_s"], 5.0, 0.008);
    close(&q["queue_delay_p90_s"], 6.0, 0.008);
    close(&q["queue_delay_p99_s"], 6.0, 0.008);
    // backlog 1500 B for 2 s, 3052 B for 4 s, 1500 B for 1 s, empty for 1 s
    assert_eq!(q["backlog_mean_bytes"], 16_708.0 / 8.0);
    close(&q["backlog_p50_bytes"], 1_500.0, 0.008);
    close(&q["backlog_p90_bytes"], 3_052.0, 0.008);
    assert_eq!(q["bdp_bytes"], 125_000);
    close(&q["backlog_mean_bdp"], 16_708.0 / 8.0 / 125_000.0, 1e-12);
    close(&q["backlog_p50_bdp"], 1_500.0 / 125_000.0, 0.008);
    close(&q["backlog_p99_bdp"], 3_052.0 / 125_000.0, 0.008);
    // while both flows ran (4–8 s): a delivered 3.5 MB, b 2 MB
    close(
        &q["jain_index"],
        5.5 * 5.5 / (2.0 * (3.5 * 3.5 + 2.0 * 2.0)),
        1e-12,
    );
}

#[test]
fn a_run_that_ends_early_cuts_the_window_and_an_empty_one_reports_nulls() {
    let s = scenario();
    let window = Window {
        start: at(0),
        end: at(10_000),
    };
    let mut m = Metrics::new(2, window, false);
    m.add_conn(0);
    m.add_conn(1);
    m.on_flow_start(at(0), 0);
    m.on_flow_start(at(4_000), 1);
    m.finish(at(3_000));
    let out = summarize(
        &s,
        &m,
        at(3_000),
        &[stats(0, 0, 0), stats(0, 0, 0)],
        &[0, 1],
        vec![None, None],
    );
    let q = &out["bottleneck"];
    // 10 Mb/s for 1 s, 8 Mb/s for 2 s
    close(&q["capacity_bps"], 26e6 / 3.0, 1e-12);
    assert_eq!(q["utilisation"], 0.0);
    for key in [
        "drop_rate",
        "queue_delay_p50_s",
        "backlog_mean_bytes",
        "jain_index",
    ] {
        assert_eq!(q[key], Value::Null, "{key}");
    }
    let a = &out["flows"]["a"];
    assert_eq!(a["active_s"], 3.0);
    for key in ["retrans_ratio", "loss_rate", "rtt_p50_s", "bw_est_mean_bps"] {
        assert_eq!(a[key], Value::Null, "{key}");
    }
    // b had not started: no active time, so no rates at all
    let b = &out["flows"]["b"];
    assert_eq!(b["active_s"], 0.0);
    assert_eq!(
        (&b["goodput_bps"], &b["throughput_bps"]),
        (&Value::Null, &Value::Null)
    );
}
