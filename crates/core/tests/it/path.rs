//! The path's shape: the two topologies — a router (ACKs return uncongested)
//! and `tc` on loopback (both directions pass one delay, then one qdisc) — and
//! the hosts' timing jitter.

use super::{run, trace_file};
use serde_json::{json, Value};

fn cubic_over(topology: &str, loss: f64, limit: &str) -> Value {
    json!({"duration": "20s",
           "bottleneck": {"rate": "20Mbps", "rtt": "40ms", "loss": loss, "topology": topology,
                          "queue": {"kind": "droptail", "limit": limit}},
           "flow": [{"name": "a", "cc": "cubic", "app": {"kind": "bulk"}}]})
}

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

#[test]
fn on_loopback_acks_queue_at_the_bottleneck_and_count_for_the_queue_only() {
    let router = run(&cubic_over("dumbbell", 0.0, "4BDP")).summary;
    let lo = run(&cubic_over("loopback", 0.0, "4BDP")).summary;
    // A router's queue sees the data packets only; loopback's also every ACK
    // (one per two segments with delayed ACKs: about half as many again).
    let data = |s: &Value| count(&s["flows"]["a"]["bytes_sent"]) / 1448;
    let arrived = |s: &Value| count(&s["bottleneck"]["packets_arrived"]);
    assert!(arrived(&router) <= data(&router) + 10);
    let acks = arrived(&lo) - data(&lo);
    assert!(
        acks * 10 > data(&lo) * 4 && acks * 10 < data(&lo) * 6,
        "{acks} ACKs for {} segments",
        data(&lo)
    );
    // Each ACK waits behind the data queued before it, so the same RTT holds
    // about half the data in the queue: the RTT is base + 2 × queueing.
    let rtt = |s: &Value| s["flows"]["a"]["rtt_p50_s"].as_f64().unwrap();
    let qdelay = |s: &Value| s["bottleneck"]["queue_delay_p50_s"].as_f64().unwrap();
    let (base, q_lo) = (0.040, qdelay(&lo));
    assert!(
        (rtt(&lo) - base - 2.0 * q_lo).abs() < 0.25 * (rtt(&lo) - base),
        "loopback RTT {} vs 2 × queueing {q_lo}",
        rtt(&lo)
    );
    assert!((rtt(&router) - base - qdelay(&router)).abs() < 0.1 * (rtt(&router) - base));
}

#[test]
fn on_loopback_random_loss_also_drops_acks() {
    let router = run(&cubic_over("dumbbell", 0.03, "1BDP")).summary;
    let lo = run(&cubic_over("loopback", 0.03, "1BDP")).summary;
    let drops = |s: &Value| {
        (
            count(&s["flows"]["a"]["packets_dropped"]),
            count(&s["bottleneck"]["packets_dropped"]),
        )
    };
    let (flow, queue) = drops(&router);
    assert_eq!(flow, queue, "a router drops data only");
    let (flow, queue) = drops(&lo);
    assert!(
        queue > flow + flow / 5,
        "loopback drops ACKs too: {queue} vs {flow} data"
    );
    // The flow's own counters still describe its data: about 3 % lost.
    let rate = lo["flows"]["a"]["loss_rate"].as_f64().unwrap();
    assert!((0.025..0.04).contains(&rate), "data loss rate {rate}");
}

#[test]
fn a_flows_extra_rtt_adds_to_its_round_trip_on_either_topology() {
    for topology in ["dumbbell", "loopback"] {
        let out = run(&json!({
            "bottleneck": {"rate": "100Mbps", "rtt": "40ms", "topology": topology},
            "flow": [{"name": "near", "cc": "cubic", "app": {"kind": "bulk", "bytes": "100kB"}},
                     {"name": "far", "cc": "cubic", "extra_rtt": "20ms", "app": {"kind": "bulk", "bytes": "100kB"}}]
        }));
        for (flow, base) in [("near", 0.040), ("far", 0.060)] {
            let rtt = out.summary["flows"][flow]["rtt_p10_s"].as_f64().unwrap();
            assert!(
                (base..base + 0.002).contains(&rtt),
                "{topology}: {flow}'s RTT {rtt} s, want {base} s"
            );
        }
    }
}

#[test]
fn on_loopback_a_flows_extra_rtt_times_its_acks_as_the_bottlenecks_rtt_would() {
    // 20 Mb/s with a 300 ms outage at 2 s. The path's 200 ms round trip
    // sets the receiver's timers: after the outage Linux grants quick ACKs
    // only for a gap over 200 ms + RTT (here none), and QUICHE's decimated
    // ACK alarm is a quarter of the RTT (capped at 25 ms).
    let (_dir, trace) = trace_file("outage.log", "0 0\n2 20\n2.3 0\n5 20\n");
    let run_with = |rtt: &str, extra: &str| {
        let flow = |name: &str, policy: &str| {
            json!({"name": name, "cc": "cubic", "extra_rtt": extra, "ack_policy": policy,
                   "app": {"kind": "bulk"}})
        };
        run(&json!({
            "duration": "5s",
            "bottleneck": {"trace": trace, "rtt": rtt, "topology": "loopback",
                           "queue": {"kind": "droptail", "limit": "500KB"}},
            "flow": [flow("linux", "linux"), flow("quiche", "quiche")]
        }))
        .summary
    };
    let whole = run_with("200ms", "0ms");
    let split = run_with("100ms", "100ms");
    // On loopback the extra delay joins the bottleneck's on the same links,
    // so only the receivers' timers could tell the two apart.
    assert_eq!(whole["flows"], split["flows"]);
}

#[test]
fn a_run_that_ends_before_its_summary_window_is_summarised_up_to_its_end() {
    // 1 MB at 10 Mb/s is done in about a second; the window asks for 100 s.
    let out = run(&json!({
        "bottleneck": {"rate": "10Mbps", "rtt": "40ms"},
        "flow": [{"name": "a", "cc": "cubic", "app": {"kind": "bulk", "bytes": "1MB"}}],
        "telemetry": {"summary_end": "100s"}
    }));
    let u = out.summary["bottleneck"]["utilisation"].as_f64().unwrap();
    assert!(u > 0.5, "utilisation {u} over the run, not over 100 s");
    let window = &out.summary["summary_window_s"];
    let end = window[1].as_f64().unwrap();
    assert!(
        window[0] == 0.0 && (0.8..5.0).contains(&end),
        "the window reported is the one summarised: {window}"
    );
}

#[test]
fn the_queue_tables_drops_count_random_loss() {
    // A queue of 10000 packets never fills here: every drop is random loss.
    let out = run(&cubic_over("dumbbell", 0.03, "10000pkts"));
    let dropped = count(&out.summary["bottleneck"]["packets_dropped"]);
    let q = &out.metrics.queue;
    let last = q.drops[q.len() - 1];
    // the last row is at most one 10 ms interval before the end
    assert!(
        last > 50 && last <= dropped && last * 100 >= dropped * 99,
        "queue.parquet {last} vs summary {dropped}"
    );
}

/// Share of a 60 s run one BBR flow spends in PROBE_RTT in a 0.25 BDP buffer,
/// which its PROBE_BW drain phases empty.
fn probe_rtt_share(jitter: &str) -> f64 {
    let s = run(&json!({"duration": "60s",
        "bottleneck": {"rate": "25Mbps", "rtt": "40ms", "jitter": jitter,
                       "queue": {"kind": "droptail", "limit": "0.25BDP"}},
        "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}]}))
    .summary;
    s["flows"]["a"]["state_time_fraction"]["PROBE_RTT"]
        .as_f64()
        .unwrap_or(0.0)
}

#[test]
fn with_host_jitter_min_rtt_expires_and_bbr_probes_rtt_every_ten_seconds() {
    // On a drained path a noiseless simulation repeats the base RTT exactly, and
    // Linux BBR refreshes min_rtt with any sample at or below it; real hosts'
    // timing noise makes most drained samples a little higher, so min_rtt
    // expires after 10 s and PROBE_RTT (≥ 200 ms) runs: 5 times in 60 s ≥ 1.6 %.
    let noisy = probe_rtt_share("50us");
    assert!(noisy >= 0.012, "PROBE_RTT {noisy}");
    assert!(noisy > 2.0 * probe_rtt_share("0s"));
}

fn bbr_behind(queue: &str, netem: Option<u64>) -> Value {
    let mut v = json!({"duration": "10s",
           "bottleneck": {"rate": "25Mbps", "rtt": "100ms", "shaper": {"kind": "tbf", "burst": "1MB"},
                          "queue": {"kind": "droptail", "limit": queue}},
           "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}]});
    if let Some(limit) = netem {
        v["bottleneck"]["netem"] = json!({"delay": "100ms", "limit": limit});
    }
    v
}

#[test]
fn netem_spends_the_rtt_in_front_of_the_queue_and_its_limit_caps_the_sending_rate() {
    // All 100 ms of the RTT inside netem, none on the links: with room in netem the sender
    // sees the path it sees without netem (up to the order of simultaneous events, which
    // differs once the receiver's clock is shifted).
    let plain = run(&bbr_behind("30KB", None)).summary;
    let roomy = run(&bbr_behind("30KB", Some(100_000))).summary;
    let of = |s: &Value, key: &str| s["flows"]["a"][key].as_f64().unwrap();
    for key in ["bytes_sent", "rtt_p10_s", "rtt_p90_s"] {
        let (a, b) = (of(&plain, key), of(&roomy, key));
        assert!((a - b).abs() <= 0.01 * a, "{key}: {a} vs {b}");
    }
    let deep = run(&bbr_behind("10MB", Some(100_000))).summary;
    assert_eq!(count(&deep["bottleneck"]["packets_dropped"]), 0);
    // STARTUP sends at 2.89 × its estimate; 1000 packets in netem's 100 ms are 10 000
    // packets/s (≈ 120 Mb/s), so it loses packets at netem though the 10 MB queue has room.
    let tight = run(&bbr_behind("10MB", Some(1000))).summary;
    assert!(count(&tight["bottleneck"]["packets_dropped"]) > 0);
    assert!(tight["bottleneck"]["backlog_p90_bytes"].as_f64().unwrap() < 5e6);
}
