//! The smoothed RTT the nginx-quic pacer divides a window-based algorithm's window by: QUIC's
//! `avg_rtt` as the ATC'23 testbed keeps it (`ngx_quic_rtt_sample`, nginx-quic in the oBBR
//! artifact), in whole milliseconds of nginx's clock.
//!
//! ```text
//!   latest = now_ms − sent_ms of the newest packet an ACK newly acknowledges
//!   first:  min = avg = latest
//!   then:   min = min(min, latest);  ack_delay = min(ack_delay, max_ack_delay)
//!           adjusted = latest − ack_delay if min + ack_delay < latest, else latest
//!           avg = avg − avg>>3 + adjusted>>3
//! ```
//!
//! Each eighth is truncated on its own, so a steady RTT of r ms leaves `avg` anywhere from r
//! to r + 7 ms, wherever it came from (from above, a 40 ms path keeps 47 ms): the pacing rate
//! at 1.2 × window / avg_rtt can be as low as 1.02 × window / RTT.
//!
//! The ACK delay is the peer's report (the time since the largest packet it acknowledges
//! arrived) in its 8 µs units (`ack_delay_exponent` 3), floored to ms.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `QUICHE_MAX_ACK_DELAY` | 25 | ms | the peer's largest ACK delay (`receiver`) | QUICHE `kDefaultDelayedAckTimeMs` (transport parameter) |
//! | `ACK_DELAY_EXPONENT` | 3 | — | ACK delay in units of 2³ µs | RFC 9000 default |

use crate::time::{Duration, Time};
use crate::transport::receiver::QUICHE_MAX_ACK_DELAY;

const ACK_DELAY_EXPONENT: u32 = 3;

#[derive(Clone, Debug, Default)]
pub struct AvgRtt {
    /// `(min_rtt, avg_rtt)` in ms; `None` before the first sample.
    ms: Option<(u64, u64)>,
}

impl AvgRtt {
    /// An ACK newly acknowledged a packet sent at `sent`; the peer held it `ack_delay`.
    pub fn on_sample(&mut self, now: Time, sent: Time, ack_delay: Duration) {
        let latest = now.as_millis() - sent.as_millis();
        let Some((min, avg)) = self.ms else {
            self.ms = Some((latest, latest));
            return;
        };
        let min = min.min(latest);
        let units = ack_delay.as_micros() >> ACK_DELAY_EXPONENT;
        let delay = ((units << ACK_DELAY_EXPONENT) / 1000).min(QUICHE_MAX_ACK_DELAY.as_millis());
        let adjusted = if min + delay < latest {
            latest - delay
        } else {
            latest
        };
        self.ms = Some((min, avg - (avg >> 3) + (adjusted >> 3)));
    }

    /// `avg_rtt`, whole ms.
    pub fn avg(&self) -> Option<Duration> {
        self.ms.map(|(_, avg)| Duration::from_millis(avg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    #[test]
    fn the_integer_average_parks_up_to_7_ms_above_a_steady_rtt() {
        let mut a = AvgRtt::default();
        a.on_sample(ms(100), ms(0), Duration::ZERO);
        assert_eq!(a.avg(), Some(Duration::from_millis(100)));
        // from 100 ms down to a steady 40: 100 → 93 → 88 → … stops where avg>>3 = 40>>3 = 5
        for i in 1..200 {
            a.on_sample(ms(1000 * i + 40), ms(1000 * i), Duration::ZERO);
        }
        assert_eq!(a.avg(), Some(Duration::from_millis(47)));
        // from below it climbs only to 40
        let mut b = AvgRtt::default();
        b.on_sample(ms(10), ms(0), Duration::ZERO);
        for i in 1..200 {
            b.on_sample(ms(1000 * i + 40), ms(1000 * i), Duration::ZERO);
        }
        assert_eq!(b.avg(), Some(Duration::from_millis(40)));
    }

    #[test]
    fn the_ack_delay_is_taken_off_above_the_minimum_capped_at_25_ms() {
        let mut a = AvgRtt::default();
        a.on_sample(ms(40), ms(0), Duration::ZERO);
        // 80 ms with 30 ms of delay: 25 ms comes off (55), avg = 40 − 5 + 6 = 41
        a.on_sample(ms(1080), ms(1000), Duration::from_millis(30));
        assert_eq!(a.avg(), Some(Duration::from_millis(41)));
        // 50 ms with 15.999 ms of delay (15 ms once floored): 40 + 15 ≥ 50, so nothing comes
        // off: avg = 41 − 5 + 6 = 42
        a.on_sample(ms(2050), ms(2000), Duration::from_micros(15_999));
        assert_eq!(a.avg(), Some(Duration::from_millis(42)));
    }

    /// nginx takes the delay off only when `min_rtt + ack_delay < latest` (RFC 9002 has `≤`).
    #[test]
    fn a_delay_under_the_cap_comes_off_whole_and_only_strictly_above_the_minimum() {
        let mut a = AvgRtt::default();
        a.on_sample(ms(40), ms(0), Duration::ZERO);
        // 80 ms with 10 ms of delay: 70 → avg = 40 − 5 + 8 = 43
        a.on_sample(ms(1080), ms(1000), Duration::from_millis(10));
        assert_eq!(a.avg(), Some(Duration::from_millis(43)));
        // 50 ms with 10 ms: 40 + 10 is not below 50, nothing comes off → 43 − 5 + 6 = 44
        a.on_sample(ms(2050), ms(2000), Duration::from_millis(10));
        assert_eq!(a.avg(), Some(Duration::from_millis(44)));
    }
}
