use super::*;
use proptest::prelude::*;

const MSS: u32 = 1000;

fn board(n: u64) -> Scoreboard {
    let mut sb = Scoreboard::default();
    for i in 0..n {
        sb.push(Segment {
            seq: i * MSS as u64,
            len: MSS,
            sent_at: Time::from_millis(i),
            snap: TxSnapshot::default(),
            sacked: false,
            lost: false,
            retrans_in_flight: false,
            ever_retrans: false,
            resend_behind: 0,
        });
    }
    sb
}

fn block(a: u64, b: u64) -> SackBlock {
    SackBlock {
        start: a * MSS as u64,
        end: b * MSS as u64,
    }
}

#[test]
fn counters_follow_sack_loss_retransmission_and_cumulative_ack() {
    let mut sb = board(10);
    assert_eq!(sb.inflight(), 10);
    assert_eq!(sb.sack(block(3, 6), |_| {}), 3);
    assert_eq!(
        (sb.sacked_out, sb.sacked_bytes, sb.inflight()),
        (3, 3000, 7)
    );
    assert!(sb.mark_lost(0) && sb.mark_lost(1));
    assert_eq!((sb.lost_out, sb.inflight()), (2, 5));
    assert_eq!(sb.next_to_retransmit(), Some(0));
    sb.on_retransmit(0, Time::from_millis(50), TxSnapshot::default());
    assert_eq!((sb.retrans_out, sb.inflight()), (1, 6));
    assert_eq!(sb.next_to_retransmit(), Some(1));
    // the retransmission of 0 is lost again: counts as a new loss, back in the retransmit list
    assert!(sb.mark_lost(0));
    assert!(!sb.mark_lost(0));
    assert_eq!(sb.next_to_retransmit(), Some(0));
    let removed = sb.cum_ack(6 * MSS as u64, |_| {});
    assert_eq!(removed, 6);
    assert_eq!(
        (sb.packets_out, sb.sacked_out, sb.lost_out, sb.retrans_out),
        (4, 0, 0, 0)
    );
    assert_eq!(sb.sacked_bytes, 0);
    assert_eq!(sb.inflight(), 4);
}

#[test]
fn a_block_reported_again_is_not_processed_twice() {
    let mut sb = board(100);
    assert_eq!(sb.sack(block(10, 50), |_| {}), 40);
    let mut visited = 0;
    assert_eq!(sb.sack(block(10, 60), |_| visited += 1), 10);
    assert_eq!(visited, 10);
}

#[test]
fn sacked_segments_cannot_be_marked_lost() {
    let mut sb = board(3);
    sb.sack(block(1, 2), |_| {});
    assert!(!sb.mark_lost(1));
    assert_eq!(sb.lost_out, 0);
}

#[test]
fn the_last_index_is_the_highest_outstanding_segment() {
    let mut sb = board(5);
    assert_eq!(sb.last_index(), Some(4));
    sb.cum_ack(2 * MSS as u64, |_| {});
    assert_eq!((sb.indices(), sb.last_index()), (2..5, Some(4)));
    sb.cum_ack(5 * MSS as u64, |_| {});
    assert_eq!(sb.last_index(), None);
}

/// The SACK cache forgets what a cumulative ACK covers and keeps the blocks above it.
#[test]
fn a_cumulative_ack_trims_the_sack_cache_to_its_new_front() {
    let mut sb = board(10);
    sb.sack(block(3, 6), |_| {});
    sb.sack(block(8, 9), |_| {});
    sb.cum_ack(4 * MSS as u64, |_| {});
    assert_eq!(sb.sacked, [(4000, 6000), (8000, 9000)]);
    // the first block now ends at the front: an empty range, dropped
    sb.cum_ack(6 * MSS as u64, |_| {});
    assert_eq!(sb.sacked, [(8000, 9000)]);
}

proptest! {
    /// `uncovered` + `insert_range` agree with a per-byte bitmap model.
    #[test]
    fn range_set_matches_a_bitmap(ops in proptest::collection::vec((0u64..200, 1u64..40), 1..60)) {
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        let mut bits = [false; 240];
        for (a, len) in ops {
            let b = a + len;
            let mut got = vec![false; 240];
            for (x, y) in uncovered(&ranges, a, b) {
                prop_assert!(x < y, "an empty gap");
                for i in x..y { prop_assert!(!got[i as usize]); got[i as usize] = true; }
            }
            for i in 0..240u64 {
                prop_assert_eq!(got[i as usize], i >= a && i < b && !bits[i as usize]);
            }
            insert_range(&mut ranges, a, b);
            for i in a..b { bits[i as usize] = true; }
            prop_assert!(ranges.windows(2).all(|w| w[0].1 < w[1].0));
            for i in 0..240u64 {
                let covered = ranges.iter().any(|r| r.0 <= i && i < r.1);
                prop_assert_eq!(covered, bits[i as usize]);
            }
        }
    }

    /// inflight equals the outstanding segments not sacked and not (lost without a retransmission
    /// in flight); sacked_bytes, the SACKed segments' payload.
    #[test]
    fn inflight_equals_outstanding(ops in proptest::collection::vec((0u8..4, 0u64..30, 1u64..5), 1..80)) {
        let mut sb = board(30);
        let mut t = 100;
        for (op, x, len) in ops {
            match op {
                0 => { sb.sack(block(x, x + len), |_| {}); }
                1 => { sb.mark_lost(x); }
                2 => if let Some(i) = sb.next_to_retransmit() { t += 1; sb.on_retransmit(i, Time::from_millis(t), TxSnapshot::default()); },
                _ => { sb.cum_ack(x * MSS as u64, |_| {}); }
            }
            let model = sb.indices().filter_map(|i| sb.get(i))
                .filter(|s| !s.sacked && (!s.lost || s.retrans_in_flight)).count() as u32;
            prop_assert_eq!(sb.inflight(), model);
            let sacked = sb.indices().filter_map(|i| sb.get(i))
                .filter(|s| s.sacked).map(|s| s.len as u64).sum::<u64>();
            prop_assert_eq!(sb.sacked_bytes, sacked);
        }
    }
}
