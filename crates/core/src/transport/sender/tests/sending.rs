//! When the sender's data packets leave the host: pacing, TSO, deferral, the RTO and the
//! window's validation.

use super::super::*;
use super::harness::{run, Spy, ONE_WAY};

/// A BBR sender's sends before `until`: per event that sent data, the number of data
/// packets it sent at that instant and the algorithm's TSO goal then.
fn sends(tso: bool, until: Time) -> Vec<(usize, u32)> {
    run(CcConfig::Bbr(Default::default()), tso, UNLIMITED, until).0
}

#[test]
fn without_tso_each_paced_packet_leaves_on_its_own() {
    let sent = sends(false, Time::from_millis(200));
    // the initial window leaves unpaced, at once; then one packet per departure time
    assert_eq!(sent[0].0, 10);
    assert!(sent.len() > 100, "{} sends", sent.len());
    assert!(sent[1..].iter().all(|&(n, _)| n == 1));
}

#[test]
fn with_tso_the_pacer_spaces_skbs_of_the_algorithms_goal() {
    let until = Time::from_millis(200);
    let sent = sends(true, until);
    assert_eq!(sent[0].0, 10);
    // at most one skb per departure time, never larger than the goal (≈ 1 ms at the pacing
    // rate); a partial skb waits for the next ACK (`tcp_tso_should_defer`)
    assert!(sent[1..].iter().all(|&(n, goal)| n <= goal as usize));
    let full = sent[1..]
        .iter()
        .filter(|&&(n, goal)| n == goal as usize)
        .count();
    assert!(
        full * 10 >= sent.len() * 9,
        "{full} of {} skbs full",
        sent.len()
    );
    // STARTUP's doubling rate has taken the goal past the 2-segment floor
    let largest = sent.iter().map(|&(n, _)| n).skip(1).max().unwrap();
    assert!(largest >= 4, "largest skb {largest}");
    // about as many packets leave in all: a window-limited STARTUP sends as much either way
    let total = |s: &[(usize, u32)]| s.iter().map(|&(n, _)| n).sum::<usize>() as f64;
    let ratio = total(&sent) / total(&sends(false, until));
    assert!((ratio - 1.0).abs() < 0.05, "{ratio}");
}

#[test]
fn with_tso_a_window_limited_sender_defers_small_sends_into_larger_ones() {
    let until = Time::from_millis(400);
    let cubic = || CcConfig::Cubic(Default::default());
    let mean =
        |s: &[(usize, u32)]| s.iter().map(|&(n, _)| n).sum::<usize>() as f64 / s.len() as f64;
    let (plain, _) = run(cubic(), false, UNLIMITED, until);
    let (tso, _) = run(cubic(), true, UNLIMITED, until);
    // each (delayed) ACK releases 4 packets in slow start without TSO; with it the sender
    // defers such small sends
    assert!(mean(&plain) < 4.5, "{}", mean(&plain));
    assert!(
        mean(&tso) > 2.0 * mean(&plain),
        "{} vs {}",
        mean(&tso),
        mean(&plain)
    );
}

#[test]
fn deferring_never_strands_data_everything_written_is_acknowledged() {
    for bytes in [1, 1448, 5000, 100_000, 1_000_003] {
        for cc in [
            CcConfig::Cubic(Default::default()),
            CcConfig::Bbr(Default::default()),
        ] {
            let (_, tx) = run(cc, true, bytes, Time::from_secs(5));
            assert_eq!(tx.acked_bytes(), bytes);
        }
    }
}

#[test]
fn resending_the_head_restarts_the_rto_unless_the_reorder_timer_holds_it() {
    // mid slow start on the harness's 20 ms path, the window full
    let now = Time::from_millis(95);
    for reorder_pending in [false, true] {
        let (_, mut tx) = run(CcConfig::Cubic(Default::default()), false, UNLIMITED, now);
        let armed = tx.rto_deadline.unwrap();
        assert!(armed < now + tx.rto_with_backoff());
        tx.reo_deadline = reorder_pending.then_some(now + ONE_WAY);
        // the head is lost; the window has room for its retransmission
        let head = tx.sb.indices().start;
        tx.sb.mark_lost(head);
        let mut out = Outbox::default();
        tx.try_send(now, &mut out);
        assert!(tx.sb.get(head).unwrap().retrans_in_flight);
        let restarted = now + tx.rto_with_backoff();
        let expected = if reorder_pending { armed } else { restarted };
        assert_eq!(
            tx.rto_deadline,
            Some(expected),
            "reorder timer pending: {reorder_pending}"
        );
    }
}

#[test]
fn a_cwnd_limited_send_restarts_the_usage_window_even_when_already_limited() {
    // mid slow start, the window full
    let now = Time::from_millis(95);
    let (_, mut tx) = run(CcConfig::Cubic(Default::default()), false, UNLIMITED, now);
    assert!(tx.is_cwnd_limited);
    // the limited window began long ago: a new limited send carries it to snd_nxt
    tx.cwnd_usage_seq = tx.snd_una;
    tx.validate_cwnd(now, true);
    assert_eq!(tx.cwnd_usage_seq, tx.snd_nxt);
    assert!(tx.is_cwnd_limited);
    // not limited: while limited, more packets out than the window's maximum change nothing
    tx.max_packets_out = 0;
    tx.validate_cwnd(now, false);
    assert!(tx.is_cwnd_limited);
    assert_eq!(tx.max_packets_out, 0);
    // a window passed without a limited send: the flag clears
    tx.cwnd_usage_seq = tx.snd_una;
    tx.validate_cwnd(now, false);
    assert!(!tx.is_cwnd_limited);
    assert_eq!(tx.max_packets_out, tx.sb.packets_out);
}

#[test]
fn a_send_attempt_with_nothing_unsent_leaves_the_windows_validation_alone() {
    // 5 segments, all sent (handshake 20 ms, data at 20 ms), none acknowledged at 30 ms
    let now = Time::from_millis(30);
    let (_, mut tx) = run(CcConfig::Cubic(Default::default()), false, 5 * 1448, now);
    assert_eq!(tx.sb.packets_out, 5);
    // validation state of an earlier, limited window whose end snd_una has passed
    tx.is_cwnd_limited = true;
    tx.cwnd_usage_seq = 0;
    let mut out = Outbox::default();
    tx.try_send(now, &mut out);
    assert!(out.packets.is_empty());
    // tcp_write_xmit does not run without a send head, so nothing revalidates the window
    assert!(tx.is_cwnd_limited);
}

/// `tcp_in_slow_start`: below ssthresh, or with none yet.
#[test]
fn slow_start_lasts_while_the_window_is_below_ssthresh() {
    let at = |ssthresh| in_slow_start(&Spy::new(10, ssthresh).0);
    assert!(at(None));
    assert!(at(Some(11)));
    assert!(!at(Some(10)));
    assert!(!at(Some(9)));
}
