//! The recovery epoch of the oBBR artifact's QUIC BBR (`ngx_bbr.c`), which that BBR
//! uses where Linux's uses TCP's Recovery state (`recovery_epoch = "artifact"`), and
//! which oBBR's adaptive gain always uses.
//!
//! ```text
//!   a loss is detected (ngx_bbr_on_lost, every lost packet):   start = now
//!   an ACK whose rate sample's reference packet was sent at `sent`
//!   (ngx_bbr_update_recovery_mode):
//!     outside the epoch, sent ≤ start  → enter: one round of packet conservation
//!     inside it,         sent > start  → leave: cwnd = max(cwnd, the cwnd saved at the losses)
//!   persistent congestion (ngx_bbr_reset_cwnd; here an RTO): leave without restoring
//! ```
//!
//! TCP's Recovery ends once everything outstanding at its first loss is acknowledged, and
//! losses inside it do not move that point. Here every loss moves `start`, so the epoch lasts
//! until a packet sent after the *latest* loss is acknowledged, and it is entered by the ACK
//! that samples a packet sent before a loss, not at the loss.
//!
//! | Constant | Value | Meaning | Source |
//! |---|---|---|---|
//! | clock tick | 1 ms | loss and send times compare in whole ms | `ngx_current_msec` |

use crate::time::Time;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RecoveryEpoch {
    /// The artifact's `recovery_start_time` in whole ms (0 there = `None` here).
    start_ms: Option<u64>,
    in_recovery: bool,
    /// `just_enter_recovery_mode` / `just_exit_recovery_mode`: the cwnd has yet to react.
    just_entered: bool,
    just_exited: bool,
}

impl RecoveryEpoch {
    /// A loss was detected at `now`.
    pub fn on_loss(&mut self, now: Time) {
        self.start_ms = Some(now.as_millis());
    }

    /// The ACK's rate sample has a reference packet sent at `sent`.
    pub fn on_sample(&mut self, sent: Time) {
        let sent_ms = sent.as_millis();
        let before_loss = self.start_ms.is_some_and(|s| sent_ms <= s);
        if before_loss && !self.in_recovery {
            self.in_recovery = true;
            self.just_entered = true;
        } else if !before_loss && self.in_recovery {
            self.in_recovery = false;
            self.just_exited = true;
            self.start_ms = None;
        }
    }

    /// Persistent congestion: leave the epoch; the cwnd is not restored.
    pub fn cancel(&mut self) {
        self.in_recovery = false;
        self.start_ms = None;
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    /// Consumes a pending entry (the artifact reacts on the next ACK that acks data).
    pub fn take_entry(&mut self) -> bool {
        std::mem::take(&mut self.just_entered)
    }

    /// Consumes a pending exit.
    pub fn take_exit(&mut self) -> bool {
        std::mem::take(&mut self.just_exited)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Time {
        Time::from_millis(t)
    }

    #[test]
    fn the_epoch_opens_on_a_sample_sent_before_the_loss_and_closes_on_one_sent_after() {
        let mut e = RecoveryEpoch::default();
        e.on_sample(ms(5));
        assert!(!e.in_recovery(), "no loss yet");
        e.on_loss(ms(100));
        e.on_sample(ms(60));
        assert!(e.in_recovery());
        assert!(e.take_entry());
        assert!(!e.take_entry(), "an entry is consumed once");
        e.on_sample(ms(101));
        assert!(!e.in_recovery());
        assert!(e.take_exit());
        // The epoch's start is cleared on exit: an old packet no longer re-enters it.
        e.on_sample(ms(90));
        assert!(!e.in_recovery());
    }

    #[test]
    fn every_loss_moves_the_end_and_times_compare_in_whole_milliseconds() {
        let mut e = RecoveryEpoch::default();
        e.on_loss(ms(100));
        e.on_sample(ms(80));
        e.on_loss(Time::from_micros(150_900)); // a second loss inside the epoch
        e.on_sample(Time::from_micros(150_200)); // sent after the first loss, in the second's ms
        assert!(e.in_recovery(), "the latest loss decides");
        e.on_sample(ms(151));
        assert!(!e.in_recovery());
    }

    #[test]
    fn persistent_congestion_leaves_without_a_restore() {
        let mut e = RecoveryEpoch::default();
        e.on_loss(ms(10));
        e.on_sample(ms(9));
        e.cancel();
        assert!(!e.in_recovery());
        assert!(!e.take_exit());
        e.on_sample(ms(5));
        assert!(!e.in_recovery(), "the start went with the epoch");
    }
}
