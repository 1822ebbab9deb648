//! Property tests: packets are conserved across the network, and bytes
//! handed to the sending application reach the receiving one exactly once.

use super::run;
use bloatlab_core::cc::CC_NAMES;
use proptest::prelude::*;
use serde_json::json;

struct Path {
    rate_mbps: u64,
    rtt_ms: u64,
    limit_pkts: u64,
    loss: f64,
    burst_kb: Option<u64>,
    jitter_us: u64,
    topology: &'static str,
    /// netem in front of the queue: (its delay in % of the RTT, its limit in packets).
    netem: Option<(u64, u64)>,
}

fn scenario(p: Path, ccs: &[serde_json::Value], bytes: &[u64]) -> serde_json::Value {
    let Path {
        rate_mbps,
        rtt_ms,
        limit_pkts,
        loss,
        burst_kb,
        jitter_us,
        topology,
        netem,
    } = p;
    let shaper = match burst_kb {
        Some(b) => json!({"kind": "tbf", "burst": format!("{b}KB")}),
        None => json!({"kind": "none"}),
    };
    let flows: Vec<_> = ccs
        .iter()
        .zip(bytes)
        .enumerate()
        .map(|(i, (cc, b))| json!({"name": format!("f{i}"), "cc": cc, "start": format!("{}ms", 37 * i), "app": {"kind": "bulk", "bytes": format!("{b}B")}}))
        .collect();
    let mut v = json!({
        "bottleneck": {"rate": format!("{rate_mbps}Mbps"), "rtt": format!("{rtt_ms}ms"), "loss": loss, "shaper": shaper,
                       "queue": {"kind": "droptail", "limit": format!("{limit_pkts}pkts")},
                       "jitter": format!("{jitter_us}us"), "topology": topology},
        "flow": flows,
        "telemetry": {"interval": "50ms"}
    });
    if let Some((percent, limit)) = netem {
        v["bottleneck"]["netem"] =
            json!({"delay": format!("{}us", rtt_ms * 10 * percent), "limit": limit});
    }
    v
}

/// Every algorithm by name, and BBR v1 on the ATC'23 artifact's base.
fn cca() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        proptest::sample::select(CC_NAMES).prop_map(|name| json!(name)),
        Just(json!({"kind": "bbr", "artifact_base": true})),
    ]
}

/// A sender's transport: TSO, or the ATC'23 testbed's QUIC pacer (which rules TSO out);
/// Linux's or QUICHE's ACKs; Linux's or nginx-quic's rate sampler; the testbed's packet size.
#[derive(Clone, Copy, Debug)]
struct Transport {
    tso: bool,
    nginx_pacer: bool,
    quiche_acks: bool,
    nginx_sampler: bool,
    quic_mss: bool,
}

fn transport() -> impl Strategy<Value = Transport> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(tso, nginx_pacer, quiche_acks, nginx_sampler, quic_mss)| Transport {
                tso: tso && !nginx_pacer,
                nginx_pacer,
                quiche_acks,
                nginx_sampler,
                quic_mss,
            },
        )
}

impl Transport {
    fn apply(self, flow: &mut serde_json::Value) {
        let pick = |on: bool, yes: &str| {
            if on {
                yes.to_owned()
            } else {
                "linux".to_owned()
            }
        };
        flow["tso"] = json!(self.tso);
        flow["pacer"] = json!(pick(self.nginx_pacer, "nginx-quic"));
        flow["ack_policy"] = json!(pick(self.quiche_acks, "quiche"));
        flow["rate_sampler"] = json!(pick(self.nginx_sampler, "nginx-quic"));
        if self.quic_mss {
            flow["mss"] = json!(1252);
            flow["initial_cwnd"] = json!(32);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every finite transfer completes; each byte arrives once; every packet is delivered, dropped or still in flight
    /// — for every algorithm, also when ACKs share the bottleneck (loopback), the path jitters, netem holds packets
    /// in front of the queue, the senders send TSO skbs and defer partial ones, or run the ATC'23 testbed's QUIC
    /// pacer, ACKs and rate sampler, and when the flows share one host's algorithm state.
    #[test]
    fn packets_and_bytes_are_conserved(
        rate in 2u64..60, rtt in 2u64..120, limit in 2u64..400, loss in prop_oneof![Just(0.0), 0.0f64..0.05],
        burst in prop_oneof![Just(None), (2u64..2000).prop_map(Some)],
        jitter_us in prop_oneof![Just(0u64), 1u64..1000],
        topology in prop_oneof![Just("dumbbell"), Just("loopback")],
        netem in prop_oneof![Just(None), (1u64..=100, 1u64..300).prop_map(Some)],
        ccs in proptest::collection::vec(cca(), 1..4), sizes in proptest::collection::vec(1u64..3_000_000, 3),
        transport in transport(), one_host in any::<bool>(),
    ) {
        let netem = netem.filter(|_| topology == "dumbbell");
        let path = Path { rate_mbps: rate, rtt_ms: rtt, limit_pkts: limit, loss, burst_kb: burst, jitter_us, topology, netem };
        let mut s = scenario(path, &ccs, &sizes[..ccs.len()]);
        for f in s["flow"].as_array_mut().unwrap() {
            transport.apply(f);
            if one_host {
                f["host"] = json!("server");
            }
        }
        let out = run(&s);
        let st = &out.stats;
        prop_assert_eq!(st.packets, st.packets_received + st.packets_dropped + st.packets_in_network);
        for (i, bytes) in sizes[..ccs.len()].iter().enumerate() {
            let f = &out.summary["flows"][format!("f{i}")];
            prop_assert_eq!(f["bytes_delivered"].as_u64(), Some(*bytes), "flow f{} ({})", i, &ccs[i]);
            prop_assert!(f["completion_time_s"].is_number());
        }
    }
}

#[test]
fn an_unlimited_flow_stopped_early_delivers_everything_it_sent() {
    let path = Path {
        rate_mbps: 20,
        rtt_ms: 40,
        limit_pkts: 100,
        loss: 0.01,
        burst_kb: None,
        jitter_us: 0,
        topology: "dumbbell",
        netem: None,
    };
    let mut s = scenario(path, &[json!("cubic")], &[1]);
    s["flow"][0]["app"] = json!({"kind": "bulk"});
    s["flow"][0]["stop"] = json!("5s");
    let out = run(&s);
    let f = &out.summary["flows"]["f0"];
    let sent = f["bytes_sent"].as_u64().unwrap() - f["bytes_retransmitted"].as_u64().unwrap();
    assert_eq!(f["bytes_delivered"].as_u64(), Some(sent));
    assert_eq!(out.stats.packets_in_network, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// A DASH session over any path plays to the end: every segment index arrives exactly
    /// once at its level's full size (and any fast-switching re-fetch of it whole too),
    /// whatever the algorithm, page, init segments, HTTP version (HTTP/1.1's connections
    /// share the flow's host), ABR, dash.js profile, transport and abandonments; the session
    /// lasts its start-up, the video and its stalls, to the microsecond; and every packet is
    /// delivered, dropped or still in flight.
    #[test]
    fn every_dash_segment_arrives_once_and_whole(
        rate in 2u64..40, rtt in 2u64..150, limit in 5u64..400, loss in prop_oneof![Just(0.0), 0.0f64..0.03],
        burst in prop_oneof![Just(None), (2u64..2000).prop_map(Some)],
        cc in cca(),
        http in prop_oneof![Just("h1"), Just("h2")],
        abr in proptest::sample::select(vec![json!("dynamic"), json!("bola"), json!("throughput"), json!("bba"), json!("rb"),
                                             json!("festive"), json!("robust_mpc"), json!({"kind": "fixed", "level": 2})]),
        profile in prop_oneof![Just("v3"), Just("v4"), Just("v5")],
        page in proptest::collection::vec(1u64..300_000, 0..3),
        init in prop_oneof![Just(0u64), 1u64..3000],
        audio in any::<bool>(),
        transport in transport(),
    ) {
        let path = Path { rate_mbps: rate, rtt_ms: rtt, limit_pkts: limit, loss, burst_kb: burst, jitter_us: 0, topology: "dumbbell", netem: None };
        let mut s = scenario(path, &[cc], &[1]);
        let ladder = [1e6, 2e6, 4e6];
        let mut app = json!({"kind": "dash", "http": http, "abr": abr, "profile": profile, "init_segment": format!("{init}B"),
                             "page": page.iter().map(|b| format!("{b}B")).collect::<Vec<_>>(),
                             "video": {"bitrates": ["1Mbps", "2Mbps", "4Mbps"], "segment_duration": "2s", "segments": 10}});
        if audio {
            app["audio"] = json!("128kbps");
        }
        s["flow"][0]["app"] = app;
        transport.apply(&mut s["flow"][0]);
        s["duration"] = json!("1000s");
        let out = run(&s);
        let st = &out.stats;
        prop_assert_eq!(st.packets, st.packets_received + st.packets_dropped + st.packets_in_network);
        let flow = &out.summary["flows"]["f0"];
        prop_assert_eq!(&flow["playback_complete"], &json!(true));
        let seg = &out.metrics.segments;
        let mut seen = [0u32; 10];
        let mut replaced = 0;
        for i in (0..seg.len()).filter(|&i| seg.track[i] == 0 && !seg.abandoned[i]) {
            if seg.replacement[i] {
                replaced += 1;
            } else {
                seen[seg.index[i] as usize] += 1;
            }
            let full = (ladder[seg.level[i] as usize] * 2.0 / 8.0) as u64;
            prop_assert_eq!(seg.bytes[i], full, "segment {}", seg.index[i]);
        }
        prop_assert_eq!(seen, [1u32; 10]);
        prop_assert_eq!(flow["segments_replaced"].as_u64(), Some(replaced));
        if profile == "v3" {
            prop_assert_eq!(replaced, 0);
        }
        let f = |key: &str| flow[key].as_f64().unwrap();
        let session = f("startup_delay_s") + 20.0 + f("stall_total_s");
        prop_assert!((f("completion_time_s") - session).abs() < 1e-6,
                     "completion {} s, start-up + video + stalls {} s", f("completion_time_s"), session);
    }
}
