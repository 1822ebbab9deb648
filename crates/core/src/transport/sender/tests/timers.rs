//! The timers: the retransmission timeout and its backoff, the tail-loss probe and RACK's
//! reorder timer.

use super::super::*;
use super::harness::{
    ack_through, cubic, cubic_run, feed_sack, mid_slow_start, sack, Heard, Spy, MSS, NOW,
};
use crate::net::packet::SackBlock;
use std::cell::RefCell;
use std::rc::Rc;

/// Five segments sent at 20 ms with the handshake (SRTT 20 ms, RTO 220 ms), none
/// acknowledged yet at 21 ms, nothing more written.
fn five_out() -> TcpSender {
    let at = Time::from_millis(21);
    let tx = cubic_run(5 * MSS as u64, at);
    assert_eq!(tx.sb.packets_out, 5);
    assert_eq!(tx.rtt.rto(), RTO);
    tx
}

const RTO: Duration = Duration::from_millis(220);
const FIRST_SEND: Time = Time::from_millis(20);

/// Replaces `tx`'s algorithm by a spy whose window leaves room for ten more packets; what
/// the spy hears.
fn spy_on(tx: &mut TcpSender) -> Rc<RefCell<Heard>> {
    let (spy, heard) = Spy::new(tx.sb.inflight() + 10, None);
    tx.cc = Some(Box::new(spy));
    heard
}

/// The (sequence, retransmission) of each packet.
fn seqs(packets: &[Packet]) -> Vec<(u64, bool)> {
    packets.iter().map(|p| (p.seq, p.is_retrans)).collect()
}

/// Fires the sender's timers at `at` (once its alarms are set); what it sent.
fn fire(tx: &mut TcpSender, at: Time) -> Vec<Packet> {
    tx.poll_timer().for_each(drop);
    let mut out = Outbox::default();
    tx.on_timer(at, &mut out);
    out.packets
}

/// `inet_csk_rto_backoff`: the RTO doubles per backoff, up to 120 s.
#[test]
fn the_rto_doubles_with_each_backoff_up_to_two_minutes() {
    let mut tx = five_out();
    for (backoff, rto) in [
        (0, RTO),
        (1, RTO + RTO),
        (3, Duration::from_millis(1760)),
        (20, RTO_MAX),
    ] {
        tx.backoff = backoff;
        assert_eq!(tx.rto_with_backoff(), rto, "backoff {backoff}");
    }
}

/// The RTO is armed from now while packets are out; with none out it, the probe and the
/// reorder timer are disarmed. Measured from the head (`tcp_rto_delta_us`), it is the head's
/// send time plus the RTO, or the next instant if that has passed.
#[test]
fn the_rto_is_armed_only_with_packets_out() {
    let mut tx = five_out();
    let (tlp, reo) = (Some(Time::from_secs(7)), Some(Time::from_secs(8)));
    let now = Time::from_millis(30);
    (tx.tlp_deadline, tx.reo_deadline) = (tlp, reo);
    tx.rearm_rto(now);
    assert_eq!(
        (tx.rto_deadline, tx.tlp_deadline, tx.reo_deadline),
        (Some(now + RTO), tlp, reo)
    );
    tx.rearm_rto_from_head(now);
    assert_eq!(tx.rto_deadline, Some(FIRST_SEND + RTO));
    let late = FIRST_SEND + RTO + Duration::from_millis(5);
    tx.rearm_rto_from_head(late);
    assert_eq!(tx.rto_deadline, Some(late + Duration::from_nanos(1)));
    // everything acknowledged
    let mut idle = cubic_run(5 * MSS as u64, Time::from_secs(2));
    assert_eq!(idle.sb.packets_out, 0);
    (idle.rto_deadline, idle.tlp_deadline, idle.reo_deadline) =
        (Some(Time::from_secs(9)), tlp, reo);
    idle.rearm_rto(Time::from_secs(2));
    assert_eq!(
        (idle.rto_deadline, idle.tlp_deadline, idle.reo_deadline),
        (None, None, None)
    );
    idle.rto_deadline = Some(Time::from_secs(9));
    idle.rearm_rto_from_head(Time::from_secs(2));
    assert_eq!(idle.rto_deadline, None);
}

/// `tcp_schedule_loss_probe`: in Open with packets out, 2 × SRTT plus 2 ms, or plus the
/// 200 ms minimum RTO with a single packet out (a delayed ACK may hold it), but never later
/// than the RTO.
#[test]
fn the_probe_waits_two_srtts_and_slack_but_never_past_the_rto() {
    let now = Time::from_millis(21);
    let mut tx = five_out();
    tx.rto_deadline = None;
    tx.schedule_loss_probe(now);
    assert_eq!(tx.tlp_deadline, Some(now + Duration::from_millis(42)));
    let rto = now + Duration::from_millis(30);
    tx.rto_deadline = Some(rto);
    tx.schedule_loss_probe(now);
    assert_eq!(tx.tlp_deadline, Some(rto));
    tx.rto_deadline = None;
    tx.ca_state = CaState::Disorder;
    tx.schedule_loss_probe(now);
    assert_eq!(tx.tlp_deadline, None);
    let mut one = cubic_run(MSS as u64, now);
    assert_eq!(one.sb.packets_out, 1);
    one.rto_deadline = None;
    one.schedule_loss_probe(now);
    assert_eq!(one.tlp_deadline, Some(now + Duration::from_millis(240)));
    let mut idle = cubic_run(MSS as u64, Time::from_secs(2));
    idle.tlp_deadline = Some(Time::from_secs(9));
    idle.schedule_loss_probe(Time::from_secs(2));
    assert_eq!(idle.tlp_deadline, None);
}

/// `tcp_send_loss_probe` at the probe time: new data if there is some the receive window
/// allows (beyond the congestion window), else the last segment again, unless it is SACKed
/// or already resent; nothing while an earlier probe's episode is open. After a probe the
/// RTO restarts from now ("Reset s.t. tcp_rearm_rto will restart timer from now"); without
/// one, from the head.
#[test]
fn the_probe_sends_new_data_else_resends_the_last_segment() {
    let probe_at = Time::from_millis(62);
    // what the probe sent, and the sender after it
    let probe = |unsent: u64, configure: &dyn Fn(&mut TcpSender)| {
        let mut tx = five_out();
        // the window full, so data written now waits
        tx.cc = Some(Box::new(Spy::new(5, None).0));
        tx.write_seq += unsent;
        tx.rto_deadline = Some(Time::from_secs(9));
        configure(&mut tx);
        assert_eq!(tx.tlp_deadline, Some(probe_at));
        let sent = seqs(&fire(&mut tx, probe_at));
        let from = if sent.is_empty() {
            FIRST_SEND
        } else {
            probe_at
        };
        assert_eq!(tx.rto_deadline, Some(from + RTO));
        (sent, tx)
    };
    let mss = MSS as u64;
    let keep: &dyn Fn(&mut TcpSender) = &|_| {};
    // nothing unsent: the last segment again, a retransmission episode
    let (sent, tx) = probe(0, keep);
    assert_eq!(sent, [(4 * mss, true)]);
    assert_eq!(
        (tx.tlp_high_seq, tx.tlp_was_retrans, tx.stats.loss_probes),
        (Some(5 * mss), true, 1)
    );
    // new data, allowed by the receive window to its last byte
    let fits: &dyn Fn(&mut TcpSender) = &|tx| tx.snd_wnd_end = tx.snd_nxt + MSS as u64;
    let (sent, tx) = probe(mss, fits);
    assert_eq!(sent, [(5 * mss, false)]);
    assert_eq!(
        (tx.tlp_high_seq, tx.tlp_was_retrans, tx.stats.loss_probes),
        (Some(6 * mss), false, 1)
    );
    // a short tail of new data that exactly fits
    let short: &dyn Fn(&mut TcpSender) = &|tx| tx.snd_wnd_end = tx.snd_nxt + 100;
    assert_eq!(probe(100, short).0, [(5 * mss, false)]);
    // new data the receive window holds back: the last segment again
    let closed: &dyn Fn(&mut TcpSender) = &|tx| tx.snd_wnd_end = tx.snd_nxt + MSS as u64 - 1;
    assert_eq!(probe(mss, closed).0, [(4 * mss, true)]);
    // the last segment SACKed or already resent, or an episode open: no probe
    let last_sacked: &dyn Fn(&mut TcpSender) = &|tx| {
        let last = tx.sb.last_index().unwrap();
        tx.sb.get_mut(last).unwrap().sacked = true;
    };
    let last_resent: &dyn Fn(&mut TcpSender) = &|tx| {
        let last = tx.sb.last_index().unwrap();
        tx.sb.get_mut(last).unwrap().retrans_in_flight = true;
    };
    let episode: &dyn Fn(&mut TcpSender) = &|tx| tx.tlp_high_seq = Some(tx.snd_una);
    for (what, configure) in [
        ("sacked", last_sacked),
        ("resent", last_resent),
        ("episode", episode),
    ] {
        let (sent, tx) = probe(0, configure);
        assert!(sent.is_empty(), "{what}");
        assert_eq!(tx.stats.loss_probes, 0, "{what}");
    }
    // nothing out
    let mut idle = cubic_run(mss, Time::from_secs(2));
    idle.tlp_deadline = Some(Time::from_secs(2));
    assert!(fire(&mut idle, Time::from_secs(2)).is_empty());
    assert_eq!((idle.stats.loss_probes, idle.tlp_high_seq), (0, None));
}

/// RACK's reorder timer (`tcp_rack_reo_timeout`): the packet it marks lost is resent and the
/// algorithm hears of the loss; the connection enters Recovery, and a window-based
/// algorithm takes one PRR step as if one packet had been delivered
/// (`tcp_cwnd_reduction(sk, 1, 0)`). Already in Recovery, no extra step.
#[test]
fn the_reorder_timer_marks_the_loss_and_a_window_algorithm_takes_one_prr_step() {
    let at = NOW + Duration::from_millis(3);
    for (cc, in_recovery) in [
        (cubic(), false),
        (cubic(), true),
        (CcConfig::Bbr(Default::default()), false),
    ] {
        let window_based = !cc.is_model_based();
        let mut tx = mid_slow_start(cc);
        let heard = spy_on(&mut tx);
        let h = tx.sb.indices().start;
        let (seq, sent) = (tx.sb.get(h).unwrap().seq, tx.sb.get(h).unwrap().sent_at);
        // 1, sent with 0, SACKed: 0 waits out a reorder window
        feed_sack(&mut tx, h + 1, h + 2, at);
        assert_eq!(tx.ca_state, CaState::Disorder);
        if in_recovery {
            (tx.ca_state, tx.high_seq) = (CaState::Recovery, tx.snd_nxt);
        }
        let deadline = tx.reo_deadline.unwrap();
        let (acks, inflight, lost) = (heard.borrow().acks.len(), tx.sb.inflight(), tx.rate.lost);
        let resent = fire(&mut tx, deadline);
        assert_eq!((resent[0].seq, resent[0].is_retrans), (seq, true));
        assert_eq!(tx.ca_state, CaState::Recovery);
        assert_eq!(tx.rate.lost, lost + 1);
        let heard = heard.borrow();
        assert_eq!(heard.losses, [sent]);
        let [(conn, _)] = &heard.lost_packets[..] else {
            panic!("{} packets told lost", heard.lost_packets.len())
        };
        assert_eq!(conn.lost, lost + 1);
        assert_eq!(heard.order[acks..acks + 2], ["lost", "losses"]);
        assert_eq!(heard.reductions.len(), usize::from(!in_recovery));
        let prr = RateSample {
            acked_sacked: 1,
            prior_in_flight: inflight - 1,
            ..RateSample::default()
        };
        let steps: Vec<RateSample> = heard.acks[acks..].iter().map(|(_, rs)| *rs).collect();
        let expected = if window_based && !in_recovery {
            vec![prr]
        } else {
            vec![]
        };
        assert_eq!(
            steps, expected,
            "window-based {window_based}, in Recovery {in_recovery}"
        );
    }
}

/// The reorder timer finding nothing lost changes nothing.
#[test]
fn a_reorder_timer_that_finds_nothing_lost_changes_nothing() {
    let mut tx = mid_slow_start(cubic());
    let heard = spy_on(&mut tx);
    let at = NOW + Duration::from_millis(1);
    tx.reo_deadline = Some(at);
    assert!(fire(&mut tx, at).is_empty());
    assert_eq!(tx.ca_state, CaState::Open);
    assert!(heard.borrow().acks.is_empty());
}

/// `tcp_retransmit_timer` → `tcp_enter_loss`, with `tcp_timeout_mark_lost`: the head and
/// every packet sent at least a RACK RTT ago are marked lost and the head resent; the state
/// is Loss up to `snd_nxt`, the probe and reorder timers stop, and the RTO backs off. The
/// algorithm is told whether this starts a new loss episode, and the marked span.
#[test]
fn a_timeout_marks_the_old_packets_lost_resends_the_head_and_backs_off() {
    let mut tx = mid_slow_start(cubic());
    let heard = spy_on(&mut tx);
    let at = NOW + Duration::from_millis(3);
    let rack_rtt = tx.rack.rtt();
    let sent = |tx: &TcpSender| -> Vec<Time> {
        tx.sb
            .indices()
            .map(|i| tx.sb.get(i).unwrap().sent_at)
            .collect()
    };
    let old: Vec<Time> = sent(&tx)
        .into_iter()
        .filter(|&t| at.saturating_since(t) >= rack_rtt)
        .collect();
    assert!(
        old.len() >= 2 && old.len() < tx.sb.packets_out as usize,
        "{} of {}",
        old.len(),
        tx.sb.packets_out
    );
    let (head, nxt, lost) = (tx.sb.head().unwrap().seq, tx.snd_nxt, tx.rate.lost);
    (tx.tlp_deadline, tx.tlp_high_seq, tx.reo_deadline) = (None, Some(head), Some(at + RTO));
    tx.rto_deadline = Some(at);
    let resent = fire(&mut tx, at);
    assert_eq!((resent[0].seq, resent[0].is_retrans), (head, true));
    assert_eq!(tx.rate.lost, lost + old.len() as u64);
    assert_eq!((tx.ca_state, tx.high_seq), (CaState::Loss, nxt));
    assert_eq!(
        (tx.tlp_high_seq, tx.tlp_deadline, tx.reo_deadline),
        (None, None, None)
    );
    assert_eq!((tx.stats.rto_events, tx.backoff), (1, 1));
    assert_eq!(tx.rto_deadline, Some(at + tx.rtt.rto() + tx.rtt.rto()));
    let timeout = Timeout {
        new_episode: true,
        newest_lost_sent: old.last().copied(),
        unbroken_loss_span: Some((old[0], *old.last().unwrap())),
        rtt_deviation4: tx.rtt.mean_deviation4(),
    };
    {
        let heard = heard.borrow();
        let [(conn, first)] = &heard.timeouts[..] else {
            panic!("{:?}", heard.timeouts)
        };
        assert_eq!((conn.ca_state, *first), (CaState::Loss, timeout));
        // each packet the timeout marked is told first (tcp_enter_loss marks before the
        // state changes), counted in turn
        let told: Vec<(u64, CaState)> = heard
            .lost_packets
            .iter()
            .map(|(c, _)| (c.lost, c.ca_state))
            .collect();
        let want: Vec<(u64, CaState)> = (1..=old.len() as u64)
            .map(|k| (lost + k, CaState::Open))
            .collect();
        assert_eq!(told, want);
        assert_eq!(heard.order.last(), Some(&"rto"));
        assert!(heard.order[..old.len()].iter().all(|&h| h == "lost"));
    }
    // the RTO again within the episode: not a new one; packets already lost are not counted
    let again = at + Duration::from_millis(1);
    tx.rto_deadline = Some(again);
    fire(&mut tx, again);
    assert_eq!((tx.stats.rto_events, tx.backoff), (2, 2));
    let heard = heard.borrow();
    assert!(!heard.timeouts[1].1.new_episode);
}

/// Whether a timeout starts a new loss episode (`tcp_enter_loss`: a new ssthresh): from
/// Open or Disorder, once `snd_una` has reached the last episode's `high_seq`, or in Loss
/// after an ACK reset the backoff; with no packets out, a timeout does nothing. A SACKed
/// packet between the marked ones breaks their span.
#[test]
fn a_timeout_is_a_new_episode_unless_one_is_under_way() {
    let at = NOW + Duration::from_millis(3);
    let episode = |configure: &dyn Fn(&mut TcpSender)| {
        let mut tx = mid_slow_start(cubic());
        let heard = spy_on(&mut tx);
        configure(&mut tx);
        (tx.tlp_deadline, tx.reo_deadline, tx.rto_deadline) = (None, None, Some(at));
        fire(&mut tx, at);
        let t = heard.borrow().timeouts.first().map(|(_, t)| *t);
        t
    };
    let state = |ca: CaState, una_at_high: bool, backoff: u32| {
        move |tx: &mut TcpSender| {
            tx.ca_state = ca;
            tx.high_seq = if una_at_high { tx.snd_una } else { tx.snd_nxt };
            tx.backoff = backoff;
        }
    };
    use CaState::*;
    let new = |ca, una_at_high, backoff| {
        episode(&state(ca, una_at_high, backoff))
            .unwrap()
            .new_episode
    };
    assert!(new(Disorder, false, 1));
    assert!(!new(Recovery, false, 0));
    assert!(new(Recovery, true, 1));
    assert!(!new(Loss, false, 1));
    assert!(new(Loss, false, 0));
    // a packet SACKed between the marked ones
    let sack_second: &dyn Fn(&mut TcpSender) = &|tx| {
        let h = tx.sb.indices().start;
        tx.sb.sack(
            SackBlock {
                start: tx.sb.get(h + 1).unwrap().seq,
                end: tx.sb.get(h + 1).unwrap().end(),
            },
            |_| {},
        );
    };
    let broken = episode(sack_second).unwrap();
    assert!(broken.newest_lost_sent.is_some());
    assert_eq!(broken.unbroken_loss_span, None);
    // a packet already marked lost between them does not break it
    let lost_second: &dyn Fn(&mut TcpSender) = &|tx| {
        let h = tx.sb.indices().start;
        tx.sb.mark_lost(h + 1);
    };
    assert!(episode(lost_second).unwrap().unbroken_loss_span.is_some());
    // one packet marked (all others SACKed) is no span
    let sack_rest: &dyn Fn(&mut TcpSender) = &|tx| {
        let h = tx.sb.indices().start;
        let block = SackBlock {
            start: tx.sb.get(h + 1).unwrap().seq,
            end: tx.snd_nxt,
        };
        tx.sb.sack(block, |_| {});
    };
    let one = episode(sack_rest).unwrap();
    assert!(one.newest_lost_sent.is_some());
    assert_eq!(one.unbroken_loss_span, None);
    // nothing out
    let mut idle = cubic_run(MSS as u64, Time::from_secs(2));
    idle.rto_deadline = Some(Time::from_secs(2));
    fire(&mut idle, Time::from_secs(2));
    assert_eq!(idle.stats.rto_events, 0);
}

/// `tcp_retransmit_timer` resends the head whatever it holds: one segment out (SRTT 20 ms,
/// RTO 220 ms), its probe at 262 ms (2·SRTT + 200 ms with one packet out, from 22 ms) resends
/// it, and the RTO 220 ms after the probe resends it again, with one backoff.
#[test]
fn the_rto_resends_a_head_that_only_a_probe_resent() {
    let mut tx = cubic_run(MSS as u64, Time::from_millis(21));
    assert_eq!(tx.sb.packets_out, 1);
    let probe_at = tx.tlp_deadline.expect("a probe is armed");
    assert_eq!(seqs(&fire(&mut tx, probe_at)), [(0, true)]);
    assert_eq!(tx.rto_deadline, Some(probe_at + RTO));
    assert_eq!(seqs(&fire(&mut tx, probe_at + RTO)), [(0, true)]);
    assert_eq!((tx.stats.rto_events, tx.backoff), (1, 1));
    assert_eq!(tx.sb.lost_out, 1, "one loss, not two");
}

/// `tcp_reset` purges the write queue: after a reset nothing is resent, no timer runs, ACKs
/// are ignored, and the sender counts as drained.
#[test]
fn a_reset_sender_sends_nothing_more() {
    let mut tx = five_out();
    tx.write_seq += 10 * MSS as u64;
    tx.reset();
    assert!(tx.is_drained());
    assert_eq!(tx.poll_timer().count(), 0);
    assert!(fire(&mut tx, FIRST_SEND + RTO).is_empty(), "no timeout");
    let mut out = Outbox::default();
    let ack = ack_through(&tx, 2, Time::from_millis(40));
    tx.on_packet(ack.sent_at, &ack, &mut out);
    assert!(
        out.packets.is_empty() && out.samples.is_empty(),
        "an ACK after the reset is ignored"
    );
    assert_eq!(tx.snd_una, 0);
}

/// `tcp_fastretrans_alert` in Loss: "Change state if cwnd is undone or retransmits are
/// lost". A retransmission the timeout sent, marked lost again by RACK when a later one is
/// SACKed, moves TCP from Loss to Recovery with a new reduction (`tcp_enter_recovery`; Loss
/// is not a cwnd reduction). The nginx-quic stack has no such states and stays in Loss.
#[test]
fn a_retransmission_lost_again_moves_tcp_from_loss_to_recovery() {
    let mut tx = mid_slow_start(cubic());
    let heard = spy_on(&mut tx);
    let at = NOW + Duration::from_millis(3);
    tx.rto_deadline = Some(at);
    let resent = fire(&mut tx, at);
    let h = tx.sb.indices().start;
    let seq: Vec<u64> = (h..h + 2).map(|i| tx.sb.get(i).unwrap().seq).collect();
    assert_eq!(seqs(&resent[..2]), [(seq[0], true), (seq[1], true)]);
    assert_eq!(tx.ca_state, CaState::Loss);
    // the second retransmission arrives; the head's, sent with it, is lost again
    let arrives = at + Duration::from_millis(25);
    let ack = sack(&tx, h + 1, h + 2, arrives);
    let (mut out, nxt) = (Outbox::default(), tx.snd_nxt);
    let reductions = heard.borrow().reductions.len();
    tx.on_packet(arrives, &ack, &mut out);
    assert!(
        out.packets.iter().any(|p| p.seq == seq[0] && p.is_retrans),
        "the head is resent again"
    );
    assert_eq!((tx.ca_state, tx.high_seq), (CaState::Recovery, nxt));
    {
        let heard = heard.borrow();
        assert_eq!(heard.reductions.len(), reductions + 1);
        assert_eq!(heard.reductions.last().unwrap().ca_state, CaState::Recovery);
    }
    // the same news on the nginx-quic stack
    let mut quic = mid_slow_start(cubic());
    quic.cfg.send_queue = SendQueueKind::NginxQuic;
    quic.rto_deadline = Some(at);
    fire(&mut quic, at);
    assert!(quic.sb.lost_out > 0);
    quic.update_ca_state(arrives, false, true);
    assert_eq!(quic.ca_state, CaState::Loss, "nginx-quic");
}
