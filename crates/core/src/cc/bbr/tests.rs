//! BBR v1 behaviour, driven by scripted ACKs with hand-computed expectations.
//!
//! Most tests use one path: 1000 packets/s, min_rtt 10 ms, MSS 1448, ACKs of 2
//! packets every 2 ms whose rate sample is 10 packets over 10 ms. On it:
//!
//! ```text
//!   tso_segs_goal = 2 at every gain: pacing 0.49–4.2 MB/s is ≥ 150 kB/s, and >> 10 is < 3 MSS
//!   STARTUP target = even(ceil(10 · 739/256) + 3·2)   = even(29 + 6)     = 36
//!   PROBE_BW target = even(ceil(10 · 2) + extra 2 + 6) = 28   (+2 in phase 0 = 30)
//!   inflight(bw, 1) = even(10 + 6) = 16;  inflight(bw, 1.25) = even(13 + 6) + 2 = 22
//! ```

use super::*;
use crate::testing::{self, Ack, AckDriver};
use crate::units::Rate;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn bbr_with_seed(seed: u64) -> Bbr {
    bbr_with(Params::default(), seed)
}

fn bbr_with(p: Params, seed: u64) -> Bbr {
    Bbr::new(
        p,
        CcInit {
            rng: Rng::stream(seed, 7),
            ..testing::init()
        },
    )
}

/// `acked` packets `after` the previous event, RTT sample `rtt`, rate sample `d` packets over `interval`.
fn ack(acked: u32, after: Duration, rtt: Duration, d: u64, interval: Duration) -> Ack {
    Ack {
        sample: Some((d, interval)),
        ..Ack::new(acked, after).rtt(rtt)
    }
}

/// One ACK of the 1000 pkt/s, 10 ms path.
fn steady() -> Ack {
    ack(2, ms(2), ms(10), 10, ms(10))
}

/// A 10-packet ACK every 10 ms whose sample is one round at `bw` packets/s.
fn round_at(bw: f64) -> Ack {
    ack(10, ms(10), ms(10), 10, Duration::from_secs_f64(10.0 / bw))
}

/// Runs `step` through STARTUP, then DRAIN without refilling the window (pacing at
/// the drain gain would not refill it either), and stops on entering PROBE_BW.
fn drive_to_probe_bw(cc: Bbr, step: &Ack) -> AckDriver<Bbr> {
    let mut d = AckDriver::new(cc);
    while d.cc.state == State::Startup {
        assert!(d.now < Time::from_secs(5), "STARTUP never ended");
        d.ack(step.clone());
    }
    d.fill_window = false;
    while d.cc.state == State::Drain {
        d.ack(step.clone());
    }
    assert_eq!(d.cc.state, State::ProbeBw);
    d.fill_window = true;
    d
}

/// PROBE_BW on the path of `step`, entered in gain-cycle phase `phase` (searching seeds).
fn probe_bw_in_phase(step: &Ack, phase: usize) -> AckDriver<Bbr> {
    probe_bw_in_phase_with(&Params::default(), step, phase)
}

/// As [`probe_bw_in_phase`], for BBR with parameters `p`.
fn probe_bw_in_phase_with(p: &Params, step: &Ack, phase: usize) -> AckDriver<Bbr> {
    (0..500)
        .map(|seed| drive_to_probe_bw(bbr_with(p.clone(), seed), step))
        .find(|d| d.cc.cycle_idx == phase)
        .expect("some seed starts in this phase")
}

// ---- windowed filters (lib/win_minmax.c) ----

#[test]
fn windowed_max_refreshes_sub_windows_and_promotes_on_expiry() {
    let mut f = WindowedFilter::max(10, 0, 10u32);
    assert_eq!(f.update(1, 8), 10); // dt = 1 ≤ W/4: dropped
    assert_eq!(f.update(3, 7), 10); // dt = 3 > W/4 = 2: becomes 2nd and 3rd
    assert_eq!(f.update(6, 5), 10); // dt = 6 > W/2 = 5: becomes 3rd
    let mut twice = f.clone();
    assert_eq!(f.update(11, 4), 7); // best (t=0) expired: 2nd promoted
    assert_eq!(f.update(14, 3), 5); // (t=3) expired: the old 3rd promoted
    assert_eq!(twice.update(14, 4), 5); // both t=0 and t=3 expired at once
    assert_eq!(f.update(15, 6), 6); // a new max resets everything
    assert_eq!(f.update(16, 1), 6);
    let mut late = f.clone();
    assert_eq!(f.update(25, 2), 6); // exactly one window after the best: still in it
    assert_eq!(late.update(27, 2), 2); // nothing left in the window: reset
}

#[test]
fn windowed_max_takes_choices_and_expires_only_strictly_past_each_boundary() {
    // W = 12: W/4 = 3, W/2 = 6 (and W % 4 = W % 2 = 0, unlike W = 10's 2 and 0 against 2 and 5).
    let mut f = WindowedFilter::max(12, 0, 10u32);
    assert_eq!(f.update(3, 8), 10); // dt = W/4: dropped
    assert_eq!(f.update(4, 7), 10); // dt > W/4: 2nd and 3rd
    assert_eq!(f.update(6, 6), 10); // dt = W/2: dropped
    assert_eq!(f.update(10, 5), 10); // dt > W/2: 3rd
    assert_eq!(f.update(12, 4), 10); // dt = W: the best is still in the window
    assert_eq!(f.update(13, 3), 7); // dt > W: the 2nd (t = 4) promoted
    assert_eq!(f.update(22, 1), 5); // (t = 4) expired; the next (t = 10) is exactly W old: kept
}

#[test]
fn windowed_min_mirrors_the_max() {
    let mut f = WindowedFilter::min(10, 0, 10u32);
    assert_eq!(f.update(1, 12), 10);
    assert_eq!(f.update(3, 13), 10);
    assert_eq!(f.update(6, 15), 10);
    assert_eq!(f.update(11, 16), 13);
    assert_eq!(f.update(14, 17), 15);
    assert_eq!(f.update(15, 14), 14);
}

#[test]
fn max_bw_filter_takes_app_limited_samples_only_when_they_raise_the_max() {
    let mut f = MaxBwFilter::new(10);
    f.update(1, 1000.0, false);
    f.update(2, 400.0, true);
    f.update(13, 400.0, true); // would have expired the max had it been taken
    assert_eq!(f.max_bw(), 1000.0);
    f.update(14, 1200.0, true);
    assert_eq!(f.max_bw(), 1200.0);
    f.reset(15);
    assert_eq!(f.max_bw(), 0.0);
}

// ---- STARTUP and DRAIN ----

#[test]
fn startup_grows_cwnd_by_acked_up_to_the_high_gain_target_and_paces_at_high_gain() {
    let mut d = AckDriver::new(bbr_with_seed(1));
    for k in 1..=15u32 {
        d.ack(steady());
        assert_eq!(d.cc.state, State::Startup);
        assert_eq!(d.cc.cwnd(), (10 + 2 * k).min(36), "ACK {k}");
        // floor(1000 · 1448 · 739/256 · 0.99) = 4 138 169 B/s
        assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(4_138_169 * 8)));
        assert_eq!(d.cc.metrics().pacing_gain, Some(739.0 / 256.0));
    }
    // extra_acked is 2 but STARTUP's target ignores aggregation (else it would be 38).
    assert_eq!(d.cc.ack_aggr.extra_acked(), 2);
    assert_eq!(d.cc.aggregation_cwnd(), 0);
}

#[test]
fn above_its_target_startup_grows_until_10_delivered_on_linux_and_the_initial_window_on_the_artifact(
) {
    // A 32-packet initial window, paced from it (3200 pkt/s · 2.89), against a path of 2
    // packets per 10 ms. Linux's STARTUP target is even(6 + 3·8) = 30; the artifact's is
    // ceil((8359 + 3 · 13 372) / 1448) = 34, so its first ACK grows the window to 34. Above
    // the target cwnd grows by each ACK only while fewer than 10 (Linux) or 32 (the
    // artifact's initial window) packets have been delivered: 4 and 15 ACKs of 2.
    // (App-limited samples, so that STARTUP cannot end.)
    for (artifact_base, target, grown) in [(false, 30, 4), (true, 34, 15)] {
        let init = CcInit {
            initial_cwnd: 32,
            ..testing::init()
        };
        let mut d = AckDriver::new(Bbr::new(Params::preset(artifact_base, Kernel::V5), init));
        for _ in 0..20 {
            d.ack(ack(2, ms(2), ms(10), 2, ms(10)).app_limited());
            assert_eq!(d.cc.cwnd_target(d.cc.bw(), d.cc.cwnd_gain), target);
        }
        assert_eq!(d.cc.state, State::Startup);
        assert_eq!(d.cc.cwnd(), 32 + 2 * grown, "artifact_base {artifact_base}");
    }
}

#[test]
fn full_bandwidth_needs_three_non_app_limited_rounds_without_25_percent_growth() {
    let mut d = AckDriver::new(bbr_with_seed(1));
    d.ack(round_at(1000.0));
    d.ack(round_at(1250.0)); // exactly 1.25×: still growing
    assert_eq!((d.cc.full_bw.bw, d.cc.full_bw.cnt), (1250.0, 0));
    d.ack(round_at(1500.0)); // < 1562.5
    d.ack(round_at(1500.0));
    assert_eq!(d.cc.full_bw.cnt, 2);
    d.ack(round_at(500.0).app_limited()); // a round, but app-limited: not counted
    assert_eq!(d.cc.rtt_cnt, 5);
    assert!(!d.cc.full_bw.reached);
    assert_eq!(d.cc.state, State::Startup);
    d.ack(round_at(1500.0));
    assert!(d.cc.full_bw.reached);
    // in_net_at_edt = 30 in flight + 4 (EDT burst at high gain) > inflight(1500, 1) = 28
    assert_eq!(d.cc.state, State::Drain);
}

#[test]
fn drain_paces_at_88_over_256_until_in_net_fits_one_bdp() {
    let mut d = AckDriver::new(bbr_with_seed(1));
    for _ in 0..15 {
        d.ack(steady());
    }
    d.ack(steady()); // rounds ended on ACKs 1, 6, 11, 16: the third flat round
    assert_eq!(d.cc.state, State::Drain);
    assert_eq!(d.cc.pacing_gain, 88.0 / 256.0);
    // floor(1000 · 1448 · 88/256 · 0.99) = 492 772 B/s, lowered now that the pipe is full
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(492_772 * 8)));
    assert_eq!(d.cc.metrics().ssthresh_pkts, Some(16));
    // cwnd target keeps high gain, now with aggregation: even(29 + 2 + 6) = 38
    assert_eq!(d.cc.cwnd(), 38);
    d.fill_window = false;
    for _ in 0..10 {
        d.ack(steady()); // inflight 36, 34, ..., 18 > 16
        assert_eq!(d.cc.state, State::Drain, "inflight {}", d.conn.inflight);
    }
    d.ack(steady()); // inflight 16 ≤ inflight(bw, 1) = 16
    assert_eq!(d.cc.state, State::ProbeBw);
}

/// Runs `p` into DRAIN, then ACKs 2 packets at a time, nothing refilled, with the pacer
/// holding the next packet 4 ms (4 packets leave the network meanwhile) until DRAIN ends.
/// Returns the packets in flight after each of those ACKs.
fn drain_while_the_next_departure_waits_4_ms(p: Params) -> Vec<u32> {
    let mut d = AckDriver::new(bbr_with(p, 1));
    for _ in 0..16 {
        d.ack(steady());
    }
    assert_eq!(d.cc.state, State::Drain);
    d.fill_window = false;
    let mut inflight = Vec::new();
    while d.cc.state == State::Drain {
        d.conn.next_departure = d.now + ms(2) + ms(4);
        d.ack(steady());
        inflight.push(d.conn.inflight);
    }
    inflight
}

#[test]
fn drain_credits_packets_delivered_before_the_next_departure() {
    let acks = drain_while_the_next_departure_waits_4_ms(Params::default()).len();
    assert_eq!(acks, 9); // inflight 20 − 4 ≤ 16, two ACKs earlier than without the credit
}

#[test]
fn the_artifact_base_drains_to_one_bdp_in_flight_without_budget_or_departure_credit() {
    let inflight = drain_while_the_next_departure_waits_4_ms(Params::preset(true, Kernel::V5));
    // It leaves at 10 · 1448 ≤ max(bdp, 4) = 14 480 bytes; Linux, crediting 4 packets
    // against a budgeted 16, leaves at 20.
    let n = inflight.len();
    assert_eq!(&inflight[n - 3..], [14, 12, 10]);
}

#[test]
fn the_artifact_base_ends_the_probing_phase_at_its_byte_target_without_budget_or_edt_credit() {
    // The artifact's target is floor(1.25 · 14 480) = 18 100 bytes, 12.5 packets: 12 in
    // flight before the ACK keep it probing, 13 end the phase. Linux's 13 + 2 at the next
    // departure stay below its budgeted 22.
    for (artifact_base, in_flight, phase) in [(false, 13, 0), (true, 12, 0), (true, 13, 1)] {
        let p = Params::preset(artifact_base, Kernel::V5);
        let mut d = probe_bw_in_phase_with(&p, &steady(), 0);
        d.fill_window = false;
        for _ in 0..8 {
            d.conn.inflight = in_flight;
            d.ack(steady()); // 16 ms: longer than min_rtt
        }
        assert_eq!(
            d.cc.cycle_idx, phase,
            "artifact_base {artifact_base}, {in_flight} in flight"
        );
    }
}

#[test]
fn the_artifact_base_cwnd_is_two_bdp_plus_three_quanta_in_bytes_without_rounding_or_probing_extra()
{
    let p = Params::preset(true, Kernel::V5);
    let mut d = probe_bw_in_phase_with(&p, &steady(), 2);
    for _ in 0..3 {
        d.ack(steady());
    }
    // 2 · 14 480 + 3 · 2 · 1448 (11.6 Mbit/s: a 2-packet quantum) = 37 648 bytes = 26 packets
    assert_eq!(d.cc.cwnd(), 26);
    // 1002.5 pkt/s: 2 · floor(14 516.2) + 8688 = 37 720 bytes, 26.05 packets: 27 in every
    // phase (odd, and no +2 while probing, where Linux has 30 and 32).
    let faster = ack(2, ms(2), ms(10), 10, Duration::from_micros(9975));
    for _ in 0..30 {
        d.ack(faster.clone());
        assert_eq!(d.cc.cwnd(), 27, "phase {}", d.cc.cycle_idx);
    }
}

#[test]
fn the_artifact_base_adds_the_aggregation_allowance_in_bytes_if_given_a_gain() {
    // Its own gain is 0; with Linux's 1 the 2 extra packets join the byte target:
    // 28 960 + 2 · 1448 + 8688 = 40 544 bytes = 28 packets (26 without them).
    let p = Params {
        extra_acked_gain: 1.0,
        ..Params::preset(true, Kernel::V5)
    };
    let mut d = probe_bw_in_phase_with(&p, &steady(), 2);
    d.acks(5, steady());
    assert_eq!(d.cc.aggregation_cwnd(), 2);
    assert_eq!(d.cc.cwnd(), 28);
}

// ---- pacing ----

#[test]
fn initial_pacing_uses_a_nominal_1_ms_rtt_and_is_redone_once_srtt_exists() {
    let mut d = AckDriver::new(bbr_with_seed(1));
    // 10 pkts / 1 ms = 10 000 pkt/s: floor(10 000 · 1448 · 739/256 · 0.99) = 41 381 690 B/s
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(41_381_690 * 8)));
    d.ack(round_at(500.0)); // srtt 10 ms: 10 pkts / 10 ms → 4 138 169 B/s; 500 pkt/s gives less
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(4_138_169 * 8)));
    d.ack(round_at(500.0)); // cwnd is 20 now, but the init formula is not run again
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(4_138_169 * 8)));
}

#[test]
fn startup_pacing_never_decreases_and_is_bw_times_mss_times_gain_less_1_percent() {
    let init = CcInit {
        srtt: Some(ms(10)),
        ..testing::init()
    };
    let mut d = AckDriver::new(Bbr::new(Params::default(), init));
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(4_138_169 * 8)));
    let mut script = vec![round_at(500.0), round_at(2000.0)];
    script.extend(std::iter::repeat_n(round_at(1000.0).app_limited(), 10));
    script.push(round_at(1000.0)); // 11 rounds after the 2000 sample: the filter forgets it
    let mut last = d.cc.pacing_rate().unwrap();
    for (i, a) in script.into_iter().enumerate() {
        d.ack(a);
        let now = d.cc.pacing_rate().unwrap();
        assert!(now >= last, "ACK {i}: {now:?} < {last:?}");
        last = now;
        if i == 1 {
            // floor(2000 · 1448 · 739/256 · 0.99) = 8 276 338 B/s
            assert_eq!(now, Rate::from_bps(8_276_338 * 8));
        }
    }
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(d.cc.max_bw(), 1000.0);
    assert_eq!(last, Rate::from_bps(8_276_338 * 8));
}

#[test]
fn pacing_follows_the_connections_current_mss() {
    // Linux reads tp->mss_cache on every ACK (a path-MTU change moves it).
    let mut d = AckDriver::new(bbr_with_seed(1));
    d.conn.mss = 1000;
    d.ack(round_at(2000.0));
    // floor(2000 · 1000 · 739/256 · 0.99) = 5 715 703 B/s
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(5_715_703 * 8)));
}

// ---- PROBE_BW ----

#[test]
fn probe_bw_never_starts_in_the_draining_phase() {
    let mut seen = [0u32; 8];
    for seed in 0..140 {
        let d = drive_to_probe_bw(bbr_with_seed(seed), &steady());
        seen[d.cc.cycle_idx] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(
        seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0),
        "{seen:?}"
    );
}

#[test]
fn probing_phase_lasts_more_than_min_rtt_then_ends_at_five_quarters_bdp() {
    let mut d = probe_bw_in_phase(&steady(), 0);
    let entered = d.now;
    while d.now + ms(2) <= entered + ms(10) {
        d.ack(steady()); // inflight reaches 30 + 2 ≥ 22 at once, but the phase is too young
        assert_eq!(d.cc.cycle_idx, 0);
        assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(1_791_900 * 8))); // 1.25 · 1000 · 1448 · 0.99
    }
    d.ack(steady()); // 12 ms > min_rtt and in_net 32 ≥ 22
    assert_eq!(d.cc.cycle_idx, 1);
}

#[test]
fn the_artifact_base_times_gain_cycle_phases_on_a_millisecond_clock() {
    // A cruising phase entered at a whole millisecond S with min_rtt 10 ms. An ACK at
    // S + 10.5 ms: 10.5 ms have passed, but on nginx's clock only 10 (not > min_rtt).
    let late = |us| ack(2, Duration::from_micros(us), ms(10), 10, ms(10));
    for (artifact_base, phase_after_10_5_ms) in [(false, 3), (true, 2)] {
        let mut d =
            probe_bw_in_phase_with(&Params::preset(artifact_base, Kernel::V5), &steady(), 2);
        assert_eq!(d.now, d.now.floor_millis());
        d.ack(late(10_500));
        assert_eq!(
            d.cc.cycle_idx, phase_after_10_5_ms,
            "artifact_base {artifact_base}"
        );
        d.ack(late(500)); // S + 11 ms
        assert_eq!(d.cc.cycle_idx, 3, "artifact_base {artifact_base}");
    }
}

#[test]
fn probing_phase_persists_below_its_inflight_target_until_a_loss() {
    let mut d = probe_bw_in_phase(&steady(), 0);
    d.fill_window = false;
    for _ in 0..20 {
        d.conn.inflight = 19; // in_net = 19 + 2 < 22
        d.ack(steady());
        assert_eq!(d.cc.cycle_idx, 0);
    }
    d.conn.inflight = 19;
    d.ack(steady().lost(1));
    assert_eq!(d.cc.cycle_idx, 1);
}

#[test]
fn draining_phase_ends_early_once_inflight_fits_one_bdp() {
    let mut d = probe_bw_in_phase(&steady(), 0);
    d.fill_window = false;
    d.conn.inflight = 30;
    for _ in 0..6 {
        d.ack(steady());
    }
    assert_eq!(d.cc.cycle_idx, 1);
    d.conn.inflight = 17; // in_net 17 > inflight(bw, 1) = 16
    d.ack(steady());
    assert_eq!(d.cc.cycle_idx, 1);
    d.conn.inflight = 16;
    d.ack(steady()); // 4 ms into a 10 ms phase
    assert_eq!(d.cc.cycle_idx, 2);
}

#[test]
fn probe_bw_cwnd_is_the_quantized_two_bdp_plus_aggregation() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    for _ in 0..3 {
        d.ack(steady());
    }
    assert_eq!(d.cc.cwnd(), 28); // even(ceil(1000 · 10 ms · 2) + 2 + 3·2)
    assert_eq!(d.cc.cwnd_gain, 2.0);
    // 10 packets / 9.975 ms = 1002.5 pkt/s: bdp = ceil(20.05) = 21, target even(21 + 2 + 6) = 30
    let faster = ack(2, ms(2), ms(10), 10, Duration::from_micros(9975));
    for _ in 0..30 {
        d.ack(faster.clone());
        let expected = if d.cc.cycle_idx == 0 { 32 } else { 30 };
        assert_eq!(d.cc.cwnd(), expected, "phase {}", d.cc.cycle_idx);
    }
    let m = d.cc.metrics();
    assert_eq!(m.full_bw_reached, Some(true));
    assert_eq!(m.min_rtt, Some(ms(10)));
    assert_eq!(m.bw_est_bps, Some(d.cc.max_bw() * 1448.0 * 8.0));
    assert_eq!(d.cc.state_name(), "PROBE_BW");
}

#[test]
fn aggregated_acks_raise_the_cwnd_target_by_the_extra_acked() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    for _ in 0..3 {
        d.ack(steady());
    }
    assert_eq!((d.cc.ack_aggr.extra_acked(), d.cc.cwnd()), (2, 28));
    // Three ACKs of 4 at one instant, 2 ms after the last: 12 acked where 2 were expected.
    d.ack(ack(4, ms(2), ms(10), 10, ms(10)));
    assert_eq!(d.cc.cwnd(), 30); // extra 4: even(20 + 4 + 6)
    d.ack(ack(4, ms(0), ms(10), 10, ms(10)));
    assert_eq!(d.cc.cwnd(), 34); // extra 8
    d.ack(ack(4, ms(0), ms(10), 10, ms(10)));
    assert_eq!(d.cc.cwnd(), 38); // extra 12
    assert_eq!(d.cc.aggregation_cwnd(), 12);
}

#[test]
fn acks_without_a_valid_rate_sample_leave_the_aggregation_estimate_alone() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    d.acks(3, steady());
    assert_eq!(d.cc.ack_aggr.extra_acked(), 2);
    d.acks(3, Ack::new(4, ms(0)).rtt(ms(10))); // 12 acked at one instant, no rate sample
    assert_eq!(d.cc.ack_aggr.extra_acked(), 2);
}

#[test]
fn kernel_4_17_has_neither_the_aggregation_allowance_nor_the_probing_plus_two() {
    let v4_17 = Params::preset(false, Kernel::V4_17);
    let mut d = probe_bw_in_phase_with(&v4_17, &steady(), 2);
    for _ in 0..3 {
        d.ack(steady());
    }
    // even(ceil(1000 · 10 ms · 2) + 3·2), no extra_acked
    assert_eq!(d.cc.cwnd(), 26);
    // The aggregated ACKs that raise v5's target by 12 (above) change nothing here.
    d.ack(ack(4, ms(2), ms(10), 10, ms(10)));
    d.ack(ack(4, ms(0), ms(10), 10, ms(10)));
    d.ack(ack(4, ms(0), ms(10), 10, ms(10)));
    assert_eq!((d.cc.aggregation_cwnd(), d.cc.cwnd()), (0, 26));
    // 1002.5 pkt/s: bdp 21, target even(21 + 6) = 28 in every phase, the probing one too.
    let faster = ack(2, ms(2), ms(10), 10, Duration::from_micros(9975));
    let mut phases = std::collections::BTreeSet::new();
    for _ in 0..40 {
        d.ack(faster.clone());
        phases.insert(d.cc.cycle_idx);
        assert_eq!(d.cc.cwnd(), 28, "phase {}", d.cc.cycle_idx);
    }
    assert!(phases.contains(&0), "never probed: {phases:?}");
}

#[test]
fn kernel_4_17_drains_on_packets_in_flight_without_the_departure_credit() {
    let acks =
        drain_while_the_next_departure_waits_4_ms(Params::preset(false, Kernel::V4_17)).len();
    // STARTUP's target was even(29 + 6) = 36 without extra_acked: inflight 34, 32, …, 16 =
    // inflight(bw, 1) on the 10th ACK, however soon the next packet may leave (v4.20+ credits it).
    assert_eq!(acks, 10);
}

#[test]
fn aggregation_cwnd_is_capped_at_100_ms_of_bandwidth() {
    // 100 pkt/s, min_rtt 100 ms: cap = 10 packets; tso goal 1 at gain 1 (143 352 B/s < 150 000).
    let slow = ack(2, ms(20), ms(100), 10, ms(100));
    let mut d = probe_bw_in_phase(&slow, 2);
    for _ in 0..3 {
        d.ack(slow.clone());
    }
    assert_eq!(d.cc.cwnd(), 26); // even(20 + 2 + 3)
    d.ack(ack(30, ms(20), ms(100), 10, ms(100))); // 30 acked where 2 were expected
    assert_eq!(d.cc.ack_aggr.extra_acked(), 26); // clamped to the cwnd at the time
    assert_eq!(d.cc.aggregation_cwnd(), 10);
    assert_eq!(d.cc.cwnd(), 34); // even(20 + 10 + 3)
}

#[test]
fn idle_restart_paces_at_the_estimate_and_defers_probe_rtt() {
    let mut d = probe_bw_in_phase(&steady(), 0);
    d.send_from_idle();
    // 1000 · 1448 · 0.99
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(1_433_520 * 8)));
    // min_rtt has expired, but the flow is restarting from idle: the sample refreshes
    // min_rtt (and its 10 s timer) without a PROBE_RTT.
    d.ack(ack(2, ms(10_001), ms(12), 10, ms(10)));
    assert_eq!(d.cc.state, State::ProbeBw);
    assert_eq!(d.cc.min_rtt, Some(ms(12)));
    assert!(!d.cc.idle_restart);
}

#[test]
fn a_send_from_empty_that_is_not_app_limited_is_no_idle_restart() {
    let mut d = probe_bw_in_phase(&steady(), 0); // an idle restart would pace at gain 1
    testing::assert_busy_send_is_no_idle_restart(&mut d);
    assert!(!d.cc.idle_restart);
}

// ---- PROBE_RTT ----

#[test]
fn probe_rtt_holds_4_packets_for_200_ms_and_a_round_then_restores_cwnd() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    d.ack(steady());
    let refreshed = d.now; // last RTT sample ≤ min_rtt
    let slower = steady().rtt(ms(11));
    while d.now + ms(2) <= refreshed + ms(10_000) {
        d.ack(slower.clone());
        assert_eq!(d.cc.state, State::ProbeBw);
        assert!(!d.cc.wants_app_limited());
    }
    let saved = d.cc.cwnd();
    d.ack(slower.clone()); // 10.002 s without a refresh
    assert_eq!(d.cc.state, State::ProbeRtt);
    assert_eq!(d.cc.min_rtt, Some(ms(11))); // the expired filter takes this ACK's sample
    assert_eq!((d.cc.cwnd(), d.cc.prior_cwnd), (4, saved));
    assert!(d.cc.wants_app_limited());
    assert_eq!(d.cc.metrics().pacing_gain, Some(1.0));
    while d.cc.probe_rtt.done_stamp.is_none() {
        d.ack(slower.clone()); // inflight drains 2 per ACK toward 4
        assert_eq!(d.cc.cwnd(), 4);
    }
    assert_eq!(d.conn.inflight, 4);
    let done = d.now + ms(200);
    while d.now + ms(2) <= done {
        d.ack(slower.clone()); // the round ends 10 ms in; the 200 ms do not
        assert_eq!(d.cc.state, State::ProbeRtt);
        assert_eq!(d.cc.cwnd(), 4);
    }
    assert!(d.cc.probe_rtt.round_done);
    d.ack(slower.clone());
    assert_eq!(d.cc.state, State::ProbeBw);
    assert_eq!(d.cc.min_rtt_stamp, d.now);
    // min_rtt is 11 ms now: target = even(ceil(1000 · 11 ms · 2) + 2 + 6) = 30 (+2 in phase 0).
    // cwnd = min(max(4, prior_cwnd) + 2, target), not 4 + 2.
    let target = if d.cc.cycle_idx == 0 { 32 } else { 30 };
    assert_eq!(d.cc.cwnd(), (saved + 2).min(target));
    assert!(d.cc.wants_app_limited()); // Linux marked this exiting ACK too
    d.ack(slower);
    assert!(!d.cc.wants_app_limited());
}

/// PROBE_BW (phase 2) with min_rtt 10 ms refreshed, then 11 ms samples until the next ACK
/// (2 ms later) finds the 10 s window expired.
fn min_rtt_about_to_expire(p: &Params) -> AckDriver<Bbr> {
    let mut d = probe_bw_in_phase_with(p, &steady(), 2);
    d.ack(steady());
    let refreshed = d.now;
    let slower = steady().rtt(ms(11));
    while d.now + ms(2) <= refreshed + ms(10_000) {
        d.ack(slower.clone());
    }
    d
}

#[test]
fn a_zero_probe_rtt_duration_turns_probe_rtt_off() {
    let off = Params {
        probe_rtt_duration_ms: 0,
        ..Params::default()
    };
    let mut d = min_rtt_about_to_expire(&off);
    d.ack(steady().rtt(ms(11))); // expired now
    assert_eq!(d.cc.state, State::ProbeBw);
    assert_eq!(d.cc.min_rtt, Some(ms(11))); // the expired minimum still moves
}

#[test]
fn the_artifact_base_holds_probe_rtt_for_two_srtt_from_entry_without_draining_first() {
    let mut d = min_rtt_about_to_expire(&Params::preset(true, Kernel::V5));
    let slower = steady().rtt(ms(11));
    d.ack(slower.clone());
    assert_eq!(d.cc.state, State::ProbeRtt);
    // The hold starts on the entering ACK although inflight is still far above 4.
    assert!(d.conn.inflight > 4);
    let entered = d.now;
    // srtt on the artifact's clock is whole milliseconds: 10 ms, although it is above that.
    let srtt = d.conn.srtt.unwrap();
    assert!(srtt > ms(10) && srtt.floor_millis() == ms(10));
    assert_eq!(d.cc.probe_rtt.done_stamp, Some(entered + ms(20)));
    while d.cc.state == State::ProbeRtt {
        d.ack(slower.clone());
        assert!(
            d.now <= entered + ms(40),
            "PROBE_RTT lasts 2·srtt and a round"
        );
    }
    // It leaves on the ACK at the stamp itself (`sampler->now < stamp` no longer holds);
    // Linux's `after(now, stamp)` would wait for the next, 2 ms later.
    assert_eq!(d.now, entered + ms(20));
    assert_eq!(d.cc.state, State::ProbeBw);
}

#[test]
fn an_expired_min_rtt_skips_a_delayed_acks_rtt_on_linux_but_not_on_the_artifact_base() {
    for (p, expected) in [
        (Params::default(), ms(10)),
        (Params::preset(true, Kernel::V5), ms(30)),
    ] {
        let mut d = min_rtt_about_to_expire(&p);
        assert_eq!(d.cc.min_rtt, Some(ms(10)));
        d.ack(steady().rtt(ms(30)).delayed()); // expired now
        assert_eq!(
            d.cc.min_rtt,
            Some(expected),
            "artifact_base {}",
            p.artifact_base
        );
    }
}

#[test]
fn the_min_rtt_window_starts_at_the_first_hook_not_at_time_zero() {
    // A flow that starts 15 s into the run: Linux stamps min_rtt at bbr_init, i.e. when
    // the connection starts, so its first ACK finds no expired window to probe.
    let mut d = AckDriver::new(bbr_with_seed(1));
    d.now = Time::from_secs(15);
    d.ack(steady());
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(d.cc.min_rtt_stamp, d.now);
    // A first send starts it too: an ACK more than 10 s later finds it expired.
    let mut d = AckDriver::new(bbr_with_seed(1));
    d.first_send(Time::from_secs(15));
    d.now = Time::from_secs(25);
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeRtt);
}

#[test]
fn a_send_from_idle_after_the_probe_rtt_hold_ends_it_without_waiting_for_a_round() {
    let mut d = min_rtt_about_to_expire(&Params::default());
    let slower = steady().rtt(ms(11));
    d.fill_window = false;
    d.ack(slower.clone());
    assert_eq!(d.cc.state, State::ProbeRtt);
    while d.cc.probe_rtt.done_stamp.is_none() {
        d.ack(slower.clone()); // draining to 4 packets in flight
    }
    let done = d.cc.probe_rtt.done_stamp.unwrap();
    // (No send at the stamp itself: one inside PROBE_RTT would hide a mark left behind.)
    d.now = done + Duration::from_micros(1);
    d.send_from_idle();
    assert_eq!(d.cc.state, State::ProbeBw);
    assert_eq!(d.cc.cwnd(), 28); // prior_cwnd restored
    assert!(!d.cc.wants_app_limited());
}

#[test]
fn probe_rtt_needs_a_round_and_returns_to_startup_if_the_pipe_was_never_full() {
    let mut d = AckDriver::new(bbr_with_seed(1));
    d.ack(round_at(1000.0)); // cwnd 20, min_rtt 10 ms at t = 10 ms
    let idle = ack(2, ms(2), ms(12), 10, ms(10)).app_limited();
    d.ack(Ack {
        after: ms(10_001),
        ..idle.clone()
    });
    assert_eq!(d.cc.state, State::ProbeRtt);
    assert_eq!((d.cc.cwnd(), d.cc.prior_cwnd), (4, 20));
    while d.cc.probe_rtt.done_stamp.is_none() {
        d.ack(idle.clone());
    }
    // 300 ms of ACKs without a valid rate sample: no round can end.
    for _ in 0..150 {
        d.ack(Ack::new(2, ms(2)).rtt(ms(12)));
    }
    assert_eq!(d.cc.state, State::ProbeRtt);
    d.ack(idle); // a round starts: 200 ms and one round are both done
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(d.cc.cwnd(), 22); // max(4, 20) + 2, below STARTUP's target
}

/// The artifact's stack runs its BBR only for ACKs with a valid rate sample: an ACK
/// without one changes nothing there (not even STARTUP's cwnd growth by the packets it
/// acks, or PROBE_RTT's app-limited mark), while Linux's `bbr_main` runs on every ACK.
#[test]
fn the_artifact_base_skips_acks_without_a_valid_sample() {
    let no_sample = Ack::new(2, ms(2)).rtt(ms(10));
    let mut linux = AckDriver::new(bbr_with_seed(1));
    linux.ack(round_at(1000.0));
    let cwnd = linux.cc.cwnd();
    linux.ack(no_sample.clone());
    assert_eq!(linux.cc.cwnd(), cwnd + 2);
    assert!(!linux.cc.valid_samples_only());

    let mut artifact = AckDriver::new(bbr_with(Params::preset(true, Kernel::V5), 1));
    assert!(artifact.cc.valid_samples_only());
    artifact.ack(round_at(1000.0));
    let before = testing::outputs(&artifact.cc);
    artifact.ack(no_sample);
    assert_eq!(testing::outputs(&artifact.cc), before);
}

// ---- loss recovery and RTO ----

#[test]
fn recovery_conserves_packets_for_one_round_then_restores_prior_cwnd() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    for _ in 0..3 {
        d.ack(steady());
    }
    assert_eq!(d.cc.cwnd(), 28);
    d.enter_recovery();
    assert_eq!(d.cc.prior_cwnd, 28);
    d.conn.inflight = 20; // the sender had not filled the window
    d.ack(steady().lost(1));
    assert_eq!(d.cc.cwnd(), 19); // inflight 17 + acked 2: unused cwnd is cut
    for _ in 0..4 {
        d.ack(steady());
        assert_eq!(d.cc.cwnd(), 19); // P packets out per P acked, although below target
    }
    d.ack(steady()); // 10 more delivered: the round ends, slow start toward target
    assert_eq!(d.cc.cwnd(), 21);
    d.exit_recovery();
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 28); // max(21, prior_cwnd 28), min(+2, target 28)
    d.ack(steady().lost(3));
    assert_eq!(d.cc.cwnd(), 27); // 28 − 3 lost + 2 acked
}

/// BBR under the artifact's recovery epoch, in PROBE_BW's phase 2 with cwnd 28.
fn artifact_epoch_at_28() -> AckDriver<Bbr> {
    let p = Params {
        recovery_epoch: RecoveryEpochRule::Artifact,
        ..Params::default()
    };
    let mut d = probe_bw_in_phase_with(&p, &steady(), 2);
    d.acks(3, steady());
    assert_eq!(d.cc.cwnd(), 28);
    d
}

#[test]
fn under_the_artifacts_epoch_the_loss_ack_starts_conservation_and_a_later_packet_restores() {
    let mut d = artifact_epoch_at_28();
    d.conn.inflight = 20;
    // t0: no TCP Recovery. The loss saves cwnd; the sample's packet, sent at t0 − 10 ms,
    // was sent before it, so this ACK opens the epoch.
    d.ack(steady().lost(1));
    assert!(d.cc.in_artifact_recovery());
    assert_eq!((d.cc.prior_cwnd, d.cc.cwnd()), (28, 19)); // inflight 17 + acked 2
    for _ in 0..4 {
        d.ack(steady());
        assert_eq!(d.cc.cwnd(), 19);
    }
    d.ack(steady()); // t0 + 10 ms: the round ends; its packet was sent at t0, not after
    assert!(d.cc.in_artifact_recovery());
    assert_eq!(d.cc.cwnd(), 21);
    d.ack(steady()); // t0 + 12 ms: a packet sent after the loss closes the epoch
    assert!(!d.cc.in_artifact_recovery());
    assert_eq!(d.cc.cwnd(), 28); // max(21, prior_cwnd 28); without the restore 23
}

#[test]
fn under_the_artifacts_epoch_every_loss_moves_its_end() {
    let mut d = artifact_epoch_at_28();
    d.ack(steady().lost(1)); // t0
    d.acks(4, steady());
    d.ack(steady().lost(1)); // t0 + 10 ms: inside the epoch, which now ends after t0 + 10
    assert_eq!(
        d.cc.prior_cwnd, 28,
        "a save inside the epoch keeps the larger cwnd"
    );
    for _ in 0..5 {
        d.ack(steady()); // t0 + 12 … 20 ms acknowledge packets sent at t0 + 2 … 10 ms
        assert!(d.cc.in_artifact_recovery());
    }
    d.ack(steady()); // t0 + 22 ms: sent at t0 + 12 ms
    assert!(!d.cc.in_artifact_recovery());
    // TCP's Recovery state never changed: the transport's rule is not consulted.
    assert_eq!(d.conn.ca_state, CaState::Open);
}

#[test]
fn the_artifact_keeps_its_4_packet_floor_while_conserving_packets_and_linux_does_not() {
    for artifact_base in [false, true] {
        let p = Params::preset(artifact_base, Kernel::V5);
        let mut d = probe_bw_in_phase_with(&p, &steady(), 2);
        d.conn.inflight = 1;
        if !artifact_base {
            d.enter_recovery();
        }
        // the loss ACK opens the epoch (the artifact's) or Recovery's first round (Linux's):
        // cwnd = inflight 0 + acked 2, floored at 4 by the artifact only
        d.ack(steady().lost(1));
        assert!(d.cc.packet_conservation);
        assert_eq!(d.cc.cwnd(), if artifact_base { 4 } else { 2 });
    }
}

#[test]
fn an_ack_that_delivers_nothing_leaves_cwnd_alone() {
    // Linux bbr_set_cwnd: `if (!acked) goto done` (say, a duplicate ACK marking losses).
    let mut d = probe_bw_in_phase(&steady(), 2);
    d.acks(3, steady());
    assert_eq!(d.cc.cwnd(), 28);
    d.ack(Ack::new(0, ms(1)).lost(2));
    assert_eq!(d.cc.cwnd(), 28);
}

#[test]
fn save_cwnd_takes_the_cwnd_unless_recovery_or_probe_rtt_has_cut_it_then_the_larger() {
    // Linux bbr_save_cwnd, on a sender whose prior_cwnd (50) exceeds its cwnd (20).
    let saved = |prev_ca_state: CaState, state: State| {
        let mut cc = bbr_with_seed(1);
        (cc.prior_cwnd, cc.cwnd, cc.prev_ca_state, cc.state) = (50, 20, prev_ca_state, state);
        cc.save_cwnd();
        cc.prior_cwnd
    };
    assert_eq!(saved(CaState::Open, State::ProbeBw), 20);
    assert_eq!(saved(CaState::Disorder, State::Startup), 20);
    assert_eq!(saved(CaState::Recovery, State::ProbeBw), 50);
    assert_eq!(saved(CaState::Loss, State::ProbeBw), 50);
    assert_eq!(saved(CaState::Open, State::ProbeRtt), 50);
}

#[test]
fn rto_collapses_cwnd_to_inflight_plus_one_and_it_grows_back() {
    // Leaving the Loss state restores cwnd under either recovery rule.
    for rule in [RecoveryEpochRule::Tcp, RecoveryEpochRule::Artifact] {
        let p = Params {
            recovery_epoch: rule,
            ..Params::default()
        };
        let mut d = probe_bw_in_phase_with(&p, &steady(), 2);
        for _ in 0..3 {
            d.ack(steady());
        }
        d.rto(ms(30));
        assert_eq!(d.cc.cwnd(), 1);
        assert_eq!(
            (d.cc.prior_cwnd, d.cc.prev_ca_state, d.cc.full_bw.bw),
            (28, CaState::Loss, 0.0)
        );
        for expected in [4, 8] {
            let n = d.conn.inflight;
            d.ack(ack(n, ms(10), ms(10), 10, ms(10)));
            assert_eq!(d.cc.cwnd(), expected); // max(1 + 1, 4), then + acked: slow start
        }
        d.exit_recovery();
        d.ack(ack(8, ms(10), ms(10), 10, ms(10)));
        // This 8-packet ACK opens a new ACK epoch: extra_acked = 8, target = even(20 + 8 + 6) = 34.
        // cwnd = min(max(8, prior_cwnd 28) + 8, 34); without the restore it would be 16.
        assert_eq!(d.cc.ack_aggr.extra_acked(), 8);
        assert_eq!(d.cc.cwnd(), 34, "{rule:?}");
    }
}

// ---- long-term (policer) bandwidth ----

#[test]
fn a_policer_is_detected_after_two_consistent_lossy_intervals_and_forgotten_after_48_rounds() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    // Policed at 500 pkt/s: every 4 ms, 2 delivered and 1 dropped (loss ratio 1/3 ≥ 50/256).
    let policed = ack(2, ms(4), ms(10), 10, ms(20)).lost(1);
    let mut rounds_in_first = 0;
    while d.cc.lt.bw == 0.0 {
        let r = d.cc.rtt_cnt;
        d.ack(policed.clone());
        rounds_in_first += d.cc.rtt_cnt - r;
        assert!(rounds_in_first <= 5);
    }
    assert!(rounds_in_first >= 4);
    assert_eq!(d.cc.lt.bw, 500.0); // delivered / whole ms of the interval
    assert!(!d.cc.lt.use_bw); // one interval is not enough
    while !d.cc.lt.use_bw {
        d.ack(policed.clone());
        assert!(d.now < Time::from_secs(2));
    }
    assert_eq!(d.cc.bw(), 500.0);
    assert_eq!(d.cc.pacing_gain, 1.0);
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(716_760 * 8))); // 500 · 1448 · 0.99
    assert_eq!(d.cc.metrics().bw_est_bps, Some(500.0 * 1448.0 * 8.0));

    let clean = ack(2, ms(4), ms(10), 10, ms(20));
    let mut rounds = 0;
    while rounds < 47 {
        let r = d.cc.rtt_cnt;
        d.ack(clean.clone());
        rounds += d.cc.rtt_cnt - r;
        assert!(d.cc.lt.use_bw, "round {rounds}");
        assert_eq!(d.cc.pacing_gain, 1.0); // pinned, whatever the cycle phase
    }
    let r = d.cc.rtt_cnt;
    while d.cc.rtt_cnt == r {
        assert!(d.cc.lt.use_bw);
        d.ack(clean.clone());
    }
    assert!(!d.cc.lt.use_bw, "reset on the 48th round start");
    assert_eq!(d.cc.state, State::ProbeBw);
    assert_eq!(d.cc.bw(), d.cc.max_bw());
}

#[test]
fn losses_below_the_lossy_threshold_do_not_look_like_a_policer() {
    let mut d = probe_bw_in_phase(&steady(), 2);
    // 1 lost per 6 delivered = 0.167 < 50/256 = 0.195
    for i in 0..300 {
        d.ack(if i % 3 == 0 {
            steady().lost(1)
        } else {
            steady()
        });
    }
    assert_eq!((d.cc.lt.bw, d.cc.lt.use_bw), (0.0, false));
}

#[test]
fn a_replacement_bandwidth_filter_feeds_every_max_bw_consumer() {
    #[derive(Debug)]
    struct Fixed(f64);
    impl BwFilter for Fixed {
        fn update(&mut self, _: u64, _: f64, _: bool) {}
        fn max_bw(&self) -> f64 {
            self.0
        }
        fn reset(&mut self, _: u64) {}
    }
    let init = CcInit {
        srtt: Some(ms(10)),
        ..testing::init()
    };
    let mut d = AckDriver::new(Bbr::with_bw_filter(
        Params::default(),
        init,
        Box::new(Fixed(2000.0)),
    ));
    d.ack(round_at(1000.0));
    assert_eq!(d.cc.bw(), 2000.0);
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(8_276_338 * 8)));
    assert_eq!(d.cc.metrics().bw_est_bps, Some(2000.0 * 1448.0 * 8.0));
}

// ---- parameters and states ----

#[test]
fn defaults_match_spec() {
    let p = Params::default();
    assert_eq!(p.high_gain * 256.0, 739.0);
    assert_eq!(p.drain_gain * 256.0, 88.0);
    assert_eq!(p.cwnd_gain * 256.0, 512.0);
    let cycle: Vec<f64> = p.pacing_gain_cycle.iter().map(|g| g * 256.0).collect();
    assert_eq!(
        cycle,
        [320.0, 192.0, 256.0, 256.0, 256.0, 256.0, 256.0, 256.0]
    );
    assert_eq!((p.cycle_rand, p.bw_filter_rounds), (7, 10));
    assert_eq!(
        (p.min_rtt_window_ms, p.probe_rtt_duration_ms, p.min_cwnd),
        (10_000, 200, 4)
    );
    assert_eq!((p.full_bw_thresh * 256.0, p.full_bw_rounds), (320.0, 3));
    assert_eq!(
        (p.pacing_margin_percent, p.min_tso_rate_bps, p.pacing_shift),
        (1, 1_200_000, 10)
    );
    assert_eq!(
        (
            p.extra_acked_gain,
            p.extra_acked_win_rounds,
            p.extra_acked_max_ms
        ),
        (1.0, 5, 100)
    );
    assert_eq!(p.ack_epoch_acked_reset, 1 << 20);
    assert!(p.lt_enabled);
    assert_eq!(p.kernel, Kernel::V5);
    assert_eq!(
        (
            p.lt_intvl_min_rounds,
            p.lt_loss_thresh * 256.0,
            p.lt_bw_ratio * 256.0
        ),
        (4, 50.0, 32.0)
    );
    assert_eq!(
        (p.lt_bw_diff_bytes_per_sec, p.lt_bw_max_rounds),
        (500.0, 48)
    );
    assert_eq!(
        (TSO_MAX_BYTES, TSO_MAX_SEGS, TCP_INIT_CWND),
        (65_215, 127, 10)
    );
    assert_eq!(p.validate(), Ok(()));
}

#[test]
fn each_unusable_parameter_alone_is_rejected_by_name() {
    let d = Params::default;
    let cases = [
        (
            Params {
                pacing_gain_cycle: vec![],
                ..d()
            },
            "pacing_gain_cycle",
        ),
        (
            Params {
                pacing_gain_cycle: vec![1.25, 0.0],
                cycle_rand: 1,
                ..d()
            },
            "pacing_gain_cycle",
        ),
        (
            Params {
                pacing_gain_cycle: vec![1.25, f64::NAN],
                cycle_rand: 1,
                ..d()
            },
            "pacing_gain_cycle",
        ),
        (
            Params {
                bw_filter_rounds: 0,
                ..d()
            },
            "bw_filter_rounds",
        ),
        (Params { min_cwnd: 0, ..d() }, "min_cwnd"),
        (
            Params {
                full_bw_rounds: 0,
                ..d()
            },
            "full_bw_rounds",
        ),
        (
            Params {
                pacing_shift: 64,
                ..d()
            },
            "pacing_shift",
        ),
        (
            Params {
                extra_acked_win_rounds: 0,
                ..d()
            },
            "extra_acked_win_rounds",
        ),
        (
            Params {
                min_rtt_window_ms: 0,
                ..d()
            },
            "min_rtt_window_ms",
        ),
        (
            Params {
                lt_loss_thresh: f64::NAN,
                ..d()
            },
            "lt_loss_thresh",
        ),
        (
            Params {
                lt_bw_ratio: -0.125,
                ..d()
            },
            "lt_bw_ratio",
        ),
        (
            Params {
                lt_bw_diff_bytes_per_sec: f64::INFINITY,
                ..d()
            },
            "lt_bw_diff_bytes_per_sec",
        ),
    ];
    for (p, field) in cases {
        // the message starts with the one field at fault (not a list of suspects)
        let e = p.validate().unwrap_err();
        assert!(e.starts_with(field), "{field}: {e}");
    }
}

#[test]
fn params_override_single_fields_and_reject_unknown_or_unusable_ones() {
    let p: Params = serde_json::from_str(r#"{"cwnd_gain": 1.5}"#).unwrap();
    assert_eq!(
        p,
        Params {
            cwnd_gain: 1.5,
            ..Params::default()
        }
    );
    let e = serde_json::from_str::<Params>(r#"{"cwnd_gian": 1.5}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("cwnd_gian"), "{e}");
    let old: Params = serde_json::from_str(r#"{"kernel": "4.17"}"#).unwrap();
    assert_eq!(old, Params::preset(false, Kernel::V4_17));
    assert_eq!(old.extra_acked_gain, 0.0);
    // A preset sets the defaults; a field the table writes beside it wins.
    let artifact: Params = serde_json::from_str(r#"{"artifact_base": true}"#).unwrap();
    assert_eq!(
        (artifact.lt_enabled, artifact.pacing_margin_percent),
        (false, 0)
    );
    // ngx_bbr_high_gain and ngx_bbr_drain_gain
    assert_eq!(
        (artifact.high_gain, artifact.drain_gain),
        (2.885, 1.0 / 2.885)
    );
    let with_lt: Params =
        serde_json::from_str(r#"{"lt_enabled": true, "artifact_base": true}"#).unwrap();
    assert_eq!(
        with_lt,
        Params {
            lt_enabled: true,
            ..Params::preset(true, Kernel::V5)
        }
    );
    let e = serde_json::from_str::<Params>(r#"{"kernel": "4.18"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("4.17") && e.contains("5.x"), "{e}");
    let bad = Params {
        pacing_gain_cycle: vec![1.25, 0.75],
        ..Params::default()
    };
    assert!(bad.validate().unwrap_err().contains("cycle_rand"));
}

#[test]
fn only_the_diagram_s_transitions_are_legal() {
    use State::*;
    assert!(Drain.may_follow(Startup) && ProbeBw.may_follow(Drain) && ProbeBw.may_follow(ProbeBw));
    assert!(Startup.may_follow(ProbeRtt) && ProbeRtt.may_follow(ProbeBw));
    assert!(
        !Startup.may_follow(ProbeBw)
            && !Drain.may_follow(ProbeBw)
            && !ProbeRtt.may_follow(ProbeRtt)
    );
}
