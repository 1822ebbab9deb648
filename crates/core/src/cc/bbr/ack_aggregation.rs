//! ACK-aggregation estimator (`extra_acked`), after Linux `bbr_update_ack_aggregation`.
//!
//! Wi-Fi, cellular and GRO deliver ACKs in bursts. BBR measures, per ACK
//! epoch, how much more was acked than the bandwidth estimate explains, and
//! adds the recent maximum to the cwnd target so sending continues through
//! the silences between bursts:
//!
//! ```text
//!   expected = floor(bw · (delivered_time − epoch_start))
//!   epoch_acked ≤ expected, or epoch_acked + acked ≥ 2^20  →  new epoch at delivered_time
//!   epoch_acked += acked                                      (saturates at 2^20 − 1)
//!   extra = min(epoch_acked − expected, cwnd)
//!   extra_acked = max over two buckets of `win_rounds` rounds each (a 5–10 round max)
//! ```
//!
//! The cwnd increment itself (`aggregation_cwnd`, capped at bw × 100 ms and
//! only after STARTUP) is computed in `control.rs`.

use super::{model, Bbr};
use crate::cc::Conn;
use crate::time::Time;
use crate::transport::rate_sample::RateSample;

/// `ack_epoch_acked` is a 20-bit field in Linux.
const EPOCH_ACKED_MAX: u32 = 0xF_FFFF;
/// `extra_acked_win_rtts` is a 5-bit field in Linux.
const WIN_ROUNDS_MAX: u32 = 0x1F;

/// Windowed max of packets acked beyond what the bandwidth estimate explains.
#[derive(Clone, Debug, PartialEq)]
pub struct AckAggregation {
    epoch_start: Time,
    epoch_acked: u32,
    extra_acked: [u32; 2],
    win_rounds: u32,
    win_idx: usize,
}

impl AckAggregation {
    pub fn new(now: Time) -> Self {
        AckAggregation {
            epoch_start: now,
            epoch_acked: 0,
            extra_acked: [0; 2],
            win_rounds: 0,
            win_idx: 0,
        }
    }

    /// Starts a new ACK epoch (idle restart).
    pub fn reset_epoch(&mut self, now: Time) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// Max extra acked over the last `win_rounds`–`2 × win_rounds` rounds, packets.
    pub fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// One ACK of `acked` packets at `delivered_time`, with bandwidth `bw_pps` and the
    /// current `cwnd`. `win_rounds` is the bucket length; `epoch_reset` the epoch cap.
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        round_start: bool,
        acked: u32,
        delivered_time: Time,
        bw_pps: f64,
        cwnd: u32,
        win_rounds: u32,
        epoch_reset: u32,
    ) {
        if round_start {
            self.win_rounds = (self.win_rounds + 1).min(WIN_ROUNDS_MAX);
            if self.win_rounds >= win_rounds {
                self.win_rounds = 0;
                self.win_idx ^= 1;
                self.extra_acked[self.win_idx] = 0;
            }
        }
        let mut expected =
            model::packets_in(bw_pps, delivered_time.saturating_since(self.epoch_start));
        if self.epoch_acked <= expected || self.epoch_acked.saturating_add(acked) >= epoch_reset {
            self.epoch_acked = 0;
            self.epoch_start = delivered_time;
            expected = 0;
        }
        self.epoch_acked = self.epoch_acked.saturating_add(acked).min(EPOCH_ACKED_MAX);
        let extra = (self.epoch_acked - expected).min(cwnd);
        let bucket = &mut self.extra_acked[self.win_idx];
        *bucket = (*bucket).max(extra);
    }
}

impl Bbr {
    /// Linux `bbr_update_ack_aggregation`: only ACKs that deliver data and carry a valid sample.
    pub(super) fn update_ack_aggregation(&mut self, conn: &Conn, rs: &RateSample) {
        if self.p.extra_acked_gain == 0.0 || rs.acked_sacked == 0 || !rs.is_valid() {
            return;
        }
        let bw = self.bw();
        self.ack_aggr.update(
            self.round_start,
            rs.acked_sacked,
            conn.delivered_time,
            bw,
            self.cwnd,
            self.p.extra_acked_win_rounds,
            self.p.ack_epoch_acked_reset,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BW: f64 = 1000.0; // packets/s: one packet expected per ms
    const NO_CAP: u32 = 1 << 20;

    fn ms(v: u64) -> Time {
        Time::from_millis(v)
    }

    /// 20 packets acked at 10 ms into a fresh epoch: extra 20.
    fn after_a_burst() -> AckAggregation {
        let mut a = AckAggregation::new(Time::ZERO);
        a.update(false, 20, ms(10), BW, 100, 5, NO_CAP);
        assert_eq!(a.extra_acked(), 20);
        a
    }

    #[test]
    fn an_epoch_runs_on_while_more_arrives_than_the_bandwidth_explains() {
        let mut a = after_a_burst();
        a.update(false, 10, ms(12), BW, 100, 5, NO_CAP); // 30 acked, 2 expected
        assert_eq!(a.extra_acked(), 28);
        a.update(false, 10, ms(14), BW, 25, 5, NO_CAP); // 40 − 4, but at most cwnd
        assert_eq!(a.extra_acked(), 28);
        assert_eq!(a.epoch_acked, 40);
    }

    #[test]
    fn an_idle_restart_begins_a_new_epoch() {
        let mut a = after_a_burst();
        a.reset_epoch(ms(12));
        a.update(false, 10, ms(12), BW, 100, 5, NO_CAP); // a new epoch: extra 10
        assert_eq!(a.extra_acked(), 20);
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(12), 10));
    }

    #[test]
    fn with_five_round_windows_a_burst_is_kept_until_the_tenth_round_start() {
        let mut a = after_a_burst();
        // Round starts with ACKs at the bandwidth (each a new epoch: extra 1).
        for round in 1..=9u64 {
            a.update(true, 1, ms(10 + 10 * round), BW, 100, 5, NO_CAP);
            assert_eq!(a.extra_acked(), 20, "round {round}");
        }
        // The 10th round start empties the burst's bucket again.
        a.update(true, 1, ms(110), BW, 100, 5, NO_CAP);
        assert_eq!(a.extra_acked(), 1);
    }

    #[test]
    fn an_epoch_ends_once_it_would_reach_the_reset_threshold() {
        let mut a = after_a_burst();
        a.update(false, 10, ms(12), BW, 100, 5, 30); // 20 + 10 ≥ 30: a new epoch
        assert_eq!((a.epoch_start, a.epoch_acked), (ms(12), 10));
    }
}
