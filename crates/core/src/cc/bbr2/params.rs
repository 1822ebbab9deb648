//! [`Params`]: every BBRv2/v3 constant and behavioural switch, overridable from a
//! scenario (`{ kind = "bbr3", beta = 0.5 }`), with three presets:
//!
//! * `"bbr2"` — [`Params::default`]: google/bbr v2alpha `tcp_bbr2.c` (8d11b540).
//! * `"bbr3"` — [`Params::v3`]: google/bbr v3 `tcp_bbr.c` (001a430b), the v2 code
//!   with v3's constants and the behavioural deltas of spec §2.5 switched on.
//! * `"bbr2-quic"` — [`Params::quic`]: **the oBBR artifact's nginx-quic BBRv2
//!   constants** (`ngx_bbr2.c`), the baseline the USENIX ATC'23 oBBR paper calls
//!   "BBRv2". Use it with the flow's `mss = 1252` and `initial_cwnd = 32` to
//!   match that stack. Its constants are modelled (its ACK-epoch reset, 2^20 bytes,
//!   in packets of that MSS), plus its 1.5 STARTUP pacing gain in Recovery and a
//!   pacing rate that may fall during Recovery in any state, two structural
//!   differences that change how it reacts to loss (`loss_round_restart = false`,
//!   `prior_inflight_raw`; see the fields), its PROBE_RTT window taking a delayed
//!   ACK's RTT when it expires (`delayed_ack_rtt_on_expiry`), a PROBE_RTT entry
//!   that lets the current round run on (`probe_rtt_round_restart = false`), and a
//!   stack that runs it only on ACKs with a valid sample (`valid_samples_only`: none
//!   yet, or an interval below the minimum RTT, and `ngx_generate_sample` returns false;
//!   an ACK without a newer reference packet still runs it, on the kept reference of the
//!   sampler, `rate_sample.rs`), with its timers on nginx's millisecond clock
//!   (`millisecond_clock`). Its whole-millisecond RTTs come with the flow's
//!   `rate_sampler = "nginx-quic"`. The rest runs on the Linux v2 code; these
//!   differences are not modelled: bytes instead of packets (its datagram is the
//!   1252-byte MSS, so its byte counts are whole packets), a floored BDP without TSO
//!   budget, no ECN, the port's own recovery epoch (`ngx_bbr2_on_lost`; TCP's Recovery
//!   state stands in, which matters only before the pipe is full) and the reset on
//!   QUIC's persistent congestion (`ngx_bbr2_reset_cwnd`).
//!
//! A missing field takes the preset's value, so `{ kind = "bbr3" }` is exactly
//! [`Params::v3`].
//!
//! # v3 constants (differences from v2alpha)
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `V3_STARTUP_PACING_GAIN` | 710/256 ≈ 2.773 | — | STARTUP pacing gain (4 ln 2) | `bbr_startup_pacing_gain` |
//! | `V3_STARTUP_CWND_GAIN` | 512/256 = 2 | — | STARTUP and DRAIN cwnd gain | `bbr_startup_cwnd_gain` |
//! | `V3_PROBE_DOWN_GAIN` | 232/256 ≈ 0.906 | — | DOWN pacing gain (`BBR_UNIT * 91 / 100`) | `bbr_pacing_gain[1]` |
//! | `V3_PROBE_UP_CWND_GAIN` | 2 + 1/4 = 2.25 | — | cwnd gain in UP (`bbr_bw_probe_cwnd_gain` = 1 quarter) | `bbr_update_gains` |
//! | `V3_FULL_LOSS_CNT` | 6 | events | loss events that end STARTUP | `bbr_full_loss_cnt` |
//! | `V3_ECN_REPROBE_GAIN` | 128/256 = 0.5 | — | quick re-probe after ECN-only cycles | `bbr_ecn_reprobe_gain` |
//! | `V3_MIN_TSO_RATE_BPS` | 0 | bit/s | TSO floor is always `tcp_min_tso_segs` = 2 | `bbr_tso_segs_generic` |
//!
//! # nginx-quic BBRv2 constants (oBBR artifact)
//!
//! | Name | Value | Unit | Meaning | Source (`ngx_bbr2.c`) |
//! |---|---|---|---|---|
//! | `QUIC_HIGH_GAIN` | 2.885 | — | STARTUP pacing gain | `ngx_bbr2_high_gain` |
//! | `QUIC_STARTUP_CWND_GAIN` | 2 | — | STARTUP and DRAIN cwnd gain | `ngx_bbr2_startup_cwnd_gain` |
//! | `QUIC_STARTUP_RECOVERY_GAIN` | 1.5 | — | STARTUP pacing gain in Recovery | `ngx_bbr2_startup_pacing_gain_on_lost` |
//! | `QUIC_DRAIN_GAIN` | 0.75 | — | DRAIN pacing gain | `ngx_bbr2_drain_gain` |
//! | `QUIC_MIN_RTT_WINDOW_MS` | 2 500 | ms | min_rtt window | `ngx_bbr2_minrtt_win_size_ms` |
//! | `QUIC_PROBE_RTT_WINDOW_MS` | 2 500 | ms | PROBE_RTT interval | `ngx_bbr2_probe_minrtt_win_size_ms` |
//! | `QUIC_PROBE_RTT_CWND_GAIN` | 0.75 | — | PROBE_RTT cwnd = max(4, 0.75 · BDP) | `ngx_bbr2_probe_rtt_gain` |
//! | `QUIC_BETA` | 0.3 | — | cut to 0.7 × | `ngx_bbr2_inflight_lo_beta` |
//! | `QUIC_LOSS_THRESH` | 0.02 | — | too-high loss rate | `ngx_bbr2_loss_thresh` |
//! | `QUIC_INFLIGHT_HEADROOM` | 0.15 | — | CRUISE headroom | `ngx_bbr2_inflight_headroom` |
//! | `QUIC_ACK_EPOCH_ACKED_RESET` | 838 | packets | restart a long ACK epoch: 2^20 bytes of 1252-byte packets | `ngx_bbr2_ack_epoch_acked_reset_thresh` |
//!
//! Otherwise the QUIC port uses v2's values (full_loss_cnt 8, probe wait 2 s + rand(1 s),
//! ≤ 63 Reno rounds, UP and DOWN gains 1.25/0.75, 1 % pacing margin, 200 ms PROBE_RTT).

use super::*;
use crate::cc::{at_least_one, below, non_negative, positive, within};
use serde::{Deserialize, Deserializer, Serialize};

/// v3 STARTUP pacing gain `BBR_UNIT * 277 / 100 + 1` = 710/256 ("4*ln(2)").
pub const V3_STARTUP_PACING_GAIN: f64 = 710.0 / 256.0; // tcp_bbr.c (v3) bbr_startup_pacing_gain
/// v3 STARTUP cwnd gain.
pub const V3_STARTUP_CWND_GAIN: f64 = 2.0; // tcp_bbr.c (v3) bbr_startup_cwnd_gain
/// v3 DOWN pacing gain `BBR_UNIT * 91 / 100` = 232/256.
pub const V3_PROBE_DOWN_GAIN: f64 = 232.0 / 256.0; // tcp_bbr.c (v3) bbr_pacing_gain[BBR_BW_PROBE_DOWN]
/// v3 cwnd gain in UP: `cwnd_gain + BBR_UNIT * bbr_bw_probe_cwnd_gain / 4` with `bbr_bw_probe_cwnd_gain` = 1.
pub const V3_PROBE_UP_CWND_GAIN: f64 = 2.25; // tcp_bbr.c (v3) bbr_update_gains
/// v3 STARTUP loss exit after this many loss events in a round.
pub const V3_FULL_LOSS_CNT: u32 = 6; // tcp_bbr.c (v3) bbr_full_loss_cnt
/// v3 re-probes quickly after ECN-only cycles, starting at half of inflight_hi.
pub const V3_ECN_REPROBE_GAIN: f64 = 0.5; // tcp_bbr.c (v3) bbr_ecn_reprobe_gain
/// v3 floors the TSO goal at the `tcp_min_tso_segs` sysctl (2), whatever the rate.
pub const V3_MIN_TSO_RATE_BPS: u64 = 0; // tcp_bbr.c (v3) bbr_tso_segs_generic
/// nginx-quic BBRv2 STARTUP pacing gain ("2/(ln2)", written 2.885).
pub const QUIC_HIGH_GAIN: f64 = 2.885; // ngx_bbr2.c ngx_bbr2_high_gain
/// nginx-quic BBRv2 STARTUP/DRAIN cwnd gain.
pub const QUIC_STARTUP_CWND_GAIN: f64 = 2.0; // ngx_bbr2.c ngx_bbr2_startup_cwnd_gain
/// nginx-quic BBRv2 paces STARTUP at 1.5 while in loss recovery.
pub const QUIC_STARTUP_RECOVERY_GAIN: f64 = 1.5; // ngx_bbr2.c ngx_bbr2_startup_pacing_gain_on_lost
/// nginx-quic BBRv2 DRAIN pacing gain.
pub const QUIC_DRAIN_GAIN: f64 = 0.75; // ngx_bbr2.c ngx_bbr2_drain_gain
/// nginx-quic BBRv2 min_rtt window.
pub const QUIC_MIN_RTT_WINDOW_MS: u64 = 2_500; // ngx_bbr2.c ngx_bbr2_minrtt_win_size_ms
/// nginx-quic BBRv2 PROBE_RTT interval.
pub const QUIC_PROBE_RTT_WINDOW_MS: u64 = 2_500; // ngx_bbr2.c ngx_bbr2_probe_minrtt_win_size_ms
/// nginx-quic BBRv2 PROBE_RTT cwnd gain.
pub const QUIC_PROBE_RTT_CWND_GAIN: f64 = 0.75; // ngx_bbr2.c ngx_bbr2_probe_rtt_gain
/// nginx-quic BBRv2 loss cut (× 0.7).
pub const QUIC_BETA: f64 = 0.3; // ngx_bbr2.c ngx_bbr2_inflight_lo_beta
/// nginx-quic BBRv2 loss threshold ("resistant to 2% random loss").
pub const QUIC_LOSS_THRESH: f64 = 0.02; // ngx_bbr2.c ngx_bbr2_loss_thresh
/// nginx-quic BBRv2 CRUISE headroom.
pub const QUIC_INFLIGHT_HEADROOM: f64 = 0.15; // ngx_bbr2.c ngx_bbr2_inflight_headroom
/// nginx-quic BBRv2 restarts an ACK epoch past 2^20 *bytes* acked (its counters are bytes;
/// the constant was not scaled as v2's packets were): ceil(2^20 / 1252) packets of its MSS.
pub const QUIC_ACK_EPOCH_ACKED_RESET: u32 = (1_u32 << 20).div_ceil(1252); // ngx_bbr2.c ngx_bbr2_ack_epoch_acked_reset_thresh

/// BBRv2/v3 parameters. Gains and fractions are plain factors (Linux's k/256 are exact in `f64`).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// STARTUP pacing gain.
    pub startup_pacing_gain: f64,
    /// STARTUP and DRAIN cwnd gain.
    pub startup_cwnd_gain: f64,
    /// QUIC port: STARTUP pacing gain while in Recovery, where the pacing rate may also fall
    /// before the pipe is full, whatever the state (`_ngx_bbr2_set_pacing_rate_helper`);
    /// `None` = Linux.
    pub startup_recovery_pacing_gain: Option<f64>,
    /// DRAIN pacing gain.
    pub drain_gain: f64,
    /// PROBE_BW cwnd gain outside UP.
    pub cwnd_gain: f64,
    /// cwnd gain in UP (v2 = cwnd_gain, v3 = cwnd_gain + 0.25).
    pub probe_up_cwnd_gain: f64,
    /// Pacing gains of the four PROBE_BW phases.
    pub probe_up_gain: f64,
    pub probe_down_gain: f64,
    pub cruise_gain: f64,
    pub refill_gain: f64,
    /// v2 ends UP after min_rtt once in_net ≥ inflight(max_bw, this).
    pub bw_probe_pif_gain: f64,
    /// min_rtt window, ms.
    pub min_rtt_window_ms: u64,
    /// PROBE_RTT interval (probe_rtt_min window), ms; capped at `min_rtt_window_ms`.
    pub probe_rtt_window_ms: u64,
    /// Least time in PROBE_RTT at its cwnd, ms (0 disables PROBE_RTT).
    pub probe_rtt_duration_ms: u64,
    /// PROBE_RTT cwnd = max(min_cwnd, bdp × this); 0 means min_cwnd.
    pub probe_rtt_cwnd_gain: f64,
    /// cwnd floor, packets.
    pub min_cwnd: u32,
    /// STARTUP continues while bw grows by this factor...
    pub full_bw_thresh: f64,
    /// ... within this many rounds.
    pub full_bw_rounds: u32,
    /// Loss events in a Recovery round that end STARTUP (0 disables).
    pub full_loss_cnt: u32,
    /// High-CE rounds that end STARTUP (0 disables).
    pub full_ecn_cnt: u32,
    /// Multiplicative cut on loss: bounds × (1 − beta).
    pub beta: f64,
    /// Loss rate of a sample's flight that is "too high".
    pub loss_thresh: f64,
    /// Fraction of inflight_hi CRUISE and PROBE_RTT leave unused.
    pub inflight_headroom: f64,
    /// Packets added to inflight_hi on entering REFILL.
    pub refill_add_inc: u32,
    /// Most packet-timed rounds between bandwidth probes.
    pub bw_probe_max_rounds: u32,
    /// Random head start in rounds: rand[0, this).
    pub bw_probe_rand_rounds: u32,
    /// Wall-clock wait between probes: base + rand[0, rand), µs.
    pub bw_probe_base_us: u64,
    pub bw_probe_rand_us: u64,
    /// Probe after `reno_gain × target_inflight` rounds (0 disables the Reno bound).
    pub bw_probe_reno_gain: f64,
    /// Pace this many percent below `gain × bw`.
    pub pacing_margin_percent: u32,
    /// Below this pacing rate (bit/s) the TSO goal floor is 1 segment, else 2.
    pub min_tso_rate_bps: u64,
    /// `sk_pacing_shift`: TSO goal ≈ `pacing_rate >> pacing_shift` bytes.
    pub pacing_shift: u32,
    /// The min_rtt TSO allowance halves every 2^this µs of min_rtt (0 disables it).
    pub tso_rtt_shift: u32,
    /// Gain on extra_acked in the cwnd target (0 disables aggregation tracking).
    pub extra_acked_gain: f64,
    /// extra_acked bucket length, rounds.
    pub extra_acked_win_rounds: u32,
    /// Aggregation cwnd cap: bw × this, ms.
    pub extra_acked_max_ms: u64,
    /// Packets acked in one ACK epoch after which it restarts.
    pub ack_epoch_acked_reset: u32,
    /// Count aggregation in STARTUP, with 1-round buckets.
    pub extra_acked_in_startup: bool,
    /// Use the ECN logic at all (v2 `ecn_enable`; v3: route "ECN low" and negotiated ECN).
    pub ecn_enabled: bool,
    pub ecn_alpha_gain: f64,
    pub ecn_alpha_init: f64,
    pub ecn_factor: f64,
    pub ecn_thresh: f64,
    /// ECN is used only if min_rtt ≤ this, µs (0 = any RTT).
    pub ecn_max_rtt_us: u64,
    /// Quick re-probe after a cycle with ECN marks but no loss (0 disables).
    pub ecn_reprobe_gain: f64,
    /// DOWN holds its gain until inflight ≤ the target, not just for min_rtt.
    pub drain_to_target: bool,
    /// Skip the model update for app-limited ACKs below max_bw (`bbr_fast_path`).
    pub fast_path: bool,
    /// v3: full-bandwidth detector on every sample, also ending UP on a plateau
    /// (replaces the `bw_probe_pif_gain` exit); an RTO resets it entirely.
    pub full_bw_per_sample: bool,
    /// v3: the round's bw_latest/inflight_latest are reset after the ACK, not
    /// before the lower bounds use them; a STARTUP loss exit seeds inflight_hi
    /// with inflight_latest if larger than a BDP.
    pub split_latest_signals: bool,
    /// v3: UP keeps its acked credit while not cwnd-limited.
    pub keep_probe_up_credit: bool,
    /// v3: a loss repaired by a tail-loss probe counts as a loss (`CA_EVENT_TLP_RECOVERY`).
    pub loss_probe_recovery: bool,
    /// v3's small fixes: bw_lo ≥ 1 unit; strict `<` for probe_rtt_min; on RTO inflight_lo =
    /// max(cwnd, prior_cwnd); strict `>` for the ECN threshold; ECE, alpha and the ECN
    /// eligibility gate only once eligible; inflight_hi growth forces a cwnd update.
    pub v3_refinements: bool,
    /// The first loss of a round restarts the loss round (v2alpha `bbr2_skb_marked_lost`,
    /// v3 `bbr_note_loss`: "capture current data over the full round trip of loss"), so
    /// the next lower-bound cut sees a whole round of post-loss delivery. The QUIC port
    /// (`ngx_bbr2_on_lost`) only flags the round, which then ends on schedule.
    pub loss_round_restart: bool,
    /// Each packet marked lost while probing is judged on its own send-time flight, and
    /// inflight_hi set where that flight's loss rate crossed `loss_thresh` (v2alpha
    /// `bbr2_skb_marked_lost`, v3 `bbr_skb_marked_lost`). The QUIC port's
    /// `ngx_bbr2_on_lost` has no such check: only the per-ACK test on the ACK's newest
    /// delivered packet judges its probes.
    pub lost_packet_check: bool,
    /// The QUIC port's `sampler->prior_inflight`: PROBE_BW's UP exit and DOWN→CRUISE
    /// check use the packets in flight before this ACK as they are (`cg->prior_in_flight`;
    /// its stack has no EDT credit), DRAIN's exit those after it (`sampler->in_flight`),
    /// and UP grows inflight_hi only if by that figure less than one datagram
    /// (`ngx_BBR2_MAX_DATAGRAM_SIZE` = `NGX_QUIC_MSS`: one packet) of cwnd is free. Linux
    /// uses `in_net_at_edt` of each and `tp->is_cwnd_limited`.
    pub prior_inflight_raw: bool,
    /// When the PROBE_RTT window has expired, take the next RTT even from a delayed ACK
    /// (the QUIC port's `ngx_bbr2_update_min_rtt`); Linux waits for one that was not delayed.
    pub delayed_ack_rtt_on_expiry: bool,
    /// Entering PROBE_RTT starts a new packet-timed round (Linux `bbr2_update_min_rtt`:
    /// `next_rtt_delivered = tp->delivered`); the QUIC port lets the current round run on.
    pub probe_rtt_round_restart: bool,
    /// Run only on ACKs with a valid rate sample, as the QUIC port's stack calls
    /// `ngx_bbr2_on_ack` ([`CongestionControl::valid_samples_only`]); Linux runs
    /// `bbr2_main` on every ACK.
    ///
    /// [`CongestionControl::valid_samples_only`]: crate::cc::CongestionControl::valid_samples_only
    pub valid_samples_only: bool,
    /// Timers on nginx's millisecond clock, as the QUIC port's (`sampler->now` =
    /// `ngx_current_msec`): every instant the algorithm stamps or compares is floored to the
    /// millisecond, the PROBE_BW wait is drawn in whole milliseconds, and PROBE_RTT ends at
    /// its stamp (`sampler->now < stamp` no longer holds) rather than after it. Linux's
    /// clock is microseconds (`tcp_mstamp`); bloatlab's nanoseconds stand in for it.
    pub millisecond_clock: bool,
}

impl Default for Params {
    /// google/bbr v2alpha.
    fn default() -> Self {
        Params {
            startup_pacing_gain: STARTUP_PACING_GAIN,
            startup_cwnd_gain: STARTUP_CWND_GAIN,
            startup_recovery_pacing_gain: None,
            drain_gain: DRAIN_GAIN,
            cwnd_gain: CWND_GAIN,
            probe_up_cwnd_gain: CWND_GAIN,
            probe_up_gain: PROBE_UP_GAIN,
            probe_down_gain: PROBE_DOWN_GAIN,
            cruise_gain: CRUISE_GAIN,
            refill_gain: REFILL_GAIN,
            bw_probe_pif_gain: BW_PROBE_PIF_GAIN,
            min_rtt_window_ms: MIN_RTT_WINDOW_MS,
            probe_rtt_window_ms: PROBE_RTT_WINDOW_MS,
            probe_rtt_duration_ms: PROBE_RTT_DURATION_MS,
            probe_rtt_cwnd_gain: PROBE_RTT_CWND_GAIN,
            min_cwnd: CWND_MIN_TARGET,
            full_bw_thresh: FULL_BW_THRESH,
            full_bw_rounds: FULL_BW_ROUNDS,
            full_loss_cnt: FULL_LOSS_CNT,
            full_ecn_cnt: FULL_ECN_CNT,
            beta: BETA,
            loss_thresh: LOSS_THRESH,
            inflight_headroom: INFLIGHT_HEADROOM,
            refill_add_inc: REFILL_ADD_INC,
            bw_probe_max_rounds: BW_PROBE_MAX_ROUNDS,
            bw_probe_rand_rounds: BW_PROBE_RAND_ROUNDS,
            bw_probe_base_us: BW_PROBE_BASE_US,
            bw_probe_rand_us: BW_PROBE_RAND_US,
            bw_probe_reno_gain: BW_PROBE_RENO_GAIN,
            pacing_margin_percent: PACING_MARGIN_PERCENT,
            min_tso_rate_bps: MIN_TSO_RATE_BPS,
            pacing_shift: crate::cc::bbr::PACING_SHIFT,
            tso_rtt_shift: TSO_RTT_SHIFT,
            extra_acked_gain: EXTRA_ACKED_GAIN,
            extra_acked_win_rounds: EXTRA_ACKED_WIN_ROUNDS,
            extra_acked_max_ms: EXTRA_ACKED_MAX_MS,
            ack_epoch_acked_reset: crate::cc::bbr::ACK_EPOCH_ACKED_RESET,
            extra_acked_in_startup: true,
            ecn_enabled: false,
            ecn_alpha_gain: ECN_ALPHA_GAIN,
            ecn_alpha_init: ECN_ALPHA_INIT,
            ecn_factor: ECN_FACTOR,
            ecn_thresh: ECN_THRESH,
            ecn_max_rtt_us: ECN_MAX_RTT_US,
            ecn_reprobe_gain: ECN_REPROBE_GAIN,
            drain_to_target: true,
            fast_path: true,
            full_bw_per_sample: false,
            split_latest_signals: false,
            keep_probe_up_credit: false,
            loss_probe_recovery: false,
            v3_refinements: false,
            loss_round_restart: true,
            lost_packet_check: true,
            prior_inflight_raw: false,
            delayed_ack_rtt_on_expiry: false,
            probe_rtt_round_restart: true,
            valid_samples_only: false,
            millisecond_clock: false,
        }
    }
}

impl Params {
    /// google/bbr v3: v2alpha with v3's constants and behavioural deltas.
    pub fn v3() -> Self {
        Params {
            startup_pacing_gain: V3_STARTUP_PACING_GAIN,
            startup_cwnd_gain: V3_STARTUP_CWND_GAIN,
            probe_down_gain: V3_PROBE_DOWN_GAIN,
            probe_up_cwnd_gain: V3_PROBE_UP_CWND_GAIN,
            full_loss_cnt: V3_FULL_LOSS_CNT,
            ecn_reprobe_gain: V3_ECN_REPROBE_GAIN,
            min_tso_rate_bps: V3_MIN_TSO_RATE_BPS,
            full_bw_per_sample: true,
            split_latest_signals: true,
            keep_probe_up_credit: true,
            loss_probe_recovery: true,
            v3_refinements: true,
            ..Params::default()
        }
    }

    /// The oBBR artifact's nginx-quic BBRv2 constants.
    pub fn quic() -> Self {
        Params {
            startup_pacing_gain: QUIC_HIGH_GAIN,
            startup_cwnd_gain: QUIC_STARTUP_CWND_GAIN,
            startup_recovery_pacing_gain: Some(QUIC_STARTUP_RECOVERY_GAIN),
            drain_gain: QUIC_DRAIN_GAIN,
            min_rtt_window_ms: QUIC_MIN_RTT_WINDOW_MS,
            probe_rtt_window_ms: QUIC_PROBE_RTT_WINDOW_MS,
            probe_rtt_cwnd_gain: QUIC_PROBE_RTT_CWND_GAIN,
            beta: QUIC_BETA,
            loss_thresh: QUIC_LOSS_THRESH,
            inflight_headroom: QUIC_INFLIGHT_HEADROOM,
            ack_epoch_acked_reset: QUIC_ACK_EPOCH_ACKED_RESET,
            fast_path: false,
            loss_round_restart: false,
            lost_packet_check: false,
            prior_inflight_raw: true,
            delayed_ack_rtt_on_expiry: true,
            probe_rtt_round_restart: false,
            valid_samples_only: true,
            millisecond_clock: true,
            ..Params::default()
        }
    }

    /// Checks the values the algorithm cannot run with, naming the field.
    pub fn validate(&self) -> Result<(), String> {
        positive(&[
            ("startup_pacing_gain", self.startup_pacing_gain),
            ("startup_cwnd_gain", self.startup_cwnd_gain),
            ("drain_gain", self.drain_gain),
            ("cwnd_gain", self.cwnd_gain),
            ("probe_up_cwnd_gain", self.probe_up_cwnd_gain),
            ("probe_up_gain", self.probe_up_gain),
            ("probe_down_gain", self.probe_down_gain),
            ("cruise_gain", self.cruise_gain),
            ("refill_gain", self.refill_gain),
            ("bw_probe_pif_gain", self.bw_probe_pif_gain),
            (
                "startup_recovery_pacing_gain",
                self.startup_recovery_pacing_gain.unwrap_or(1.0),
            ),
        ])?;
        non_negative(&[
            ("probe_rtt_cwnd_gain", self.probe_rtt_cwnd_gain),
            ("full_bw_thresh", self.full_bw_thresh),
            ("bw_probe_reno_gain", self.bw_probe_reno_gain),
            ("extra_acked_gain", self.extra_acked_gain),
        ])?;
        within(&[
            ("beta", self.beta, 0.0, 1.0),
            ("inflight_headroom", self.inflight_headroom, 0.0, 1.0),
            ("ecn_alpha_gain", self.ecn_alpha_gain, 0.0, 1.0),
            ("ecn_alpha_init", self.ecn_alpha_init, 0.0, 1.0),
            ("ecn_factor", self.ecn_factor, 0.0, 1.0),
            ("ecn_thresh", self.ecn_thresh, 0.0, 1.0),
            ("ecn_reprobe_gain", self.ecn_reprobe_gain, 0.0, 1.0),
        ])?;
        if !(0.0..1.0).contains(&self.loss_thresh) {
            return Err(format!(
                "loss_thresh = {} is out of range: allowed 0 ≤ loss_thresh < 1",
                self.loss_thresh
            ));
        }
        at_least_one(&[
            ("min_cwnd", u64::from(self.min_cwnd)),
            ("full_bw_rounds", u64::from(self.full_bw_rounds)),
            (
                "extra_acked_win_rounds",
                u64::from(self.extra_acked_win_rounds),
            ),
            ("min_rtt_window_ms", self.min_rtt_window_ms),
            ("probe_rtt_window_ms", self.probe_rtt_window_ms),
        ])?;
        below(&[
            (
                "pacing_margin_percent",
                u64::from(self.pacing_margin_percent),
                100,
            ),
            ("pacing_shift", u64::from(self.pacing_shift), 64),
            ("tso_rtt_shift", u64::from(self.tso_rtt_shift), 64),
        ])
    }
}

/// Deserialises a table of overrides onto `preset` (missing fields keep the preset's values).
fn overlay<'de, D: Deserializer<'de>>(d: D, preset: Params) -> Result<Params, D::Error> {
    use serde::de::Error;
    let overrides = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
    Params::deserialize(crate::cc::over_preset(&preset, overrides)).map_err(D::Error::custom)
}

/// A `kind = "bbr3"` table: [`Params`] whose defaults are [`Params::v3`].
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3Table(pub Params);

impl<'de> Deserialize<'de> for Bbr3Table {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        overlay(d, Params::v3()).map(Bbr3Table)
    }
}

/// A `kind = "bbr2-quic"` table: [`Params`] whose defaults are [`Params::quic`].
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr2QuicTable(pub Params);

impl<'de> Deserialize<'de> for Bbr2QuicTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        overlay(d, Params::quic()).map(Bbr2QuicTable)
    }
}
