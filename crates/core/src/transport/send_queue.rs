//! The server's send queue: how much written data it holds ready to send, and where a
//! retransmission joins it (scenario field `send_queue`).
//!
//! * **`linux`** — TCP's order: `tcp_xmit_retransmit_queue` resends lost segments before any
//!   new data (`tcp_write_xmit`), and what the application may write is the socket send
//!   buffer's business ([`super::send_buffer`]).
//! * **`nginx-quic`** — the ATC'23 testbed's server (bpq233/oBBR nginx-quic):
//!   - `ngx_quic_stream_send_chain` takes a write only while the stream's unacknowledged
//!     data, `c->sent − qs->acked`, is below `stream_buffer_size`, and `qs->acked` adds up
//!     every acknowledged frame (`ngx_quic_handle_stream_ack`), in order or not: lost data
//!     stays charged until its retransmission is acknowledged. The artifact changed that
//!     buffer's default from 64 KiB to 1 765 536 bytes (`ngx_http_v3_merge_srv_conf`), and
//!     its `nginx.conf` does not set it.
//!   - `ngx_quic_stream_flush` turns whatever the stream holds, up to the peer's flow-control
//!     limit, into a frame at the tail of the send queue (`ctx->frames`), and the packets are
//!     cut from that queue's head (`ngx_quic_output_packet`).
//!   - `ngx_quic_resend_frames` puts a lost packet's frames at the tail of the same queue, so
//!     a retransmission leaves only after every byte queued before its loss was detected.
//!   - QUIC has no retransmission timeout: its probe timeout runs from the latest packet sent
//!     and is set again on every ACK (`ngx_quic_set_lost_timer`). The TCP model keeps its
//!     RTO as the stand-in and restarts it on every ACK, not only on one that moves snd_una,
//!     so a retransmission waiting in the queue does not time out.
//!
//! With a receive window of a few BDP this holds a hole open for the queue's length, and the
//! connection stalls on flow control until the retransmission arrives.
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `NGINX_QUIC_STREAM_BUFFER` | 1 765 536 | B | unacknowledged stream data a write may bring about | `ngx_http_v3_module.c` `quic.stream_buffer_size` default |

use serde::{Deserialize, Serialize};

/// The artifact's `stream_buffer_size` default (`ngx_http_v3_merge_srv_conf`).
pub const NGINX_QUIC_STREAM_BUFFER: u64 = 1_765_536;

/// Which server send queue a flow's sender runs (scenario field `send_queue`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SendQueueKind {
    /// TCP: retransmissions first.
    #[default]
    Linux,
    /// nginx-quic: a stream buffer counted from acknowledged bytes; retransmissions queue
    /// behind the data already queued.
    NginxQuic,
}

impl SendQueueKind {
    /// End of the data ready to send: what the application wrote, within the stream buffer
    /// beyond `acked` (every acknowledged byte, in order or selectively).
    pub fn queued_end(self, written: u64, acked: u64) -> u64 {
        match self {
            SendQueueKind::Linux => written,
            SendQueueKind::NginxQuic => written.min(acked + NGINX_QUIC_STREAM_BUFFER),
        }
    }

    /// Sequence the sender must have sent before a segment marked lost now may be resent:
    /// nothing for TCP; for nginx-quic the end of what is queued (`queued_end`), within the
    /// peer's window `window_end` (data beyond it is not yet framed).
    pub fn resend_behind(self, queued_end: u64, window_end: u64) -> u64 {
        match self {
            SendQueueKind::Linux => 0,
            SendQueueKind::NginxQuic => queued_end.min(window_end),
        }
    }

    /// TCP's Loss state gives way to Recovery when a retransmission is lost again
    /// (`tcp_fastretrans_alert`, `tcp_rack_reo_timeout`); nginx-quic has no such states.
    pub fn has_tcp_loss_states(self) -> bool {
        self == SendQueueKind::Linux
    }

    /// Every ACK restarts the retransmission timer (QUIC's probe timeout), not only one
    /// that acknowledges the oldest segment.
    pub fn timer_restarts_on_every_ack(self) -> bool {
        self == SendQueueKind::NginxQuic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_resends_first_and_queues_all_it_is_given() {
        let q = SendQueueKind::Linux;
        assert_eq!(q.queued_end(10_000_000, 0), 10_000_000);
        assert_eq!(q.resend_behind(10_000_000, 5_000_000), 0);
        assert!(!q.timer_restarts_on_every_ack());
    }

    #[test]
    fn nginx_quic_queues_a_stream_buffer_beyond_the_acknowledged_bytes() {
        let q = SendQueueKind::NginxQuic;
        assert_eq!(q.queued_end(u64::MAX / 2, 1_000), 1_000 + 1_765_536);
        assert_eq!(
            q.queued_end(5_000, 1_000),
            5_000,
            "no more than was written"
        );
        assert!(q.timer_restarts_on_every_ack());
    }

    #[test]
    fn an_nginx_quic_retransmission_waits_behind_the_queue_within_the_window() {
        let q = SendQueueKind::NginxQuic;
        assert_eq!(q.resend_behind(2_000_000, 3_000_000), 2_000_000);
        assert_eq!(q.resend_behind(2_000_000, 1_500_000), 1_500_000);
    }
}
