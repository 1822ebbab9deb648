//! The sender against a receiver over a lossless path of fixed delay and unlimited rate:
//! when its data packets leave the host.

use super::*;
use crate::transport::receiver::{AckPolicy, ReceiverConfig, TcpReceiver};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const ONE_WAY: Duration = Duration::from_millis(10);
const MSS: u32 = 1448;

/// A BBR sender's sends before `until`: per event that sent data, the number of data
/// packets it sent at that instant and the algorithm's TSO goal then.
fn sends(tso: bool, until: Time) -> Vec<(usize, u32)> {
    run(CcConfig::Bbr(Default::default()), tso, UNLIMITED, until).0
}

/// The sender of `cc` writing `bytes` (then finishing) before `until`: its sends as
/// [`sends`] gives them (goal 0 for an algorithm without one), and the sender.
fn run(cc: CcConfig, tso: bool, bytes: u64, until: Time) -> (Vec<(usize, u32)>, TcpSender) {
    let mut tx = sender(cc, tso);
    let mut rx = TcpReceiver::new(
        0,
        ReceiverConfig {
            mss: MSS,
            rcvbuf: 1 << 30,
            idle_quickack_gap: Duration::from_millis(200),
            ack_policy: AckPolicy::Linux,
            path_rtt: ONE_WAY + ONE_WAY,
        },
    );
    let mut events = Events::default();
    let mut out = Outbox::default();
    let mut now = Time::ZERO;
    let mut acks = Vec::new();
    let mut sent = Vec::new();
    tx.connect(now, &mut out);
    tx.write(now, bytes, false, &mut out);
    if bytes != UNLIMITED {
        tx.finish();
    }
    loop {
        let data = out.packets.iter().filter(|p| p.kind == Kind::Data).count();
        if data > 0 {
            sent.push((data, tx.cc().and_then(|cc| cc.tso_segs()).unwrap_or(0)));
        }
        for p in out.packets.drain(..) {
            events.push(now + ONE_WAY, true, Some(p));
        }
        out.samples.clear();
        for p in acks.drain(..) {
            events.push(now + ONE_WAY, false, Some(p));
        }
        for t in tx.poll_timer().collect::<Vec<_>>() {
            events.push(t, false, None);
        }
        if let Some(t) = rx.poll_timer() {
            events.push(t, true, None);
        }
        let Some((t, event)) = events.pop() else {
            break;
        };
        if t >= until {
            break;
        }
        now = t;
        match event {
            (true, Some(p)) => {
                rx.on_packet(now, &p, &mut acks);
            }
            (true, None) => rx.on_timer(now, &mut acks),
            (false, Some(p)) => tx.on_packet(now, &p, &mut out),
            (false, None) => tx.on_timer(now, &mut out),
        }
    }
    (sent, tx)
}

/// A sender of `cc`, not yet connected.
fn sender(cc: CcConfig, tso: bool) -> TcpSender {
    let cfg = SenderConfig {
        mss: MSS,
        initial_cwnd: 10,
        slow_start_after_idle: true,
        pacer: PacerKind::Linux,
        tso,
        rate_sampler: SamplerKind::Linux,
    };
    TcpSender::new(0, cfg, cc, Rng::stream(1, 0), HostShared::default())
}

/// A plain cumulative ACK of everything below `seq`, sent at `at`, with an open window.
fn ack_to(seq: u64, at: Time) -> Packet {
    Packet::ack(0, seq, &[], 1 << 30, false, at)
}

/// Events in time order, each for the receiver or not, with a packet or a timer's `None`.
#[derive(Default)]
struct Events {
    queue: BinaryHeap<Reverse<(Time, usize)>>,
    what: Vec<(bool, Option<Packet>)>,
}

impl Events {
    fn push(&mut self, t: Time, to_rx: bool, p: Option<Packet>) {
        self.queue.push(Reverse((t, self.what.len())));
        self.what.push((to_rx, p));
    }

    fn pop(&mut self) -> Option<(Time, (bool, Option<Packet>))> {
        let Reverse((t, i)) = self.queue.pop()?;
        Some((t, std::mem::take(&mut self.what[i])))
    }
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

#[test]
fn a_probe_repairing_the_tail_shows_the_loss_only_on_an_ack_beyond_its_end() {
    let now = Time::from_millis(95);
    let ack = |seq, dsack| {
        let mut p = ack_to(seq, now);
        p.dsack = dsack;
        p
    };
    let (_, mut tx) = run(CcConfig::Cubic(Default::default()), false, UNLIMITED, now);
    let high = tx.snd_una + 10 * MSS as u64;
    let probe = |tx: &mut TcpSender| {
        tx.tlp_high_seq = Some(high);
        tx.tlp_was_retrans = true;
    };
    // below the probe's end: the episode goes on
    probe(&mut tx);
    assert!(!tx.check_tlp_ack(&ack(high - 1, false), true, false));
    assert_eq!(tx.tlp_high_seq, Some(high));
    // exactly its end, advancing: not yet known whether the original was lost
    assert!(!tx.check_tlp_ack(&ack(high, false), true, false));
    assert_eq!(tx.tlp_high_seq, Some(high));
    // beyond: the probe repaired a loss
    assert!(tx.check_tlp_ack(&ack(high + 1, false), true, false));
    assert_eq!(tx.tlp_high_seq, None);
    // exactly its end, a pure duplicate ACK or a DSACK: both copies arrived
    for (advanced, dsack) in [(false, false), (true, true)] {
        probe(&mut tx);
        assert!(!tx.check_tlp_ack(&ack(high, dsack), advanced, false));
        assert_eq!(tx.tlp_high_seq, None, "advanced {advanced}, dsack {dsack}");
    }
    // a probe of new data repaired nothing
    probe(&mut tx);
    tx.tlp_was_retrans = false;
    assert!(!tx.check_tlp_ack(&ack(high + 1, false), true, false));
    assert_eq!(tx.tlp_high_seq, None);
}

#[test]
fn a_finished_sender_is_drained_once_everything_written_is_acknowledged() {
    let cubic = || CcConfig::Cubic(Default::default());
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
    let (_, mut tx) = run(
        CcConfig::Cubic(Default::default()),
        false,
        100_000,
        Time::from_secs(2),
    );
    let rate = tx.sk_pacing_bps();
    let empty = tx.sndbuf.clone().room(0, rate);
    assert_eq!(tx.write_room(), empty);
    // written but unsent data counts until it is discarded
    let mut fresh = sender(CcConfig::Cubic(Default::default()), false);
    fresh.write(Time::ZERO, 100_000, false, &mut Outbox::default());
    assert_eq!(fresh.write_room(), 0);
    fresh.discard_unsent();
    assert!(fresh.write_room() > 0);
}

/// `tcp_ack_update_rtt` resets the RTO backoff; a duplicate ACK acknowledges nothing new.
#[test]
fn a_duplicate_ack_leaves_the_rto_backoff_and_an_advancing_one_resets_it() {
    let now = Time::from_millis(95);
    let (_, mut tx) = run(CcConfig::Cubic(Default::default()), false, UNLIMITED, now);
    tx.backoff = 2;
    let una = tx.snd_una;
    tx.on_packet(now, &ack_to(una, now), &mut Outbox::default());
    assert_eq!((tx.snd_una, tx.backoff), (una, 2));
    tx.on_packet(now, &ack_to(una + MSS as u64, now), &mut Outbox::default());
    assert_eq!((tx.snd_una, tx.backoff), (una + MSS as u64, 0));
}
