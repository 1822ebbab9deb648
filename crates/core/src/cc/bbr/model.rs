//! BBR's model arithmetic as free functions, so variants (BBR-S, BBR-Shallow,
//! oBBR) and later BBRv2/v3 compute inflight targets exactly as v1 does.
//!
//! Bandwidth is packets per second (`f64`); windows are packets. Each function
//! names the Linux helper it reproduces and keeps that helper's rounding:
//!
//! ```text
//!   bdp(bw, g)            = ceil(bw · min_rtt · g)              (TCP_INIT_CWND if no min_rtt)
//!   quantization_budget(c) = even_up(c + 3 · tso_segs_goal) (+ 2 while probing in PROBE_BW)
//!   tso_segs_goal         = clamp(min(rate >> shift, 64 KB − 1 − 320) / mss, 1|2, 127)
//!   in_net_at_edt(i)      = max(0, i − floor(bw · (edt − now)))
//!   pacing_rate           = floor(bw · mss · gain · (100 − margin) / 100)   bytes/s
//!   init_pacing_bw        = cwnd / (srtt in whole µs, or 1 ms before any sample)
//! ```

use super::{Bbr, Kernel, State, TCP_INIT_CWND, TSO_MAX_BYTES, TSO_MAX_SEGS};
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

const NANOS_PER_SEC: f64 = 1e9;

/// Linux `bbr_bdp`: `ceil(bw × min_rtt × gain)` packets, or `TCP_INIT_CWND` when
/// no RTT has been measured. Rounding up "avoids a negative feedback loop".
pub fn bdp(bw_pps: f64, min_rtt: Option<Duration>, gain: f64) -> u32 {
    let Some(rtt) = min_rtt else {
        return TCP_INIT_CWND;
    };
    // Multiply first, divide once: exact whenever the true product is an integer.
    (bw_pps * rtt.as_nanos() as f64 * gain / NANOS_PER_SEC).ceil() as u32
}

/// Linux `bbr_quantization_budget`: room for three TSO bursts (qdisc, NIC,
/// receiver's GRO/delayed ACK), rounded up to an even count to reduce delayed
/// ACKs, plus 2 in the probing phase so gain cycling gets inflight above BDP.
pub fn quantization_budget(cwnd: u32, tso_segs_goal: u32, probing: bool) -> u32 {
    let cwnd = cwnd.saturating_add(3 * tso_segs_goal);
    let cwnd = cwnd.saturating_add(1) & !1;
    if probing {
        cwnd.saturating_add(2)
    } else {
        cwnd
    }
}

/// Linux `bbr_min_tso_segs`: 1 segment below `min_tso_rate_bps`, else 2.
pub fn min_tso_segs(pacing_rate_bytes: u64, min_tso_rate_bps: u64) -> u32 {
    if pacing_rate_bytes < min_tso_rate_bps >> 3 {
        1
    } else {
        2
    }
}

/// Linux `bbr_tso_segs_goal`: segments per TSO burst, about 1 ms of data at
/// the pacing rate (`>> pacing_shift`), at most 64 KB and 127 segments.
pub fn tso_segs_goal(
    pacing_rate_bytes: u64,
    mss: u32,
    pacing_shift: u32,
    min_tso_rate_bps: u64,
) -> u32 {
    let bytes = (pacing_rate_bytes >> pacing_shift).min(TSO_MAX_BYTES);
    let segs = (bytes / mss.max(1) as u64) as u32;
    segs.max(min_tso_segs(pacing_rate_bytes, min_tso_rate_bps))
        .min(TSO_MAX_SEGS)
}

/// Linux `bbr_packets_in_net_at_edt`: packets still in the network when the
/// next packet may depart (`until_edt` from now), i.e. `inflight_at_edt` (the
/// caller adds the EDT burst when increasing inflight) minus what the path
/// delivers meanwhile. Linux measures `until_edt` in whole µs.
pub fn in_net_at_edt(inflight_at_edt: u32, bw_pps: f64, until_edt: Duration) -> u32 {
    let delivered = (bw_pps * until_edt.as_micros() as f64 / 1e6).floor();
    if delivered >= inflight_at_edt as f64 {
        0
    } else {
        inflight_at_edt - delivered as u32
    }
}

/// Linux `bbr_rate_bytes_per_sec`: `bw × mss × gain` less the pacing margin,
/// floored to whole bytes per second.
pub fn pacing_rate_bytes(bw_pps: f64, mss: u32, gain: f64, margin_percent: u32) -> u64 {
    (bw_pps * mss as f64 * gain * (100 - margin_percent) as f64 / 100.0).floor() as u64
}

/// The bandwidth of Linux `bbr_init_pacing_rate_from_rtt`: `cwnd / rtt` packets/s,
/// with rtt = srtt in whole µs (at least 1) or a nominal 1 ms before any sample.
pub fn init_pacing_bw(cwnd: u32, srtt: Option<Duration>) -> f64 {
    let rtt_us = srtt.map_or(1_000, |srtt| srtt.as_micros().max(1));
    cwnd as f64 * 1e6 / rtt_us as f64
}

/// Packets the path delivers at `bw_pps` in `d`, floored (Linux `bw * us >> BW_SCALE`).
pub fn packets_in(bw_pps: f64, d: Duration) -> u32 {
    (bw_pps * d.as_nanos() as f64 / NANOS_PER_SEC).floor() as u32
}

/// Bbr's bindings of the model to its own state (Linux passes `sk` for these).
impl Bbr {
    /// Linux `bbr_update_bw`: round counting, policer sampling, then the bandwidth filter.
    pub(super) fn update_bw(&mut self, conn: &Conn, rs: &RateSample) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        if interval.is_zero() {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = conn.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(conn, rs.losses, rs.is_app_limited);
        let sample = delivered as f64 * 1e9 / interval.as_nanos() as f64;
        self.bw_filter
            .update(self.rtt_cnt, sample, rs.is_app_limited);
    }

    /// Linux `bbr_tso_segs_goal` at the current pacing rate.
    pub(super) fn tso_segs_goal(&self) -> u32 {
        tso_segs_goal(
            self.pacing_rate_bytes,
            self.mss,
            self.p.pacing_shift,
            self.p.min_tso_rate_bps,
        )
    }

    /// Linux `bbr_inflight`: `quantization_budget(bdp(bw, gain))`.
    pub(super) fn inflight(&self, bw: f64, gain: f64) -> u32 {
        self.quantization_budget(bdp(bw, self.min_rtt, gain))
    }

    /// Linux `bbr_quantization_budget`, with the +2 of the first (probing) PROBE_BW phase
    /// (not before v5.1).
    pub(super) fn quantization_budget(&self, cwnd: u32) -> u32 {
        let probing =
            self.p.kernel == Kernel::V5 && self.state == State::ProbeBw && self.cycle_idx == 0;
        quantization_budget(cwnd, self.tso_segs_goal(), probing)
    }

    /// Linux `bbr_packets_in_net_at_edt`; before v4.20, and in the artifact's QUIC stack
    /// (no EDT), the packets in flight.
    pub(super) fn in_net_at_edt(&self, now: Time, conn: &Conn, inflight_now: u32) -> u32 {
        if self.p.kernel == Kernel::V4_17 || self.p.artifact_base {
            return inflight_now;
        }
        let edt_skb = if self.pacing_gain > 1.0 {
            self.tso_segs_goal()
        } else {
            0
        };
        in_net_at_edt(
            inflight_now + edt_skb,
            self.bw(),
            conn.next_departure.saturating_since(now),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bdp_rounds_up_and_defaults_to_the_initial_window() {
        let ms = Duration::from_millis;
        assert_eq!(bdp(1000.0, Some(ms(10)), 2.0), 20); // exact products stay exact
        assert_eq!(bdp(1000.0, Some(ms(10)), 739.0 / 256.0), 29); // 28.87
        assert_eq!(bdp(1000.0, Some(Duration::from_micros(10_001)), 1.0), 11);
        assert_eq!(bdp(1e6, None, 2.0), TCP_INIT_CWND);
    }

    #[test]
    fn quantization_budget_adds_three_bursts_rounds_to_even_and_adds_two_when_probing() {
        assert_eq!(quantization_budget(20, 2, false), 26);
        assert_eq!(quantization_budget(21, 2, false), 28);
        assert_eq!(quantization_budget(21, 2, true), 30);
        assert_eq!(quantization_budget(20, 1, false), 24);
    }

    #[test]
    fn tso_goal_is_a_millisecond_of_data_with_a_one_or_two_segment_floor() {
        let goal = |rate| tso_segs_goal(rate, 1448, 10, 1_200_000);
        assert_eq!(goal(149_999), 1); // below 1.2 Mbit/s
        assert_eq!(goal(150_000), 2);
        assert_eq!(goal(1448 * 1024 * 3), 3);
        assert_eq!(goal(1_250_000_000), 45); // 10 Gbit/s: 65 215 B cap / 1448
        assert_eq!(tso_segs_goal(1_250_000_000, 100, 10, 1_200_000), 127);
    }

    #[test]
    fn in_net_at_edt_subtracts_whole_packets_delivered_before_the_departure() {
        let us = Duration::from_micros;
        assert_eq!(in_net_at_edt(20, 1000.0, us(0)), 20);
        assert_eq!(in_net_at_edt(20, 1000.0, us(4_999)), 16);
        assert_eq!(
            in_net_at_edt(20, 1000.0, Duration::from_nanos(5_000_999)),
            15
        );
        assert_eq!(in_net_at_edt(3, 1000.0, us(10_000)), 0);
    }

    #[test]
    fn pacing_rate_is_floored_after_the_margin() {
        assert_eq!(pacing_rate_bytes(1000.0, 1448, 1.0, 1), 1_433_520);
        assert_eq!(pacing_rate_bytes(1000.0, 1448, 739.0 / 256.0, 1), 4_138_169);
        assert_eq!(pacing_rate_bytes(1000.0, 1448, 1.0, 0), 1_448_000);
    }
}
