//! PROBE_BW's DOWN/CRUISE/REFILL/UP cycle and the bounds, on the path of `tests.rs`
//! (1953.125 pkt/s, min_rtt 8.192 ms, 2-packet ACKs every 1.024 ms, 8 ACKs a round).

use super::probe_bw::AckPhase;
use super::tests::*;
use super::*;
use crate::cc::CaState;
use crate::testing::Ack;
use crate::transport::rate_sample::TxSnapshot;
use crate::units::Rate;

/// Runs ACKs from `make(k)` until `stop` holds (at most `max`), returning how many ran.
fn ack_until(
    d: &mut Driver,
    max: usize,
    make: impl Fn(usize) -> crate::testing::Ack,
    stop: impl Fn(&Bbr2) -> bool,
) -> usize {
    for k in 1..=max {
        d.ack(make(k));
        if stop(&d.cc) {
            return k;
        }
    }
    panic!(
        "condition not reached in {max} ACKs (state {:?})",
        d.cc.state
    );
}

/// Steady ACKs until PROBE_BW enters `phase`; how many it took.
fn steady_until(d: &mut Driver, max: usize, phase: Phase) -> usize {
    ack_until(d, max, |_| steady(), |c| c.state == State::ProbeBw(phase))
}

/// PROBE_BW UP on the path, entered from CRUISE through REFILL.
fn drive_to_up(p: Params) -> Driver {
    let mut d = drive_to_cruise(p);
    steady_until(&mut d, 200, Phase::Refill);
    steady_until(&mut d, 8, Phase::Up);
    d
}

/// CRUISE that lasts: no Reno-coexistence probe, whose round count (it shrinks with bw_lo)
/// would end it; the 2 s probe wait still does.
fn drive_to_long_cruise(p: Params) -> Driver {
    drive_to_cruise(Params {
        bw_probe_reno_gain: 0.0,
        ..p
    })
}

/// PROBE_BW UP entered from CRUISE with inflight_hi = 30 (cwnd is capped there).
fn up_below_inflight_hi_30(p: Params) -> Driver {
    let mut d = drive_to_cruise(p);
    d.cc.b.inflight_hi = Some(30);
    steady_until(&mut d, 200, Phase::Up);
    d
}

#[test]
fn down_paces_at_three_quarters_until_inflight_fits_the_headroom_target_and_one_bdp() {
    let mut d = drive_to_probe_bw(Params::default());
    // floor(1953.125 · 1448 · 0.75 · 0.99) = 2 099 882 B/s
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(2_099_882 * 8)));
    d.cc.b.inflight_hi = Some(17); // headroom target 17 − max(1, floor(17 · 38/256)) = 15
    d.fill_window = false;
    d.conn.inflight = 16; // ≤ inflight(bw, 1) = 16 but above the headroom target
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert_eq!(d.cc.cwnd(), 17); // DOWN caps cwnd at inflight_hi
    d.conn.inflight = 15;
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    assert_eq!(d.cc.cwnd(), 15); // CRUISE caps it at the headroom target
}

#[test]
fn cruise_refills_after_target_inflight_rounds_for_reno_coexistence() {
    // rounds start every 8 ACKs; REFILL once min(63, ⌊reno_gain · target_inflight 16⌋) rounds
    // have passed
    for (bw_probe_reno_gain, rounds) in [(1.0, 16), (0.5, 8)] {
        let mut d = drive_to_probe_bw(Params {
            bw_probe_reno_gain,
            ..Params::default()
        });
        let head_start = d.cc.probe.rounds_since_probe;
        assert!(head_start < 2);
        let acks = steady_until(&mut d, 200, Phase::Refill);
        assert_eq!(
            acks as u32,
            8 * (rounds - head_start),
            "gain {bw_probe_reno_gain}"
        );
        assert!(d.cc.probe.wait >= Duration::from_secs(2));
    }
}

#[test]
fn without_drain_to_target_down_also_ends_a_min_rtt_in_above_one_bdp() {
    let p = Params {
        drain_to_target: false,
        ..Params::default()
    };
    // within one BDP: CRUISE at once
    let mut d = drive_to_probe_bw(p.clone());
    d.fill_window = false;
    d.conn.inflight = 16;
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    // above it, within the headroom target 40 − ⌊40 · 38/256⌋ = 35: once more than a
    // min_rtt (8 ACKs of 1.024 ms) has passed in DOWN
    let mut d = drive_to_probe_bw(p);
    d.cc.b.inflight_hi = Some(40);
    d.fill_window = false;
    let mut acks = 0;
    while d.cc.state == State::ProbeBw(Phase::Down) {
        assert!(acks < 20, "DOWN never ended");
        d.conn.inflight = 24;
        d.ack(steady());
        acks += 1;
    }
    assert_eq!((acks, d.cc.state), (9, State::ProbeBw(Phase::Cruise)));
}

#[test]
fn without_the_reno_bound_cruise_refills_after_2_s_plus_a_random_second() {
    let p = Params {
        bw_probe_reno_gain: 0.0,
        bw_probe_max_rounds: 1000, // above the 255 rounds_since_probe saturates at
        ..Params::default()
    };
    let mut d = drive_to_probe_bw(p);
    let (start, wait) = (d.cc.cycle_stamp, d.cc.probe.wait);
    assert_eq!(start, d.now); // the wait runs from entering DOWN
    assert!(
        wait >= Duration::from_secs(2) && wait < Duration::from_secs(3),
        "{wait:?}"
    );
    steady_until(&mut d, 4000, Phase::Refill);
    assert!(d.now > start + wait && d.now <= start + wait + us(1024));
    // another flow (another random stream) waits a different time
    let other = Bbr2::new(
        Params::default(),
        crate::cc::CcInit {
            rng: crate::engine::Rng::stream(2, 1),
            ..crate::testing::init()
        },
    );
    let mut o = other;
    o.pick_probe_wait();
    assert_ne!(o.probe.wait, wait);
}

#[test]
fn refill_forgets_the_lower_bounds_and_lasts_one_round_then_probes_up() {
    let mut d = drive_to_cruise(Params::default());
    d.cc.b.bw_lo = Some(1500.0);
    d.cc.b.inflight_lo = Some(20);
    steady_until(&mut d, 200, Phase::Refill);
    assert_eq!((d.cc.b.bw_lo, d.cc.b.inflight_lo), (None, None));
    assert_eq!(d.cc.probe.ack_phase, AckPhase::Refilling);
    assert!(!d.cc.probe.bw_probe_samples);
    assert_eq!(d.cc.metrics().pacing_gain, Some(1.0));
    let acks = steady_until(&mut d, 20, Phase::Up);
    assert_eq!(acks, 8);
    assert!(d.cc.probe.bw_probe_samples);
    assert_eq!(d.cc.probe.ack_phase, AckPhase::ProbeStarting);
    assert_eq!(d.cc.metrics().pacing_gain, Some(1.25));
}

#[test]
fn v2_up_ends_after_min_rtt_once_in_net_reaches_five_quarters_bdp() {
    let mut d = drive_to_up(Params::default());
    let entered = d.now;
    // in_net = inflight 34 + tso 2 ≥ inflight(bw, 1.25) = 22 at once, but 8 ACKs are only 8.192 ms
    for _ in 0..8 {
        d.ack(steady());
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    }
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert_eq!(d.now - entered, us(9 * 1024));
    // Below the target UP persists past min_rtt.
    let mut d = drive_to_up(Params::default());
    d.fill_window = false;
    for _ in 0..20 {
        d.conn.inflight = 19; // + 2 = 21 < 22
        d.ack(steady());
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    }
}

#[test]
fn v3_up_ends_on_a_bandwidth_plateau_of_three_rounds() {
    // no inflight_hi, or one far above cwnd: it does not limit, so the plateau counts
    for inflight_hi in [None, Some(1000)] {
        let mut d = drive_to_up(Params::v3());
        d.cc.b.inflight_hi = inflight_hi;
        assert_eq!(d.cc.metrics().cwnd_gain, Some(2.25));
        assert_eq!(d.cc.metrics().pacing_gain, Some(1.25));
        // start_probe_up set full_bw = this sample; rounds start on UP ACKs 8, 16, 24
        let acks = ack_until(
            &mut d,
            40,
            |_| steady(),
            |c| c.state != State::ProbeBw(Phase::Up),
        );
        assert_eq!(acks, 24, "inflight_hi {inflight_hi:?}");
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
        assert_eq!(d.cc.metrics().pacing_gain, Some(232.0 / 256.0));
    }
}

#[test]
fn v3_keeps_probing_up_while_inflight_hi_limits_cwnd() {
    let mut d = up_below_inflight_hi_30(Params::v3());
    for k in 1..=40 {
        d.ack(steady()); // cwnd-limited at inflight_hi: the plateau detector restarts
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Up), "ACK {k}");
    }
}

#[test]
fn up_grows_inflight_hi_by_one_two_four_packets_per_round_while_cwnd_limited_at_it() {
    let p = Params {
        bw_probe_pif_gain: 10.0, // keep v2's UP going
        ..Params::default()
    };
    let mut d = up_below_inflight_hi_30(p.clone());
    assert_eq!(d.cc.probe.up_cnt, Some(30)); // cwnd / 2^0 packets acked per +1
    let mut hi = Vec::new();
    for k in 1..=32 {
        d.ack(steady());
        if k % 8 == 0 {
            hi.push(d.cc.b.inflight_hi.unwrap());
        }
    }
    // 16 packets acked a round, one +1 per cwnd/2^k of them: 30/2 = 15, 32/4 = 8, 34/8 = 4 ...
    // ... until inflight_hi (37) passes cwnd, which the model caps at bdp(2) + 2 + 2 = 36
    assert_eq!(hi, [30, 32, 34, 37]);
    assert_eq!(d.cc.cwnd(), 36);
    assert_eq!(d.cc.probe.up_acks, 0);
    // not cwnd-limited: no growth, and v2 drops the unused credit. The flag alone counts
    // (`tp->is_cwnd_limited`), not tcp_is_cwnd_limited()'s slow-start allowance, still true here.
    let mut d = up_below_inflight_hi_30(p);
    d.acks(9, steady());
    assert_eq!((d.cc.b.inflight_hi, d.cc.probe.up_acks), (Some(31), 3));
    d.conn.cwnd_fully_used = false;
    d.ack(steady());
    assert_eq!((d.cc.b.inflight_hi, d.cc.probe.up_acks), (Some(31), 0));
}

#[test]
fn v3_keeps_the_up_credit_while_not_cwnd_limited() {
    let mut d = up_below_inflight_hi_30(Params::v3());
    d.ack(steady());
    let acks = d.cc.probe.up_acks;
    assert_eq!(acks, 2);
    d.conn.cwnd_fully_used = false;
    d.ack(steady());
    assert_eq!(d.cc.probe.up_acks, acks);
}

#[test]
fn a_probe_losing_more_than_2_percent_of_its_flight_cuts_inflight_hi_and_goes_down() {
    let mut d = drive_to_up(Params::default());
    // a sample with no flight recorded says nothing (Linux: `rs->lost && rs->tx_in_flight`)
    ack_x(&mut d, steady().lost(2), Extra::new(2, 0));
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    // 1 of 52 is 1.9 %: not above floor(52 · 5/256) = 1
    ack_x(&mut d, steady().lost(1), Extra::new(1, 52));
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    assert_eq!(d.cc.b.inflight_hi, None);
    // 2 of 52 is: inflight_hi = max(tx_in_flight, 0.703 · target_inflight)
    ack_x(&mut d, steady().lost(2), Extra::new(2, 52));
    assert_eq!(d.cc.b.inflight_hi, Some(52));
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert!(d.cc.probe.prev_probe_too_high);
    assert!(!d.cc.probe.bw_probe_samples);
    // once per probe: more loss in the same probe's feedback changes nothing
    ack_x(&mut d, steady().lost(2), Extra::new(4, 10));
    assert_eq!(d.cc.b.inflight_hi, Some(52));
}

/// `n` packets of one flight lost while probing: each was sent into `tx_in_flight` packets in
/// flight, after every loss counted so far. The driver counts them one by one, so the k-th is
/// judged with k losses since it was sent.
fn lost_burst(d: &Driver, tx_in_flight: u32, n: u32) -> Ack {
    steady().lost(n).lost_snapshot(TxSnapshot {
        delivered_time: Some(d.now),
        tx_in_flight,
        lost: d.conn.lost,
        ..TxSnapshot::default()
    })
}

#[test]
fn a_lost_packet_of_a_probe_is_judged_on_its_own_flight_at_the_level_its_losses_crossed_2_percent()
{
    // Of 100 in flight, 1 lost is not above floor(100 · 5/256) = 1, 2 are. Before the second,
    // 99 in flight and 1 lost: a budget of ceil(99 · 5/256) = 2 leaves 1 loss, sent over
    // 1 / (1 − 5/256) = 1.02 packets: inflight_hi = 99 + 1. The third is of the same probe,
    // which has ended: it would have set 99.
    // Losses the connection counted before this flight do not count against it.
    let mut d = drive_to_up(Params::default());
    d.conn.lost += 1000;
    let a = lost_burst(&d, 100, 3);
    d.ack(a); // the ACK's own sample records no flight (Extra::default())
    assert_eq!(d.cc.b.inflight_hi, Some(100));
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert!(d.cc.probe.prev_probe_too_high && !d.cc.probe.bw_probe_samples);
    // A flight sent app-limited ends the probe but leaves inflight_hi alone.
    let mut d = drive_to_up(Params::default());
    let mut a = lost_burst(&d, 100, 3);
    a.lost_snapshot.is_app_limited = true;
    d.ack(a);
    assert_eq!(d.cc.b.inflight_hi, None);
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    // Of 256, the 6th crosses floor(256 · 5/256) = 5; before it 255 and 5 lost, already the
    // budget ceil(255 · 5/256) = 5: 255 + 0.
    let mut d = drive_to_up(Params::default());
    let a = lost_burst(&d, 256, 6);
    d.ack(a);
    assert_eq!(d.cc.b.inflight_hi, Some(255));
    // 1 of 52 is not too high; nor are 6 of 256 whose snapshot a SACK consumed
    for (ok, mut a) in [
        (true, lost_burst(&d, 52, 1)),
        (false, lost_burst(&d, 256, 6)),
    ] {
        let mut d = drive_to_up(Params::default());
        if !ok {
            a.lost_snapshot.delivered_time = None;
        }
        a.lost_snapshot.lost = d.conn.lost;
        d.ack(a);
        assert_eq!(d.cc.b.inflight_hi, None);
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    }
}

#[test]
fn lost_packets_outside_a_probe_or_with_the_check_off_leave_inflight_hi_alone() {
    let quic_check = Params {
        lost_packet_check: false,
        ..Params::default()
    };
    for (p, probing) in [(Params::default(), false), (quic_check, true)] {
        let mut d = if probing {
            drive_to_up(p)
        } else {
            drive_to_cruise(p)
        };
        let state = d.cc.state;
        let a = lost_burst(&d, 100, 3);
        d.ack(a);
        assert_eq!((d.cc.b.inflight_hi, d.cc.state), (None, state));
    }
}

#[test]
fn a_probe_ended_by_loss_leaves_its_losses_behind_for_the_lower_bounds() {
    for p in [Params::default(), Params::v3()] {
        let mut d = drive_to_up(p);
        ack_x(&mut d, steady().lost(2), Extra::new(2, 52));
        assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
        // the loss round the probe's loss restarted ends in DOWN, not probing: no cut
        for _ in 0..16 {
            d.ack(steady());
            assert_eq!((d.cc.b.bw_lo, d.cc.b.inflight_lo), (None, None));
        }
        assert!(!d.cc.is_probing_bandwidth());
    }
}

#[test]
fn the_inflight_hi_cut_keeps_beta_times_target_inflight_when_the_flight_was_small() {
    let mut d = drive_to_up(Params::default());
    // target_inflight = min(inflight(bw, 1) = 16 + 2 in UP, cwnd 36) = 18; floor(18 · 180/256) = 12
    ack_x(&mut d, steady().lost(1), Extra::new(1, 5));
    assert_eq!(d.cc.b.inflight_hi, Some(12));
}

#[test]
fn app_limited_too_high_samples_end_the_probe_without_cutting_inflight_hi() {
    let mut d = drive_to_up(Params::default());
    ack_x(&mut d, steady().lost(2).app_limited(), Extra::new(2, 52));
    assert_eq!(d.cc.b.inflight_hi, None);
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert!(d.cc.probe.prev_probe_too_high);
}

#[test]
fn losses_outside_probing_cut_bw_lo_and_inflight_lo_by_beta_once_per_loss_round() {
    for p in [Params::default(), Params::v3()] {
        lower_bounds_on_the_low_rate_path(p);
    }
}

/// One ACK at half the path's rate, 976.5625 pkt/s: a round is 4 ACKs.
fn low() -> Ack {
    ack(2, us(1024), RTT, 8, RTT)
}

/// A lasting CRUISE after a whole loss round at the low rate (bw_latest = 976.5625), then a
/// lossy ACK that restarts the loss round: it ends 8 packets later.
fn lossy_low_rate_cruise(p: Params) -> Driver {
    let mut d = drive_to_long_cruise(p);
    for _ in 0..8 {
        d.ack(low());
    }
    assert_eq!(d.cc.b.bw_latest, BW / 2.0);
    d.ack(low().lost(1));
    for _ in 0..3 {
        d.ack(low());
        assert_eq!(d.cc.b.bw_lo, None);
    }
    d
}

#[test]
fn an_ack_without_a_usable_rate_sample_does_not_end_a_loss_round() {
    for p in [Params::default(), Params::v3()] {
        let mut d = lossy_low_rate_cruise(p);
        // the round's last 2 packets, on an ACK whose interval is unusable (Linux's
        // interval_us ≤ 0): "not a valid observation", so no cut yet
        d.ack(ack(2, us(1024), RTT, 8, Duration::ZERO));
        assert_eq!(d.cc.b.bw_lo, None);
        d.ack(low());
        assert_eq!(d.cc.b.bw_lo, Some(BW * 180.0 / 256.0));
    }
}

fn lower_bounds_on_the_low_rate_path(p: Params) {
    let mut d = lossy_low_rate_cruise(p);
    d.ack(low());
    // bw_lo = max(bw_latest 976.56, 1953.125 · 180/256 = 1373.29)
    assert_eq!(d.cc.b.bw_lo, Some(BW * 180.0 / 256.0));
    // inflight_lo = max(inflight_latest 8, floor(34 · 180/256) = 23); cwnd follows
    assert_eq!(d.cc.b.inflight_lo, Some(23));
    assert_eq!(d.cc.cwnd(), 23);
    assert_eq!(d.cc.bw(), BW * 180.0 / 256.0);
    // a loss-free round changes nothing
    for _ in 0..8 {
        d.ack(low());
    }
    assert_eq!(
        (d.cc.b.bw_lo, d.cc.b.inflight_lo),
        (Some(BW * 180.0 / 256.0), Some(23))
    );
    // the next lossy round cuts again, down to the latest delivery rate and 0.703 · 23
    d.ack(low().lost(1));
    for _ in 0..4 {
        d.ack(low());
    }
    assert_eq!(d.cc.b.bw_lo, Some(BW / 2.0)); // max(976.56, 965.6)
    assert_eq!(d.cc.b.inflight_lo, Some(16)); // max(8, floor(16.17))
    let mut inflight_lo = Vec::new();
    for _ in 0..2 {
        d.ack(low().lost(1));
        d.acks(4, low());
        inflight_lo.push(d.cc.b.inflight_lo.unwrap());
    }
    assert_eq!(inflight_lo, [11, 8]); // floor(11.25), then max(8 delivered a round, floor(7.7))
    assert_eq!(d.cc.b.bw_lo, Some(BW / 2.0)); // held at the latest delivery rate
}

#[test]
fn losses_while_probing_do_not_touch_the_lower_bounds() {
    let mut d = drive_to_up(Params {
        bw_probe_pif_gain: 10.0,
        ..Params::default()
    });
    d.ack(steady().lost(1)); // rs.lost = 0: not "too high", so UP goes on
    for _ in 0..16 {
        d.ack(steady());
    }
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Up));
    assert_eq!((d.cc.b.bw_lo, d.cc.b.inflight_lo), (None, None));
}

#[test]
fn cruise_and_probe_rtt_leave_15_percent_headroom_below_inflight_hi() {
    let mut d = drive_to_cruise(Params::default());
    d.cc.b.inflight_hi = Some(30);
    assert_eq!(d.cc.inflight_with_headroom(), 26); // 30 − floor(30 · 38/256 = 4.45)
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 26);
    steady_until(&mut d, 200, Phase::Refill);
    assert_eq!(d.cc.cwnd(), 28); // 26 + 2 acked
    d.acks(3, steady());
    assert_eq!(d.cc.cwnd(), 30); // REFILL (like DOWN and UP) is capped at inflight_hi itself
    d.cc.b.inflight_hi = Some(5);
    assert_eq!(d.cc.inflight_with_headroom(), 4); // 5 − max(1, 0), at least 4
}

#[test]
fn a_risky_probe_stops_at_inflight_hi_and_reprobes_once_its_feedback_ends() {
    let mut d = drive_to_cruise(Params::default());
    d.cc.b.inflight_hi = Some(30);
    d.cc.probe.prev_probe_too_high = true; // the last probe saw too much loss
    steady_until(&mut d, 200, Phase::Refill);
    // in_net = 28 + 2 ≥ inflight_hi on UP's first ACK
    steady_until(&mut d, 8, Phase::Up);
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    assert!(d.cc.probe.stopped_risky_probe && !d.cc.probe.prev_probe_too_high);
    // no loss in the feedback round: probe again at once instead of waiting 2–3 s
    let acks = ack_until(
        &mut d,
        20,
        |_| steady(),
        |c| c.state != State::ProbeBw(Phase::Down),
    );
    assert_eq!(acks, 8);
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Refill));
}

#[test]
fn max_bw_keeps_a_sample_until_the_next_cycle_s_probe_feedback_ends() {
    let mut d = drive_to_cruise(Params::default());
    assert_eq!(d.cc.probe.ack_phase, AckPhase::ProbeStopping); // DOWN's feedback round
    d.ack(ack(2, us(1024), RTT, 16, us(4096))); // 3906.25 pkt/s
    assert_eq!(d.cc.max_bw(), 2.0 * BW);
    let mut at_feedback_end = Vec::new();
    while at_feedback_end.len() < 2 {
        let before = d.cc.probe.ack_phase;
        d.ack(steady());
        if before == AckPhase::ProbeStopping && d.cc.probe.ack_phase == AckPhase::Init {
            at_feedback_end.push(d.cc.max_bw());
        }
    }
    // bw_hi = [spike, 0] after this cycle; [1953.125, 0] after the next one
    assert_eq!(at_feedback_end, [2.0 * BW, BW]);
}

/// One ACK in a lasting CRUISE (inflight_hi 30) after a cycle with CE marks, as described;
/// the state after it and the inflight_hi growth rounds a REFILL would start UP with.
fn after_ce_marked_cycle(p: Params, eligible: bool, loss: bool, ca: CaState) -> (State, u32) {
    let mut d = drive_to_long_cruise(p);
    d.cc.b.inflight_hi = Some(30);
    d.cc.ecn.eligible = eligible;
    d.cc.ecn.in_cycle = true;
    d.cc.sig.loss_in_cycle = loss;
    d.conn.ca_state = ca;
    d.ack(steady());
    (d.cc.state, d.cc.probe.up_rounds)
}

#[test]
fn v3_reprobes_at_once_after_a_cycle_with_ce_marks_and_no_loss() {
    use CaState::{Open, Recovery};
    let cruise = State::ProbeBw(Phase::Cruise);
    // inflight_hi growth restarts at 2^⌊log2(⌊0.5 · 30⌋)⌋ = 2^3 packets per round
    let refill = (State::ProbeBw(Phase::Refill), 3);
    assert_eq!(
        after_ce_marked_cycle(Params::v3(), true, false, Open),
        refill
    );
    // not ECN-eligible, a loss in the cycle, not Open, or v2 (no re-probe gain): CRUISE goes on
    for (p, eligible, loss, ca) in [
        (Params::v3(), false, false, Open),
        (Params::v3(), true, true, Open),
        (Params::v3(), true, false, Recovery),
        (Params::default(), true, false, Open),
    ] {
        let v3 = p.v3_refinements;
        let (state, _) = after_ce_marked_cycle(p, eligible, loss, ca);
        assert_eq!(
            state, cruise,
            "v3 {v3}, eligible {eligible}, loss {loss}, {ca:?}"
        );
    }
}

#[test]
fn a_cycle_remembers_ce_marks_and_losses_its_acks_report_until_it_ends() {
    // v3, ECN-eligible: the ACK after one that delivered a CE-marked packet re-probes,
    // unless an ACK of the cycle reported a loss (marked before the cycle began, so only
    // its rate sample carries it); clean ACKs neither mark the cycle nor clear a loss.
    let ecn = Params {
        ecn_enabled: true,
        ecn_max_rtt_us: 0,
        ..Params::v3()
    };
    let cruise = State::ProbeBw(Phase::Cruise);
    for (lost, want) in [(0, State::ProbeBw(Phase::Refill)), (1, cruise)] {
        let mut d = drive_to_long_cruise(ecn.clone());
        assert!(d.cc.ecn.eligible);
        for _ in 0..3 {
            d.ack(steady());
            assert_eq!(d.cc.state, cruise);
        }
        let marked = Extra {
            delivered_ce: 1,
            ..Extra::new(lost, 0)
        };
        ack_x(&mut d, steady(), marked);
        assert_eq!(d.cc.state, cruise);
        for _ in 0..3 {
            d.ack(steady());
        }
        assert_eq!(d.cc.state, want, "lost {lost}");
    }
}

#[test]
fn the_ack_phases_follow_a_probe_from_refill_to_its_feedback_end() {
    use AckPhase::*;
    let mut d = drive_to_cruise(Params::default());
    let mut phases = vec![d.cc.probe.ack_phase];
    while phases.len() < 7 {
        d.ack(steady());
        if phases.last() != Some(&d.cc.probe.ack_phase) {
            phases.push(d.cc.probe.ack_phase);
        }
    }
    let want = [
        ProbeStopping,
        Init,
        Refilling,
        ProbeStarting,
        ProbeFeedback,
        ProbeStopping,
        Init,
    ];
    assert_eq!(phases, want);
}

#[test]
fn an_app_limited_ack_ending_the_probe_feedback_forgets_no_cycle() {
    // no fast path: the app-limited ACK runs the whole model
    let mut d = drive_to_cruise(Params {
        fast_path: false,
        ..Params::default()
    });
    d.ack(ack(2, us(1024), RTT, 16, us(4096))); // 3906.25 pkt/s
    let mut ends = Vec::new();
    while ends.len() < 2 {
        let before = d.cc.probe.ack_phase;
        // a round starts when the reference packet left at or after the round's end
        let round_start = d.conn.delivered + 2 - 16 >= d.cc.next_rtt_delivered;
        let last = ends.len() == 1 && before == AckPhase::ProbeStopping && round_start;
        d.ack(if last {
            steady().app_limited()
        } else {
            steady()
        });
        if before == AckPhase::ProbeStopping && d.cc.probe.ack_phase == AckPhase::Init {
            ends.push((last, d.cc.max_bw()));
        }
    }
    // bw_hi = [spike, 0] after this cycle, [spike, 1953.125] still after the next one
    assert_eq!(ends, [(false, 2.0 * BW), (true, 2.0 * BW)]);
}

#[test]
fn with_ecn_enabled_two_rounds_of_ce_marks_end_startup() {
    let ecn = Params {
        ecn_enabled: true,
        ecn_max_rtt_us: 0, // any RTT
        ..Params::default()
    };
    // round starts on ACKs 1, 9: two rounds of 100 % CE; the default ignores the marks,
    // as do a zero full_ecn_cnt or ecn_thresh (DRAIN on the bandwidth plateau instead)
    let no_cnt = Params {
        full_ecn_cnt: 0,
        ..ecn.clone()
    };
    let no_thresh = Params {
        ecn_thresh: 0.0,
        ..ecn.clone()
    };
    // the ECN exit seeds inflight_hi with the BDP, the plateau exit does not
    for (p, drain_at, inflight_hi) in [
        (ecn, 9, Some(16)),
        (Params::default(), 25, None),
        (no_cnt, 25, None),
        (no_thresh, 25, None),
    ] {
        let mut d = driver(p);
        assert_eq!(ack_until_marked(&mut d), drain_at);
        assert_eq!(d.cc.b.inflight_hi, inflight_hi);
    }
}

/// Every packet CE-marked; returns the ACK on which DRAIN starts.
fn ack_until_marked(d: &mut Driver) -> usize {
    for k in 1..=40 {
        d.conn.delivered_ce += 2;
        d.ack(steady());
        if d.cc.state == State::Drain {
            return k;
        }
    }
    panic!("STARTUP never ended");
}

/// A lasting CRUISE with ECN-eligibility as given and alpha held at 3/4 (gain 0); ACKs of the
/// path, each echoing CE in its loss round if `ce`, up to the end of a loss round. Returns
/// the cwnd before that ACK and `inflight_lo` after it.
fn ecn_loss_round(p: Params, eligible: bool, ce: bool) -> (u32, Option<u32>) {
    let mut d = drive_to_long_cruise(Params {
        ecn_enabled: true,
        ecn_max_rtt_us: 0,
        ecn_alpha_init: 0.75,
        ecn_alpha_gain: 0.0,
        ..p
    });
    d.cc.ecn.eligible = eligible;
    for _ in 0..16 {
        let cwnd = d.cc.cwnd();
        d.cc.ecn.in_round |= ce;
        d.ack(steady());
        if d.cc.sig.loss_round_start {
            assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
            return (cwnd, d.cc.b.inflight_lo);
        }
    }
    panic!("no loss round ended in 16 ACKs");
}

#[test]
fn ce_marks_in_a_loss_round_outside_probing_cut_inflight_lo_by_alpha_times_the_ecn_factor() {
    // floor(34 · (1 − 3/4 · 85/256)) = floor(25.53)
    assert_eq!(
        ecn_loss_round(Params::default(), true, true),
        (34, Some(25))
    );
    // no CE echo this round, an ineligible flow, or the response off: no cut
    assert_eq!(ecn_loss_round(Params::default(), true, false), (34, None));
    assert_eq!(ecn_loss_round(Params::default(), false, true), (34, None));
    let off = Params {
        ecn_factor: 0.0,
        ..Params::default()
    };
    assert_eq!(ecn_loss_round(off, true, true), (34, None));
}

#[test]
fn an_ece_echo_counts_in_v2_always_and_in_v3_only_once_eligible() {
    for (p, eligible, ece, in_round) in [
        (Params::default(), false, true, true),
        (Params::default(), false, false, false),
        (Params::v3(), false, true, false),
        (Params::v3(), true, true, true),
    ] {
        let v3 = p.v3_refinements;
        let mut d = drive_to_long_cruise(p);
        d.ack(steady());
        d.cc.ecn.eligible = eligible;
        let echo = Extra {
            is_ece: ece,
            ..Extra::default()
        };
        ack_x(&mut d, steady(), echo);
        assert!(!d.cc.sig.loss_round_start);
        assert_eq!(
            d.cc.ecn.in_round, in_round,
            "v3 {v3}, eligible {eligible}, ece {ece}"
        );
    }
}

#[test]
fn ecn_needs_the_switch_and_a_min_rtt_within_ecn_max_rtt() {
    // the path's min_rtt is 8.192 ms; eligibility is decided at round starts
    for (ecn_enabled, ecn_max_rtt_us, eligible) in [
        (false, 0, false),
        (true, 0, true), // any RTT
        (true, 8191, false),
        (true, 8192, true),
    ] {
        for p in [Params::default(), Params::v3()] {
            let d = drive_to_cruise(Params {
                ecn_enabled,
                ecn_max_rtt_us,
                ..p
            });
            assert_eq!(
                d.cc.ecn.eligible, eligible,
                "enabled {ecn_enabled}, max {ecn_max_rtt_us} µs"
            );
        }
    }
}

#[test]
fn alpha_is_the_ewma_of_each_round_s_ce_fraction_v3_only_once_eligible() {
    // half of each ACK's packets CE-marked; alpha from 0, gain 1/16, at the round
    // starts on ACKs 1 and 9: 1/16 · 1/2 = 1/32, then 15/16 · 1/32 + 1/32 = 31/512.
    // v2 keeps alpha even while ECN is off; v3 only for an eligible flow.
    for (p, ecn_enabled, alpha) in [
        (Params::default(), true, 31.0 / 512.0),
        (Params::default(), false, 31.0 / 512.0),
        (Params::v3(), true, 31.0 / 512.0),
        (Params::v3(), false, 0.0),
    ] {
        let v3 = p.v3_refinements;
        let mut d = driver(Params {
            ecn_enabled,
            ecn_max_rtt_us: 0,
            ecn_alpha_init: 0.0,
            full_ecn_cnt: 0,
            ..p
        });
        for _ in 0..9 {
            d.conn.delivered_ce += 1;
            d.ack(steady());
        }
        assert_eq!(d.cc.ecn.alpha, alpha, "v3 {v3}, enabled {ecn_enabled}");
    }
}

#[test]
fn the_quic_port_cuts_the_lower_bounds_when_the_round_ends_not_a_round_after_the_loss() {
    let mut cut_after = Vec::new();
    for loss_round_restart in [true, false] {
        let mut d = drive_to_long_cruise(Params {
            loss_round_restart,
            ..Params::default()
        });
        d.acks(10, low()); // loss rounds end at 90, 98, 106 … packets delivered
        let round = d.cc.sig.loss_round_delivered;
        d.ack(low().lost(1)); // the round's first ACK after 106
        let restarted = d.cc.sig.loss_round_delivered != round;
        assert_eq!(restarted, loss_round_restart);
        let acks = ack_until(&mut d, 8, |_| low(), |c| c.b.bw_lo.is_some());
        cut_after.push(acks);
    }
    // Linux: a full round (8 packets) after the loss; the port: at the round's end, 114
    assert_eq!(cut_after, [4, 3]);
}

#[test]
fn the_quic_port_grows_inflight_hi_only_when_the_last_ack_left_no_datagram_free() {
    let p = Params {
        bw_probe_pif_gain: 10.0, // keep v2's UP going
        prior_inflight_raw: true,
        ..Params::default()
    };
    for (free, grows) in [(1, false), (0, true)] {
        let mut d = up_below_inflight_hi_30(p.clone());
        d.fill_window = false;
        // Before each ACK `free` packets of cwnd are unused. A whole packet (the port's
        // datagram is its MSS) is not cwnd-limited; none is, and inflight_hi grows +1 per 30.
        for _ in 0..40 {
            d.conn.inflight = d.cc.cwnd() - free;
            d.ack(ack(1, us(1024), RTT, 16, RTT));
        }
        assert_eq!(
            d.cc.b.inflight_hi.unwrap() > 30,
            grows,
            "{free} packet(s) free"
        );
    }
}

#[test]
fn the_quic_port_leaves_down_on_the_flight_before_the_ack_without_edt_credit() {
    for (raw, state) in [
        (false, State::ProbeBw(Phase::Cruise)),
        (true, State::ProbeBw(Phase::Down)),
    ] {
        let mut d = drive_to_probe_bw(Params {
            prior_inflight_raw: raw,
            ..Params::default()
        });
        d.cc.b.inflight_hi = Some(17); // headroom target 15
        d.fill_window = false;
        // 17 in flight before the ACK; Linux credits the 3 that leave by the next departure
        // (1953 pkt/s · 2 ms), the port has no EDT and counts all 17.
        d.conn.inflight = 17;
        d.conn.next_departure = d.now + us(1024) + us(2000);
        d.ack(steady());
        assert_eq!(d.cc.state, state, "prior_inflight_raw {raw}");
    }
}
