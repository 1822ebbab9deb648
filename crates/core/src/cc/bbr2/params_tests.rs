//! BBRv2/v3 parameters, presets, state names, the bandwidth-filter seam and
//! telemetry (see `tests.rs` for the test path).

use super::tests::*;
use super::*;
use crate::cc::bbr::filters::BwFilter;
use crate::testing::{self, AckDriver};
use crate::units::Rate;

// ---- replaceable bandwidth filter, telemetry, fast path ----

#[derive(Debug)]
struct Fixed(f64);

impl BwFilter for Fixed {
    fn update(&mut self, _: u64, _: f64, _: bool) {}
    fn max_bw(&self) -> f64 {
        self.0
    }
    fn reset(&mut self, _: u64) {}
}

#[test]
fn a_replacement_bandwidth_filter_is_max_bw_and_bw_is_its_min_with_bw_lo() {
    let cc = Bbr2::with_bw_filter(Params::default(), testing::init(), Box::new(Fixed(500.0)));
    let mut d = AckDriver::new(cc);
    d.ack(steady()); // samples at 1953 pkt/s go to the filter, which ignores them
    assert_eq!(d.cc.max_bw(), 500.0);
    d.cc.b.bw_lo = Some(400.0);
    assert_eq!(d.cc.bw(), 400.0);
    assert_eq!(d.cc.metrics().bw_est_bps, Some(400.0 * 1448.0 * 8.0));
}

#[test]
fn the_cycle_max_filter_keeps_this_and_the_last_probe_cycle() {
    let mut f = CycleMaxBwFilter::default();
    f.update(0, 100.0, false);
    f.update(0, 80.0, true); // app-limited below max: ignored
    f.advance_cycle();
    f.update(0, 50.0, false);
    assert_eq!(f.max_bw(), 100.0);
    f.advance_cycle(); // forgets 100
    assert_eq!(f.max_bw(), 50.0);
    f.advance_cycle(); // an empty window keeps the old one
    assert_eq!(f.max_bw(), 50.0);
    f.update(0, 60.0, true); // app-limited above max: taken
    assert_eq!(f.max_bw(), 60.0);
    f.reset(0); // both cycles forgotten (a drop reset, as oBBR's)
    assert_eq!(f.max_bw(), 0.0);
}

#[test]
fn state_names_separate_the_probe_bw_phases() {
    let names: Vec<_> = [
        State::Startup,
        State::Drain,
        State::ProbeBw(Phase::Down),
        State::ProbeBw(Phase::Cruise),
        State::ProbeBw(Phase::Refill),
        State::ProbeBw(Phase::Up),
        State::ProbeRtt,
    ]
    .iter()
    .map(|s| s.name())
    .collect();
    assert_eq!(
        names,
        [
            "STARTUP",
            "DRAIN",
            "PROBE_BW_DOWN",
            "PROBE_BW_CRUISE",
            "PROBE_BW_REFILL",
            "PROBE_BW_UP",
            "PROBE_RTT"
        ]
    );
}

#[test]
fn metrics_report_the_bw_in_use_in_payload_bits_per_second() {
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    let m = d.cc.metrics();
    assert_eq!(m.bw_est_bps, Some(BW * 1448.0 * 8.0));
    assert_eq!(m.min_rtt, Some(RTT));
    assert_eq!((m.pacing_gain, m.cwnd_gain), (Some(1.0), Some(2.0)));
    assert_eq!(m.full_bw_reached, Some(true));
    assert!(m.round.unwrap() >= 5);
    // the connection's MSS is taken on each ACK; an MSS of 0 (none known) is not
    for (mss, want) in [(1000, 1000.0), (0, 1000.0)] {
        d.conn.mss = mss;
        d.ack(steady());
        assert_eq!(
            d.cc.metrics().bw_est_bps,
            Some(BW * want * 8.0),
            "mss {mss}"
        );
    }
}

#[test]
fn a_flow_keeps_the_parameters_it_was_made_with() {
    let cc = Bbr2::new(Params::v3(), testing::init());
    assert_eq!(cc.params(), &Params::v3());
}

// ---- parameters and the state diagram ----

#[test]
fn defaults_match_spec() {
    let p = Params::default();
    assert_eq!(p.startup_pacing_gain, 739.0 / 256.0);
    assert_eq!(p.startup_cwnd_gain, 739.0 / 256.0);
    assert_eq!(p.startup_recovery_pacing_gain, None);
    assert_eq!(p.drain_gain, 88.0 / 256.0);
    assert_eq!((p.cwnd_gain, p.probe_up_cwnd_gain), (2.0, 2.0));
    let cycle = [
        p.probe_up_gain,
        p.probe_down_gain,
        p.cruise_gain,
        p.refill_gain,
    ];
    assert_eq!(cycle, [320.0 / 256.0, 192.0 / 256.0, 1.0, 1.0]);
    assert_eq!(p.bw_probe_pif_gain, 1.25);
    assert_eq!(
        (
            p.min_rtt_window_ms,
            p.probe_rtt_window_ms,
            p.probe_rtt_duration_ms
        ),
        (10_000, 5_000, 200)
    );
    assert_eq!((p.probe_rtt_cwnd_gain, p.min_cwnd), (0.5, 4));
    assert_eq!((p.full_bw_thresh, p.full_bw_rounds), (1.25, 3));
    assert_eq!((p.full_loss_cnt, p.full_ecn_cnt), (8, 2));
    assert_eq!(1.0 - p.beta, 180.0 / 256.0); // β: × 0.703
    assert_eq!(p.loss_thresh, 5.0 / 256.0); // 2 %
    assert_eq!(p.inflight_headroom, 38.0 / 256.0); // 15 %
    assert_eq!(p.refill_add_inc, 0);
    assert_eq!((p.bw_probe_max_rounds, p.bw_probe_rand_rounds), (63, 2));
    assert_eq!(
        (p.bw_probe_base_us, p.bw_probe_rand_us),
        (2_000_000, 1_000_000)
    );
    assert_eq!(p.bw_probe_reno_gain, 1.0);
    assert_eq!(
        (p.pacing_margin_percent, p.min_tso_rate_bps),
        (1, 1_200_000)
    );
    assert_eq!((p.pacing_shift, p.tso_rtt_shift), (10, 9));
    assert_eq!((p.extra_acked_gain, p.extra_acked_win_rounds), (1.0, 5));
    assert_eq!(
        (p.extra_acked_max_ms, p.ack_epoch_acked_reset),
        (100, 1 << 20)
    );
    assert!(p.extra_acked_in_startup && p.drain_to_target && p.fast_path);
    assert!(!p.ecn_enabled);
    assert_eq!((p.ecn_alpha_gain, p.ecn_alpha_init), (16.0 / 256.0, 1.0));
    assert_eq!((p.ecn_factor, p.ecn_thresh), (85.0 / 256.0, 128.0 / 256.0));
    assert_eq!((p.ecn_max_rtt_us, p.ecn_reprobe_gain), (5_000, 0.0));
    assert!(
        !(p.full_bw_per_sample
            || p.split_latest_signals
            || p.keep_probe_up_credit
            || p.loss_probe_recovery
            || p.v3_refinements)
    );
    assert!(
        p.loss_round_restart
            && p.lost_packet_check
            && !p.prior_inflight_raw
            && !p.delayed_ack_rtt_on_expiry
            && !p.valid_samples_only
            && !p.millisecond_clock
    );
}

#[test]
fn v3_defaults_match_spec() {
    let v3 = Params::v3();
    let v2 = Params::default();
    assert_eq!(v3.startup_pacing_gain, 710.0 / 256.0);
    assert_eq!(v3.startup_cwnd_gain, 2.0);
    assert_eq!(v3.probe_down_gain, 232.0 / 256.0);
    assert_eq!(v3.probe_up_cwnd_gain, 2.25);
    assert_eq!(v3.full_loss_cnt, 6);
    assert_eq!(v3.ecn_reprobe_gain, 0.5);
    assert_eq!(v3.min_tso_rate_bps, 0);
    assert!(
        v3.full_bw_per_sample
            && v3.split_latest_signals
            && v3.keep_probe_up_credit
            && v3.loss_probe_recovery
            && v3.v3_refinements
    );
    // everything else is v2's
    let same = Params {
        startup_pacing_gain: v2.startup_pacing_gain,
        startup_cwnd_gain: v2.startup_cwnd_gain,
        probe_down_gain: v2.probe_down_gain,
        probe_up_cwnd_gain: v2.probe_up_cwnd_gain,
        full_loss_cnt: v2.full_loss_cnt,
        ecn_reprobe_gain: v2.ecn_reprobe_gain,
        min_tso_rate_bps: v2.min_tso_rate_bps,
        full_bw_per_sample: false,
        split_latest_signals: false,
        keep_probe_up_credit: false,
        loss_probe_recovery: false,
        v3_refinements: false,
        ..v3
    };
    assert_eq!(same, v2);
}

#[test]
fn quic_port_defaults_match_the_obbr_artifact() {
    let q = Params::quic();
    assert_eq!(q.startup_pacing_gain, 2.885);
    assert_eq!(q.startup_cwnd_gain, 2.0);
    assert_eq!(q.startup_recovery_pacing_gain, Some(1.5));
    assert_eq!(q.drain_gain, 0.75);
    assert_eq!((q.min_rtt_window_ms, q.probe_rtt_window_ms), (2_500, 2_500));
    assert_eq!(q.probe_rtt_cwnd_gain, 0.75);
    assert_eq!(
        (q.beta, q.loss_thresh, q.inflight_headroom),
        (0.3, 0.02, 0.15)
    );
    assert_eq!(q.full_loss_cnt, 8);
    assert_eq!(
        (q.bw_probe_base_us, q.bw_probe_rand_us),
        (2_000_000, 1_000_000)
    );
    assert_eq!((q.bw_probe_max_rounds, q.bw_probe_reno_gain), (63, 1.0));
    assert_eq!(
        (q.probe_up_gain, q.probe_down_gain, q.cwnd_gain),
        (1.25, 0.75, 2.0)
    );
    assert!(!q.fast_path && !q.ecn_enabled && !q.full_bw_per_sample);
    // structure: no loss-round restart, no check per lost packet; PROBE_BW on the in-flight
    // the last ACK left
    assert!(
        !q.loss_round_restart
            && !q.lost_packet_check
            && q.prior_inflight_raw
            && q.delayed_ack_rtt_on_expiry
    );
    assert!(!q.probe_rtt_round_restart && Params::default().probe_rtt_round_restart);
    // its stack calls it only for ACK frames with a valid rate sample, on nginx's ms clock
    assert!(q.millisecond_clock);
    assert!(driver(q.clone()).cc.valid_samples_only());
    assert!(!driver(Params::default()).cc.valid_samples_only());
    // 2^20 bytes compared with bytes acked: 838 packets of 1252 bytes (837 · 1252 < 2^20)
    assert_eq!(q.ack_epoch_acked_reset, 838);
    assert_eq!(Params::default().ack_epoch_acked_reset, 1 << 20);
}

#[test]
fn quic_port_paces_startup_at_1_5_in_recovery() {
    let mut d = driver(Params::quic());
    for _ in 0..4 {
        d.ack(steady());
    }
    d.enter_recovery();
    d.ack(steady());
    assert_eq!(d.cc.metrics().pacing_gain, Some(1.5));
    // lowered even before the pipe is full: floor(1953.125 · 1448 · 1.5 · 0.99)
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(4_199_765 * 8)));
    d.exit_recovery();
    d.ack(steady());
    assert_eq!(d.cc.metrics().pacing_gain, Some(2.885));
}

#[test]
fn quic_port_lowers_the_pacing_rate_in_recovery_outside_startup_too() {
    for (p, lowered) in [(Params::default(), false), (Params::quic(), true)] {
        let mut d = driver(p);
        for _ in 0..4 {
            d.ack(steady());
        }
        let before = d.cc.pacing_rate();
        d.enter_recovery();
        d.cc.state = State::ProbeRtt; // before the pipe is full: gain 1
        d.ack(steady());
        assert!(!d.cc.full_bw.reached);
        assert_eq!(d.cc.pacing_rate() < before, lowered);
    }
}

#[test]
fn param_tables_start_from_their_preset_and_reject_unknown_or_unusable_fields() {
    use crate::cc::CcConfig;
    let c: CcConfig = serde_json::from_str(r#"{"kind":"bbr3","beta":0.5}"#).unwrap();
    assert_eq!(
        c,
        CcConfig::Bbr3(Params {
            beta: 0.5,
            ..Params::v3()
        })
    );
    let c: CcConfig = serde_json::from_str(r#""bbr2-quic""#).unwrap();
    assert_eq!(c, CcConfig::Bbr2Quic(Params::quic()));
    let c: CcConfig = serde_json::from_str(r#""bbr2""#).unwrap();
    assert_eq!(c, CcConfig::Bbr2(Params::default()));
    let json = c.to_json();
    assert_eq!(json["kind"], "bbr2");
    assert_eq!(json["beta"], 76.0 / 256.0);
    let e = serde_json::from_str::<CcConfig>(r#"{"kind":"bbr3","betta":0.5}"#).unwrap_err();
    assert!(e.to_string().contains("betta"), "{e}");
    let bad = |p: Params| CcConfig::Bbr2(p).validate().unwrap_err();
    assert!(bad(Params {
        beta: 1.5,
        ..Params::default()
    })
    .contains("beta"));
    assert!(bad(Params {
        probe_down_gain: 0.0,
        ..Params::default()
    })
    .contains("probe_down_gain"));
    assert!(bad(Params {
        min_cwnd: 0,
        ..Params::default()
    })
    .contains("min_cwnd"));
    // the non-negative factors: 0 is allowed (it turns the feature off), below 0 or
    // not finite is not
    for g in [-0.5, f64::INFINITY, f64::NAN] {
        let e = bad(Params {
            full_bw_thresh: g,
            ..Params::default()
        });
        assert!(e.contains("full_bw_thresh"), "{g}: {e}");
    }
}

#[test]
fn each_count_shift_window_and_loss_thresh_limit_is_checked() {
    use crate::cc::CcConfig;
    let d = Params::default;
    let cases: [(&str, Params); 9] = [
        (
            "full_bw_rounds",
            Params {
                full_bw_rounds: 0,
                ..d()
            },
        ),
        (
            "extra_acked_win_rounds",
            Params {
                extra_acked_win_rounds: 0,
                ..d()
            },
        ),
        (
            "pacing_margin_percent",
            Params {
                pacing_margin_percent: 100,
                ..d()
            },
        ),
        (
            "pacing_shift",
            Params {
                pacing_shift: 64,
                ..d()
            },
        ),
        (
            "tso_rtt_shift",
            Params {
                tso_rtt_shift: 64,
                ..d()
            },
        ),
        (
            "min_rtt_window_ms",
            Params {
                min_rtt_window_ms: 0,
                ..d()
            },
        ),
        (
            "probe_rtt_window_ms",
            Params {
                probe_rtt_window_ms: 0,
                ..d()
            },
        ),
        (
            "loss_thresh",
            Params {
                loss_thresh: 1.0,
                ..d()
            },
        ),
        ("min_cwnd", Params { min_cwnd: 0, ..d() }),
    ];
    for (name, p) in cases {
        // the message starts with the one field at fault (not a list of suspects)
        let e = CcConfig::Bbr2(p).validate().unwrap_err();
        assert!(e.starts_with(name), "{name}: {e}");
    }
    let at_the_limit = Params {
        pacing_margin_percent: 99,
        pacing_shift: 63,
        tso_rtt_shift: 63,
        loss_thresh: 0.99,
        ..d()
    };
    assert_eq!(CcConfig::Bbr2(at_the_limit).validate(), Ok(()));
}

#[test]
fn only_the_diagram_s_transitions_are_legal() {
    use Phase::*;
    use State::*;
    let legal = [
        (Startup, Drain),
        (Drain, ProbeBw(Down)),
        (ProbeBw(Down), ProbeBw(Cruise)),
        (ProbeBw(Down), ProbeBw(Refill)),
        (ProbeBw(Cruise), ProbeBw(Refill)),
        (ProbeBw(Refill), ProbeBw(Up)),
        (ProbeBw(Up), ProbeBw(Down)),
        (ProbeBw(Up), ProbeRtt),
        (Startup, ProbeRtt),
        (ProbeRtt, ProbeBw(Down)),
        (ProbeRtt, Startup),
    ];
    for (a, b) in legal {
        assert!(b.may_follow(a), "{a:?} -> {b:?}");
    }
    let illegal = [
        (Startup, ProbeBw(Down)),
        (Drain, ProbeBw(Cruise)),
        (ProbeBw(Cruise), ProbeBw(Up)),
        (ProbeBw(Refill), ProbeBw(Down)),
        (ProbeBw(Up), ProbeBw(Cruise)),
        (ProbeRtt, ProbeBw(Cruise)),
        (Drain, Startup),
        (ProbeBw(Down), Startup),
    ];
    for (a, b) in illegal {
        assert!(!b.may_follow(a), "{a:?} -> {b:?}");
    }
}
