//! What an ACK does: the tail-loss probe's outcome, the RTO backoff, RTT samples, SACK
//! accounting and the congestion-avoidance state.

use super::super::*;
use super::harness::{
    ack_to, bottleneck, cubic, cubic_run, feed, feed_sack, feed_through, mid_slow_start, resend,
    run_path, sack, sender, Spy, MSS, NOW, ONE_WAY,
};

#[test]
fn a_probe_repairing_the_tail_shows_the_loss_only_on_an_ack_beyond_its_end() {
    let now = Time::from_millis(95);
    let ack = |seq, dsack| {
        let mut p = ack_to(seq, now);
        p.dsack = dsack;
        p
    };
    let mut tx = cubic_run(UNLIMITED, now);
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
    // in Recovery the window is already being reduced: no CWR on top
    probe(&mut tx);
    tx.ca_state = CaState::Recovery;
    assert!(!tx.check_tlp_ack(&ack(high + 1, false), true, false));
    assert_eq!(tx.tlp_high_seq, None);
}

/// `tcp_ack_update_rtt` resets the RTO backoff; a duplicate ACK acknowledges nothing new.
#[test]
fn a_duplicate_ack_leaves_the_rto_backoff_and_an_advancing_one_resets_it() {
    let now = Time::from_millis(95);
    let mut tx = cubic_run(UNLIMITED, now);
    tx.backoff = 2;
    let una = tx.snd_una;
    tx.on_packet(now, &ack_to(una, now), &mut Outbox::default());
    assert_eq!((tx.snd_una, tx.backoff), (una, 2));
    tx.on_packet(now, &ack_to(una + MSS as u64, now), &mut Outbox::default());
    assert_eq!((tx.snd_una, tx.backoff), (una + MSS as u64, 0));
}

/// Two segments of the first window lost on a 1 ms-per-packet bottleneck: the sender goes
/// Open → Disorder (SACKs, nothing lost yet) → Recovery (RACK marks both) and stays there
/// through the partial ACK the first retransmission brings, back to Open only when
/// snd_una reaches the `high_seq` it entered with (`tcp_fastretrans_alert`). One recovery
/// episode, two retransmissions, no probe, no timeout.
#[test]
fn a_loss_takes_the_sender_through_disorder_and_one_recovery_back_to_open() {
    let lost = [5 * MSS as u64, 8 * MSS as u64];
    let (spy, heard) = Spy::new(10, None);
    let r = run_path(
        sender(cubic(), false),
        30 * MSS as u64,
        Time::from_secs(2),
        bottleneck(Duration::from_millis(1), |p| {
            p.kind == Kind::Data && !p.is_retrans && lost.contains(&p.seq)
        }),
        Some(spy),
    );
    assert_eq!(r.tx.acked_bytes(), 30 * MSS as u64);
    let stats = SenderStats {
        segments_sent: 32,
        segments_retransmitted: 2,
        bytes_sent: 32 * MSS as u64,
        bytes_retransmitted: 2 * MSS as u64,
        rto_events: 0,
        recovery_events: 1,
        loss_probes: 0,
    };
    assert_eq!(r.tx.stats, stats);
    let heard = heard.borrow();
    let mut states: Vec<CaState> = heard.acks.iter().map(|(c, _)| c.ca_state).collect();
    states.dedup();
    use CaState::*;
    assert_eq!(states, [Open, Disorder, Recovery, Open]);
    assert_eq!(heard.acks.iter().map(|(_, rs)| rs.losses).sum::<u32>(), 2);
    // each marked packet is told apart, counted as it is marked, with its send-time
    // snapshot (sent 6th and 9th into an empty pipe), before the ACK that found them and
    // the recovery it starts
    let told: Vec<(u64, u32, u64)> = heard
        .lost_packets
        .iter()
        .map(|(c, sent)| (c.lost, sent.tx_in_flight, sent.lost))
        .collect();
    assert_eq!(told, [(1, 6, 0), (2, 9, 0)]);
    let first = heard.order.iter().position(|&h| h == "lost").unwrap();
    assert_eq!(
        heard.order[first..first + 5],
        ["lost", "lost", "losses", "recovery", "ack"]
    );
    // the algorithm heard of the recovery once, in Recovery; high_seq is snd_nxt then
    let [entry] = &heard.reductions[..] else {
        panic!("{} reductions", heard.reductions.len())
    };
    assert_eq!(entry.ca_state, Recovery);
    let high = entry.snd_nxt;
    let in_recovery: Vec<u64> = heard
        .acks
        .iter()
        .filter(|(c, _)| c.ca_state == Recovery)
        .map(|(c, _)| c.snd_una)
        .collect();
    assert!(in_recovery.iter().all(|&una| una < high));
    assert!(
        in_recovery.contains(&lost[1]),
        "a partial ACK up to the second loss: {in_recovery:?}"
    );
    let exit = heard
        .acks
        .iter()
        .rposition(|(c, _)| c.ca_state == Recovery)
        .unwrap()
        + 1;
    assert!(heard.acks[exit].0.snd_una >= high);
}

/// An algorithm of the QUIC stacks (`valid_samples_only`) hears only the ACKs whose rate
/// sample is valid, as `ngx_quic_handle_ack_frame` calls it only `if (ngx_generate_sample(c))`,
/// and still every lost packet. The original of segment 5 arrives 30 ms late, after RACK has
/// resent it, so some ACKs deliver nothing new and carry no sample on Linux's sampler. The
/// transfer is run twice: the algorithm's window is fixed, so both runs send and ACK alike.
#[test]
fn an_algorithm_asking_for_valid_samples_only_skips_the_other_acks() {
    let heard = |valid_samples_only: bool| {
        let (mut spy, heard) = Spy::new(10, None);
        spy.valid_samples_only = valid_samples_only;
        run_path(
            sender(cubic(), false),
            30 * MSS as u64,
            Time::from_secs(2),
            |p: &Packet, now: Time| {
                let late = p.kind == Kind::Data && !p.is_retrans && p.seq == 5 * MSS as u64;
                Some(now + ONE_WAY + Duration::from_millis(if late { 30 } else { 0 }))
            },
            Some(spy),
        );
        let h = heard.borrow();
        let samples: Vec<RateSample> = h.acks.iter().map(|(_, rs)| *rs).collect();
        (
            samples,
            h.lost_packets.len(),
            h.losses.clone(),
            h.reductions.len(),
        )
    };
    let ((all, lost_all, losses_all, cuts_all), (kept, lost_kept, losses_kept, cuts_kept)) =
        (heard(false), heard(true));
    let invalid = all.iter().filter(|rs| rs.interval.is_none()).count();
    assert!(invalid > 0, "the run must have ACKs without a valid sample");
    let with_interval: Vec<RateSample> =
        all.into_iter().filter(|rs| rs.interval.is_some()).collect();
    assert_eq!(kept, with_interval);
    assert!(lost_kept > 0);
    assert_eq!(
        (lost_all, &losses_all, cuts_all),
        (lost_kept, &losses_kept, cuts_kept)
    );
}

/// `tcp_ack_update_rtt` (Karn): the estimator's sample is the oldest newly acknowledged
/// segment that was never retransmitted, cumulatively acked and not SACKed before, else
/// the oldest newly SACKed one; the algorithm's is the newest newly SACKed, else the newest
/// cumulatively acked. An ACK whose cumulative part covers a retransmission gives neither
/// from that part.
#[test]
fn rtt_samples_come_only_from_segments_sent_once() {
    let at = NOW + Duration::from_millis(3);
    let sent = |tx: &TcpSender, i: u64| tx.sb.get(i).unwrap().sent_at;
    let srtt_after = |tx: &TcpSender, m: Duration| {
        let mut rtt = tx.rtt.clone();
        rtt.on_sample(m, tx.snd_una, tx.snd_nxt);
        rtt.srtt()
    };
    // a duplicate ACK SACKing 1 and 2 (sent 2 ms apart): the estimator from 1, the
    // algorithm from 2
    let mut tx = mid_slow_start(cubic());
    let h = tx.sb.indices().start;
    assert!(sent(&tx, h + 1) < sent(&tx, h + 2));
    let expected = srtt_after(&tx, at - sent(&tx, h + 1));
    let rs = feed_sack(&mut tx, h + 1, h + 3, at);
    assert_eq!(tx.rtt.srtt(), expected);
    assert_eq!(rs.rtt, Some(at - sent(&tx, h + 2)));
    // the cumulative ACK of 0..=4, new for 0, 3 and 4: the estimator from 0, the algorithm
    // from 4
    assert!(sent(&tx, h) < sent(&tx, h + 4));
    let expected = srtt_after(&tx, at - sent(&tx, h));
    let newest = at - sent(&tx, h + 4);
    let rs = feed_through(&mut tx, h + 4, at);
    assert_eq!(tx.rtt.srtt(), expected);
    assert_eq!(rs.rtt, Some(newest));
    // a cumulative ACK of segments all SACKed before: no sample
    feed_sack(&mut tx, h + 5, h + 7, at);
    let srtt = tx.rtt.srtt();
    let rs = feed_through(&mut tx, h + 6, at);
    assert_eq!((tx.rtt.srtt(), rs.rtt), (srtt, None));

    // a retransmission SACKed, or cumulatively acked with segments sent once: no sample
    let mut tx = mid_slow_start(cubic());
    let h = tx.sb.indices().start;
    resend(&mut tx, h + 3);
    resend(&mut tx, h);
    let srtt = tx.rtt.srtt();
    let rs = feed_sack(&mut tx, h + 3, h + 4, at);
    assert_eq!((tx.rtt.srtt(), rs.rtt), (srtt, None));
    let rs = feed_through(&mut tx, h + 2, at);
    assert_eq!((tx.rtt.srtt(), rs.rtt), (srtt, None));
}

/// What the rate sample carries from the ACK (`tcp_ack`'s `prior_in_flight`, the delayed
/// flag, `acked_sacked`), and the delivered count SACKs and cumulative ACKs advance once per
/// segment; a duplicate ACK with SACKs is processed, and the window it advertises counts
/// from its cumulative ACK.
#[test]
fn an_ack_counts_each_segment_delivered_once_and_reports_what_it_carried() {
    let at = NOW + Duration::from_millis(3);
    let mut tx = mid_slow_start(cubic());
    let h = tx.sb.indices().start;
    let (inflight, delivered) = (tx.sb.inflight(), tx.rate.delivered);
    let mut p = sack(&tx, h + 1, h + 3, at);
    p.delayed = true;
    p.rwnd = 2 * MSS as u64;
    let rs = feed(&mut tx, &p);
    assert_eq!((rs.prior_in_flight, rs.is_ack_delayed), (inflight, true));
    assert_eq!(rs.acked_sacked, 2);
    assert_eq!(tx.rate.delivered, delivered + 2);
    assert_eq!(tx.snd_wnd_end, tx.snd_una + 2 * MSS as u64);
    // 0..=3 cumulatively: 1 and 2 were SACKed, so two more
    let inflight = tx.sb.inflight();
    let rs = feed_through(&mut tx, h + 3, at);
    assert_eq!((rs.prior_in_flight, rs.is_ack_delayed), (inflight, false));
    assert_eq!(rs.acked_sacked, 2);
    assert_eq!(tx.rate.delivered, delivered + 4);
}

/// A handshake whose SYN was resent gives no RTT sample (Karn; `tcp_synack_rtt_meas`
/// needs an unambiguous SYN): the first one comes with the first data ACK.
#[test]
fn a_resent_syn_gives_no_rtt_sample() {
    let mut first = true;
    let lose_first_syn = move |p: &Packet, now: Time| {
        let lost = p.kind == Kind::Syn && std::mem::take(&mut first);
        (!lost).then_some(now + ONE_WAY)
    };
    // the SYN is resent at 1 s; the SYN-ACK is back at 1.02 s, the first data ACK at 1.04 s
    let until = Time::from_millis(1030);
    let tx = run_path(
        sender(cubic(), false),
        UNLIMITED,
        until,
        lose_first_syn,
        None,
    )
    .tx;
    assert!(tx.snapshot(until).established);
    assert_eq!((tx.rtt.srtt(), tx.rtt.min_rtt()), (None, None));
    let tx = cubic_run(UNLIMITED, until);
    assert_eq!(tx.rtt.srtt(), Some(ONE_WAY + ONE_WAY));
}

/// A tail-loss probe that repaired a loss: the algorithm reduces once, told the state is
/// CWR (`tcp_process_tlp_ack` → `tcp_init_cwnd_reduction`). A probe episode whose ACK
/// of exactly its end SACKs new data stays open; a pure duplicate ends it.
#[test]
fn a_probe_that_repaired_a_loss_reduces_the_window_once_in_cwr() {
    let at = NOW + Duration::from_millis(3);
    let mut tx = mid_slow_start(cubic());
    let h = tx.sb.indices().start;
    let (spy, heard) = Spy::new(tx.cc().unwrap().cwnd(), None);
    tx.cc = Some(Box::new(spy));
    let probe = |tx: &mut TcpSender, high: u64| {
        tx.tlp_high_seq = Some(high);
        tx.tlp_was_retrans = true;
    };
    let una = tx.snd_una;
    probe(&mut tx, una);
    feed_sack(&mut tx, h + 1, h + 2, at);
    assert_eq!(tx.tlp_high_seq, Some(una), "news: the episode goes on");
    let dup = ack_to(una, at);
    feed(&mut tx, &dup);
    assert_eq!(tx.tlp_high_seq, None);
    assert!(heard.borrow().reductions.is_empty());
    // the probe's end is segment 0's; the ACK reaches beyond it
    let end = tx.sb.get(h).unwrap().end();
    probe(&mut tx, end);
    feed_through(&mut tx, h + 2, at);
    let cwr: Vec<CaState> = heard
        .borrow()
        .reductions
        .iter()
        .map(|c| c.ca_state)
        .collect();
    assert_eq!(cwr, [CaState::Cwr]);
}

/// `tcp_dsack_seen`: "A spurious retransmission is delivered". A duplicate ACK reporting a
/// duplicate segment counts that segment delivered, in its own sample's `acked_sacked` and
/// in the delivery count of every later sample; the same ACK without the report, not.
#[test]
fn a_dsack_counts_its_duplicate_segment_as_delivered() {
    let later_delivered = |dsack: bool| {
        let mut tx = mid_slow_start(cubic());
        let before = tx.rate.delivered;
        let mut dup = ack_to(tx.snd_una, NOW);
        dup.dsack = dsack;
        let rs = feed(&mut tx, &dup);
        assert_eq!(tx.rate.delivered - before, u64::from(dsack));
        assert_eq!(rs.acked_sacked, u32::from(dsack));
        let head = tx.sb.indices().start;
        feed_through(&mut tx, head, NOW + Duration::from_millis(1)).delivered
    };
    let (without, with) = (later_delivered(false), later_delivered(true));
    assert_eq!(with, without.map(|d| d + 1));
    assert!(without.is_some());
}
