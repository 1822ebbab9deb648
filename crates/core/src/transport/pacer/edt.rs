//! Earliest-departure-time pacing, as Linux TCP stamps packets since 4.20
//! (`tcp_update_skb_after_send`, with `fq` or internal pacing).
//!
//! Each packet may leave no earlier than `next`; after it leaves, `next` moves
//! forward by `len / pacing_rate`, minus up to half of that as credit for time
//! the sender spent idle past its schedule ("OS jitter" in Linux):
//!
//! ```text
//!   prior = next;  next = max(next, now)
//!   gap   = payload_len / rate;  gap −= min(gap/2, next − prior);  next += gap
//! ```
//!
//! Linux computes this per skb. With TSO an skb carries several packets, reported one by
//! one; those after the first continue the skb and share its credit, so the skb as a whole
//! earns at most half its own gap.
//!
//! The first 10 data segments of a connection are not paced (as `sch_fq`'s
//! initial quantum): they leave back to back, and the 10th sets the first gap
//! (Linux checks `data_segs_out >= 10` after counting the segment just sent).
//!
//! `len` is the payload length, as Linux charges `skb->len` of the original
//! (header-less) skb, so a BBR pacing rate of `bw × mss` sends exactly `bw`
//! packets per second.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `UNPACED_SEGMENTS` | 10 | segments | sent unpaced at the start of a connection | `sch_fq` initial quantum; `data_segs_out >= 10` |

use crate::time::{Duration, Time};
use crate::units::Rate;

/// Segments sent unpaced at the start of a connection.
pub const UNPACED_SEGMENTS: u64 = 10;

#[derive(Clone, Debug, Default)]
pub struct Edt {
    next: Time,
    segments_sent: u64,
    /// Idle credit the current skb has not used yet.
    credit: u64,
}

impl Edt {
    /// Earliest departure of the next packet (`tcp_wstamp_ns`).
    pub fn next_departure(&self, now: Time) -> Time {
        self.next.max(now)
    }

    /// `tcp_wstamp_ns`: the next departure, even if past.
    pub fn wstamp(&self) -> Time {
        self.next
    }

    pub fn allows(&self, now: Time) -> bool {
        now >= self.next
    }

    /// A packet with `payload` bytes left at `now` under `rate` (`None` = unpaced);
    /// `continues_skb`: it is not the first packet of its skb.
    pub fn on_send(&mut self, now: Time, payload: u32, rate: Option<Rate>, continues_skb: bool) {
        let prior = self.next;
        self.next = self.next.max(now);
        if !continues_skb {
            self.credit = (self.next - prior).as_nanos();
        }
        self.segments_sent += 1;
        let Some(rate) = rate.filter(|r| !r.is_zero()) else {
            return;
        };
        // `data_segs_out >= 10` already counts the segment just sent: the 10th adds the first gap
        if self.segments_sent < UNPACED_SEGMENTS {
            return;
        }
        let gap = rate.tx_time(payload as u64).as_nanos();
        let credit = (gap / 2).min(self.credit);
        self.credit -= credit;
        self.next += Duration::from_nanos(gap - credit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_packets_leave_back_to_back_and_the_tenth_sets_the_first_gap() {
        let mut p = Edt::default();
        let rate = Some(Rate::from_mbps(10)); // 1448 B → 1158.4 µs
        for _ in 0..9 {
            p.on_send(Time::ZERO, 1448, rate, false);
        }
        assert!(p.allows(Time::ZERO));
        p.on_send(Time::ZERO, 1448, rate, false); // data_segs_out = 10 ≥ 10: paced
        assert_eq!(p.next_departure(Time::ZERO), Time::from_nanos(1_158_400));
    }

    #[test]
    fn idle_time_earns_at_most_half_a_gap_of_credit() {
        let mut p = Edt {
            next: Time::from_millis(1),
            segments_sent: 20,
            credit: 0,
        };
        p.on_send(Time::from_millis(5), 1448, Some(Rate::from_mbps(10)), false);
        assert_eq!(
            p.next_departure(Time::ZERO),
            Time::from_millis(5) + Duration::from_nanos(579_200)
        );
    }

    #[test]
    fn the_packets_of_one_skb_share_its_credit_of_at_most_half_its_gap() {
        let rate = Some(Rate::from_mbps(10)); // 1448 B → 1158.4 µs
        let skb_at = |t: Time| {
            let mut p = Edt {
                next: Time::from_millis(1),
                segments_sent: 20,
                credit: 0,
            };
            for i in 0..3 {
                p.on_send(t, 1448, rate, i > 0);
            }
            p.next_departure(Time::ZERO) - t
        };
        // 4 ms late: the 3-packet skb earns half its 3475.2 µs gap
        assert_eq!(
            skb_at(Time::from_millis(5)),
            Duration::from_nanos(3 * 579_200)
        );
        // 0.1 ms late: it earns the 100 µs, once
        assert_eq!(
            skb_at(Time::from_micros(1100)),
            Duration::from_nanos(3 * 1_158_400 - 100_000)
        );
    }
}
