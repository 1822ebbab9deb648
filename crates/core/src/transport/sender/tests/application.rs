//! The application's side: writing, the send buffer's room, finishing.

use super::super::*;
use super::harness::{
    ack_to, cubic, cubic_run, idle_after_five, lossless, run, run_path, sender, Spy, MSS, ONE_WAY,
};

#[test]
fn a_finished_sender_is_drained_once_everything_written_is_acknowledged() {
    assert!(
        !sender(cubic(), false).is_drained(),
        "nothing written, not finished"
    );
    // the SYN-ACK is back at 20 ms; the 100 kB take a few more round trips
    let (_, early) = run(cubic(), false, 100_000, Time::from_millis(30));
    assert!(!early.is_drained());
    let (_, tx) = run(cubic(), false, 100_000, Time::from_secs(2));
    assert!(tx.is_drained());
    assert_eq!(tx.acked_bytes(), 100_000);
    let (_, bulk) = run(cubic(), false, UNLIMITED, Time::from_millis(100));
    assert!(!bulk.is_drained(), "not finished");
}

/// The send buffer is charged with what is written and not yet acknowledged.
#[test]
fn the_room_to_write_counts_only_unacknowledged_bytes() {
    let mut tx = cubic_run(100_000, Time::from_secs(2));
    let rate = tx.sk_pacing_bps();
    let empty = tx.sndbuf.clone().room(0, 0, rate);
    assert_eq!(tx.write_room(), empty);
    // written but unsent data counts until it is discarded, in skbs of its own size
    let mut fresh = sender(cubic(), false);
    fresh.write(Time::ZERO, 100_000, false, &mut Outbox::default());
    assert_eq!(
        fresh.written_bytes(),
        (0, 100_000),
        "before the handshake, all unsent"
    );
    assert_eq!(fresh.write_room(), 0);
    fresh.discard_unsent();
    assert!(fresh.write_room() > 0);
}

/// The restarts a write of one segment at `at` makes (its send may also revalidate the
/// window: `tcp_cwnd_validate`, tested apart).
fn restarts_on_write(mut tx: TcpSender, at: Time) -> Vec<WindowValidation> {
    let (spy, heard) = Spy::new(10, None);
    tx.cc = Some(Box::new(spy));
    tx.write(at, MSS as u64, false, &mut Outbox::default());
    let heard = heard.borrow();
    let restart = |v: &&WindowValidation| matches!(v, WindowValidation::RestartAfterIdle { .. });
    heard.validations.iter().filter(restart).copied().collect()
}

/// `tcp_cwnd_restart` (`net.ipv4.tcp_slow_start_after_idle`): a write after more than an
/// RTO with nothing in flight restarts a window-based algorithm's window; not after exactly
/// an RTO, not with packets out, not with the setting off, never for a model-based one.
#[test]
fn a_write_after_an_idle_rto_restarts_only_a_window_based_algorithm() {
    let tx = idle_after_five(cubic());
    let (last, rto) = (tx.last_send, tx.rtt.rto());
    let late = last + rto + Duration::from_nanos(1);
    let restart = WindowValidation::RestartAfterIdle {
        idle: late - last,
        rto,
    };
    assert_eq!(restarts_on_write(tx, late), [restart]);
    // the restart opens a new validation period (`snd_cwnd_stamp`, `snd_cwnd_used`): the
    // send that follows does not cut the window again as application-limited
    let mut tx = idle_after_five(cubic());
    let (spy, heard) = Spy::new(10, None);
    tx.cc = Some(Box::new(spy));
    tx.write(late, MSS as u64, false, &mut Outbox::default());
    assert_eq!(heard.borrow().validations, [restart]);
    let tx = idle_after_five(cubic());
    assert_eq!(restarts_on_write(tx, last + rto), []);
    let mut tx = idle_after_five(cubic());
    tx.sb.packets_out = 1;
    assert_eq!(restarts_on_write(tx, late), []);
    let mut tx = idle_after_five(cubic());
    tx.cfg.slow_start_after_idle = false;
    assert_eq!(restarts_on_write(tx, late), []);
    let tx = idle_after_five(CcConfig::Bbr(Default::default()));
    assert_eq!(restarts_on_write(tx, late), []);
}

/// `tcp_rate_check_app_limited` on a write: with less than a full segment unsent (and
/// the window open, nothing in the host, no loss waiting) the connection is marked
/// application-limited, and the algorithm sees it so.
#[test]
fn a_write_with_less_than_a_segment_unsent_marks_the_connection_app_limited() {
    let at = Time::from_secs(2);
    for (unsent, limited) in [(0, true), (MSS as u64 - 1, true), (MSS as u64, false)] {
        let mut tx = idle_after_five(cubic());
        tx.rate.app_limited = 0;
        tx.write_seq = tx.snd_nxt + unsent;
        tx.write(at, 0, false, &mut Outbox::default());
        assert_eq!(tx.rate.app_limited != 0, limited, "{unsent} bytes unsent");
        assert_eq!(conn_view(&tx, at, false).app_limited, limited);
    }
}

/// A writer that found the send buffer full is woken once acknowledgements have freed a
/// third of it (`sk_stream_write_space`); the charge is what is written and not yet
/// acknowledged, however much was acknowledged before.
#[test]
fn a_waiting_writer_is_woken_once_acknowledgements_free_the_buffer() {
    assert!(!sender(cubic(), false).writer_woken(), "not connected");
    let at = Time::from_secs(2);
    // 200 kB through a 10-packet window: the buffer stays at its 87 kB floor
    let (spy, _) = Spy::new(10, None);
    let mut tx = run_path(sender(cubic(), false), 200_000, at, lossless, Some(spy)).tx;
    assert_eq!(tx.acked_bytes(), 200_000);
    let size = tx.sndbuf.size();
    assert!(size < 100_000, "{size}");
    assert!(!tx.writer_woken(), "not waiting");
    tx.write(at, 2 * size, false, &mut Outbox::default());
    assert_eq!(tx.write_room(), 0);
    assert!(!tx.writer_woken(), "still full");
    tx.discard_unsent();
    let all = ack_to(tx.snd_nxt, at);
    tx.on_packet(at, &all, &mut Outbox::default());
    assert!(tx.writer_woken());
}

/// `CA_EVENT_TX_START`: the algorithm hears when sending resumes with nothing in flight,
/// once for the flight.
#[test]
fn sending_from_nothing_in_flight_tells_the_algorithm_once() {
    let mut tx = idle_after_five(cubic());
    let (spy, heard) = Spy::new(10, None);
    tx.cc = Some(Box::new(spy));
    let at = Time::from_secs(3);
    tx.write(at, 3 * MSS as u64, false, &mut Outbox::default());
    assert!(tx.sb.packets_out > 0);
    tx.write(at + ONE_WAY, 3 * MSS as u64, false, &mut Outbox::default());
    assert!(tx.sb.packets_out > 3, "{} out", tx.sb.packets_out);
    assert_eq!(heard.borrow().tx_starts, 1);
}
