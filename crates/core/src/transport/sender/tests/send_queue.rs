//! The send queue: where a retransmission joins the data queued to send (`send_queue`).

use super::super::*;
use super::harness::{bottleneck, cubic, feed, run_path, sack, sender_on, NOW};
use crate::transport::send_queue::NGINX_QUIC_STREAM_BUFFER;

const MSS_BYTES: u64 = super::harness::MSS as u64;

/// A CUBIC sender on `queue`, mid slow start behind a 1 ms-per-packet bottleneck, writing
/// without end, at [`NOW`].
fn busy(queue: SendQueueKind) -> TcpSender {
    let path = bottleneck(Duration::from_millis(1), |_| false);
    let tx = run_path(sender_on(cubic(), false, queue), UNLIMITED, NOW, path, None).tx;
    assert!(tx.sb.packets_out >= 10);
    tx
}

#[test]
fn nginx_quic_queues_a_stream_buffer_beyond_every_acknowledged_byte() {
    let mut tx = busy(SendQueueKind::NginxQuic);
    assert_eq!(tx.queued_end(), tx.snd_una + NGINX_QUIC_STREAM_BUFFER);
    // SACKed data counts as acknowledged (`qs->acked` adds every acked frame)
    let head = tx.sb.indices().start;
    let p = sack(&tx, head + 1, head + 3, NOW);
    feed(&mut tx, &p);
    let sacked = 2 * tx.sb.get(head + 1).unwrap().len as u64;
    assert_eq!(tx.sb.sacked_bytes, sacked);
    assert_eq!(
        tx.queued_end(),
        tx.snd_una + sacked + NGINX_QUIC_STREAM_BUFFER
    );
    // TCP queues whatever was written
    assert_eq!(busy(SendQueueKind::Linux).queued_end(), UNLIMITED);
}

#[test]
fn an_nginx_quic_retransmission_waits_behind_the_data_queued_before_its_loss() {
    for queue in [SendQueueKind::Linux, SendQueueKind::NginxQuic] {
        let mut tx = busy(queue);
        let head = tx.sb.indices().start;
        tx.note_resend_position();
        assert!(tx.sb.mark_lost(head));
        let behind = tx.sb.get(head).unwrap().resend_behind;
        if queue == SendQueueKind::Linux {
            assert_eq!(behind, 0);
            assert_eq!(tx.next_retransmission(), Some(head), "TCP resends first");
            continue;
        }
        assert_eq!(behind, tx.snd_una + NGINX_QUIC_STREAM_BUFFER);
        assert!(tx.snd_nxt < behind && tx.new_data_fits());
        assert_eq!(
            tx.next_retransmission(),
            None,
            "new data queued ahead goes first"
        );
        // once nothing more is queued (or the window is full) the queue reaches it
        tx.discard_unsent();
        assert!(!tx.new_data_fits());
        assert_eq!(tx.next_retransmission(), Some(head));
    }
}

#[test]
fn an_nginx_quic_retransmission_is_queued_behind_the_window_not_beyond_it() {
    let mut tx = busy(SendQueueKind::NginxQuic);
    tx.snd_wnd_end = tx.snd_nxt + 10 * MSS_BYTES;
    tx.note_resend_position();
    assert_eq!(tx.sb.resend_behind, tx.snd_nxt + 10 * MSS_BYTES);
    // lost while the window ended at what was sent: nothing was queued ahead of it, so it
    // goes at once, though the window has since opened for new data
    tx.snd_wnd_end = tx.snd_nxt;
    tx.note_resend_position();
    let head = tx.sb.indices().start;
    assert!(tx.sb.mark_lost(head));
    assert_eq!(tx.sb.get(head).unwrap().resend_behind, tx.snd_nxt);
    tx.snd_wnd_end = tx.snd_nxt + 10 * MSS_BYTES;
    assert!(tx.new_data_fits());
    assert_eq!(tx.next_retransmission(), Some(head));
}

#[test]
fn on_nginx_quic_every_ack_restarts_the_retransmission_timer() {
    for queue in [SendQueueKind::Linux, SendQueueKind::NginxQuic] {
        let mut tx = busy(queue);
        let armed = tx.rto_deadline.unwrap();
        // a duplicate ACK, 1 ms on: it SACKs but does not move snd_una
        let at = NOW + Duration::from_millis(1);
        let head = tx.sb.indices().start;
        let p = sack(&tx, head + 1, head + 2, at);
        let una = tx.snd_una;
        feed(&mut tx, &p);
        assert_eq!(tx.snd_una, una);
        let restarted = at + tx.rto_with_backoff();
        let expected = if queue == SendQueueKind::NginxQuic {
            restarted
        } else {
            armed
        };
        assert_eq!(tx.rto_deadline, Some(expected), "{queue:?}");
    }
}
