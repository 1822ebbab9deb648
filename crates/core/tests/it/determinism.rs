use super::run;
use bloatlab_core::cc::CC_NAMES;
use bloatlab_core::metrics::tables::Column;
use serde_json::json;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn fingerprint(cols: Vec<(&'static str, Column)>, h: &mut DefaultHasher) {
    for (name, c) in cols {
        name.hash(h);
        match c {
            Column::F64(v) => v.iter().for_each(|x| x.to_bits().hash(h)),
            Column::U64(v) => v.hash(h),
            Column::U32(v) => v.hash(h),
            Column::U16(v) => v.hash(h),
            Column::U8(v) => v.hash(h),
            Column::Bool(v) => v.hash(h),
        }
    }
}

fn digest(scenario: &serde_json::Value) -> (String, u64) {
    let out = run(scenario);
    let mut h = DefaultHasher::new();
    fingerprint(out.metrics.flows.into_columns(), &mut h);
    fingerprint(out.metrics.queue.into_columns(), &mut h);
    fingerprint(out.metrics.samples.into_columns(), &mut h);
    (out.summary.to_string(), h.finish())
}

fn mixed(seed: u64) -> serde_json::Value {
    json!({
        "seed": seed, "duration": "20s",
        "bottleneck": {"rate": "40Mbps", "rtt": "30ms", "loss": 0.002, "jitter": "100us", "topology": "loopback",
                       "shaper": {"kind": "tbf", "burst": "100KB"}, "queue": {"kind": "droptail", "limit": "1BDP"}},
        "flow": [{"name": "bbr", "cc": "bbr", "app": {"kind": "bulk"}, "count": 2},
                 {"name": "cubic", "cc": "cubic", "app": {"kind": "bulk"}, "start": "3s"},
                 {"name": "short", "cc": "reno", "app": {"kind": "bulk", "bytes": "2MB"}, "start": "1s"}]
    })
}

#[test]
fn the_same_scenario_and_seed_give_identical_results() {
    let a = digest(&mixed(7));
    let b = digest(&mixed(7));
    assert_eq!(a, b);
}

#[test]
fn a_different_seed_changes_the_random_draws() {
    assert_ne!(digest(&mixed(7)).1, digest(&mixed(8)).1);
}

/// Every algorithm at once on one host, on the ATC'23 testbed's QUIC transport and on Linux's.
fn every_algorithm(seed: u64) -> serde_json::Value {
    let flows: Vec<_> = CC_NAMES
        .iter()
        .enumerate()
        .map(|(i, cc)| {
            let mut f = json!({"name": cc, "cc": cc, "app": {"kind": "bulk"}, "host": "server",
                               "start": format!("{}ms", 50 * i)});
            if i % 2 == 1 {
                f["pacer"] = json!("nginx-quic");
                f["ack_policy"] = json!("quiche");
                f["rate_sampler"] = json!("nginx-quic");
            }
            f
        })
        .collect();
    json!({
        "seed": seed, "duration": "15s",
        "bottleneck": {"rate": "100Mbps", "rtt": "40ms", "loss": 0.005, "jitter": "50us", "topology": "loopback",
                       "shaper": {"kind": "tbf", "burst": "100KB"}, "queue": {"kind": "droptail", "limit": "0.5BDP"}},
        "flow": flows
    })
}

#[test]
fn every_algorithm_and_transport_repeats_exactly() {
    assert_eq!(digest(&every_algorithm(3)), digest(&every_algorithm(3)));
    assert_ne!(digest(&every_algorithm(3)).1, digest(&every_algorithm(4)).1);
}
