//! A link driven by a throughput trace (Pensieve's `time_s throughput_Mbps`, Sabre's network
//! JSON): the two formats give the same link, and a flow follows its capacity step by step.

use super::{run, trace_file};
use serde_json::{json, Value};

/// 0–5 s at 20 Mb/s, 5–10 s at 5 Mb/s, repeated.
const PENSIEVE: &str = "0 0\n5 20\n10 5\n";
const SABRE: &str = r#"[{"duration_ms": 5000, "bandwidth_kbps": 20000, "latency_ms": 40},
                        {"duration_ms": 5000, "bandwidth_kbps": 5000, "latency_ms": 40}]"#;

fn cubic_over(trace: &str, window: (&str, &str)) -> Value {
    json!({"duration": "20s",
           "bottleneck": {"trace": trace, "rtt": "40ms",
                          "queue": {"kind": "droptail", "limit": "100KB"}},
           "telemetry": {"summary_start": window.0, "summary_end": window.1},
           "flow": [{"name": "a", "cc": "cubic", "app": {"kind": "bulk"}}]})
}

fn goodput_mbps(s: &Value) -> f64 {
    s["flows"]["a"]["goodput_bps"].as_f64().unwrap() / 1e6
}

#[test]
fn pensieve_and_sabre_traces_of_one_capacity_give_the_same_run() {
    let (_pensieve_dir, pensieve) = trace_file("steps.log", PENSIEVE);
    let (_sabre_dir, sabre) = trace_file("steps.json", SABRE);
    let pensieve = run(&cubic_over(&pensieve, ("0s", "20s")));
    let sabre = run(&cubic_over(&sabre, ("0s", "20s")));
    assert_eq!(
        pensieve.summary["flows"], sabre.summary["flows"],
        "same opportunities, same run"
    );
    let capacity = pensieve.summary["bottleneck"]["capacity_bps"]
        .as_f64()
        .unwrap();
    assert!((capacity - 12.5e6).abs() < 1e3, "mean capacity {capacity}");
}

#[test]
fn a_flow_follows_the_traces_capacity_step_by_step() {
    let (_dir, trace) = trace_file("follow.log", PENSIEVE);
    // payload per 1500-byte opportunity: 1448 B
    for (window, mbps) in [(("11s", "15s"), 20.0), (("16s", "20s"), 5.0)] {
        let s = run(&cubic_over(&trace, window)).summary;
        let expected = mbps * 1448.0 / 1500.0;
        let (got, utilisation) = (
            goodput_mbps(&s),
            s["bottleneck"]["utilisation"].as_f64().unwrap(),
        );
        assert!(
            (got - expected).abs() < 0.05 * expected,
            "{window:?}: {got:.2} Mb/s, expected {expected:.2}"
        );
        assert!(utilisation > 0.95, "{window:?}: utilisation {utilisation}");
    }
}
