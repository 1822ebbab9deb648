//! HyStart tests. ACKs 3 ms apart never form a train (delta 2 ms); with
//! delay_min 50 ms the delay threshold is 50 + clamp(50/8, 4, 16) = 56.25 ms.

use super::*;

const GAP_3MS: Duration = Duration::from_millis(3);

/// IW10, one-packet ACKs 3 ms apart: 6 ACKs at 50 ms (delay_min; cwnd → 16),
/// then ACKs at `rtt`. HyStart first looks at ACK 7, the first with cwnd ≥ 16
/// (`cubictcp_acked`), which starts its first round; ACKs 7–14 are that round's
/// 8 samples, so ACK 15 runs the delay test, at cwnd 10 + 14 = 24. Returns
/// (cwnd, ssthresh) after each ACK.
fn delay_script(p: Params, rtt: Duration, acks: usize) -> Vec<(u32, Option<u32>)> {
    delay_script_from(cubic_at(p, 10), rtt, acks)
}

/// [`delay_script`]'s ACKs (6 at 50 ms, then at `rtt`) given to the flow `d`.
fn delay_script_from(
    mut d: AckDriver<Cubic>,
    rtt: Duration,
    acks: usize,
) -> Vec<(u32, Option<u32>)> {
    (1..=acks)
        .map(|k| {
            let sample = if k <= 6 {
                Duration::from_millis(50)
            } else {
                rtt
            };
            d.ack(Ack::new(1, GAP_3MS).rtt(sample));
            (d.cc.cwnd(), ssthresh(&d))
        })
        .collect()
}

#[test]
fn a_delay_increase_above_threshold_exits_slow_start_at_the_current_cwnd() {
    let trace = delay_script(Params::default(), Duration::from_millis(60), 30);
    assert_eq!(trace[13], (24, None), "after ACK 14: still slow start");
    assert_eq!(trace[14], (24, Some(24)), "after ACK 15: ssthresh = cwnd");
    assert_eq!(trace[29].1, Some(24));
    assert!(trace[29].0 < 26, "no more slow start: {:?}", trace[29]);
}

#[test]
fn a_delay_increase_below_threshold_keeps_slow_start() {
    let trace = delay_script(Params::default(), Duration::from_millis(56), 30);
    assert_eq!(trace[29], (40, None), "10 + 30 ACKs");
    // exactly at the threshold is not above it
    let trace = delay_script(Params::default(), Duration::from_micros(56_250), 30);
    assert_eq!(trace[29], (40, None), "56.25 ms");
}

#[test]
fn a_delay_increase_is_ignored_with_hystart_off_or_outside_slow_start() {
    let off = Params {
        hystart: false,
        ..Params::default()
    };
    let trace = delay_script(off, Duration::from_millis(60), 30);
    assert_eq!(trace[29], (40, None), "hystart off");
    // congestion avoidance at cwnd 20 (ssthresh 10): the same delays leave ssthresh alone
    let mut d = cubic_at(Params::default(), 20);
    d.cc.window.ssthresh = 10;
    let trace = delay_script_from(d, Duration::from_millis(60), 30);
    assert_eq!(trace[29].1, Some(10));
}

#[test]
fn a_delay_increase_is_ignored_with_only_the_ack_train_detector() {
    let ack_train_only = Params {
        hystart_detect: HystartDetect::AckTrain,
        ..Params::default()
    };
    let trace = delay_script(ack_train_only, Duration::from_millis(60), 30);
    assert_eq!(trace[29], (40, None), "10 + 30 ACKs");
}

/// cwnd frozen (not cwnd-limited) at 15 or 16: first `cwnd` ACKs at 50 ms,
/// then 60 ms. With cwnd 16 round 2 starts at ACK 17, ACKs 17–24 are samples,
/// ACK 25 fires. With cwnd 15 HyStart never looks.
#[test]
fn hystart_does_nothing_below_the_low_window() {
    let frozen = |cwnd: u32| {
        let mut d = cubic_at(Params::default(), cwnd);
        for k in 1..=4 * cwnd {
            let rtt = Duration::from_millis(if k <= cwnd { 50 } else { 60 });
            d.conn.is_cwnd_limited = false;
            d.ack(Ack::new(1, GAP_3MS).rtt(rtt));
            if k == 24 {
                assert_eq!(ssthresh(&d), None);
            }
        }
        ssthresh(&d)
    };
    assert_eq!(frozen(15), None);
    assert_eq!(frozen(16), Some(16));
}

/// cwnd 16, RTT 20 ms, ACKs 1 ms apart from t = 1 ms. Cushion: pacing rate
/// 2·16·1448 B / 20 ms = 2.3 MB/s → 4·64 KiB takes 113 ms → capped at 1 ms;
/// threshold (20 + 1)/2 = 10.5 ms. ACK k is (k−1) ms into the round, so ACK 12
/// (11 ms) fires, at cwnd 16 + 11 = 27, inside round 1 (which ends at ACK 17).
fn train(p: Params, gap: Duration) -> Vec<Option<u32>> {
    let mut d = cubic_at(p, 16);
    (0..16)
        .map(|_| {
            d.ack(Ack::new(1, gap).rtt(Duration::from_millis(20)));
            ssthresh(&d)
        })
        .collect()
}

#[test]
fn a_train_of_close_acks_longer_than_half_the_min_rtt_exits_slow_start() {
    let t = train(Params::default(), MS);
    assert_eq!((t[10], t[11]), (None, Some(27)));
}

#[test]
fn acks_farther_apart_than_the_delta_or_a_disabled_detector_do_not_fire() {
    assert_eq!(train(Params::default(), GAP_3MS)[15], None);
    let delay_only = Params {
        hystart_detect: HystartDetect::Delay,
        ..Params::default()
    };
    assert_eq!(train(delay_only, MS)[15], None);
}

/// Pacing rate = mss · 10⁴ · ratio · cwnd / srtt_us B/s; cushion = 4·65536·10⁶ / rate µs.
/// srtt 100 µs, cwnd 16, slow start (200 %): rate 463 360 000 → 565 µs.
/// Same in CA (120 %, ssthresh 20 or 32): 278 016 000 → 942 µs. 20 ms: capped at 1000.
#[test]
fn the_ack_train_cushion_is_four_gso_bursts_at_the_linux_pacing_rate() {
    let mut conn = Conn {
        mss: 1448,
        inflight: 16,
        srtt: Some(Duration::from_micros(100)),
        ..Conn::default()
    };
    let mut w = Window::new(16);
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 565);
    w.ssthresh = 20;
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 942);
    // slow start's ratio only below half of ssthresh (Linux: cwnd < ssthresh / 2)
    w.ssthresh = 32;
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 942);
    w.ssthresh = 34;
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 565);
    conn.srtt = Some(Duration::from_millis(20));
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 1000);
    conn.srtt = None;
    assert_eq!(hystart_ack_delay_us(&conn, &w, GSO_MAX_SIZE_BYTES), 0);
}

/// Both boundaries are strict, as Linux's `after(snd_una, end_seq)` and `> threshold`: an ACK
/// that brings snd_una exactly to the round's end stays in the round, and a train exactly the
/// threshold long does not fire. delay_min 20 ms, no srtt (no cushion): threshold 10 000 µs.
#[test]
fn the_round_and_the_ack_train_end_strictly_past_their_bounds() {
    let mut ops = Cubic::new(Params::default(), init()).ops;
    ops.ep.delay_min_us = 20_000;
    ops.hy.start_round(0, 1000);
    let mut w = Window::new(16);
    let at_end = Conn {
        snd_una: 1000,
        snd_nxt: 9000,
        ..Conn::default()
    };
    for ms in 1..=10 {
        ops.hystart_update(Time::from_millis(ms), &at_end, &mut w, 20_000);
    }
    assert_eq!(
        ops.hy.round_start_us, 0,
        "snd_una = end_seq: the same round"
    );
    assert!(!ops.hy.found, "a train of exactly 10 000 µs");
    ops.hystart_update(Time::from_micros(10_001), &at_end, &mut w, 20_000);
    assert!(ops.hy.found);
    assert_eq!(w.ssthresh, 16);
    let past_end = Conn {
        snd_una: 1001,
        ..at_end
    };
    ops.hystart_update(Time::from_millis(11), &past_end, &mut w, 20_000);
    assert_eq!((ops.hy.round_start_us, ops.hy.end_seq), (11_000, 9000));
}
