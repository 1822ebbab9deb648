//! What BBR variants compose with: the two halves of `bbr_main` and a few
//! accessors and setters. v1 itself runs `update_model` then `set_outputs`
//! with its own gains; a variant (oBBR, B3R) may act between the halves, pass
//! its own cwnd gain, rewrite a gain-cycle entry or the bandwidth filter.
//! Nothing here changes v1's behaviour.

use super::{filters::BwFilter, Bbr, State};
use crate::cc::Conn;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::RateSample;

impl Bbr {
    /// Linux `bbr_update_model` (the first half of `bbr_main`).
    pub(crate) fn update_model(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let now = self.clock().time(now);
        self.start_clock(now);
        if conn.mss > 0 {
            self.mss = conn.mss;
        }
        self.app_limited_requested = false;
        self.update_bw(conn, rs);
        self.update_ack_aggregation(conn, rs);
        self.update_cycle_phase(now, conn, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(now, conn);
        self.update_min_rtt(now, conn, rs);
        self.update_gains();
        // `ngx_bbr_update_recovery_mode`, which the artifact runs for valid samples only.
        if let (Some(sent), Some(_)) = (rs.reference.prior_sent, rs.interval) {
            self.epoch.on_sample(sent);
        }
    }

    /// Inside the artifact's recovery epoch (oBBR's gain stops regrowing there).
    pub(crate) fn in_artifact_recovery(&self) -> bool {
        self.epoch.in_recovery()
    }

    /// The second half of `bbr_main`: pace at `pacing_gain × bw()`, then size cwnd
    /// toward `cwnd_gain × bdp` (v1 passes its own `cwnd_gain`).
    pub(crate) fn set_outputs(&mut self, conn: &Conn, rs: &RateSample, cwnd_gain: f64) {
        let bw = self.bw();
        self.set_pacing_rate(conn, bw, self.pacing_gain);
        self.set_cwnd(conn, rs, rs.acked_sacked, bw, cwnd_gain);
    }

    /// Lowers cwnd to at most `cap` packets (oBBR's hard cap after `set_cwnd`).
    pub(crate) fn cap_cwnd(&mut self, cap: u32) {
        self.cwnd = self.cwnd.min(cap);
    }

    /// Rewrites one entry of the PROBE_BW pacing-gain cycle (B3R's probing gain).
    /// v1 reads the table on every ACK, so a change applies from the next update.
    pub(crate) fn set_cycle_gain(&mut self, phase: usize, gain: f64) {
        self.p.pacing_gain_cycle[phase] = gain;
    }

    /// The bandwidth filter `max_bw()` reads (oBBR resets and restores it).
    pub(crate) fn bw_filter_mut(&mut self) -> &mut dyn BwFilter {
        self.bw_filter.as_mut()
    }

    /// The cwnd gain v1 would use in the current state (`bbr_update_gains`).
    pub(crate) fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain
    }

    pub(crate) fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    /// Packet-timed round count (`rtt_cnt`), the bandwidth filter's clock.
    pub(crate) fn round(&self) -> u64 {
        self.rtt_cnt
    }

    /// The oBBR artifact's `ngx_bbr_target_cwnd(gain)` at `bw`, in packets (its bytes over
    /// the MSS, so possibly fractional).
    pub(crate) fn artifact_target_packets(&self, bw: f64, gain: f64) -> f64 {
        self.artifact_target_bytes(bw, gain) as f64 / self.mss as f64
    }

    /// BBR's own min_rtt (10 s window); `None` before any RTT sample.
    pub(crate) fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }

    /// The current PROBE_BW gain-cycle phase (meaningful in PROBE_BW only).
    #[cfg(test)]
    pub(crate) fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    /// Is the sender in PROBE_BW's probing phase (cycle index 0)?
    pub(crate) fn is_probing_phase(&self) -> bool {
        self.state == State::ProbeBw && self.cycle_idx == 0
    }

    /// How many times BBR has entered a state (including re-entering PROBE_BW);
    /// a change between two reads means a mode entry happened in between.
    pub(crate) fn entries(&self) -> u64 {
        self.entries
    }

    pub(crate) fn params(&self) -> &super::Params {
        &self.p
    }
}
