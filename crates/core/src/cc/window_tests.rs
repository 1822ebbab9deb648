//! Window machinery tests, driven through Reno (the simplest `CaOps`).

use super::*;
use crate::cc::reno::{Params, Reno};
use crate::testing::{init, Ack, AckDriver, MSS};
use crate::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn reno_at(cwnd: u32) -> AckDriver<Reno> {
    let mut d = AckDriver::new(Reno::new(Params::default(), init()));
    d.cc.window.cwnd = cwnd;
    d.conn.inflight = cwnd;
    d.conn.snd_nxt = cwnd as u64 * MSS as u64;
    d
}

/// Delivers `a`, then tells the algorithm about each packet the driver's
/// refill sent (as the transport would); returns how many were sent.
fn ack_and_send(d: &mut AckDriver<Reno>, a: Ack) -> u32 {
    let left = d.conn.inflight.saturating_sub(a.acked + a.lost);
    d.ack(a);
    let sent = d.conn.inflight - left;
    let pkt = SentPacket {
        payload_bytes: MSS,
        is_retrans: false,
        inflight: d.conn.inflight,
    };
    for _ in 0..sent {
        d.cc.on_packet_sent(d.now, &d.conn, &pkt);
    }
    sent
}

#[test]
fn slow_start_doubles_cwnd_per_window_of_acks() {
    let mut d = reno_at(10);
    d.acks(10, Ack::new(1, MS));
    assert_eq!(d.cc.cwnd(), 20);
    d.acks(20, Ack::new(1, MS));
    assert_eq!(d.cc.cwnd(), 40);
    assert_eq!(d.cc.state_name(), "SLOW_START");
}

/// cwnd 40, ssthresh 45, a stretch ACK of 8: slow start takes 5 (→ 45) and the
/// leftover 3 become congestion-avoidance credit at w = 45 (no +1 yet).
#[test]
fn slow_start_stops_at_ssthresh_and_carries_leftover_acks_into_avoidance() {
    let mut d = reno_at(40);
    d.cc.window.ssthresh = 45;
    d.ack(Ack::new(8, MS));
    assert_eq!((d.cc.cwnd(), d.cc.window.cwnd_cnt), (45, 3));
    assert_eq!(d.cc.state_name(), "CONG_AVOID");
}

/// cwnd 11, credit 0, one ACK for 25: ⌊25/11⌋ = 2 → cwnd 13, credit 25 − 22 = 3.
#[test]
fn a_stretch_ack_in_avoidance_adds_whole_windows_and_keeps_the_remainder() {
    let mut d = reno_at(11);
    d.cc.window.ssthresh = 11;
    d.ack(Ack::new(25, MS));
    assert_eq!((d.cc.cwnd(), d.cc.window.cwnd_cnt), (13, 3));
}

/// Credit 30 built at a larger w, now w = 20: +1 and the credit restarts (Linux
/// "apply them gently"), then this ACK's 1 packet is the new credit.
#[test]
fn credit_earned_at_a_larger_window_is_applied_as_a_single_packet() {
    let mut w = Window::new(20);
    w.cwnd_cnt = 30;
    w.cong_avoid_ai(20, 1);
    assert_eq!((w.cwnd, w.cwnd_cnt), (21, 1));
}

#[test]
fn the_window_grows_only_when_cwnd_limited_and_snd_una_advances() {
    let mut d = reno_at(10);
    d.conn.is_cwnd_limited = false;
    d.ack(Ack::new(5, MS));
    assert_eq!(d.cc.cwnd(), 10, "application-limited ACK");
    // A SACK-only ACK (snd_una stays) does not raise cwnd (tcp_may_raise_cwnd).
    let conn = Conn {
        snd_una_advanced: false,
        ..d.conn.clone()
    };
    let rs = RateSample {
        acked_sacked: 5,
        ..RateSample::default()
    };
    d.cc.on_ack(d.now, &conn, &rs);
    assert_eq!(d.cc.cwnd(), 10, "SACK-only ACK");
    d.ack(Ack::new(5, MS));
    assert_eq!(d.cc.cwnd(), 15);
}

/// prior_cwnd 20, ssthresh ⌊20/2⌋ = 10, inflight 20 when recovery starts.
#[test]
fn prr_spreads_the_reduction_then_slow_starts_up_to_ssthresh() {
    let mut d = reno_at(20);
    d.enter_recovery();
    assert_eq!(d.cc.metrics().ssthresh_pkts, Some(10));
    assert_eq!(d.cc.state_name(), "RECOVERY");
    // 3 sacked + 1 lost → inflight 16, delta 10−16 < 0:
    // sndcnt = ⌈10·3/20⌉ − 0 = 2 → cwnd 16 + 2 = 18.
    assert_eq!(ack_and_send(&mut d, Ack::new(3, MS).lost(1)), 2);
    assert_eq!(d.cc.cwnd(), 18);
    // 2 acked → inflight 16, delivered 5: ⌈50/20⌉ − 2 = 1 → cwnd 17.
    assert_eq!(ack_and_send(&mut d, Ack::new(2, MS)), 1);
    assert_eq!(d.cc.cwnd(), 17);
    // 6 acked → inflight 11, delivered 11: ⌈110/20⌉ − 3 = 3 → cwnd 14.
    assert_eq!(ack_and_send(&mut d, Ack::new(6, MS)), 3);
    assert_eq!(d.cc.cwnd(), 14);
    // 8 acked → inflight 6, delta 4 ≥ 0, delivered 19, out 6:
    // min(4, max(19 − 6, 8) + 1) = 4 → cwnd 6 + 4 = 10 = ssthresh.
    assert_eq!(ack_and_send(&mut d, Ack::new(8, MS)), 4);
    assert_eq!(d.cc.cwnd(), 10);
}

/// prior_cwnd 20, ssthresh 10. 2 sacked + 12 lost → inflight 6, delta 4:
/// min(4, max(2 − 0, 2)) = 2, no +1 (new losses) → cwnd 8. Then 1 acked
/// without loss → inflight 7, delta 3, delivered 3, out 2:
/// min(3, max(1, 1) + 1) = 2 → cwnd 9.
#[test]
fn prr_conserves_packets_below_ssthresh_and_adds_one_only_without_new_losses() {
    let mut d = reno_at(20);
    d.enter_recovery();
    assert_eq!(ack_and_send(&mut d, Ack::new(2, MS).lost(12)), 2);
    assert_eq!(d.cc.cwnd(), 8);
    assert_eq!(ack_and_send(&mut d, Ack::new(1, MS)), 2);
    assert_eq!(d.cc.cwnd(), 9);
}

/// 2 sacked + 8 lost → inflight 10 = ssthresh, delta 0 → sndcnt 0, but
/// nothing has been sent yet, so 1 (the fast retransmit) → cwnd 11. An ACK
/// that delivers nothing leaves cwnd alone even though inflight fell.
#[test]
fn prr_always_allows_the_fast_retransmit_and_ignores_acks_that_deliver_nothing() {
    let mut d = reno_at(20);
    d.enter_recovery();
    assert_eq!(ack_and_send(&mut d, Ack::new(2, MS).lost(8)), 1);
    assert_eq!(d.cc.cwnd(), 11);
    d.ack(Ack::new(0, MS).lost(3));
    assert_eq!(d.cc.cwnd(), 11);
}

/// At inflight = ssthresh exactly (delta 0) PRR conserves packets rather than
/// reducing proportionally: prior 20, ssthresh 10, delivered 4 + 2, out 1. The
/// proportional part would allow ⌈10·6/20⌉ − 1 = 2; conservation allows min(0, …) = 0.
#[test]
fn prr_at_exactly_ssthresh_in_flight_sends_nothing_more() {
    let mut w = Window::new(20);
    let conn = Conn {
        ca_state: CaState::Recovery,
        inflight: 10,
        snd_una_advanced: true,
        ..Conn::default()
    };
    w.start_reduction(&conn, 10);
    let prr = w.prr.as_mut().unwrap();
    (prr.delivered, prr.out) = (4, 1);
    let rs = RateSample {
        acked_sacked: 2,
        ..RateSample::default()
    };
    w.cwnd_reduction(&conn, &rs);
    assert_eq!(w.cwnd, 10);
}

/// After one PRR ACK cwnd is 18; the first ACK once recovery is over sets
/// cwnd = ssthresh = 10 and then grows on that same ACK: 10 acked at w = 10 → 11.
#[test]
fn recovery_end_sets_cwnd_to_ssthresh_and_the_same_ack_grows_it() {
    let mut d = reno_at(20);
    d.enter_recovery();
    ack_and_send(&mut d, Ack::new(3, MS).lost(1));
    assert_eq!(d.cc.cwnd(), 18);
    d.exit_recovery();
    d.ack(Ack::new(10, MS));
    assert_eq!((d.cc.cwnd(), d.cc.window.cwnd_cnt), (11, 0));
    assert_eq!(d.cc.state_name(), "CONG_AVOID");
}

#[test]
fn rto_sets_cwnd_to_inflight_plus_one_and_ssthresh_only_on_a_new_episode() {
    let mut d = reno_at(20);
    d.rto(Duration::from_millis(200));
    assert_eq!((d.cc.cwnd(), d.cc.window.prior_cwnd), (1, 20));
    assert_eq!(d.cc.metrics().ssthresh_pkts, Some(10));
    assert_eq!(d.cc.state_name(), "LOSS");
    d.ack(Ack::new(1, MS));
    assert_eq!(d.cc.cwnd(), 2, "slow start in Loss");
    // A repeated timeout in the same episode keeps ssthresh (a new one would be 2).
    d.rto(Duration::from_millis(400));
    assert_eq!((d.cc.cwnd(), d.cc.metrics().ssthresh_pkts), (1, Some(10)));
    // Packets the transport still counts in flight are kept: 3 + 1.
    let conn = Conn {
        inflight: 3,
        ..d.conn.clone()
    };
    d.cc.on_rto(d.now, &conn, &Timeout::default());
    assert_eq!(d.cc.cwnd(), 4);
}

/// CWR at cwnd 20 → ssthresh 10; one PRR ACK → cwnd 19. Recovery entered
/// while the CWR still runs (snd_una ≤ high_seq) keeps that reduction (a new
/// one would set ⌊19/2⌋ = 9). Once snd_una has passed high_seq the CWR is
/// over: cwnd = 10, and the new reduction halves that to 5.
#[test]
fn recovery_takes_over_a_running_cwr_reduction_instead_of_reducing_twice() {
    let mut d = reno_at(20);
    d.conn.ca_state = CaState::Cwr;
    d.cc.on_recovery_start(d.now, &d.conn);
    ack_and_send(&mut d, Ack::new(2, MS));
    assert_eq!(d.cc.cwnd(), 19);
    d.conn.ca_state = CaState::Recovery;
    d.cc.on_recovery_start(d.now, &d.conn);
    assert_eq!(d.cc.metrics().ssthresh_pkts, Some(10));

    let mut d = reno_at(20);
    d.conn.ca_state = CaState::Cwr;
    d.cc.on_recovery_start(d.now, &d.conn);
    d.conn.ca_state = CaState::Recovery;
    d.conn.snd_una = 21 * MSS as u64;
    d.cc.on_recovery_start(d.now, &d.conn);
    assert_eq!(
        (d.cc.window.prior_cwnd, d.cc.metrics().ssthresh_pkts),
        (10, Some(5))
    );

    // The reduction Recovery took over is Recovery's from then on: a Recovery that
    // starts as it ends, even with snd_una still at the CWR's high_seq, reduces anew.
    let mut d = reno_at(20);
    d.conn.ca_state = CaState::Cwr;
    d.cc.on_recovery_start(d.now, &d.conn);
    d.conn.ca_state = CaState::Recovery;
    d.cc.on_recovery_start(d.now, &d.conn);
    d.conn.snd_una = 20 * MSS as u64;
    d.cc.on_recovery_start(d.now, &d.conn);
    assert_eq!(
        (d.cc.window.prior_cwnd, d.cc.metrics().ssthresh_pkts),
        (10, Some(5))
    );
}

mod validation {
    use crate::cc::WindowValidation;
    use crate::time::Duration;

    fn reno_with_cwnd(cwnd: u32) -> crate::cc::Reno {
        let mut r = crate::cc::Reno::new(Default::default(), crate::testing::init());
        r.window.cwnd = cwnd;
        r.window.ssthresh = 40; // after an earlier loss; infinite would stay infinite
        r
    }

    #[test]
    fn restart_after_idle_halves_cwnd_per_rto_down_to_the_initial_window() {
        let mut r = reno_with_cwnd(100);
        let rto = Duration::from_millis(300);
        // idle 1 s = 3 whole RTOs and a bit: 100 → 50 → 25 → 12; ssthresh = ¾·100
        r.window.validate(WindowValidation::RestartAfterIdle {
            idle: Duration::from_millis(1000),
            rto,
        });
        assert_eq!((r.window.cwnd, r.window.ssthresh), (12, 75));
        r.window.validate(WindowValidation::RestartAfterIdle {
            idle: Duration::from_secs(60),
            rto,
        });
        assert_eq!(r.window.cwnd, 10);
    }

    #[test]
    fn application_limited_decays_cwnd_halfway_to_what_was_used() {
        let mut r = reno_with_cwnd(100);
        r.window
            .validate(WindowValidation::ApplicationLimited { used: 20 });
        assert_eq!((r.window.cwnd, r.window.ssthresh), (60, 75));
        r.window
            .validate(WindowValidation::ApplicationLimited { used: 80 });
        assert_eq!(r.window.cwnd, 60, "a window used beyond cwnd is left alone");
        r.window
            .validate(WindowValidation::ApplicationLimited { used: 30 });
        assert_eq!((r.window.cwnd, r.window.ssthresh), (45, 75));
        // the transport's call reaches the window
        let mut r = reno_with_cwnd(100);
        crate::cc::CongestionControl::on_window_validation(
            &mut r,
            crate::time::Time::ZERO,
            &crate::cc::Conn::default(),
            WindowValidation::ApplicationLimited { used: 20 },
        );
        assert_eq!(r.window.cwnd, 60);
        // a window used in full is not application-limited: ssthresh is not raised either
        let mut r = reno_with_cwnd(100);
        r.window
            .validate(WindowValidation::ApplicationLimited { used: 100 });
        assert_eq!((r.window.cwnd, r.window.ssthresh), (100, 40));
    }
}
