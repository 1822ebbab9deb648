use super::*;

fn base() -> Value {
    json!({
        "name": "t", "duration": "10s",
        "bottleneck": {"rate": "25Mbps", "rtt": "100ms", "shaper": {"kind": "tbf", "burst": "1MB"},
                       "queue": {"kind": "droptail", "limit": "8BDP"}},
        "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}, "count": 2}]
    })
}

fn parse(v: &Value) -> Result<Scenario, ScenarioError> {
    Scenario::from_json(&v.to_string())
}

fn error_of(mutate: impl FnOnce(&mut Value)) -> ScenarioError {
    let mut v = base();
    mutate(&mut v);
    parse(&v).expect_err("scenario should be rejected")
}

/// The DASH settings of flow `i`.
fn dash_of(s: &Scenario, i: usize) -> &DashConfig {
    match &s.flows[i].app {
        AppSpec::Dash(d) => d,
        AppSpec::Bulk { .. } => panic!("flow {i} is not a DASH flow"),
    }
}

/// A bottleneck table driven by the trace file `name`, written with `text` in `dir`.
fn trace_link(dir: &std::path::Path, name: &str, text: &str, rtt: &str) -> Value {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    json!({"trace": path.to_str().unwrap(), "rtt": rtt})
}

#[test]
fn a_valid_scenario_resolves_units_bdp_and_flow_counts() {
    let s = parse(&base()).unwrap();
    assert_eq!(s.bottleneck.bdp_bytes, 312_500);
    assert_eq!(s.bottleneck.limit, Limit::Bytes(2_500_000));
    assert_eq!(
        s.flows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
        vec!["a-0", "a-1"]
    );
    assert_eq!(s.flows[0].rcvbuf, DEFAULT_RCVBUF);
    assert_eq!(s.to_json()["bottleneck"]["queue"]["limit_bytes"], 2_500_000);
}

#[test]
fn a_kind_s_name_alone_stands_for_its_table_and_its_errors_name_the_field() {
    let tables = parse(&base()).unwrap().to_json();
    let mut v = base();
    v["flow"][0]["app"] = json!("bulk");
    v["bottleneck"]["shaper"] = json!("none");
    let mut names = base();
    names["bottleneck"]["shaper"] = json!({"kind": "none"});
    assert_eq!(
        parse(&v).unwrap().to_json(),
        parse(&names).unwrap().to_json()
    );
    assert_ne!(parse(&v).unwrap().to_json(), tables);
    let e = error_of(|v| v["flow"][0]["app"] = json!("dash"));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("flow[0].app", "missing field `video`")
    );
    // a drop-tail queue without a limit holds Linux's 1000 packets, as no queue at all does
    for queue in [json!("droptail"), json!({"kind": "droptail"})] {
        let mut v = base();
        v["bottleneck"]["queue"] = queue;
        assert_eq!(parse(&v).unwrap().bottleneck.limit, Limit::Packets(1000));
    }
    let e = error_of(|v| v["bottleneck"]["queue"] = json!("fifo"));
    assert_eq!(e.path, "bottleneck.queue");
    assert!(e.message.starts_with("unknown variant `fifo`"), "{e}");
}

#[test]
fn tso_is_off_unless_asked_for_echoed_and_refused_with_the_quic_pacer() {
    let s = parse(&base()).unwrap();
    assert!(!s.flows[0].tso);
    assert_eq!(s.to_json()["flows"][0]["tso"], false);
    let mut v = base();
    v["flow"][0]["tso"] = json!(true);
    let s = parse(&v).unwrap();
    assert!(s.flows.iter().all(|f| f.tso));
    assert_eq!(s.to_json()["flows"][1]["tso"], true);
    let e = error_of(|v| {
        v["flow"][0]["tso"] = json!(true);
        v["flow"][0]["pacer"] = json!("nginx-quic");
    });
    assert_eq!(e.path, "flow[0].tso");
    assert!(e.message.contains("nginx-quic"), "{e}");
}

#[test]
fn an_unknown_field_is_named_with_its_path() {
    let e = error_of(|v| v["bottleneck"]["burst"] = json!("1MB"));
    assert_eq!(e.path, "bottleneck.burst");
    assert!(e.message.contains("unknown field `burst`"), "{e}");
    // the position is in JSON the front end wrote, which the user never saw
    assert!(!e.message.contains(" at line "), "{e}");
}

#[test]
fn an_error_reads_path_colon_message_or_the_message_alone() {
    let e = error_of(|v| v["duration"] = json!("0s"));
    assert_eq!(
        e.to_string(),
        "duration: \"0s\": the duration must be positive"
    );
    let e = ScenarioError::new("", "expected a table");
    assert_eq!(e.to_string(), "expected a table");
}

#[test]
fn an_unknown_cca_lists_the_allowed_ones() {
    let e = error_of(|v| v["flow"][0]["cc"] = json!("vegas"));
    assert!(e.path.starts_with("flow[0].cc"), "{e}");
    assert!(
        e.message.contains("vegas") && e.message.contains("cubic"),
        "{e}"
    );
}

#[test]
fn negative_and_zero_rates_are_rejected() {
    let e = error_of(|v| v["bottleneck"]["rate"] = json!("-5Mbps"));
    assert_eq!(e.path, "bottleneck.rate");
    assert!(
        e.message.contains("-5Mbps") && e.message.contains("negative"),
        "{e}"
    );
    let e = error_of(|v| v["bottleneck"]["rate"] = json!("0Mbps"));
    assert!(e.message.contains("greater than 0"), "{e}");
}

#[test]
fn a_buffer_smaller_than_one_packet_is_rejected() {
    let e = error_of(|v| v["bottleneck"]["queue"]["limit"] = json!("1KB"));
    assert_eq!(e.path, "bottleneck.queue.limit");
    assert!(
        e.message.contains("1000 bytes") && e.message.contains("1500"),
        "{e}"
    );
    let e = error_of(|v| v["bottleneck"]["queue"]["limit"] = json!("0.001BDP"));
    assert!(e.message.contains("smaller than one packet"), "{e}");
}

/// Linux's qdiscs count the 14 B Ethernet header; a Mahimahi link sits on a TUN device and
/// carries bare IP packets, so a trace-driven link counts none and refuses one.
#[test]
fn the_link_header_is_ethernet_by_default_and_none_on_a_trace() {
    let s = parse(&base()).unwrap();
    assert_eq!(s.bottleneck.link_header, 14);
    assert_eq!(s.to_json()["bottleneck"]["link_header_bytes"], 14);
    let dir = tempfile::tempdir().unwrap();
    let mut v = base();
    v["bottleneck"] = trace_link(dir.path(), "t.down", "1\n2\n", "20ms");
    assert_eq!(parse(&v).unwrap().bottleneck.link_header, 0);
    v["bottleneck"]["link_header"] = json!("14B");
    let e = parse(&v).unwrap_err();
    assert_eq!(e.path, "bottleneck.link_header");
    assert!(e.message.contains("allowed 0 B only"), "{e}");
    // without the header a 1500 B buffer holds a full packet again
    let mut v = base();
    v["bottleneck"]["link_header"] = json!("0B");
    v["bottleneck"]["queue"]["limit"] = json!("1500B");
    assert!(parse(&v).is_ok());
}

#[test]
fn a_malformed_trace_file_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let e =
        error_of(|v| v["bottleneck"] = trace_link(dir.path(), "bad.down", "1\n2\nfast\n", "20ms"));
    assert_eq!(e.path, "bottleneck.trace");
    assert!(
        e.message.contains("line 3") && e.message.contains("bad.down"),
        "{e}"
    );
}

#[test]
fn a_trace_file_is_read_in_the_format_it_is_written_in_and_echoed() {
    let guard = tempfile::tempdir().unwrap();
    let dir = guard.path();
    let files = [
        ("link.down", "2\n4\n", "mahimahi"),
        (
            "fcc.log",
            "0.0 9\n1.0 12\n2.0 0\n3.0 12\n4.0 0\n",
            "pensieve",
        ),
        (
            "net.json",
            r#"[{"duration_ms": 1000, "bandwidth_kbps": 12000, "latency_ms": 20},
                {"duration_ms": 1000, "bandwidth_kbps": 0, "latency_ms": 20}]"#,
            "sabre",
        ),
    ];
    for (name, text, format) in files {
        let mut v = base();
        v["bottleneck"] = trace_link(dir, name, text, "100ms");
        let s = parse(&v).unwrap();
        let echoed = &s.to_json()["bottleneck"]["trace"];
        assert_eq!(echoed["format"], format, "{name}");
        assert_eq!(
            echoed["mean_rate_bps"], 6e6,
            "{name}: 12 Mb/s half the time"
        );
        assert_eq!(s.bottleneck.bdp_bytes, 75_000, "{name}");
    }
    // an error names the format the file was read as
    let e = error_of(|v| v["bottleneck"] = trace_link(dir, "bad.log", "0 1\n1 x\n", "20ms"));
    assert!(
        e.message.contains("not a valid Pensieve trace") && e.message.contains("line 2"),
        "{e}"
    );
}

#[test]
fn unlimited_flows_need_a_duration_or_a_stop() {
    let e = error_of(|v| {
        v.as_object_mut()
            .unwrap()
            .remove("duration")
            .map(|_| ())
            .unwrap()
    });
    assert_eq!(e.path, "duration");
    assert!(e.message.contains("a-0"), "{e}");
}

#[test]
fn loss_must_be_a_probability() {
    let e = error_of(|v| v["bottleneck"]["loss"] = json!(1.5));
    assert!(e.message.contains("0 ≤ loss < 1"), "{e}");
}

#[test]
fn jitter_is_bounded_by_half_the_rtt_and_echoed() {
    let e = error_of(|v| v["bottleneck"]["jitter"] = json!("80ms"));
    assert_eq!(e.path, "bottleneck.jitter");
    assert!(e.message.contains("0 ≤ jitter ≤ rtt/2"), "{e}");
    let mut v = base();
    v["bottleneck"]["jitter"] = json!("50us");
    let s = parse(&v).unwrap();
    assert_eq!(s.to_json()["bottleneck"]["jitter_ns"], 50_000);
    assert_eq!(parse(&base()).unwrap().bottleneck.jitter, Duration::ZERO);
}

#[test]
fn netem_takes_its_delay_out_of_the_rtt_and_defaults_to_netems_limit() {
    let mut v = base();
    v["bottleneck"]["netem"] = json!({"delay": "60ms"});
    let s = parse(&v).unwrap();
    let n = s.bottleneck.netem.unwrap();
    assert_eq!((n.delay, n.limit), (Duration::from_millis(60), 1000));
    assert_eq!(s.bottleneck.link_rtt(), Duration::from_millis(40));
    assert_eq!(s.bottleneck.bdp_bytes, 312_500); // the RTT, and so the BDP, is unchanged
    assert_eq!(s.to_json()["bottleneck"]["netem"]["limit_pkts"], 1000);
    assert!(parse(&base()).unwrap().to_json()["bottleneck"]["netem"].is_null());

    let e = error_of(|v| v["bottleneck"]["netem"] = json!({"delay": "101ms"}));
    assert_eq!(e.path, "bottleneck.netem.delay");
    assert!(e.message.contains("0 < delay ≤ rtt = 100ms"), "{e}");
    let e = error_of(|v| v["bottleneck"]["netem"] = json!({"delay": "10ms", "limit": 0}));
    assert_eq!(e.path, "bottleneck.netem.limit");
    assert!(e.message.contains("allowed 1 ≤ limit"), "{e}");
    let e = error_of(|v| {
        v["bottleneck"]["netem"] = json!({"delay": "10ms"});
        v["bottleneck"]["topology"] = json!("loopback");
    });
    assert_eq!(e.path, "bottleneck.netem");
}

#[test]
fn dash_init_segments_default_to_840_bytes_and_the_page_is_optional() {
    let dash = |v: &mut Value, extra: Value| {
        let mut app = json!({"kind": "dash", "video": "www21", "audio": "128kbps"});
        app.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v["flow"] = json!([{"name": "v", "cc": "bbr", "app": app}]);
    };
    let mut v = base();
    dash(&mut v, json!({}));
    let s = parse(&v).unwrap();
    let d = dash_of(&s, 0);
    assert_eq!(d.video.init_bytes, 840);
    assert_eq!(d.audio.as_ref().map(|a| a.init_bytes), Some(840));
    assert!(d.page.is_empty());

    dash(
        &mut v,
        json!({"init_segment": "0B", "page": ["2442B", "595378B"]}),
    );
    let s = parse(&v).unwrap();
    let d = dash_of(&s, 0);
    assert_eq!(
        (d.video.init_bytes, d.page.clone()),
        (0, vec![2442, 595_378])
    );
    let echo = &s.to_json()["flows"][0]["app"];
    assert_eq!(echo["page_bytes"], json!([2442, 595_378]));
    assert_eq!(echo["init_segment_bytes"], 0);

    let e = error_of(|v| dash(v, json!({"page": ["2kB", "0B"]})));
    assert_eq!(e.path, "flow[0].app.page[1]");
    assert!(e.message.contains("at least 1 byte"), "{e}");
}

#[test]
fn a_number_of_the_wrong_kind_is_refused_with_its_range_not_its_rust_type() {
    // nor a table by its Rust struct
    let e = error_of(|v| v["bottleneck"] = json!(3));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        ("bottleneck", "invalid type: integer `3`, expected a table")
    );
    let e = error_of(|v| v["flow"][0] = json!("bbr"));
    assert_eq!(e.message, "invalid type: string \"bbr\", expected a table");
    let e = error_of(|v| v["seed"] = json!(-1));
    assert_eq!(e.path, "seed");
    assert_eq!(
        e.message,
        "invalid value: integer `-1`, expected an integer from 0 to 18446744073709551615"
    );
    let e = error_of(|v| v["flow"][0]["mss"] = json!(1.5));
    assert_eq!(e.path, "flow[0].mss");
    assert_eq!(
        e.message,
        "invalid type: floating point `1.5`, expected an integer from 0 to 4294967295"
    );
    // inside a table read by kind (the field leads the message) and inside a nested one
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "obbr", "mu": "a"}));
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        (
            "flow[0].cc",
            "mu: invalid type: string \"a\", expected a number"
        )
    );
    let e = error_of(|v| {
        v["flow"][0]["cc"] = json!({"kind": "obbr", "mu": 0.5, "bbr": {"artifact_base": "x"}})
    });
    assert_eq!(
        (e.path.as_str(), e.message.as_str()),
        (
            "flow[0].cc",
            "bbr.artifact_base: invalid type: string \"x\", expected a boolean"
        )
    );
    // an unknown kind is the kind's fault, not that of the table's other fields
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "vegas", "kernel": "4.17"}));
    assert!(
        e.message.starts_with("kind: unknown variant `vegas`"),
        "{e}"
    );
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": 1, "kernel": "4.17"}));
    assert!(
        e.message.starts_with("kind: expected a kind name, got 1 ("),
        "{e}"
    );
    assert!(e.message.ends_with("allowed kinds: reno, cubic, cubic-quic, bbr, bbr2, bbr3, bbr2-quic, bbr-s, bbr2-s, bbr-shallow, obbr, b3r)"), "{e}");
    let e = error_of(|v| v["flow"][0]["cc"] = json!("vegas"));
    assert!(e.message.starts_with("unknown variant `vegas`"), "{e}");
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "bbr-s", "history": -1}));
    assert_eq!(
        e.message,
        "history: invalid value: integer `-1`, expected an integer from 0 to 18446744073709551615"
    );
    let ladder = json!({"bitrates": ["1Mbps"], "segment_duration": "4s", "segments": "many"});
    let e = error_of(|v| v["flow"][0]["app"] = json!({"kind": "dash", "video": ladder}));
    assert_eq!(e.path, "flow[0].app.video");
    assert!(
        e.message.starts_with(
            "segments: invalid type: string \"many\", expected an integer from 0 to \
             18446744073709551615: expected \"www21\""
        ),
        "{e}"
    );
}

#[test]
fn the_allowed_kinds_are_listed_only_where_nothing_else_says_what_is_wrong() {
    let kinds = "(allowed kinds: reno, cubic, cubic-quic, bbr, bbr2, bbr3, bbr2-quic, bbr-s, \
                 bbr2-s, bbr-shallow, obbr, b3r)";
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"mu": 0.5}));
    assert_eq!(e.message, format!("missing field `kind` {kinds}"));
    let e = error_of(|v| v["flow"][0]["cc"] = json!(5));
    assert_eq!(
        e.message,
        format!("expected a kind name or a table {{ kind = \"...\", ... }}, got 5 {kinds}")
    );
    // serde's list of variants already says it; a field at fault is not about the kind
    let e = error_of(|v| v["flow"][0]["cc"] = json!("vegas"));
    assert!(
        e.message
            .starts_with("unknown variant `vegas`, expected one of `reno`"),
        "{e}"
    );
    assert!(!e.message.contains("allowed kinds"), "{e}");
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "bbr", "cwnd_gain": "x"}));
    assert_eq!(
        e.message,
        "cwnd_gain: invalid type: string \"x\", expected a number"
    );
}

#[test]
fn an_error_inside_a_kind_table_names_the_field() {
    let e = error_of(|v| v["bottleneck"]["queue"]["limit"] = json!("-1B"));
    assert_eq!(e.path, "bottleneck.queue.limit");
    assert!(e.message.contains("is negative"), "{e}");
    let e = error_of(|v| v["bottleneck"]["shaper"]["burst"] = json!("much"));
    assert_eq!(e.path, "bottleneck.shaper.burst");
    let e = error_of(|v| v["bottleneck"]["shaper"] = json!({"kind": "red"}));
    assert_eq!(e.path, "bottleneck.shaper.kind");
    assert!(e.message.contains("`none` or `tbf`"), "{e}");
    let dash = |extra: Value| {
        let mut app = json!({"kind": "dash", "video": "www21"});
        app.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        error_of(|v| v["flow"][0]["app"] = app)
    };
    let e = dash(json!({"init_segment": "-1B"}));
    assert_eq!(e.path, "flow[0].app.init_segment");
    let e = dash(json!({"audio": "loud"}));
    assert_eq!(e.path, "flow[0].app.audio");
    let e = dash(json!({"bytes": "1MB"}));
    assert_eq!(e.path, "flow[0].app.bytes");
    assert!(e.message.contains("unknown field `bytes`"), "{e}");
    // settings parsed as a whole (abr, profile, cc) name the field in the message
    let e = dash(json!({"abr": {"kind": "bba", "reservoir": "-1s"}}));
    assert_eq!(e.path, "flow[0].app.abr");
    assert!(e.message.starts_with("reservoir: "), "{e}");
    // the one bad field among good ones
    let e = dash(json!({"abr": {"kind": "bba", "cushion": "10s", "reservoir": "-1s"}}));
    assert!(e.message.starts_with("reservoir: "), "{e}");
    // a fixed level is checked against the video's ladder (www21: levels 0 to 10)
    let e = dash(json!({"abr": {"kind": "fixed", "level": 11}}));
    assert_eq!(e.path, "flow[0].app.abr");
    assert!(e.message.contains("has levels 0 to 10"), "{e}");
    let e = dash(json!({"abr": {"kind": "fixed", "level": 10}, "audio": "loud"}));
    assert_eq!(e.path, "flow[0].app.audio", "level 10 exists");
    let e = dash(json!({"profile": {"base": "v5", "stall_threshold": "soon"}}));
    assert!(e.message.starts_with("stall_threshold: "), "{e}");
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "bbr", "cwnd_gain": "x"}));
    assert_eq!(e.path, "flow[0].cc");
    assert!(e.message.starts_with("cwnd_gain: "), "{e}");
    let e = error_of(|v| v["flow"][0]["app"] = json!({"kind": "video"}));
    assert_eq!(e.path, "flow[0].app.kind");
    assert!(e.message.contains("`bulk` or `dash`"), "{e}");
    assert!(parse(&{
        let mut v = base();
        v["bottleneck"]["shaper"] = json!({"kind": "none"});
        v
    })
    .is_ok());
}

#[test]
fn a_value_of_another_type_where_a_name_is_expected_lists_the_names() {
    // serde words these "expected value", "expected string or map" and "expected map with a
    // single key", whichever way the field is read
    let cases = [
        (
            json!({"bottleneck": {"topology": 1}}),
            "bottleneck.topology",
            "invalid type: integer `1`, expected `dumbbell` or `loopback`",
        ),
        (
            json!({"flow": [{"pacer": true}]}),
            "flow[0].pacer",
            "invalid type: boolean `true`, expected `linux` or `nginx-quic`",
        ),
        (
            json!({"flow": [{"app": {"kind": "dash", "video": "bbb", "http": [1]}}]}),
            "flow[0].app.http",
            "invalid type: sequence, expected `h1` or `h2`",
        ),
        (
            json!({"flow": [{"cc": {"kind": "obbr", "bbr": {"kernel": 3}}}]}),
            "flow[0].cc",
            "bbr.kernel: invalid type: integer `3`, expected `5.x` or `4.17`",
        ),
        (
            json!({"flow": [{"cc": {"kind": "bbr", "kernel": {}}}]}),
            "flow[0].cc",
            "kernel: invalid type: map, expected `5.x` or `4.17`",
        ),
        // a table of `kind` alone where a name is expected, which serde reads as a variant
        // named `kind`, in each of the three places errors are worded
        (
            json!({"flow": [{"cc": {"kind": "bbr", "kernel": {"kind": "4.17"}}}]}),
            "flow[0].cc",
            "kernel: invalid type: map, expected `5.x` or `4.17`",
        ),
        (
            json!({"flow": [{"app": {"kind": "dash", "video": "bbb", "http": {"kind": "h2"}}}]}),
            "flow[0].app.http",
            "invalid type: map, expected `h1` or `h2`",
        ),
        (
            json!({"bottleneck": {"topology": {"kind": "dumbbell"}}}),
            "bottleneck.topology",
            "invalid type: map, expected `dumbbell` or `loopback`",
        ),
        (
            json!({"flow": [{"app": {"kind": "dash", "video": "bbb", "profile": {"estimator": -2}}}]}),
            "flow[0].app.profile",
            "estimator: invalid type: integer `-2`, expected `sliding_window` or `ewma`",
        ),
    ];
    // `change` written over the base scenario, tables and arrays element by element
    fn merge(into: &mut Value, change: &Value) {
        match (into, change) {
            (Value::Object(a), Value::Object(b)) => b.iter().for_each(|(k, v)| {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }),
            (Value::Array(a), Value::Array(b)) => {
                a.iter_mut().zip(b).for_each(|(x, y)| merge(x, y))
            }
            (slot, v) => *slot = v.clone(),
        }
    }
    for (change, path, message) in cases {
        let e = error_of(|v| merge(v, &change));
        assert_eq!((e.path.as_str(), e.message.as_str()), (path, message));
    }
    // a wrong name keeps serde's own words, which already list the names
    let e = error_of(|v| v["bottleneck"]["topology"] = json!("ring"));
    assert!(e.message.starts_with("unknown variant `ring`"), "{e}");
}

#[test]
fn the_topology_is_named_and_echoed() {
    let e = error_of(|v| v["bottleneck"]["topology"] = json!("ring"));
    assert_eq!(e.path, "bottleneck.topology");
    assert!(e.message.contains("`dumbbell` or `loopback`"), "{e}");
    let mut v = base();
    v["bottleneck"]["topology"] = json!("loopback");
    assert_eq!(
        parse(&v).unwrap().to_json()["bottleneck"]["topology"],
        "loopback"
    );
    assert_eq!(
        parse(&base()).unwrap().bottleneck.topology,
        Topology::Dumbbell
    );
}

/// On loopback a DASH session's requests would share the lossy queue, and nothing resends
/// them: refused, naming the app.
#[test]
fn a_dash_app_is_refused_on_loopback() {
    let e = error_of(|v| {
        v["bottleneck"]["topology"] = json!("loopback");
        v["flow"][0]["app"] = json!({"kind": "dash", "video": "www21"});
    });
    assert_eq!(e.path, "flow[0].app");
    assert!(e.message.contains("dumbbell"), "{e}");
}

#[test]
fn a_burst_below_one_packet_is_rejected() {
    let e = error_of(|v| v["bottleneck"]["shaper"]["burst"] = json!("1KB"));
    assert_eq!(e.path, "bottleneck.shaper.burst");
}

#[test]
fn duplicate_flow_names_are_rejected() {
    let e = error_of(|v| {
        v["flow"] = json!([{"name": "x", "cc": "cubic", "app": {"kind": "bulk"}}, {"name": "x", "cc": "bbr", "app": {"kind": "bulk"}}]);
    });
    assert_eq!(e.path, "flow[1].name");
}

#[test]
fn algorithm_parameters_are_range_checked_and_echoed() {
    let e = error_of(|v| v["flow"][0]["cc"] = json!({"kind": "cubic", "beta": 1.5}));
    assert_eq!(e.path, "flow[0].cc");
    assert!(e.message.contains("beta"), "{e}");
    let s = parse(&base()).unwrap();
    let cc = &s.to_json()["flows"][0]["cc"];
    assert_eq!(cc["kind"], "bbr");
    assert_eq!(cc["cwnd_gain"], 2.0);
}

#[test]
fn the_echoed_bbr_parameters_are_those_that_run() {
    let echo = |cc: Value| {
        let mut v = base();
        v["flow"][0]["cc"] = cc;
        parse(&v).unwrap().to_json()["flows"][0]["cc"].clone()
    };
    let linux = echo(json!("bbr"));
    assert_eq!(linux["lt_enabled"], true);
    assert_eq!(linux["extra_acked_gain"], 1.0);
    let artifact = echo(json!({"kind": "bbr", "artifact_base": true}));
    assert_eq!(artifact["lt_enabled"], false);
    assert_eq!(artifact["extra_acked_gain"], 0.0);
    assert_eq!(artifact["pacing_margin_percent"], 0);
    // A field written beside the preset is the one that runs (the artifact's base + lt).
    let with_lt = echo(json!({"kind": "bbr", "artifact_base": true, "lt_enabled": true}));
    assert_eq!(with_lt["lt_enabled"], true);
    assert_eq!(with_lt["extra_acked_gain"], 0.0);
    let obbr = echo(json!({"kind": "obbr", "bbr": {"artifact_base": true}}));
    assert_eq!(obbr["bbr"]["lt_enabled"], false);
    let b3r = echo(json!({"kind": "b3r", "bbr": {"artifact_base": true}}));
    assert_eq!(b3r["bbr"]["probe_rtt_wait_for_drain"], false);
    let bbr_s = echo(json!({"kind": "bbr-s", "base": {"kernel": "4.17"}}));
    assert_eq!(bbr_s["base"]["extra_acked_gain"], 0.0);
    let shallow = echo(json!({"kind": "bbr-shallow", "kernel": "4.17"}));
    assert_eq!(shallow["extra_acked_gain"], 0.0);
    assert_eq!(shallow["cwnd_gain"], 1.5);
}

#[test]
fn an_empty_summary_window_is_rejected_and_times_are_stated_in_the_scenarios_units() {
    let e = error_of(|v| {
        v["flow"][0]["start"] = json!("2s");
        v["flow"][0]["stop"] = json!("1500ms");
    });
    assert_eq!(e.path, "flow[0].stop");
    assert!(
        e.message.starts_with("1500ms is not after start (2s)"),
        "{e}"
    );
    let e = error_of(|v| v["telemetry"] = json!({"summary_start": "12s"}));
    assert_eq!(e.path, "telemetry.summary_start");
    assert!(e.message.contains("the summary would be empty"), "{e}");
    let e = error_of(|v| {
        v["bottleneck"]["schedule"] =
            json!([{"at": "5s", "rate": "10Mbps"}, {"at": "5s", "rate": "5Mbps"}])
    });
    assert!(
        e.message.starts_with("5s is not after the previous step"),
        "{e}"
    );
    // a summary just inside the run is fine, and so is a flow that starts after it: a run
    // shortened with `--set duration=...` keeps its late flows, which then do not send
    let mut v = base();
    v["telemetry"] = json!({"summary_start": "9s"});
    v["flow"][0]["start"] = json!("20s");
    let s = parse(&v).unwrap();
    assert_eq!(s.flows[0].start, Duration::from_secs(20));
}

#[test]
fn fields_left_out_take_their_documented_defaults() {
    let s = parse(&json!({
        "bottleneck": {"rate": "10Mbps", "rtt": "40ms"},
        "flow": [{"cc": "cubic", "app": {"kind": "bulk", "bytes": "1MB"}}]
    }))
    .unwrap();
    assert_eq!((s.name.as_str(), s.seed, s.duration), ("scenario", 1, None));
    let b = &s.bottleneck;
    assert_eq!(b.line_rate, Rate::from_mbps(1000));
    assert!(matches!(b.shaper, Shaper::None));
    assert_eq!(b.limit, Limit::Packets(1000), "Linux's txqueuelen");
    assert_eq!(
        (b.loss, b.jitter, b.netem.is_none()),
        (0.0, Duration::ZERO, true)
    );
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!(f.name, "flow0");
    assert_eq!(
        (f.start, f.stop, f.extra_rtt),
        (Duration::ZERO, None, Duration::ZERO)
    );
    assert_eq!((f.mss, f.initial_cwnd, f.rcvbuf), (1448, 10, 3 << 20));
    assert!(f.slow_start_after_idle && !f.tso);
    let t = &s.telemetry;
    assert_eq!(t.interval, Some(Duration::from_millis(10)));
    assert!(
        t.rate_samples,
        "samples.parquet is written unless turned off"
    );
    assert_eq!((t.summary_start, t.summary_end), (Duration::ZERO, None));
}

/// Sets the field at a JSON pointer, creating it in its parent table if it is not there.
fn set(v: &mut Value, pointer: &str, value: Value) {
    let (parent, field) = pointer.rsplit_once('/').unwrap();
    let table = v.pointer_mut(parent).and_then(Value::as_object_mut);
    table
        .unwrap_or_else(|| panic!("{pointer}: no table"))
        .insert(field.into(), value);
}

/// The path and a fragment of the message a case is refused with; `None` = accepted.
type Refusal = Option<(&'static str, &'static str)>;

/// Each case sets one field of the base scenario (or of a DASH flow, for `/flow/0/app/…`)
/// and expects it accepted, or refused with this path and message fragment.
fn check_edges(cases: &[(&str, Value, Refusal)]) {
    for (pointer, value, want) in cases {
        let mut v = base();
        if pointer.starts_with("/flow/0/app/") {
            v["flow"][0]["app"] = json!({"kind": "dash", "video": "www21"});
        }
        set(&mut v, pointer, value.clone());
        match (parse(&v), want) {
            (Ok(_), None) => {}
            (Err(e), Some((path, fragment))) => {
                assert_eq!(e.path, *path, "{pointer} = {value}: {e}");
                assert!(e.message.contains(fragment), "{pointer} = {value}: {e}");
            }
            (got, _) => panic!("{pointer} = {value}: {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn flow_ranges_are_checked_at_both_edges() {
    check_edges(&[
        (
            "/flow/0/count",
            json!(0),
            Some(("flow[0].count", "allowed 1 to 10000")),
        ),
        ("/flow/0/count", json!(1), None),
        ("/flow/0/count", json!(10_000), None),
        (
            "/flow/0/count",
            json!(10_001),
            Some(("flow[0].count", "10001 is out of range")),
        ),
        (
            "/flow/0/mss",
            json!(87),
            Some(("flow[0].mss", "allowed 88 to 65483 bytes")),
        ),
        ("/flow/0/mss", json!(88), None),
        ("/flow/0/mss", json!(65_483), None),
        (
            "/flow/0/mss",
            json!(65_484),
            Some(("flow[0].mss", "65484 is out of range")),
        ),
        (
            "/flow/0/initial_cwnd",
            json!(0),
            Some(("flow[0].initial_cwnd", "allowed 1 to 100000 packets")),
        ),
        ("/flow/0/initial_cwnd", json!(1), None),
        ("/flow/0/initial_cwnd", json!(100_000), None),
        (
            "/flow/0/initial_cwnd",
            json!(100_001),
            Some(("flow[0].initial_cwnd", "100001 is out of range")),
        ),
        ("/flow/0/stop", json!("1ns"), None),
        ("/flow/0/rcvbuf", json!("1448B"), None),
        (
            "/flow/0/rcvbuf",
            json!("1447B"),
            Some((
                "flow[0].rcvbuf",
                "1447 bytes is smaller than one segment: allowed ≥ 1448 bytes (the flow's mss)",
            )),
        ),
        (
            "/flow/0/rcvbuf",
            json!("1B"),
            Some(("flow[0].rcvbuf", "1 byte is smaller than one segment")),
        ),
        ("/flow/0/app", json!({"kind": "bulk", "bytes": "1B"}), None),
        (
            "/flow/0/app",
            json!({"kind": "bulk", "bytes": "0B"}),
            Some(("flow[0].app.bytes", "at least 1 byte")),
        ),
        ("/duration", json!("1ns"), None),
        (
            "/duration",
            json!("0s"),
            Some(("duration", "must be positive")),
        ),
    ]);
    // stop is compared with start, not with zero
    let mut v = base();
    v["flow"][0]["start"] = json!("2s");
    for (stop, ok) in [("2s", false), ("2000000001ns", true)] {
        v["flow"][0]["stop"] = json!(stop);
        assert_eq!(parse(&v).is_ok(), ok, "stop = {stop}");
    }
    // the receive buffer is compared with the flow's own segment size
    v["flow"][0]["mss"] = json!(536);
    v["flow"][0]["rcvbuf"] = json!("536B");
    assert!(parse(&v).is_ok());
    // without a duration, a flow that ends by itself (a stop, or a byte count) may run
    let mut v = base();
    v.as_object_mut().unwrap().remove("duration");
    v["flow"][0]["stop"] = json!("5s");
    assert_eq!(parse(&v).unwrap().end(), None);
    v["flow"][0]
        .as_object_mut()
        .unwrap()
        .remove("stop")
        .unwrap();
    v["flow"][0]["app"]["bytes"] = json!("1MB");
    assert!(parse(&v).is_ok());
    assert_eq!(parse(&base()).unwrap().end(), Some(Duration::from_secs(10)));
}

#[test]
fn a_queue_or_bucket_must_hold_the_largest_packet_of_any_flow() {
    // flow[1]'s packets are 9000 + 52 B: a smaller bfifo or bucket would drop every one
    let with = |limit: &str, burst: &str| {
        let mut v = base();
        v["bottleneck"]["queue"]["limit"] = json!(limit);
        v["bottleneck"]["shaper"]["burst"] = json!(burst);
        let mut jumbo = v["flow"][0].clone();
        jumbo["name"] = json!("jumbo");
        jumbo["mss"] = json!(9000);
        v["flow"].as_array_mut().unwrap().push(jumbo);
        parse(&v)
    };
    let why = "allowed ≥ 9066 bytes (flow[1].mss = 9000 plus 52 B of headers, and bottleneck.link_header = 14 B)";
    let e = with("9065B", "1MB").unwrap_err();
    assert_eq!(e.path, "bottleneck.queue.limit");
    assert_eq!(
        e.message,
        format!("9065 bytes is smaller than one packet: {why}")
    );
    let e = with("1MB", "9065B").unwrap_err();
    assert_eq!(e.path, "bottleneck.shaper.burst");
    assert!(e.message.ends_with(why), "{e}");
    assert!(with("9066B", "9066B").is_ok());
    assert!(
        with("1pkts", "9066B").is_ok(),
        "a packet limit holds a packet of any size"
    );
}

#[test]
fn dash_ranges_are_checked_at_both_edges() {
    let ladder = |bitrates: Value, duration: &str, segments: u32| json!({"bitrates": bitrates, "segment_duration": duration, "segments": segments});
    let video = "flow[0].app.video";
    check_edges(&[
        (
            "/flow/0/app/max_connections",
            json!(0),
            Some(("flow[0].app.max_connections", "allowed 1 to 6")),
        ),
        ("/flow/0/app/max_connections", json!(1), None),
        ("/flow/0/app/max_connections", json!(6), None),
        (
            "/flow/0/app/max_connections",
            json!(7),
            Some(("flow[0].app.max_connections", "7 is out of range")),
        ),
        (
            "/flow/0/app/audio",
            json!("0bps"),
            Some(("flow[0].app.audio", "positive bitrate")),
        ),
        ("/flow/0/app/audio", json!("1bps"), None),
        (
            "/flow/0/app/page",
            json!(["0B"]),
            Some(("flow[0].app.page[0]", "at least 1 byte")),
        ),
        ("/flow/0/app/page", json!(["1B"]), None),
        (
            "/flow/0/app/video",
            ladder(json!(["1Mbps", "2Mbps"]), "4s", 1),
            None,
        ),
        (
            "/flow/0/app/video",
            ladder(json!([]), "4s", 1),
            Some((video, "non-empty, strictly increasing")),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["0bps", "2Mbps"]), "4s", 1),
            Some((video, "positive rates")),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["2Mbps", "2Mbps"]), "4s", 1),
            Some((video, "strictly increasing")),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["2Mbps", "1Mbps"]), "4s", 1),
            Some((video, "strictly increasing")),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["1Mbps"]), "0s", 1),
            Some((video, "segment_duration must be positive")),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["1Mbps"]), "4s", 0),
            Some((video, "segments = 0: allowed ≥ 1")),
        ),
        // sizes round to whole bytes: 13 b/s × 0.3 s is 0.49 B, 14 b/s 0.53 B
        (
            "/flow/0/app/video",
            ladder(json!(["13bps", "1Mbps"]), "300ms", 1),
            Some((
                video,
                "bitrates: 13bps gives 300ms segments of 0 bytes: allowed ≥ 14bps",
            )),
        ),
        (
            "/flow/0/app/video",
            ladder(json!(["14bps", "1Mbps"]), "300ms", 1),
            None,
        ),
        ("/flow/0/app/video", json!("bbb"), None),
        (
            "/flow/0/app/video",
            json!("www22"),
            Some((video, "is not a video")),
        ),
        (
            "/flow/0/app/video",
            json!("missing.json"),
            Some((video, "cannot read \"missing.json\"")),
        ),
        (
            "/flow/0/app/video",
            json!({"bitrates": "1Mbps"}),
            Some((video, "expected \"www21\", \"bbb\"")),
        ),
    ]);
    // the audio track's segments are the video's: at 2 s, 1 b/s is 0.25 B, 2 b/s 0.5 B (→ 1 B)
    for (audio, refusal) in [("1bps", true), ("2bps", false)] {
        let mut v = base();
        v["flow"][0]["app"] =
            json!({"kind": "dash", "video": ladder(json!(["1Mbps"]), "2s", 3), "audio": audio});
        match parse(&v) {
            Err(e) if refusal => {
                assert_eq!(e.path, "flow[0].app.audio");
                assert!(
                    e.message.ends_with("allowed ≥ 2bps (a byte per segment)"),
                    "{e}"
                );
            }
            got => assert_eq!(got.is_ok(), !refusal, "{audio}: {got:?}"),
        }
    }
    let mut v = base();
    v["flow"][0]["app"] = json!({"kind": "dash", "video": ladder(json!(["1Mbps", "3Mbps"]), "2s", 7), "audio": "64kbps", "max_connections": 2});
    let s = parse(&v).unwrap();
    let d = dash_of(&s, 1);
    assert_eq!(d.video.bitrates_bps, vec![1e6, 3e6]);
    assert_eq!(
        (d.video.segment_duration, d.video.segments),
        (Duration::from_secs(2), 7)
    );
    assert_eq!(
        d.audio.as_ref().map(|a| a.bitrates_bps.clone()),
        Some(vec![64e3])
    );
    assert_eq!(d.max_connections, 2);
    v["flow"][0]["app"] = json!({"kind": "dash", "video": "bbb"});
    let s = parse(&v).unwrap();
    let d = dash_of(&s, 0);
    assert_eq!(d.video.bitrates_bps.len(), 10, "Big Buck Bunny's ladder");
    assert_eq!(d.max_connections, 6, "a browser's six connections per host");
}

#[test]
fn bottleneck_ranges_are_checked_at_both_edges() {
    check_edges(&[
        // 1 b/s × 100 ms rounds to a BDP of 0 bytes, which an 8-BDP queue cannot be sized from
        (
            "/bottleneck/rate",
            json!("1bps"),
            Some((
                "bottleneck.queue.limit",
                "\"8BDP\" needs a bandwidth-delay product",
            )),
        ),
        ("/bottleneck/queue/limit", json!("2BDP"), None),
        (
            "/bottleneck/line_rate",
            json!("0bps"),
            Some(("bottleneck.line_rate", "greater than 0")),
        ),
        ("/bottleneck/line_rate", json!("1bps"), None),
        ("/bottleneck/loss", json!(0.0), None),
        ("/bottleneck/loss", json!(0.999), None),
        (
            "/bottleneck/loss",
            json!(1.0),
            Some(("bottleneck.loss", "allowed 0 ≤ loss < 1")),
        ),
        (
            "/bottleneck/loss",
            json!(-0.001),
            Some(("bottleneck.loss", "-0.001 is out of range")),
        ),
        ("/bottleneck/jitter", json!("50ms"), None),
        (
            "/bottleneck/jitter",
            json!("50000001ns"),
            Some(("bottleneck.jitter", "rtt/2 = 50ms")),
        ),
        ("/bottleneck/netem", json!({"delay": "100ms"}), None),
        (
            "/bottleneck/netem",
            json!({"delay": "1ns", "limit": 1}),
            None,
        ),
        (
            "/bottleneck/netem",
            json!({"delay": "0s"}),
            Some(("bottleneck.netem.delay", "0 < delay ≤ rtt")),
        ),
        (
            "/bottleneck/netem",
            json!({"delay": "100000001ns"}),
            Some(("bottleneck.netem.delay", "100000001ns is out of range")),
        ),
        (
            "/bottleneck/netem",
            json!({"delay": "1ms", "limit": 4_294_967_295u64}),
            None,
        ),
        (
            "/bottleneck/netem",
            json!({"delay": "1ms", "limit": 4_294_967_296u64}),
            Some(("bottleneck.netem.limit", "4294967296 is out of range")),
        ),
        ("/bottleneck/link_header", json!("0B"), None),
        ("/bottleneck/link_header", json!("64B"), None),
        (
            "/bottleneck/link_header",
            json!("65B"),
            Some((
                "bottleneck.link_header",
                "65 B is out of range: allowed 0 ≤ link_header ≤ 64 B",
            )),
        ),
        ("/bottleneck/shaper/burst", json!("1514B"), None),
        (
            "/bottleneck/shaper/burst",
            json!("1513B"),
            Some((
                "bottleneck.shaper.burst",
                "1513 bytes is smaller than one packet",
            )),
        ),
        ("/bottleneck/queue/limit", json!("1pkts"), None),
        (
            "/bottleneck/queue/limit",
            json!("0pkts"),
            Some(("bottleneck.queue.limit", "at least one packet")),
        ),
        ("/bottleneck/queue/limit", json!("1514B"), None),
        (
            "/bottleneck/queue/limit",
            json!("1513B"),
            Some((
                "bottleneck.queue.limit",
                "1513 bytes is smaller than one packet",
            )),
        ),
        (
            "/bottleneck/schedule",
            json!([{"at": "1s", "rate": "5Mbps"}, {"at": "1000000001ns", "rate": "6Mbps"}]),
            None,
        ),
        (
            "/bottleneck/schedule",
            json!([{"at": "2s", "rate": "5Mbps"}, {"at": "1s", "rate": "6Mbps"}]),
            Some(("bottleneck.schedule[1].at", "increasing time order")),
        ),
        ("/telemetry", json!({"interval": "100us"}), None),
        (
            "/telemetry",
            json!({"interval": "99us"}),
            Some((
                "telemetry.interval",
                "\"99us\" is out of range: allowed ≥ 100us (or \"ack\", a row per ACK)",
            )),
        ),
        (
            "/telemetry",
            json!({"interval": "0s"}),
            Some(("telemetry.interval", "allowed ≥ 100us")),
        ),
        (
            "/telemetry",
            json!({"interval": "often"}),
            Some(("telemetry.interval", "or \"ack\"")),
        ),
        (
            "/telemetry",
            json!({"summary_start": "10s"}),
            Some(("telemetry.summary_start", "duration = 10s")),
        ),
        ("/telemetry", json!({"summary_start": "9999999999ns"}), None),
        (
            "/telemetry",
            json!({"summary_start": "2s", "summary_end": "2s"}),
            Some((
                "telemetry.summary_end",
                "later than telemetry.summary_start",
            )),
        ),
        (
            "/telemetry",
            json!({"summary_start": "2s", "summary_end": "2000000001ns"}),
            None,
        ),
        ("/telemetry", json!({"summary_end": "1ns"}), None),
    ]);
    let mut v = base();
    v["bottleneck"]["schedule"] =
        json!([{"at": "1s", "rate": "5Mbps"}, {"at": "3s", "rate": "6Mbps"}]);
    v["bottleneck"]["queue"]["limit"] = json!("5000000000pkts");
    v["telemetry"] = json!({"interval": "ack", "summary_start": "1s", "summary_end": "4s"});
    let s = parse(&v).unwrap();
    assert_eq!(
        s.bottleneck.schedule,
        vec![
            (Duration::from_secs(1), Rate::from_mbps(5)),
            (Duration::from_secs(3), Rate::from_mbps(6))
        ]
    );
    assert_eq!(
        s.bottleneck.limit,
        Limit::Packets(u32::MAX),
        "a packet limit saturates"
    );
    let t = &s.telemetry;
    assert_eq!(
        (t.interval, t.summary_start, t.summary_end),
        (None, Duration::from_secs(1), Some(Duration::from_secs(4)))
    );
    let echo = s.to_json();
    assert_eq!(
        echo["bottleneck"]["schedule"][1],
        json!({"at_ns": 3_000_000_000u64, "rate_bps": 6_000_000})
    );
    assert_eq!(echo["telemetry"]["summary_end_ns"], 4_000_000_000u64);
    assert!(echo["telemetry"]["interval_ns"].is_null());
}

#[test]
fn a_link_is_driven_by_a_rate_or_a_trace_but_not_both() {
    let dir = tempfile::tempdir().unwrap();
    let traced =
        |v: &mut Value| v["bottleneck"] = trace_link(dir.path(), "flat.down", "1\n2\n", "20ms");
    let e = error_of(|v| {
        v["bottleneck"]
            .as_object_mut()
            .unwrap()
            .remove("rate")
            .map(drop)
            .unwrap()
    });
    assert_eq!(
        (e.path.as_str(), e.message.starts_with("missing")),
        ("bottleneck.rate", true)
    );
    let e = error_of(|v| {
        traced(v);
        v["bottleneck"]["rate"] = json!("5Mbps");
    });
    assert!(e.message.contains("not both"), "{e}");
    let e = error_of(|v| {
        traced(v);
        v["bottleneck"]["shaper"] = json!({"kind": "tbf", "burst": "10kB"});
    });
    assert_eq!(e.path, "bottleneck.shaper");
    let e = error_of(|v| {
        traced(v);
        v["bottleneck"]["schedule"] = json!([{"at": "1s", "rate": "5Mbps"}]);
    });
    assert_eq!(e.path, "bottleneck.schedule");
    // a trace's BDP is its mean rate × rtt: 1500 bytes per ms = 12 Mb/s, × 20 ms = 30 kB
    let mut v = base();
    traced(&mut v);
    v["bottleneck"]["queue"] = json!({"kind": "droptail", "limit": "2BDP"});
    let s = parse(&v).unwrap();
    assert_eq!(s.bottleneck.rate, None);
    assert_eq!(s.bottleneck.bdp_bytes, 30_000);
    assert_eq!(s.bottleneck.limit, Limit::Bytes(60_000));
}
