//! The window a receiver advertises (scenario field `flow_control`).
//!
//! * **`linux`** — TCP: the receive buffer less what it holds, data the application has not
//!   read and out-of-order data, beyond `rcv_nxt`. Out-of-order data behind a hole shrinks
//!   it; no autotuning (the buffer is at its maximum from the start).
//! * **`quiche`** — the ATC'23 testbed's client, QUICHE's toy `quic_client`: QUIC stream
//!   flow control. The client advertises a limit offset, `window` bytes beyond what its
//!   application has read, and moves it only when less than half the window is left
//!   (`QuicFlowController::MaybeSendWindowUpdate`: `available_window <
//!   receive_window_size_ / 2`, new offset `bytes_consumed_ + receive_window_size_`); the
//!   limit never moves back. `QuicClientBase::Initialize` sets the stream window to 6 MiB
//!   and the connection's to 15 MiB (`kStreamMaxRecvWindowSize`, `kSessionMaxRecvWindowSize`,
//!   "the same values that Chrome uses"), and a client does not autotune them (the session's
//!   flow controller autotunes only on a server). With one stream the stream window binds
//!   first, so it is the one modelled: its size is the flow's `rcvbuf`. The update rides on
//!   the next ACK the client sends.
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | window | the flow's `rcvbuf` (the ATC'23 reproduction: 6 MiB) | B | the stream receive window | `quic_client_base.cc` `kStreamMaxRecvWindowSize` |
//! | update threshold | ½ | of the window | a window update when less is left | `QuicFlowController::WindowUpdateThreshold` |

use serde::{Deserialize, Serialize};

/// Which receive window a flow's receiver advertises (scenario field `flow_control`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlowControlKind {
    /// TCP: the free part of the receive buffer.
    #[default]
    Linux,
    /// QUICHE: a limit `window` bytes beyond the consumed data, moved at half a window.
    Quiche,
}

/// A receiver's advertised limit.
#[derive(Clone, Debug)]
pub struct ReceiveWindow {
    kind: FlowControlKind,
    /// The receive buffer (TCP) or the stream window (QUICHE), bytes.
    size: u64,
    /// QUICHE: the limit offset last advertised (`receive_window_offset_`).
    limit: u64,
}

impl ReceiveWindow {
    pub fn new(kind: FlowControlKind, size: u64) -> Self {
        ReceiveWindow {
            kind,
            size,
            limit: size,
        }
    }

    /// The window beyond `rcv_nxt` an ACK carries, with `unread` bytes in order not yet read
    /// by the application and `out_of_order` bytes held beyond a hole. QUICHE first moves
    /// its limit if less than half a window is left beyond the consumed data.
    pub fn advertise(&mut self, rcv_nxt: u64, unread: u64, out_of_order: u64) -> u64 {
        match self.kind {
            FlowControlKind::Linux => self.size.saturating_sub(unread + out_of_order),
            FlowControlKind::Quiche => {
                let consumed = rcv_nxt - unread;
                if self.limit - consumed.min(self.limit) < self.size / 2 {
                    self.limit = consumed + self.size;
                }
                self.limit.saturating_sub(rcv_nxt)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_advertises_the_free_part_of_its_buffer() {
        let mut w = ReceiveWindow::new(FlowControlKind::Linux, 10_000);
        assert_eq!(w.advertise(0, 0, 0), 10_000);
        assert_eq!(w.advertise(5_000, 1_000, 3_000), 6_000);
    }

    #[test]
    fn quiche_moves_its_limit_only_when_less_than_half_the_window_is_left() {
        let mut w = ReceiveWindow::new(FlowControlKind::Quiche, 6_000);
        assert_eq!(w.advertise(0, 0, 0), 6_000);
        // 3000 consumed: exactly half left, no update; the window shrinks to the old limit
        assert_eq!(w.advertise(3_000, 0, 0), 3_000);
        // 3001 consumed: less than half left, the limit moves to 3001 + 6000
        assert_eq!(w.advertise(3_001, 0, 0), 6_000);
        assert_eq!(w.advertise(4_000, 0, 0), 5_001);
    }

    #[test]
    fn out_of_order_data_does_not_shrink_a_quiche_window_and_unread_data_holds_it() {
        let mut w = ReceiveWindow::new(FlowControlKind::Quiche, 6_000);
        assert_eq!(
            w.advertise(0, 0, 4_000),
            6_000,
            "a hole holds the limit, no shrink"
        );
        // 4000 in order but unread: consumed is 0, the limit stays at 6000
        assert_eq!(w.advertise(4_000, 4_000, 0), 2_000);
    }
}
