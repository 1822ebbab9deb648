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
//!
//! The oBBR artifact's QUIC BBR (`artifact_base`) counts bytes and has no TSO budget:
//!
//! ```text
//!   artifact_target(g)    = max(floor(g · floor(bw · mss · min_rtt)), 4 · mss)   bytes (ngx_bbr_target_cwnd)
//!   artifact_quantum      = mss below 1.2·2^20 bit/s, 2 · mss below 24·2^20 bit/s,
//!                           else min(pacing_rate / 1000, 64 KiB)                 bytes (ngx_bbr_quantum)
//!   cwnd target           = artifact_target(cwnd_gain) + 3 · artifact_quantum     (ngx_bbr_set_cwnd)
//! ```
//!
//! Its sender sends while `in_flight < window`, so a byte window of W admits
//! ceil(W / mss) packets; its phase tests compare bytes in flight, i.e. whole packets.

use super::{
    Bbr, Kernel, State, ARTIFACT_MIN_RTT_FLOOR_MS, ARTIFACT_QUANTA, ARTIFACT_QUANTUM_HIGH_BPS,
    ARTIFACT_QUANTUM_LOW_BPS, ARTIFACT_QUANTUM_MAX_BYTES, TCP_INIT_CWND, TSO_MAX_BYTES,
    TSO_MAX_SEGS,
};
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;
use std::cmp::Ordering;

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

/// The oBBR artifact's `ngx_bbr_target_cwnd`, bytes: `max(floor(gain · bdp), min_cwnd · mss)`
/// with `ngx_bbr_bdp` = `floor(bw · max(min_rtt, 1 ms))` bytes; its initial window before
/// any RTT sample.
pub fn artifact_target_bytes(
    bw_pps: f64,
    mss: u32,
    min_rtt: Option<Duration>,
    gain: f64,
    min_cwnd: u32,
    initial_cwnd: u32,
) -> u64 {
    let mss = mss as u64;
    let Some(rtt) = min_rtt else {
        return initial_cwnd as u64 * mss;
    };
    let rtt = rtt.max(Duration::from_millis(ARTIFACT_MIN_RTT_FLOOR_MS));
    let bdp = (bw_pps * mss as f64 * rtt.as_nanos() as f64 / NANOS_PER_SEC).floor();
    ((gain * bdp).floor() as u64).max(min_cwnd as u64 * mss)
}

/// The oBBR artifact's `ngx_bbr_quantum`, bytes: one packet at low pacing rates, two
/// at medium ones, else 1 ms of data up to 64 KiB.
pub fn artifact_quantum_bytes(pacing_rate_bytes: u64, mss: u32) -> u64 {
    let rate_bps = pacing_rate_bytes as f64 * 8.0;
    if rate_bps < ARTIFACT_QUANTUM_LOW_BPS {
        mss as u64
    } else if rate_bps < ARTIFACT_QUANTUM_HIGH_BPS {
        2 * mss as u64
    } else {
        (pacing_rate_bytes / 1000).min(ARTIFACT_QUANTUM_MAX_BYTES)
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
        if rs.reference.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = conn.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(conn, rs.losses, rs.reference.is_app_limited);
        let sample = delivered as f64 * 1e9 / interval.as_nanos() as f64;
        self.bw_filter
            .update(self.rtt_cnt, sample, rs.reference.is_app_limited);
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

    /// The oBBR artifact's `ngx_bbr_target_cwnd(gain)` at `bw`, bytes.
    pub(super) fn artifact_target_bytes(&self, bw: f64, gain: f64) -> u64 {
        artifact_target_bytes(
            bw,
            self.mss,
            self.min_rtt,
            gain,
            self.p.min_cwnd,
            self.initial_cwnd,
        )
    }

    /// How `in_net` packets compare with a phase's in-flight target at `gain` (the probing
    /// phase asks for ≥, the draining phase and DRAIN for ≤): Linux `bbr_inflight`, or the
    /// artifact's `ngx_bbr_target_cwnd` against the bytes in flight.
    pub(super) fn cmp_inflight_target(&self, in_net: u32, bw: f64, gain: f64) -> Ordering {
        if self.p.artifact_base {
            (in_net as u64 * self.mss as u64).cmp(&self.artifact_target_bytes(bw, gain))
        } else {
            in_net.cmp(&self.inflight(bw, gain))
        }
    }

    /// `bbr_set_cwnd`'s target, packets: Linux `quantization_budget(bdp(bw, gain) +
    /// aggregation_cwnd)`; the artifact's `ngx_bbr_target_cwnd(gain) + extra_acked +
    /// 3 · ngx_bbr_quantum` bytes, as the packets its `in_flight < window` test admits.
    pub(super) fn cwnd_target(&self, bw: f64, gain: f64) -> u32 {
        if !self.p.artifact_base {
            return self.quantization_budget(bdp(bw, self.min_rtt, gain) + self.aggregation_cwnd());
        }
        let mss = self.mss as u64;
        let bytes = self.artifact_target_bytes(bw, gain)
            + self.aggregation_cwnd() as u64 * mss
            + ARTIFACT_QUANTA * artifact_quantum_bytes(self.pacing_rate_bytes, self.mss);
        bytes.div_ceil(mss) as u32
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
    fn the_artifact_target_floors_bytes_and_keeps_four_packets() {
        let target = |bw, gain| {
            artifact_target_bytes(bw, 1252, Some(Duration::from_millis(40)), gain, 4, 32)
        };
        // 1000 pkt/s · 1252 B · 40 ms = 50 080 bytes; · 1.25 = 62 600
        assert_eq!(target(1000.0, 1.0), 50_080);
        assert_eq!(target(1000.0, 1.25), 62_600);
        // 110.1 pkt/s: floor(5513.6) = 5513; · 0.75 = 4134.75, below 4 · 1252 = 5008
        assert_eq!(target(110.1, 1.0), 5513);
        assert_eq!(target(110.1, 0.75), 5008);
        assert_eq!(
            artifact_target_bytes(1000.0, 1252, None, 2.0, 4, 32),
            32 * 1252
        );
        // a 0 ms min_rtt (sub-ms path, whole-ms RTTs) counts as 1 ms: 1000 pkt/s · 1252 B · 1 ms
        let zero = Some(Duration::ZERO);
        assert_eq!(artifact_target_bytes(1000.0, 1252, zero, 1.0, 0, 32), 1252);
    }

    #[test]
    fn the_artifact_quantum_is_one_or_two_packets_then_a_millisecond_up_to_64_kib() {
        // thresholds 1.2 · 2^20 / 8 = 157 286.4 and 24 · 2^20 / 8 = 3 145 728 bytes/s
        assert_eq!(artifact_quantum_bytes(157_286, 1252), 1252);
        assert_eq!(artifact_quantum_bytes(157_287, 1252), 2504);
        assert_eq!(artifact_quantum_bytes(3_145_727, 1252), 2504);
        assert_eq!(artifact_quantum_bytes(3_145_728, 1252), 3145);
        assert_eq!(artifact_quantum_bytes(12_500_000, 1252), 12_500); // 100 Mbit/s
        assert_eq!(artifact_quantum_bytes(100_000_000, 1252), 65_536);
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
