//! CUBIC and HyStart tests. Hand-computed numbers use β = 717/1024,
//! C = 410/1024 = 0.400390625 packets/s³.

use super::*;
use crate::cc::CongestionControl;
use crate::testing::{init, Ack, AckDriver, MSS};

const MS: Duration = Duration::from_millis(1);

fn cubic_at(p: Params, cwnd: u32) -> AckDriver<Cubic> {
    let mut d = AckDriver::new(Cubic::new(p, init()));
    d.cc.window.cwnd = cwnd;
    d.conn.inflight = cwnd;
    d.conn.snd_nxt = cwnd as u64 * MSS as u64;
    d
}

/// A flow that had `w_max` packets out when a loss hit, RTT `rtt`: one
/// slow-start ACK teaches delay_min, then recovery is entered and left, so
/// the next ACK sets cwnd = ssthresh and starts the epoch.
fn after_loss(p: Params, w_max: u32, rtt: Duration) -> AckDriver<Cubic> {
    let mut d = cubic_at(p, w_max - 1);
    d.ack(Ack::new(1, rtt).rtt(rtt));
    assert_eq!(d.cc.cwnd(), w_max);
    d.enter_recovery();
    d.exit_recovery();
    d
}

/// One-packet ACKs spread evenly over each RTT (cwnd ACKs per RTT) for `span`.
fn run(d: &mut AckDriver<Cubic>, span: Duration, rtt: Duration) {
    let end = d.now + span;
    while d.now < end {
        d.ack(Ack::new(
            1,
            Duration::from_nanos(rtt.as_nanos() / d.cc.cwnd() as u64),
        ));
    }
}

fn ssthresh(d: &AckDriver<Cubic>) -> Option<u32> {
    d.cc.metrics().ssthresh_pkts
}

#[test]
fn defaults_match_spec() {
    let p = Params::default();
    assert_eq!(
        (p.beta, BETA, BETA * 1024.0),
        (0.7001953125, 0.7001953125, 717.0)
    );
    assert_eq!((p.c, C, C * 1024.0), (0.400390625, 0.400390625, 410.0));
    assert!(p.fast_convergence && p.tcp_friendliness && p.hystart);
    assert_eq!(
        (p.initial_ssthresh, p.hystart_detect),
        (0, HystartDetect::Both)
    );
    assert_eq!(
        (
            p.hystart_low_window,
            p.hystart_ack_delta_us,
            p.hystart_min_samples
        ),
        (16, 2000, 8)
    );
    assert_eq!(
        (
            p.hystart_delay_min_us,
            p.hystart_delay_max_us,
            p.gso_max_size_bytes
        ),
        (4000, 16000, 65536)
    );
    assert_eq!(
        (UPDATE_INTERVAL, HYSTART_GUARD),
        (Duration::from_micros(31_250), Duration::from_secs(1))
    );
    assert_eq!(
        (
            CNT_CAP_BEFORE_LOSS,
            MIN_CNT,
            FLAT_CNT_FACTOR,
            ACK_DELAY_CAP_US
        ),
        (20, 2, 100, 1000)
    );
    assert_eq!((PACING_SS_RATIO, PACING_CA_RATIO), (200, 120));
    // 8·(1024+717)/3/(1024−717) = 15 in Linux's integer math.
    assert_eq!(Cubic::new(p.clone(), init()).ops.beta_scale, 15);
    assert_eq!(serde_json::from_str::<Params>("{}").unwrap(), p);
    let q: Params = serde_json::from_str(r#"{"beta":0.5,"hystart_detect":"ack_train"}"#).unwrap();
    assert_eq!(
        (q.beta, q.hystart_detect, q.c),
        (0.5, HystartDetect::AckTrain, C)
    );
    assert!(serde_json::from_str::<Params>(r#"{"bic_scale":41}"#).is_err());
}

#[test]
fn unusable_parameters_are_refused_by_name() {
    for c in [0.0, -0.4, f64::INFINITY, f64::NAN] {
        let e = Params {
            c,
            ..Params::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.starts_with("c = ") && e.contains("allowed c > 0"), "{e}");
    }
    for beta in [0.0, -0.5, 1.0, f64::NAN] {
        let e = Params {
            beta,
            ..Params::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.contains("allowed 0 < beta < 1"), "{e}");
    }
    // HyStart's clamp needs min ≤ max (a simulation panicked on the reverse)
    let delays = |min, max| Params {
        hystart_delay_min_us: min,
        hystart_delay_max_us: max,
        ..Params::default()
    };
    assert_eq!(
        delays(4000, 1).validate(),
        Err(
            "hystart_delay_min_us = 4000 is above hystart_delay_max_us = 1: allowed min ≤ max"
                .into()
        )
    );
    assert_eq!(delays(4000, 4000).validate(), Ok(()));
    assert_eq!(Params::default().validate(), Ok(()));
}

#[test]
fn initial_ssthresh_applies_only_with_hystart_off() {
    let p = Params {
        initial_ssthresh: 30,
        ..Params::default()
    };
    assert_eq!(Cubic::new(p.clone(), init()).metrics().ssthresh_pkts, None);
    let p = Params {
        hystart: false,
        ..p
    };
    assert_eq!(Cubic::new(p, init()).metrics().ssthresh_pkts, Some(30));
}

/// cwnd 100: ssthresh ⌊100·717/1024⌋ = 70, W_max = 100. Next loss at cwnd 80
/// < W_max: ssthresh ⌊80·717/1024⌋ = 56, fast convergence W_max =
/// ⌊80·1741/2048⌋ = 68. cwnd 2: ⌊1.4⌋ = 1 → floor 2.
#[test]
fn ssthresh_is_beta_times_cwnd_and_fast_convergence_lowers_w_max() {
    let mut d = cubic_at(Params::default(), 100);
    d.enter_recovery();
    assert_eq!((ssthresh(&d), d.cc.ops.ep.last_max_cwnd), (Some(70), 100));
    d.exit_recovery();
    d.ack(Ack::new(1, MS));
    d.cc.window.cwnd = 80;
    d.enter_recovery();
    assert_eq!((ssthresh(&d), d.cc.ops.ep.last_max_cwnd), (Some(56), 68));
    let mut d = cubic_at(
        Params {
            fast_convergence: false,
            ..Params::default()
        },
        100,
    );
    d.enter_recovery();
    d.exit_recovery();
    d.ack(Ack::new(1, MS));
    d.cc.window.cwnd = 80;
    d.enter_recovery();
    assert_eq!(d.cc.ops.ep.last_max_cwnd, 80);
    let mut d = cubic_at(Params::default(), 2);
    d.enter_recovery();
    assert_eq!(ssthresh(&d), Some(2));
    // a loss at exactly W_max is not "before W_max was regained": W_max stays
    let mut ops = Cubic::new(Params::default(), init()).ops;
    ops.ep.last_max_cwnd = 100;
    ops.ssthresh(&Window::new(100));
    assert_eq!(ops.ep.last_max_cwnd, 100);
}

/// W_max 100, cwnd 70: K = ∛(30 / 0.400390625) = ∛74.93 ≈ 4.2158 s, target
/// looked up delay_min = 0.1 s ahead. Concave: at t = K/2 the target is
/// 100 − ⌊C·(K/2 − 0.1)³⌋ = 100 − ⌊3.24⌋ = 97, so cwnd ≈ 96. Linux truncates
/// the offset to whole packets, so the target sits exactly on W_max while
/// C·|t + 0.1 − K|³ < 1, i.e. |t + 0.1 − K| < ∛(1/C) = 1.357 s: cwnd regains
/// 100 at t ≈ 2.76 s (+ under an RTT for the last packet), holds it across K
/// and probes above from t ≈ 5.47 s (+ an RTT) — a plateau centred on K.
/// (Reno-friendliness off: it would reach ≈ 99 by 5.5 s and blur the edge.)
#[test]
fn cwnd_follows_the_cubic_curve_with_its_w_max_plateau_centred_on_k() {
    let rtt = Duration::from_millis(100);
    let mut d = after_loss(
        Params {
            tcp_friendliness: false,
            ..Params::default()
        },
        100,
        rtt,
    );
    d.ack(Ack::new(1, MS));
    let t0 = d.now;
    assert_eq!(d.cc.cwnd(), 70);
    assert_eq!(d.cc.ops.ep.origin_point, 100);
    assert!(
        (d.cc.ops.ep.k - 4.2158).abs() < 1e-3,
        "K = {}",
        d.cc.ops.ep.k
    );
    run(&mut d, Duration::from_secs_f64(4.2158 / 2.0), rtt);
    assert!(
        (95..=97).contains(&d.cc.cwnd()),
        "cwnd at K/2 = {}",
        d.cc.cwnd()
    );
    let since = |d: &mut AckDriver<Cubic>, until: &dyn Fn(u32) -> bool| {
        while !until(d.cc.cwnd()) {
            run(d, Duration::from_millis(10), rtt);
        }
        (d.now - t0).as_secs_f64()
    };
    let reached = since(&mut d, &|w| w >= 100);
    assert!(
        (2.75..2.90).contains(&reached),
        "W_max regained at {reached:.3} s"
    );
    run(&mut d, Duration::from_secs_f64(4.2158 - reached), rtt);
    assert_eq!(d.cc.cwnd(), 100, "flat at K");
    let left = since(&mut d, &|w| w > 100);
    assert!((5.47..5.62).contains(&left), "left W_max at {left:.3} s");
    assert!(((reached + left) / 2.0 - 4.2158).abs() < 0.1);
    run(&mut d, Duration::from_secs_f64(4.2158 + 2.0 - left), rtt);
    // Convex probing: 2 s past K the target is 100 + ⌊C·2.1³⌋ = 103.
    assert!(
        (102..=103).contains(&d.cc.cwnd()),
        "cwnd 2 s after K = {}",
        d.cc.cwnd()
    );
}

#[test]
fn growth_waits_for_the_window_to_be_used() {
    let rtt = Duration::from_millis(100);
    let mut d = after_loss(Params::default(), 100, rtt);
    for _ in 0..200 {
        d.conn.is_cwnd_limited = false;
        d.ack(Ack::new(1, Duration::from_millis(10)));
    }
    assert_eq!(d.cc.cwnd(), 70);
    assert_eq!(d.cc.ops.ep.epoch_start, None, "no epoch without growth");
    d.ack(Ack::new(1, MS));
    assert_eq!(d.cc.ops.ep.epoch_start, Some(d.now));
}

/// After a loss at 100 (cwnd 70; a delay_min ahead the target is 100 − ⌊C·4.116³⌋ = 73, so cnt
/// is 70/3 = 23), cwnd stays 70 for these few ACKs and only time can trigger a recompute: not
/// within HZ/32, then again.
#[test]
fn cnt_is_recomputed_at_most_every_31_25_ms_while_cwnd_is_unchanged() {
    let mut d = after_loss(Params::default(), 100, Duration::from_millis(100));
    d.ack(Ack::new(1, MS));
    let start = d.now;
    assert_eq!((d.cc.ops.ep.last_time, d.cc.ops.ep.cnt), (start, 23));
    d.ack(Ack::new(1, Duration::from_micros(31_250)));
    assert_eq!(d.cc.ops.ep.last_time, start, "within HZ/32: cnt kept");
    d.ack(Ack::new(1, Duration::from_micros(1)));
    assert_eq!(d.cc.ops.ep.last_time, d.now, "past HZ/32: recomputed");
    assert_eq!(d.cc.cwnd(), 70);
}

/// Linux's loop `while (ack_cnt > delta) { ack_cnt -= delta; tcp_cwnd++; }` and
/// `cnt = min(cnt, cwnd / (tcp_cwnd − cwnd))`: at cwnd 16, delta = ⌊16·15/8⌋ = 30.
#[test]
fn the_reno_equivalent_window_grows_one_per_delta_acked_and_caps_cnt() {
    let mut ops = Cubic::new(Params::default(), init()).ops;
    let mut reno = |ack_cnt: u32, tcp_cwnd: u32| {
        ops.ep.ack_cnt = ack_cnt;
        ops.ep.tcp_cwnd = tcp_cwnd;
        ops.ep.cnt = 100;
        ops.update_reno_equivalent(16);
        (ops.ep.ack_cnt, ops.ep.tcp_cwnd, ops.ep.cnt)
    };
    assert_eq!(reno(30, 10), (30, 10, 100), "not more than delta: nothing");
    assert_eq!(reno(60, 10), (30, 11, 100));
    assert_eq!(reno(61, 10), (1, 12, 100));
    // tcp_cwnd 20 is 4 ahead of cwnd 16: cnt at most 16 / 4
    assert_eq!(reno(1, 20), (1, 20, 4));
    assert_eq!(reno(1, 16), (1, 16, 100), "not ahead: cnt kept");
}

/// No loss yet (W_max = 0): the curve is flat at cwnd, cnt would be 100·cwnd,
/// but is capped at 20, so cwnd 10 → 11 exactly on the 20th packet acked.
#[test]
fn before_the_first_loss_cnt_is_capped_at_twenty() {
    let mut d = cubic_at(
        Params {
            tcp_friendliness: false,
            ..Params::default()
        },
        10,
    );
    d.cc.window.ssthresh = 10;
    d.ack(Ack::new(1, Duration::from_millis(10)));
    assert_eq!(d.cc.ops.ep.cnt, 20);
    d.acks(18, Ack::new(1, Duration::from_millis(10)));
    assert_eq!(d.cc.cwnd(), 10);
    d.ack(Ack::new(1, Duration::from_millis(10)));
    assert_eq!(d.cc.cwnd(), 11);
}

/// W_max 28 at RTT 10 ms: ssthresh ⌊28·0.7002⌋ = 19, K = ∛(9/C) ≈ 2.82 s; after
/// 1 s the curve is still ≈ 28 − C·1.72³ ≈ 26. The Reno-equivalent window
/// gains 1 per ⌊15·cwnd/8⌋ acked ≈ 8/15 packet per RTT, ≈ +53 over 100 RTTs.
#[test]
fn the_reno_friendly_window_dominates_at_small_bdp() {
    let rtt = Duration::from_millis(10);
    let grow = |tcp_friendliness| {
        let mut d = after_loss(
            Params {
                tcp_friendliness,
                ..Params::default()
            },
            28,
            rtt,
        );
        run(&mut d, Duration::from_secs(1), rtt);
        d.cc.cwnd()
    };
    let (friendly, pure) = (grow(true), grow(false));
    assert!((24..=28).contains(&pure), "pure cubic {pure}");
    assert!((62..=76).contains(&friendly), "reno-friendly {friendly}");
}

/// delay_min 100 ms; an RTT sample of 50 ms 0.5 s into the epoch is ignored,
/// one exactly 1 s in is taken (Linux: ignored while `now − epoch_start < HZ`).
#[test]
fn rtt_samples_are_ignored_for_one_second_after_a_reduction() {
    let mut d = after_loss(Params::default(), 100, Duration::from_millis(100));
    d.ack(Ack::new(1, MS));
    d.ack(Ack::new(1, Duration::from_millis(500)).rtt(Duration::from_millis(50)));
    assert_eq!(d.cc.metrics().min_rtt, Some(Duration::from_millis(100)));
    d.ack(Ack::new(1, Duration::from_millis(500)).rtt(Duration::from_millis(50)));
    assert_eq!(d.cc.metrics().min_rtt, Some(Duration::from_millis(50)));
}

/// RTO at cwnd 70 (W_max 100): ssthresh ⌊70·0.7002⌋ = 49, then set_state(Loss)
/// wipes W_max, delay_min and the epoch.
#[test]
fn an_rto_restarts_cubic_from_scratch() {
    let mut d = after_loss(Params::default(), 100, Duration::from_millis(100));
    d.ack(Ack::new(1, MS));
    d.rto(Duration::from_millis(300));
    assert_eq!(
        (d.cc.cwnd(), ssthresh(&d), d.cc.state_name()),
        (1, Some(49), "LOSS")
    );
    let ep = &d.cc.ops.ep;
    assert_eq!(
        (ep.last_max_cwnd, ep.delay_min_us, ep.epoch_start),
        (0, 0, None)
    );
    assert_eq!(d.cc.metrics().min_rtt, None);
    // HyStart starts a new round at the timeout (t = 401 ms)
    let hy = &d.cc.ops.hy;
    assert_eq!((hy.round_start_us, hy.found), (401_000, false));
}

/// Epoch started at t0; the sender was idle from t0 + 1 s to t0 + 3 s: the
/// epoch moves 2 s later. An idle time that would push it past now is clamped.
#[test]
fn restarting_after_idle_shifts_the_epoch_by_the_idle_time() {
    let mut d = after_loss(Params::default(), 100, Duration::from_millis(100));
    d.ack(Ack::new(1, MS));
    let t0 = d.now;
    let conn = Conn {
        last_send: t0 + Duration::from_secs(1),
        ..d.conn.clone()
    };
    d.cc.on_tx_start(t0 + Duration::from_secs(3), &conn);
    assert_eq!(d.cc.ops.ep.epoch_start, Some(t0 + Duration::from_secs(2)));
    let conn = Conn {
        last_send: t0,
        ..d.conn.clone()
    };
    d.cc.on_tx_start(t0 + Duration::from_secs(5), &conn);
    assert_eq!(d.cc.ops.ep.epoch_start, Some(t0 + Duration::from_secs(5)));
}

#[path = "cubic_hystart_tests.rs"]
mod hystart;
