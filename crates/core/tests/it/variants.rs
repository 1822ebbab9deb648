//! BBR variants in whole scenarios, against the papers' headline results.
//!
//! | scenario | paper | bloatlab (seed 1) |
//! |---|---|---|
//! | 25 Mb/s, 100 ms, TBF burst 1 MB, 10 MB queue, 120 s: mean bw estimate | BBR inflated, BBR-S near the rate (WWW'21 §7) | BBR 41.1, BBR-S 24.1 Mb/s |
//! | 80 Mb/s, 25 ms, 4 flows, 0.5 BDP buffer: drop rate (s 5–30) | BBR Shallow loses less (AICT'19 Fig. 11) | BBR 11.6 %, Shallow 12.0 % — **not reproduced** |
//! | same, 1 BDP buffer | (buffers < 1.5 BDP are "shallow") | BBR 10.7 %, Shallow 0 % |
//! | 40 Mb/s, 100 ms, 0.25 BDP, TBF 100 KB, 1 % loss, 60 s: retrans ratio | BBR 10–17 %, oBBR-0.5 0.5–2.8 %, goodput ≥ 83 % (ATC'23 Fig. 7) | BBR 6.6 %, oBBR-0.5 2.2 % at 94 % of the link |
//! | 40 ↔ 10 Mb/s every 10 s, 100 ms, 300 KB: retransmissions | BBR 2.09 × oBBR at equal goodput (ATC'23 Fig. 9) | BBR 6.4 %, oBBR 2.1 %, goodput 22.7 vs 22.7 Mb/s |
//!
//! With 4 flows in a 0.5 BDP buffer the flows' summed, max-filtered estimates
//! plus their quantization budgets keep more than 1.5 BDP in flight even at
//! cwnd gain 1.5 (a gain of 1 does remove the loss), so the lower gain does not
//! help there; from 0.75 BDP up it does (4 flows: 10.3 % → 3.3 % at 0.75 BDP).

use super::run;
use bloatlab_core::cc::CcConfig;
use serde_json::{json, Value};

fn flow(out: &bloatlab_core::simulation::Output, name: &str, key: &str) -> f64 {
    out.summary["flows"][name][key]
        .as_f64()
        .unwrap_or_else(|| panic!("flows.{name}.{key} missing"))
}

fn bottleneck(out: &bloatlab_core::simulation::Output, key: &str) -> f64 {
    out.summary["bottleneck"][key].as_f64().unwrap()
}

/// One bulk flow `a` running `cc` over `bottleneck` for `duration`.
fn single(cc: Value, bottleneck: Value, duration: &str) -> Value {
    json!({"duration": duration, "bottleneck": bottleneck,
           "flow": [{"name": "a", "cc": cc, "app": {"kind": "bulk"}}]})
}

#[test]
fn bbr_s_keeps_its_estimate_near_the_shaped_rate_where_v1_takes_the_tbf_burst() {
    let link = json!({"rate": "25Mbps", "rtt": "100ms", "shaper": {"kind": "tbf", "burst": "1MB"},
                      "queue": {"kind": "droptail", "limit": "10MB"}});
    let v1 = run(&single(json!("bbr"), link.clone(), "120s"));
    let s = run(&single(json!("bbr-s"), link, "120s"));
    let (v1_bw, s_bw) = (
        flow(&v1, "a", "bw_est_mean_bps"),
        flow(&s, "a", "bw_est_mean_bps"),
    );
    assert!(
        v1_bw > 30e6,
        "BBR's mean estimate {v1_bw} should be inflated"
    );
    assert!((s_bw - 25e6).abs() < 2.5e6, "BBR-S's mean estimate {s_bw}");
    assert!(flow(&s, "a", "rtt_p50_s") < flow(&v1, "a", "rtt_p50_s"));
    assert!(flow(&s, "a", "goodput_bps") > 0.95 * 25e6);
}

#[test]
fn bbr_shallow_loses_less_than_bbr_when_four_flows_share_a_one_bdp_buffer() {
    let scenario = |cc: &str| {
        json!({"duration": "30s", "telemetry": {"summary_start": "5s"},
               "bottleneck": {"rate": "80Mbps", "rtt": "25ms", "queue": {"kind": "droptail", "limit": "1BDP"}},
               "flow": [{"name": "f", "cc": cc, "app": {"kind": "bulk"}, "count": 4}]})
    };
    let v1 = run(&scenario("bbr"));
    let shallow = run(&scenario("bbr-shallow"));
    let (v1_drop, shallow_drop) = (
        bottleneck(&v1, "drop_rate"),
        bottleneck(&shallow, "drop_rate"),
    );
    assert!(v1_drop > 0.05, "BBR's drop rate {v1_drop}");
    assert!(
        shallow_drop < v1_drop / 4.0,
        "BBR Shallow's drop rate {shallow_drop}"
    );
    assert!(bottleneck(&shallow, "utilisation") > 0.95);
}

#[test]
fn obbr_keeps_retransmissions_low_on_a_lossy_shallow_shaped_link() {
    let link = json!({"rate": "40Mbps", "rtt": "100ms", "loss": 0.01,
                      "shaper": {"kind": "tbf", "burst": "100KB"},
                      "queue": {"kind": "droptail", "limit": "0.25BDP"}});
    let v1 = run(&single(json!("bbr"), link.clone(), "60s"));
    let o = run(&single(json!({"kind": "obbr", "mu": 0.5}), link, "60s"));
    let (v1_rtx, o_rtx) = (
        flow(&v1, "a", "retrans_ratio"),
        flow(&o, "a", "retrans_ratio"),
    );
    assert!(o_rtx <= 0.03, "oBBR-0.5 retransmits {o_rtx}");
    assert!(flow(&o, "a", "goodput_bps") >= 0.8 * 40e6);
    // ATC'23 Fig. 7 has BBR at ≥ 10 %; bloatlab's Linux BBR retransmits less (see the table above).
    assert!(v1_rtx > 2.0 * o_rtx, "BBR retransmits {v1_rtx}");
}

#[test]
fn obbr_follows_bandwidth_drops_with_fewer_retransmissions_than_bbr() {
    let schedule: Vec<Value> = (1..6)
        .map(|i| json!({"at": format!("{}s", 10 * i), "rate": if i % 2 == 1 { "10Mbps" } else { "40Mbps" }}))
        .collect();
    let link = json!({"rate": "40Mbps", "rtt": "100ms", "schedule": schedule,
                      "queue": {"kind": "droptail", "limit": "300KB"}});
    let v1 = run(&single(json!("bbr"), link.clone(), "60s"));
    let o = run(&single(json!("obbr"), link, "60s"));
    let retransmitted = |out| flow(out, "a", "retrans_ratio") * flow(out, "a", "goodput_bps");
    assert!(retransmitted(&v1) > 2.0 * retransmitted(&o));
    let (v1_gp, o_gp) = (flow(&v1, "a", "goodput_bps"), flow(&o, "a", "goodput_bps"));
    assert!(
        (o_gp - v1_gp).abs() < 0.05 * v1_gp,
        "goodput {o_gp} vs {v1_gp}"
    );
}

#[test]
fn every_variant_runs_by_name_and_round_trips_through_its_json() {
    for kind in ["bbr-s", "bbr-shallow", "obbr", "b3r"] {
        let cc: CcConfig = serde_json::from_value(json!(kind)).unwrap();
        assert_eq!(cc.name(), kind);
        assert!(cc.is_model_based());
        let again: CcConfig = serde_json::from_value(cc.to_json()).unwrap();
        assert_eq!(again, cc);
        let link = json!({"rate": "10Mbps", "rtt": "40ms", "loss": 0.005});
        let out = run(&single(json!(kind), link, "5s"));
        assert!(flow(&out, "a", "goodput_bps") > 5e6, "{kind}");
    }
    let e =
        serde_json::from_value::<CcConfig>(json!({"kind": "obbr", "mu": 2})).map(|c| c.validate());
    assert_eq!(
        e.unwrap().unwrap_err(),
        "mu = 2 is out of range: allowed 0 ≤ mu ≤ 1.001"
    );
    let shallow: CcConfig =
        serde_json::from_value(json!({"kind": "bbr-shallow", "high_gain": 2.5})).unwrap();
    assert_eq!(shallow.to_json()["cwnd_gain"], 1.5);
}

#[test]
fn obbr_connections_share_the_drop_scoring_only_when_they_share_a_host() {
    let scenario = |shared_state: bool, host: Option<&str>| {
        let mut f = json!({"name": "f", "count": 3, "app": {"kind": "bulk"},
                           "cc": {"kind": "obbr", "shared_state": shared_state}});
        if let Some(h) = host {
            f["host"] = json!(h);
        }
        json!({"duration": "20s", "flow": [f],
               "bottleneck": {"rate": "40Mbps", "rtt": "100ms", "loss": 0.02,
                              "shaper": {"kind": "tbf", "burst": "100KB"},
                              "queue": {"kind": "droptail", "limit": "0.25BDP"}}})
    };
    let flows = |shared_state, host| run(&scenario(shared_state, host)).summary["flows"].clone();
    // Each flow is its own host by default, so sharing changes nothing; nor does a common
    // host without sharing.
    let own = flows(true, None);
    assert_eq!(own, flows(false, None));
    assert_eq!(own, flows(false, Some("server")));
    // On one host, one flow's detected drop is scored with the others' counters.
    assert_ne!(own, flows(true, Some("server")));
}
