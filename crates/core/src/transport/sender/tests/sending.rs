//! When the sender's data packets leave the host: pacing, TSO, deferral, the RTO and the
//! window's validation.

use super::super::*;
use super::harness::{
    cubic, cubic_run, idle_after_five, lossless, run, run_path, sender, Spy, MSS, ONE_WAY,
};

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
        for cc in [cubic(), CcConfig::Bbr(Default::default())] {
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
        let mut tx = cubic_run(UNLIMITED, now);
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
    let mut tx = cubic_run(UNLIMITED, now);
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
    // not limited, within the window: only a new maximum of packets out restarts it
    tx.cwnd_usage_seq = tx.snd_nxt + 1;
    tx.validate_cwnd(now, false);
    assert_eq!(tx.cwnd_usage_seq, tx.snd_nxt + 1, "the same maximum");
    tx.max_packets_out -= 1;
    tx.validate_cwnd(now, false);
    assert_eq!(tx.cwnd_usage_seq, tx.snd_nxt);
    assert_eq!(tx.max_packets_out, tx.sb.packets_out);
}

/// `tcp_is_cwnd_limited`: flagged by the last window's sends, or in slow start with the
/// window under twice the most packets out (room to grow on).
#[test]
fn in_slow_start_a_window_under_twice_the_packets_out_counts_as_limited() {
    let mut tx = sender(cubic(), false);
    let limited = |tx: &mut TcpSender, ssthresh, flagged, max_out| {
        tx.cc = Some(Box::new(Spy::new(10, ssthresh).0));
        tx.is_cwnd_limited = flagged;
        tx.max_packets_out = max_out;
        tx.tcp_is_cwnd_limited()
    };
    assert!(!limited(&mut tx, None, false, 5));
    assert!(limited(&mut tx, None, false, 6));
    assert!(!limited(&mut tx, Some(5), false, 6), "not in slow start");
    assert!(limited(&mut tx, Some(5), true, 0));
    // the algorithm is lent both; BBRv2/v3 read the flag alone (`tp->is_cwnd_limited`)
    assert!(limited(&mut tx, None, false, 6));
    let conn = conn_view(&tx, Time::ZERO, false);
    assert!(conn.is_cwnd_limited && !conn.cwnd_fully_used);
}

/// RFC 2861 (`tcp_cwnd_application_limited`): a window-based algorithm not limited by its
/// window for an RTO in Open state is told how much of it was used (at least the initial
/// window), and the stamp restarts; outside Open only the stamp restarts.
#[test]
fn a_window_unused_for_an_rto_is_reported_to_a_window_based_algorithm_in_open() {
    let at = Time::from_secs(3);
    let report = |cc: CcConfig, configure: &dyn Fn(&mut TcpSender), since: Duration| {
        let mut tx = idle_after_five(cc);
        // not in slow start, so not limited
        let (spy, heard) = Spy::new(10, Some(5));
        tx.cc = Some(Box::new(spy));
        tx.is_cwnd_limited = false;
        tx.cwnd_used = 12;
        tx.cwnd_stamp = at - since;
        configure(&mut tx);
        tx.validate_cwnd(at, false);
        let v = heard.borrow().validations.clone();
        (v, tx.cwnd_stamp == at)
    };
    let rto = Duration::from_millis(220);
    let keep: &dyn Fn(&mut TcpSender) = &|tx| assert_eq!(tx.rtt.rto(), rto);
    let used = vec![WindowValidation::ApplicationLimited { used: 12 }];
    assert_eq!(report(cubic(), keep, rto), (used, true));
    let nano = Duration::from_nanos(1);
    assert_eq!(report(cubic(), keep, rto - nano), (vec![], false));
    let recovery: &dyn Fn(&mut TcpSender) = &|tx| tx.ca_state = CaState::Recovery;
    assert_eq!(report(cubic(), recovery, rto), (vec![], true));
    let off: &dyn Fn(&mut TcpSender) = &|tx| tx.cfg.slow_start_after_idle = false;
    assert_eq!(report(cubic(), off, rto), (vec![], false));
    assert_eq!(
        report(CcConfig::Bbr(Default::default()), keep, rto),
        (vec![], false)
    );
}

/// A cubic sender paced by nginx-quic's budget, five segments out at 30 ms (sent at 20 ms,
/// the handshake's 20 ms RTT its only sample).
fn nginx_paced_five_out() -> TcpSender {
    let mut tx = sender(cubic(), false);
    tx.pacer = Pacer::new(PacerKind::NginxQuic, MSS);
    let tx = run_path(tx, 5 * MSS as u64, Time::from_millis(30), lossless, None).tx;
    assert_eq!(tx.sb.packets_out, 5);
    tx
}

/// nginx-quic paces a window-based algorithm at its window per `avg_rtt`, doubled in slow
/// start and × 1.2 after (`ngx_pacing_rate_calc`).
#[test]
fn the_budget_pacer_paces_a_window_algorithm_at_its_window_per_avg_rtt() {
    let mut tx = nginx_paced_five_out();
    // avg_rtt 20 ms from the handshake; 12 × 1448 B / 20 ms = 868 800 B/s
    let mut rate = |ssthresh| {
        tx.cc = Some(Box::new(Spy::new(12, ssthresh).0));
        tx.pacing_rate().map(Rate::bps)
    };
    assert_eq!(rate(None), Some(2 * 868_800 * 8));
    assert_eq!(rate(Some(12)), Some(1_042_560 * 8));
}

/// Five segments sent at 20 ms with the handshake, none acknowledged yet at 35 ms; `bytes`
/// more written then (sending what the window and the pacer allow), with `configure` applied
/// to the sender first.
fn five_out_then_write(bytes: u64, configure: impl FnOnce(&mut TcpSender)) -> (TcpSender, usize) {
    let now = Time::from_millis(35);
    let mut tx = cubic_run(5 * MSS as u64, now);
    assert_eq!(tx.sb.packets_out, 5);
    configure(&mut tx);
    let mut out = Outbox::default();
    tx.write(now, bytes, false, &mut out);
    (tx, out.packets.len())
}

/// `tcp_write_xmit` runs only with unsent data (`tcp_push_pending_frames`), and validates the
/// window (`tcp_cwnd_validate`) only when it sent new data or found the window full.
#[test]
fn the_window_is_validated_only_when_unsent_data_left_or_the_window_was_full() {
    // a stale validation state: an earlier window, long passed
    let stale = |tx: &mut TcpSender| {
        tx.is_cwnd_limited = false;
        tx.cwnd_usage_seq = 0;
    };
    // new data leaves: validated, a new window from snd_nxt
    let (tx, sent) = five_out_then_write(MSS as u64, stale);
    assert_eq!(sent, 1);
    assert_eq!(tx.cwnd_usage_seq, tx.snd_nxt);
    assert!(!tx.is_cwnd_limited, "six out of ten");
    // unsent data the receive window holds back, the window not full: not validated
    let (tx, sent) = five_out_then_write(MSS as u64, |tx| {
        stale(tx);
        tx.snd_wnd_end = tx.snd_nxt;
    });
    assert_eq!((sent, tx.cwnd_usage_seq), (0, 0));
    // the window full and nothing unsent: not validated either
    let now = Time::from_millis(30);
    let mut tx = cubic_run(10 * MSS as u64, now);
    assert!(tx.window_full());
    stale(&mut tx);
    let mut out = Outbox::default();
    tx.try_send(now, &mut out);
    assert!(out.packets.is_empty());
    assert_eq!((tx.is_cwnd_limited, tx.cwnd_usage_seq), (false, 0));
    // nor is an earlier limited window's flag cleared
    tx.is_cwnd_limited = true;
    tx.try_send(now, &mut out);
    assert!(tx.is_cwnd_limited);
}

/// The receive window lets out a segment that exactly fits it, and no more.
#[test]
fn a_segment_that_exactly_fits_the_receive_window_leaves() {
    let (tx, sent) = five_out_then_write(2 * MSS as u64, |tx| {
        tx.snd_wnd_end = tx.snd_nxt + MSS as u64;
    });
    assert_eq!(sent, 1);
    assert_eq!(tx.snd_nxt, tx.snd_wnd_end);
}

/// The first data send arms the retransmission timer and schedules the tail-loss probe
/// (`tcp_schedule_loss_probe`: 2 × SRTT + 2 ms with more than one packet out); an attempt
/// that sends nothing leaves the probe where it was.
#[test]
fn the_first_send_arms_the_rto_and_the_probe_and_an_idle_attempt_moves_neither() {
    // the handshake ends at 20 ms with SRTT 20 ms; five segments leave at once
    let mut tx = cubic_run(5 * MSS as u64, Time::from_millis(21));
    let first = Time::from_millis(20);
    assert_eq!(tx.sb.packets_out, 5);
    let rto = first + tx.rto_with_backoff();
    let probe = first + Duration::from_millis(42);
    assert_eq!((tx.rto_deadline, tx.tlp_deadline), (Some(rto), Some(probe)));
    tx.try_send(Time::from_millis(25), &mut Outbox::default());
    assert_eq!((tx.rto_deadline, tx.tlp_deadline), (Some(rto), Some(probe)));
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

/// A TSO sender with 80 packets out, sent together at 80 ms (SRTT 20 ms), and a window
/// `room` segments larger, at its last departure time, 10 ms (half an SRTT) into the oldest
/// packet's life; `configure` may change the state and the time.
fn deferring(room: u32, configure: impl FnOnce(&mut TcpSender, &mut Time)) -> (TcpSender, Time) {
    let (_, mut tx) = run(cubic(), true, UNLIMITED, Time::from_millis(95));
    let inflight = tx.sb.inflight();
    assert_eq!(
        (inflight, tx.rtt.srtt()),
        (80, Some(Duration::from_millis(20)))
    );
    tx.cc = Some(Box::new(Spy::new(inflight + room, None).0));
    let mut now = tx.pacer.wstamp();
    let head = tx.sb.indices().start;
    tx.sb.get_mut(head).unwrap().sent_at = now - Duration::from_millis(10);
    configure(&mut tx, &mut now);
    (tx, now)
}

/// How `tcp_tso_should_defer` answers [`deferring`]'s sender for an skb of `segs` segments.
fn defer(room: u32, segs: u64, configure: impl FnOnce(&mut TcpSender, &mut Time)) -> Option<bool> {
    let (tx, now) = deferring(room, configure);
    tx.should_defer(now, segs)
}

/// Each of `tcp_tso_should_defer`'s reasons to send now, at its boundary, and what it
/// reports as cwnd-limited when it waits.
#[test]
fn a_partial_skb_waits_for_the_next_ack_only_while_every_rule_allows() {
    let mss = MSS as u64;
    let keep = |_: &mut TcpSender, _: &mut Time| {};
    // two segments of room for an skb of eight, more data behind: wait, cwnd-limited
    assert_eq!(defer(2, 8, keep), Some(true));
    // the oldest packet out left less than half an SRTT ago: its ACK comes soon
    let younger = |tx: &mut TcpSender, _: &mut Time| {
        let head = tx.sb.indices().start;
        tx.sb.get_mut(head).unwrap().sent_at += Duration::from_nanos(1);
    };
    assert_eq!(defer(2, 8, younger), None);
    // the receive window as small as the room: waiting, but not for the window
    let rwnd = |segs: u64| {
        move |tx: &mut TcpSender, _: &mut Time| {
            tx.snd_wnd_end = tx.snd_nxt + segs * mss;
        }
    };
    assert_eq!(defer(2, 8, rwnd(2)), Some(false));
    // the skb would carry one segment (Nagle's test, which TCP_NODELAY passes), or a little
    // more; the last data before the FIN never waits
    let unsent = |n: u64, finished: bool| {
        move |tx: &mut TcpSender, _: &mut Time| {
            tx.write_seq = tx.snd_nxt + n;
            tx.finished = finished;
        }
    };
    assert_eq!(defer(2, 8, unsent(mss, false)), None);
    assert_eq!(defer(2, 8, unsent(mss + 1, false)), Some(false));
    assert_eq!(defer(2, 8, unsent(mss + 1, true)), None);
    // the tail fits the room: it still waits for more data
    assert_eq!(defer(2, 8, unsent(2 * mss, false)), Some(true));
    // in Recovery, never
    let state = |ca: CaState| move |tx: &mut TcpSender, _: &mut Time| tx.ca_state = ca;
    assert_eq!(defer(2, 8, state(CaState::Disorder)), Some(true));
    assert_eq!(defer(2, 8, state(CaState::Recovery)), None);
    // the last departure time more than 1 ms past: never
    let later = |by: Duration| move |_: &mut TcpSender, now: &mut Time| *now += by;
    let ms = Duration::from_millis(1);
    assert_eq!(defer(2, 8, later(ms)), Some(true));
    assert_eq!(defer(2, 8, later(ms + Duration::from_nanos(1))), None);
    // a full skb fits the room
    assert_eq!(defer(7, 8, keep), Some(true));
    assert_eq!(defer(8, 8, keep), None);
    assert_eq!(defer(8, 8, unsent(8 * mss, false)), None, "as the tail");
    // a third of the window fits (`tcp_tso_win_divisor`): 40 × 1448 ≥ 120 × 1448 / 3
    assert_eq!(defer(39, 64, keep), Some(true));
    assert_eq!(defer(40, 64, keep), None);
    // or of the receive window, where that is the smaller: 40 × 1448 ≥ (80 + 40) × 1448 / 3
    assert_eq!(defer(60, 64, rwnd(39)), Some(false));
    assert_eq!(defer(60, 64, rwnd(40)), None);
}

/// A send that defers because the window is what is short counts as cwnd-limited
/// (`tcp_write_xmit`'s `is_cwnd_limited` from `tcp_tso_should_defer`), though the window is
/// not full.
#[test]
fn a_send_deferred_for_the_window_counts_as_cwnd_limited() {
    let (mut tx, now) = deferring(2, |tx, _| tx.is_cwnd_limited = false);
    let mut out = Outbox::default();
    tx.try_send(now, &mut out);
    assert!(out.packets.is_empty());
    assert!(!tx.window_full());
    assert!(tx.is_cwnd_limited);
}

/// Each packet records the packets in flight once it is out (`tx.in_flight`, which BBRv2
/// bounds `inflight_hi` with); a retransmission too.
#[test]
fn each_packet_records_the_packets_in_flight_with_it() {
    let now = Time::from_millis(21);
    let mut tx = cubic_run(10 * MSS as u64, now);
    let h = tx.sb.indices().start;
    let in_flight = |tx: &TcpSender, i: u64| tx.sb.get(h + i).unwrap().snap.tx_in_flight;
    assert_eq!(
        (0..10).map(|i| in_flight(&tx, i)).collect::<Vec<_>>(),
        (1..=10).collect::<Vec<_>>()
    );
    tx.sb.mark_lost(h + 3);
    tx.retransmit(now, h + 3, false, &mut Outbox::default());
    assert_eq!(in_flight(&tx, 3), 10);
}

/// The nginx-quic pacer's budget refills to ten packets when the sender finds nothing to send
/// with the window open (`ngx_quic_pacing` app-limited), and not while data waits on the
/// pacer or the window is full.
#[test]
fn the_budget_pacer_refills_only_when_the_sender_is_application_limited() {
    // five segments out at 30 ms, the pacer's budget spent within this millisecond
    let drained = |unsent: u64, cwnd: Option<u32>| {
        let now = Time::from_millis(30);
        let mut tx = nginx_paced_five_out();
        if let Some(cwnd) = cwnd {
            tx.cc = Some(Box::new(Spy::new(cwnd, None).0));
        }
        let rate = tx.pacing_rate();
        assert!(rate.is_some());
        tx.pacer.on_output(now, rate);
        while tx.pacer.allows(now, rate) {
            tx.pacer.on_send(now, MSS, rate, false);
        }
        tx.write_seq += unsent;
        let mut out = Outbox::default();
        tx.try_send(now, &mut out);
        (tx.pacer.allows(now, rate), out.packets.len())
    };
    assert_eq!(drained(0, None), (true, 0), "nothing to send, window open");
    assert_eq!(
        drained(3 * MSS as u64, None),
        (false, 0),
        "data waits on the pacer"
    );
    assert_eq!(drained(0, Some(5)), (false, 0), "window full");
}
