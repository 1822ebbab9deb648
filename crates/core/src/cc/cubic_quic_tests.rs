//! The artifact CUBIC against hand-computed `cubic.c` arithmetic (MSS 1448 B, IW10).

use super::*;
use crate::testing::{init, Ack, AckDriver, MSS};
use crate::time::Duration;

/// `n` milliseconds.
fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

const MS: Duration = Duration::from_millis(1);
const RTT: Duration = Duration::from_millis(100);
const B: u64 = MSS as u64;

/// An ACK of `n` packets `after` the previous event, with a valid rate sample whose reference
/// packet was sent one RTT earlier.
fn ack(n: u32, after: Duration) -> Ack {
    Ack::new(n, after).rtt(RTT).rate(1000.0, RTT)
}

/// Slow start from IW10 to `pkts` packets (ACKs 1 ms apart after the first round trip; every
/// RTT 100 ms, so is the minimum), then one loss.
fn after_loss(pkts: u32) -> AckDriver<CubicQuic> {
    let mut d = AckDriver::new(CubicQuic::new(Params::default(), init()));
    d.ack(ack(1, RTT));
    while d.cc.cwnd() < pkts {
        d.ack(ack(1, MS));
    }
    d.ack(Ack::new(0, MS).lost(1));
    d
}

#[test]
fn defaults_match_spec() {
    let p = Params::default();
    assert_eq!((p.beta * 1024.0, p.c * 1024.0), (718.0, 410.0));
    assert!(p.fast_convergence);
    assert_eq!((MIN_WINDOW_PKTS, CUBE_SCALE, K_LIMIT), (4, 40, 10_000.0));
    assert_eq!((K_PRECISION, MAX_CWND_BYTES), (1e-4, 10 * 1024 * 1024));
    assert_eq!((PERSISTENT_CONGESTION_FACTOR, GRANULARITY_MS), (3, 1));
    let cc = CubicQuic::new(p, init());
    assert_eq!((cc.beta_fixed, cc.c_fixed, cc.cwnd), (718, 410, 10 * B));
    // the artifact's CUBIC sets no pacing rate of its own
    assert!(cc.pacing_rate().is_none());
}

#[test]
fn slow_start_has_no_hystart_and_grows_by_the_bytes_acked() {
    let mut d = AckDriver::new(CubicQuic::new(Params::default(), init()));
    // RTTs rising 100 → 300 ms would end Linux's slow start by HyStart's delay test
    for i in 0..200u64 {
        d.ack(Ack::new(1, MS).rtt(RTT + ms(i)).rate(1000.0, RTT));
    }
    assert_eq!(d.cc.cwnd(), 210);
    assert_eq!(
        (d.cc.state_name(), d.cc.metrics().ssthresh_pkts),
        ("SLOW_START", None)
    );
}

/// The artifact's stack calls `CubicOnAck` only for ACK frames with a valid rate sample: an
/// ACK without one neither grows the window nor takes a minimum RTT.
#[test]
fn acks_without_a_valid_sample_do_not_reach_it() {
    let mut d = AckDriver::new(CubicQuic::new(Params::default(), init()));
    assert!(d.cc.valid_samples_only());
    d.ack(ack(1, RTT));
    let (cwnd, min_rtt) = (d.cc.cwnd(), d.cc.min_rtt_ms);
    d.ack(Ack::new(5, MS).rtt(ms(50)));
    assert_eq!((d.cc.cwnd(), d.cc.min_rtt_ms), (cwnd, min_rtt));
    d.ack(ack(5, MS));
    assert_eq!(d.cc.cwnd(), cwnd + 5);
}

#[test]
fn its_minimum_rtt_is_the_smallest_reference_packets_age() {
    let mut d = AckDriver::new(CubicQuic::new(Params::default(), init()));
    for (rtt, min) in [(100, 100), (150, 100), (50, 50), (60, 50)] {
        d.ack(Ack::new(1, RTT).rtt(ms(rtt)).rate(1000.0, ms(rtt)));
        assert_eq!(d.cc.min_rtt_ms, min, "after an RTT of {rtt} ms");
    }
}

#[test]
fn a_lost_packet_cuts_to_beta_once_per_recovery_period() {
    let mut d = after_loss(100);
    // ⌊144 800 · 718/1024⌋ = 101 529 B: 70.1 packets, sent as 71
    assert_eq!(
        (d.cc.cwnd, d.cc.cwnd(), d.cc.metrics().ssthresh_pkts),
        (101_529, 71, Some(70))
    );
    assert_eq!(
        (d.cc.last_max_cwnd, d.cc.state_name()),
        (144_800, "CONG_AVOID")
    );
    // a packet sent before the reduction: ignored
    d.ack(Ack::new(0, ms(50)).lost_sent(1, RTT));
    assert_eq!(d.cc.cwnd, 101_529);
    // one sent after it: a second cut, and fast convergence lowers W_max below this cwnd
    d.ack(Ack::new(0, ms(50)).lost_sent(1, ms(10)));
    assert_eq!(d.cc.cwnd, 101_529 * 718 / 1024);
    assert_eq!(d.cc.last_max_cwnd, 101_529 * 1742 / 2048);
}

#[test]
fn fast_convergence_only_below_w_max_and_no_cut_below_four_packets() {
    let mut d = AckDriver::new(CubicQuic::new(Params::default(), init()));
    // a loss at IW10, where cwnd equals the initial W_max: W_max stays cwnd
    d.ack(Ack::new(0, MS).lost(1));
    assert_eq!(
        (d.cc.cwnd, d.cc.last_max_cwnd),
        (14_480 * 718 / 1024, 14_480)
    );
    // 10 152 → 7118 → max(4990, 4 · 1448), each loss sent after the previous cut
    for cwnd in [7118, 5792, 5792] {
        d.ack(Ack::new(0, MS).lost_sent(1, Duration::ZERO));
        assert_eq!(d.cc.cwnd, cwnd);
    }
    assert_eq!(d.cc.cwnd(), 4);
}

#[test]
fn no_growth_while_the_reference_was_sent_in_the_recovery_period() {
    let mut d = after_loss(100);
    // reference sent 100 ms ago, 50 ms before the loss
    d.ack(ack(10, ms(50)));
    assert_eq!(d.cc.cwnd, 101_529);
    // 60 ms later its reference (sent 100 ms before) left 10 ms after the loss
    d.ack(ack(10, ms(60)));
    assert!(d.cc.cwnd > 101_529);
}

#[test]
fn the_curve_regains_w_max_k_milliseconds_after_the_epoch_starts() {
    let mut d = after_loss(100);
    let wait = RTT + MS; // past the recovery period
    d.ack(ack(1, wait));
    let epoch = d.cc.epoch_start_ms.unwrap();
    // K = ⌊∛(⌊⌊2⁴⁰/410⌋/1448⌋ · 43 271)⌋ = ⌊∛(1 852 027 · 43 271)⌋ = 4311, in 1/1024 s,
    // compared with t in ms: 1024 · ∛(29.88 packets / C) = 4311.4
    assert_eq!((d.cc.k, d.cc.origin), (4311, 144_800));
    // t = now + min_rtt − epoch reaches K at epoch + 4211 ms: Δ = 0, cwnd = W_max
    let until_k = Duration::from_millis(epoch + 4311 - 100) - (d.now - Time::ZERO);
    d.ack(ack(1000, until_k));
    assert_eq!(d.cc.cwnd, 144_800);
    // one second later: Δ = ⌊410 · 1000³ · 1448 / 2⁴⁰⌋ = 539 B above it
    d.ack(ack(1000, ms(1000)));
    assert_eq!(d.cc.cwnd, 144_800 + 539);
}

#[test]
fn below_k_the_curve_climbs_towards_w_max_by_at_most_half_the_bytes_acked() {
    let mut d = after_loss(100);
    d.ack(ack(1, RTT + MS));
    // t = 100 ms, K = 4311: Δ = ⌊410 · 4211³ · 1448 / 2⁴⁰⌋ = 40 318, the curve at
    // 144 800 − 40 318 = 104 482; half of the 1448 B acked binds: 101 529 + 724
    assert_eq!(d.cc.cwnd, 102_253);
    // t = 101 ms: Δ = 40 290, the curve at 104 510 is below 102 253 + 10 · 1448 / 2
    d.ack(ack(10, MS));
    assert_eq!(d.cc.cwnd, 104_510);
}

#[test]
fn the_reno_window_grows_once_per_ack_frame_whatever_it_acknowledges() {
    let mut d = after_loss(100);
    d.ack(ack(1, RTT + MS));
    let reno = d.cc.tcp_cwnd;
    d.ack(ack(10, MS));
    assert_eq!(d.cc.tcp_cwnd, reno + B * B / reno);
}

/// A timeout 1 s after the loss of [`after_loss`], marking packets sent `span` apart, the
/// newest 10 ms before the timeout (after the recovery period began); srtt 100 ms, 4·rttvar
/// 50 ms: persistent congestion beyond 3 · (100 + 50 + 25) = 525 ms (of whole-ms send times).
fn timeout_marking(d: &mut AckDriver<CubicQuic>, span: Duration) {
    d.conn.srtt = Some(RTT);
    let newest = d.now + ms(990);
    d.rto_marking(
        ms(1000),
        Timeout {
            newest_lost_sent: Some(newest),
            unbroken_loss_span: Some((newest - span, newest)),
            rtt_deviation4: ms(50),
            ..Timeout::default()
        },
    );
}

#[test]
fn a_timeout_is_one_more_loss_and_short_of_persistent_congestion_resets_nothing() {
    let mut d = after_loss(100);
    // exactly 3 PTO periods is not yet persistent
    timeout_marking(&mut d, ms(525));
    // the newest marked packet left after the last cut: one more cut, as any loss
    let cut = 101_529 * 718 / 1024;
    assert_eq!((d.cc.cwnd, d.cc.ssthresh), (cut, Some(cut)));
    assert_eq!(d.cc.state_name(), "CONG_AVOID");
}

#[test]
fn persistent_congestion_resets_to_four_packets_and_slow_starts_back() {
    let mut d = after_loss(100);
    timeout_marking(&mut d, ms(527));
    // the loss lowered ssthresh first; the window restarts below it
    assert_eq!(d.cc.ssthresh, Some(101_529 * 718 / 1024));
    assert_eq!(
        (d.cc.cwnd(), d.cc.last_max_cwnd, d.cc.state_name()),
        (4, 4 * B, "SLOW_START")
    );
    d.ack(ack(4, RTT + MS));
    assert_eq!(d.cc.cwnd(), 8);
}

#[test]
fn a_timeout_marking_nothing_new_changes_nothing() {
    let mut d = after_loss(100);
    d.rto(ms(300));
    assert_eq!(d.cc.cwnd, 101_529);
}

#[test]
fn k_is_the_lower_end_of_a_bisection_truncated_and_capped_below_10_000() {
    // an exact cube ends just below its root
    assert_eq!((cube_root(8), cube_root(9)), (1, 2));
    assert_eq!(cube_root(27_000_000_000), 2999);
    // 625 is a midpoint of the bisection itself (10 000 / 16): still the lower end
    assert_eq!(cube_root(625 * 625 * 625), 624);
    assert_eq!(cube_root(u64::MAX), 9999);
}

#[test]
fn the_curves_offset_wraps_in_64_bits_as_cubic_c_computes_it() {
    let mut cc = CubicQuic::new(Params::default(), init());
    cc.epoch_start_ms = Some(0);
    cc.origin = 144_800;
    cc.cwnd = 30_000_000;
    // 34 s past K: 410 · 34 000³ · 1448 exceeds 2⁶⁴; ⌊(that mod 2⁶⁴) / 2⁴⁰⌋ = 4 444 932
    // (unwrapped: 21 222 148), and the window falls to the curve's wrapped value
    cc.update(60_000_000, 34_000);
    assert_eq!(cc.cwnd, 144_800 + 4_444_932);
}

#[test]
fn the_sender_may_use_at_most_10_mib() {
    let mut cc = CubicQuic::new(Params::default(), init());
    cc.cwnd = 20 << 20;
    assert_eq!(cc.cwnd(), (10u64 << 20).div_ceil(B) as u32);
}

#[test]
fn an_out_of_range_parameter_names_itself() {
    let bad = Params {
        beta: 1.0,
        ..Params::default()
    };
    assert!(bad.validate().unwrap_err().starts_with("beta = 1"));
    let bad = Params {
        c: 0.0,
        ..Params::default()
    };
    assert!(bad.validate().unwrap_err().starts_with("c = 0"));
    for c in [0.5 / 1024.0, 1000.5] {
        let bad = Params {
            c,
            ..Params::default()
        };
        assert!(bad.validate().unwrap_err().starts_with("c = "), "{c}");
    }
    // the defaults and both ends of c's range are allowed
    for c in [C, 1.0 / 1024.0, 0.5, 1000.0] {
        let ok = Params {
            c,
            ..Params::default()
        };
        assert_eq!(ok.validate(), Ok(()), "{c}");
    }
}
