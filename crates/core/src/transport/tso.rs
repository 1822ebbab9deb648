//! TSO sizing: how many segments Linux TCP puts in one skb (`tcp_tso_autosize`).
//!
//! An skb holds about 1 ms of the pacing rate (`sk_pacing_rate >> sk_pacing_shift`), at
//! least `tcp_min_tso_segs` and at most one GSO frame. The send buffer charges its memory per skb;
//! a sender with TSO on (scenario field `tso`) also puts each skb on the wire as one burst:
//! the pacer spaces skbs, and the NIC sends an skb's segments back to back at its line rate.
//! The BBR family sizes its skbs itself (`CongestionControl::tso_segs`: `bbr_tso_segs_goal`,
//! whose floor is 1 segment below 1.2 Mbit/s). Otherwise, as Linux before 5.18: no
//! `tcp_tso_rtt_log` term (it adds 64 KB >> (min_rtt / 512 µs), below one segment on paths of
//! 8 ms or more).
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `MIN_TSO_SEGS` | 2 | segments | floor of an skb | `net.ipv4.tcp_min_tso_segs` |
//! | `MAX_GSO_BYTES` | 65 536 | B | ceiling of an skb | `GSO_LEGACY_MAX_SIZE` (`sk_gso_max_size`) |
//! | `PACING_SHIFT` | 10 | — | an skb ≈ rate >> 10 (≈ 1 ms) | `sk_pacing_shift` |

const MIN_TSO_SEGS: u64 = 2;
const MAX_GSO_BYTES: u64 = 65_536;
const PACING_SHIFT: u32 = 10;

/// `tcp_xmit_size_goal`: the payload of the skbs `tcp_sendmsg` builds, one GSO frame of whole
/// segments, which `tcp_tso_autosize` splits only as they are sent. (Linux also bounds it by half
/// the peer's largest window, which never binds on the paths modelled here.)
pub fn size_goal(mss: u64) -> u64 {
    (MAX_GSO_BYTES / mss).max(1) * mss
}

/// `tcp_tso_autosize`: segments of `mss` bytes in one skb at `pacing_bps` (bit/s).
pub fn autosize(pacing_bps: u64, mss: u64) -> u64 {
    let bytes = ((pacing_bps / 8) >> PACING_SHIFT).min(MAX_GSO_BYTES);
    (bytes / mss).max(MIN_TSO_SEGS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_skb_is_a_millisecond_of_the_pacing_rate_within_its_floor_and_one_gso_frame() {
        // 100 Mbit/s: 12 500 000 B/s >> 10 = 12 207 B → 8 segments of 1448 B
        assert_eq!(autosize(100_000_000, 1448), 8);
        assert_eq!(autosize(10_000_000, 1448), 2); // 1220 B: the floor
        assert_eq!(autosize(10_000_000_000, 1448), 45); // 65 536 / 1448
    }

    #[test]
    fn a_write_fills_skbs_of_one_gso_frame_of_whole_segments() {
        assert_eq!(size_goal(1448), 45 * 1448);
        assert_eq!(size_goal(1252), 52 * 1252);
        assert_eq!(size_goal(65_483), 65_483);
        assert_eq!(size_goal(70_000), 70_000);
    }
}
