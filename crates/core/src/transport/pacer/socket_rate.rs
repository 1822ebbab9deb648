//! Linux's `sk_pacing_rate` for an algorithm without a pacing rate of its own (CUBIC, Reno):
//! `tcp_update_pacing_rate`, run on every ACK. Nothing paces at it without `fq`, but it sizes
//! TSO skbs (`tcp_tso_autosize`) and the send buffer's per-skb charge.
//!
//! ```text
//!   rate = mss · max(cwnd, packets_out) / srtt · ratio
//!   ratio = 200 % while cwnd < ssthresh / 2 (slow start with room to double), else 120 %
//! ```
//!
//! `srtt` at Linux's resolution (`srtt_us`, an eighth of a microsecond).
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `SS_RATIO` | 200 | % | ratio while cwnd < ssthresh / 2 | `net.ipv4.tcp_pacing_ss_ratio` |
//! | `CA_RATIO` | 120 | % | ratio otherwise | `net.ipv4.tcp_pacing_ca_ratio` |

use crate::time::Duration;
use crate::units::Rate;

const SS_RATIO: u64 = 200;
const CA_RATIO: u64 = 120;

/// The window a sender paces from, in packets (`ssthresh` `None` = not yet set).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub mss: u32,
    pub cwnd: u32,
    pub packets_out: u32,
    pub ssthresh: Option<u32>,
}

/// `tcp_update_pacing_rate`; `None` before the first RTT sample.
pub fn socket_pacing_rate(w: Window, srtt: Option<Duration>) -> Option<Rate> {
    let srtt_us8 = srtt?.as_nanos() * 8 / 1000;
    let ratio = if w.ssthresh.is_none_or(|ss| w.cwnd < ss / 2) {
        SS_RATIO
    } else {
        CA_RATIO
    };
    // Linux: mss · ((USEC_PER_SEC / 100) << 3) · ratio · packets / srtt_us, in bytes/s
    let bytes_per_s =
        w.mss as u64 * (10_000 << 3) * ratio * w.cwnd.max(w.packets_out) as u64 / srtt_us8.max(1);
    Some(Rate::from_bps(bytes_per_s * 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(cwnd: u32, packets_out: u32, ssthresh: Option<u32>) -> Window {
        Window {
            mss: 1448,
            cwnd,
            packets_out,
            ssthresh,
        }
    }

    #[test]
    fn twice_the_window_rate_until_cwnd_reaches_half_of_ssthresh_then_1_2_times() {
        let srtt = Some(Duration::from_millis(100));
        // 10 × 1448 B per 100 ms = 144 800 B/s; × 2 = 289 600 B/s
        let initial = socket_pacing_rate(window(10, 0, None), srtt).unwrap();
        assert_eq!(initial.bps(), 289_600 * 8);
        assert_eq!(
            socket_pacing_rate(window(49, 0, Some(100)), srtt)
                .unwrap()
                .bps(),
            2 * 49 * 14_480 * 8
        );
        // at ssthresh / 2 (still below ssthresh): 1.2 ×
        let at_half = socket_pacing_rate(window(50, 0, Some(100)), srtt).unwrap();
        assert_eq!(at_half.bps(), 50 * 14_480 * 12 / 10 * 8);
    }

    #[test]
    fn packets_out_above_cwnd_count_and_srtt_keeps_microseconds() {
        let srtt = Some(Duration::from_micros(12_345));
        let r = socket_pacing_rate(window(10, 20, Some(10)), srtt).unwrap();
        // 1448 · 80 000 · 120 · 20 / 98 760 = 2 815 066 B/s (integer division)
        assert_eq!(r.bps(), 2_815_066 * 8);
        assert!(socket_pacing_rate(window(10, 0, None), None).is_none());
    }
}
