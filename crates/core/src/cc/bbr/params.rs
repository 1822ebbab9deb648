//! [`Params`]: every BBR v1 constant, overridable from a scenario (`{ kind = "bbr",
//! cwnd_gain = 1.5 }`). `Default` is Linux; see the constants table in the module header.
//! A table's `artifact_base` and `kernel` choose the preset ([`Params::preset`]) its other
//! fields start from, and a field the table writes overrides the preset's value.

use super::*;
use crate::cc::{at_least_one, below, non_negative, over_preset, positive};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The mainline `tcp_bbr.c` a flow runs. BBR v1's algorithm is the same in every release;
/// these are the releases whose inflight provisioning differs (see the module header).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum Kernel {
    /// v5.4 and later (the spec's reference): the ACK-aggregation allowance (v5.1), +2
    /// packets in the probing phase (v5.1, limited to that phase in v5.4), and DRAIN and
    /// gain-cycle checks on the packets in the network at the next departure (v4.20, EDT).
    #[default]
    #[serde(rename = "5.x")]
    V5,
    /// v4.16–v4.19 (e.g. the AICT'19 testbed's v4.17): none of those three.
    #[serde(rename = "4.17")]
    V4_17,
}

/// What opens and closes the loss-recovery epoch in which BBR conserves packets for a
/// round and after which it restores its saved cwnd.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryEpochRule {
    /// Linux: TCP's Recovery state, from the first loss until everything outstanding then
    /// is acknowledged (`bbr_set_cwnd_to_recover_or_restore` on `icsk_ca_state`).
    #[default]
    Tcp,
    /// The oBBR artifact's QUIC BBR: its own epoch, which every loss extends
    /// (`ngx_bbr_update_recovery_mode`; `recovery.rs`).
    Artifact,
}

/// BBR v1 parameters. Gains are plain factors (Linux's k/256 fractions are exact in `f64`).
/// (`remote = "Self"`: the derived field-by-field code becomes the inherent
/// `Params::deserialize` and `Params::serialize`, which the trait impls below wrap with the
/// presets. Outside this file, read a table through the trait, e.g. `serde_json::from_value`:
/// the inherent `Params::deserialize` skips the presets.)
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(remote = "Self", default, deny_unknown_fields)]
pub struct Params {
    /// STARTUP pacing and cwnd gain; DRAIN cwnd gain.
    pub high_gain: f64,
    /// DRAIN pacing gain.
    pub drain_gain: f64,
    /// PROBE_BW cwnd gain (BBR-Shallow uses 1.5).
    pub cwnd_gain: f64,
    /// PROBE_BW pacing gains; phase 0 is the probing phase (quantization budget +2).
    pub pacing_gain_cycle: Vec<f64>,
    /// The PROBE_BW start phase is `len − 1 − rand(cycle_rand)`, then advanced once.
    pub cycle_rand: u32,
    /// Max-bw filter window, packet-timed rounds.
    pub bw_filter_rounds: u64,
    /// min_rtt expiry (PROBE_RTT period), ms.
    pub min_rtt_window_ms: u64,
    /// Least time at `min_cwnd` in PROBE_RTT, ms.
    pub probe_rtt_duration_ms: u64,
    /// Start PROBE_RTT's hold only once inflight is down to `min_cwnd` (Linux); false
    /// starts it on the entering ACK (the oBBR artifact's nginx-quic BBR).
    pub probe_rtt_wait_for_drain: bool,
    /// If positive, the hold is at most this many smoothed RTTs (the artifact: 2).
    pub probe_rtt_srtt_cap: f64,
    /// Run the oBBR artifact's nginx-quic BBR base instead: in a table, the preset for
    /// `extra_acked_gain`, `pacing_margin_percent`, `lt_enabled`, `probe_rtt_wait_for_drain`,
    /// `probe_rtt_srtt_cap` and `recovery_epoch` ([`Params::preset`]); and, its QUIC stack
    /// having no EDT, the gain cycle and DRAIN test the packets in flight as they are
    /// (`sampler->prior_inflight`, `sampler->in_flight`) against `max(gain · BDP, 4)` bytes
    /// without Linux's TSO budget, the cwnd target is that plus 3 send quanta
    /// (`ngx_bbr_quantum`; `model.rs`), STARTUP's cwnd grows above its target while less
    /// than the initial window is delivered (Linux: `TCP_INIT_CWND`), and an expired min_rtt
    /// takes the next sample even from a delayed ACK (`ngx_bbr_update_min_rtt` has no
    /// `is_ack_delayed`), its timers (gain-cycle phases, min_rtt expiry, the PROBE_RTT
    /// hold, which ends at its stamp, and the variants' own) compare nginx's whole
    /// milliseconds (`sampler->now` = `ngx_current_msec`; srtt in whole ms too); its stack
    /// runs it only for ACKs with a valid rate sample (`ngx_generate_sample`;
    /// [`CongestionControl::valid_samples_only`]).
    ///
    /// [`CongestionControl::valid_samples_only`]: crate::cc::CongestionControl::valid_samples_only
    pub artifact_base: bool,
    /// Which mainline `tcp_bbr.c` to run: `"5.x"` (v5.4 on, the spec's reference) or
    /// `"4.17"` (v4.16–v4.19: no ACK-aggregation allowance, the preset's
    /// `extra_acked_gain = 0`; no +2 in the probing phase, DRAIN and gain-cycle checks on
    /// packets in flight; see [`Kernel`]).
    pub kernel: Kernel,
    /// `"tcp"` (Linux) or `"artifact"` (the `artifact_base` preset): see [`RecoveryEpochRule`].
    pub recovery_epoch: RecoveryEpochRule,
    /// cwnd floor and PROBE_RTT cwnd, packets (`bbr_cwnd_min_target`).
    pub min_cwnd: u32,
    /// STARTUP keeps going while max_bw grows by this factor per round.
    pub full_bw_thresh: f64,
    /// Rounds without that growth that end STARTUP.
    pub full_bw_rounds: u32,
    /// Pace this many percent below `gain × bw`.
    pub pacing_margin_percent: u32,
    /// Below this pacing rate (bit/s) the TSO goal floor is 1 segment, else 2.
    pub min_tso_rate_bps: u64,
    /// `sk_pacing_shift`: TSO goal ≈ `pacing_rate >> pacing_shift` bytes.
    pub pacing_shift: u32,
    /// Gain on `extra_acked` in the cwnd target (0 disables ACK-aggregation tracking).
    pub extra_acked_gain: f64,
    /// Length of each of the two extra_acked buckets, rounds.
    pub extra_acked_win_rounds: u32,
    /// Aggregation cwnd cap: bw × this, ms.
    pub extra_acked_max_ms: u64,
    /// Packets acked in one ACK epoch after which the epoch restarts.
    pub ack_epoch_acked_reset: u32,
    /// Long-term (policer) bandwidth detection on/off.
    pub lt_enabled: bool,
    /// Shortest policer sampling interval, rounds (the longest is 4×).
    pub lt_intvl_min_rounds: u32,
    /// lost/delivered ratio of a lossy interval.
    pub lt_loss_thresh: f64,
    /// Relative bw difference of two consistent intervals.
    pub lt_bw_ratio: f64,
    /// Absolute bw difference of two consistent intervals, bytes/s.
    pub lt_bw_diff_bytes_per_sec: f64,
    /// Rounds in PROBE_BW during which lt_bw is used.
    pub lt_bw_max_rounds: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            high_gain: HIGH_GAIN,
            drain_gain: DRAIN_GAIN,
            cwnd_gain: CWND_GAIN,
            pacing_gain_cycle: PACING_GAIN_CYCLE.to_vec(),
            cycle_rand: CYCLE_RAND,
            bw_filter_rounds: BW_FILTER_ROUNDS,
            min_rtt_window_ms: MIN_RTT_WINDOW_MS,
            probe_rtt_duration_ms: PROBE_RTT_DURATION_MS,
            probe_rtt_wait_for_drain: true,
            probe_rtt_srtt_cap: 0.0,
            artifact_base: false,
            kernel: Kernel::default(),
            recovery_epoch: RecoveryEpochRule::Tcp,
            min_cwnd: CWND_MIN_TARGET,
            full_bw_thresh: FULL_BW_THRESH,
            full_bw_rounds: FULL_BW_ROUNDS,
            pacing_margin_percent: PACING_MARGIN_PERCENT,
            min_tso_rate_bps: MIN_TSO_RATE_BPS,
            pacing_shift: PACING_SHIFT,
            extra_acked_gain: EXTRA_ACKED_GAIN,
            extra_acked_win_rounds: EXTRA_ACKED_WIN_ROUNDS,
            extra_acked_max_ms: EXTRA_ACKED_MAX_MS,
            ack_epoch_acked_reset: ACK_EPOCH_ACKED_RESET,
            lt_enabled: true,
            lt_intvl_min_rounds: LT_INTVL_MIN_ROUNDS,
            lt_loss_thresh: LT_LOSS_THRESH,
            lt_bw_ratio: LT_BW_RATIO,
            lt_bw_diff_bytes_per_sec: LT_BW_DIFF_BYTES_PER_SEC,
            lt_bw_max_rounds: LT_BW_MAX_ROUNDS,
        }
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Params::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Params {
    /// The table's `artifact_base` and `kernel` pick the preset; its fields override it.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let table = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        let linux = Params::default();
        let artifact_base = selector(&table, "artifact_base", linux.artifact_base)?;
        let kernel = selector(&table, "kernel", linux.kernel)?;
        let preset = Params::preset(artifact_base, kernel);
        Params::deserialize(over_preset(&preset, table)).map_err(D::Error::custom)
    }
}

/// A field of `table` that picks the preset, or `default` where the table has none.
fn selector<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    table: &serde_json::Map<String, serde_json::Value>,
    key: &str,
    default: T,
) -> Result<T, E> {
    match table.get(key) {
        None => Ok(default),
        Some(v) => T::deserialize(v).map_err(E::custom),
    }
}

impl Params {
    /// Linux's parameters as a release or the oBBR artifact's nginx-quic BBR
    /// (`ngx_bbr.c`, the base of the ATC'23 paper's BBR, B3R, BBR-S and oBBR) has them,
    /// where those differ in v1 parameters. `kernel = "4.17"`: no ACK-aggregation allowance
    /// (v5.1 added it). `artifact_base`: STARTUP and DRAIN gains 2.885 and 1/2.885, no
    /// ACK-aggregation allowance, no pacing margin, no
    /// long-term (policer) mode, a PROBE_RTT hold of min(2·srtt, 200 ms) from the entering
    /// ACK, its own recovery epoch (and, outside the parameters, the packets in flight without
    /// EDT credit and the artifact's byte targets and send quanta: [`Params::artifact_base`]).
    pub fn preset(artifact_base: bool, kernel: Kernel) -> Self {
        let linux = Params {
            artifact_base,
            kernel,
            ..Params::default()
        };
        let own = if kernel == Kernel::V4_17 {
            Params {
                extra_acked_gain: 0.0,
                ..linux
            }
        } else {
            linux
        };
        if !artifact_base {
            return own;
        }
        Params {
            high_gain: ARTIFACT_HIGH_GAIN,
            drain_gain: ARTIFACT_DRAIN_GAIN,
            extra_acked_gain: 0.0,
            pacing_margin_percent: 0,
            lt_enabled: false,
            probe_rtt_wait_for_drain: false,
            probe_rtt_srtt_cap: ARTIFACT_PROBE_RTT_SRTTS,
            recovery_epoch: RecoveryEpochRule::Artifact,
            ..own
        }
    }

    /// Checks the values the algorithm cannot run with, naming the field.
    pub fn validate(&self) -> Result<(), String> {
        non_negative(&[
            ("high_gain", self.high_gain),
            ("drain_gain", self.drain_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("full_bw_thresh", self.full_bw_thresh),
            ("extra_acked_gain", self.extra_acked_gain),
            ("probe_rtt_srtt_cap", self.probe_rtt_srtt_cap),
            ("lt_loss_thresh", self.lt_loss_thresh),
            ("lt_bw_ratio", self.lt_bw_ratio),
            ("lt_bw_diff_bytes_per_sec", self.lt_bw_diff_bytes_per_sec),
        ])?;
        let len = self.pacing_gain_cycle.len();
        if len == 0 {
            return Err("pacing_gain_cycle = [] has no phase: allowed 1 or more gains > 0".into());
        }
        let phases: Vec<(String, f64)> = self
            .pacing_gain_cycle
            .iter()
            .enumerate()
            .map(|(i, g)| (format!("pacing_gain_cycle[{i}]"), *g))
            .collect();
        positive(&phases)?;
        if self.cycle_rand as usize >= len {
            return Err(format!(
                "cycle_rand = {} is not a phase of pacing_gain_cycle ({len} long): allowed 0 ≤ cycle_rand ≤ {}",
                self.cycle_rand,
                len - 1
            ));
        }
        at_least_one(&[
            ("bw_filter_rounds", self.bw_filter_rounds),
            ("min_rtt_window_ms", self.min_rtt_window_ms),
            ("min_cwnd", u64::from(self.min_cwnd)),
            ("full_bw_rounds", u64::from(self.full_bw_rounds)),
            (
                "extra_acked_win_rounds",
                u64::from(self.extra_acked_win_rounds),
            ),
        ])?;
        below(&[
            (
                "pacing_margin_percent",
                u64::from(self.pacing_margin_percent),
                100,
            ),
            ("pacing_shift", u64::from(self.pacing_shift), 64),
        ])
    }
}
