//! dash.js version profile: the player constants that differ between dash.js
//! releases, read by the player (buffer targets, stall threshold, initial
//! bitrate) and by the dash.js ABR rules (estimator, DYNAMIC, helper rules).
//!
//! # In a nutshell
//!
//! One struct, three presets. [`Profile::v3`] is dash.js v3.0–v3.1 (early 2020,
//! the release Chrome v80 testbeds such as WWW'21 ran) and the DEFAULT;
//! [`Profile::v4`] is dash.js 4.7; [`Profile::v5`] is dash.js v5 (HEAD).
//! Every field can be overridden from a scenario:
//!
//! ```text
//!   profile = "v5"
//!   profile = { base = "v3", buffer_time_default = "20s", estimator = "ewma" }
//! ```
//!
//! Quantities derived by dash.js from these fields (and not stored):
//! DYNAMIC switches BOLA on at `buffer_time_default` and off at
//! `dynamic_off_fraction × buffer_time_default`; BOLA's buffer target is
//! `max(buffer_time_default, 10 s + 2 s × levels)`.
//!
//! # References
//!
//! * dash.js v3.x `src/core/Settings.js`, `BufferController.js`
//!   (`STALL_THRESHOLD`), `rules/ThroughputHistory.js`,
//!   `rules/abr/InsufficientBufferRule.js`, `rules/SwitchRequestHistory.js`,
//!   `rules/abr/SwitchHistoryRule.js`, `rules/abr/AbandonRequestsRule.js`,
//!   `controllers/AbrController.js`.
//! * dash.js v4.7.4 and v5 (HEAD) `Settings.js`; bloatlab spec
//!   `abr-and-traces.md` §1.2, §1.5–1.7, §1.9, §1.11, §1.12.
//! * dash.js 4.5.3 (`Settings.js`, `ScheduleController.js`, `StreamProcessor.js`,
//!   `AbrController.js`, `InsufficientBufferRule.js`, `AbandonRequestsRule.js`,
//!   `BufferController.js`) and 4.7.3 (`ThroughputHistory.js`, `SwitchHistoryRule.js`,
//!   `AbrController.js`, `ScheduleController.js`), read in forks at those versions
//!   (the DiceTechnology fork's own changes set aside), for `v4`.
//!
//! # Deviations
//!
//! * `v3` is the spec's v4.7.4 column except where dash.js v3.0–v3.1.1 code
//!   differs, because that is what ran in early 2020: stall threshold 0.5 s
//!   (`BufferController.STALL_THRESHOLD`; v4 made it a 0.3 s setting); the
//!   sliding window grows by comparing the *oldest* stored samples
//!   (`arr[i]/arr[i-1]`, fixed by dash.js PR #3276 in June 2020, v3.1.2);
//!   InsufficientBufferRule waits only for the first BUFFER_LOADED (v3.0
//!   code; later releases ignore the first 2 appended segments instead);
//!   AbandonRequestsRule averages the segment's cumulative per-event rates
//!   once it has 5; while
//!   ABANDON_LOAD holds, only *up*-switches are applied (`newQuality >
//!   oldQuality` in v3 and early 4.x; 4.5 on and v5 allow only down-switches). SwitchHistoryRule
//!   acts on 6 decisions of a history of 8, as in v4.
//! * `switch_history_logs_no_change`: v3 logs NO_CHANGE decisions as
//!   no-drops; v5 logs only decisions where some rule proposed a level.
//! * The v5 abandonment rate (bytes after the first progress event over the
//!   time since it) is taken from the spec, not re-read from v5 code.
//! * `v4` is `v3` with what dash.js 4.x changed by 4.7 (read in 4.5.3 and 4.7.3
//!   code; checked against 4.7.4 in Chromium): stall threshold 0.3 s;
//!   the audio target is the video level + 1 s; the sliding window scans the
//!   newest samples; InsufficientBufferRule ignores the first 2 appended
//!   segments; while ABANDON_LOAD holds only down-switches apply (4.5 on;
//!   earlier 4.x texts still have up); fast switching on, 1.5 segment
//!   durations ahead (below); init segments not cached (4.7.4 Settings.js
//!   `cacheInitSegments: false`, as in 5.2.1; v3 caches every one), so each
//!   change of level fetches one. Like v3 it requests while the level is below the
//!   target (4.x `ScheduleController`: `bufferLevel < getBufferTarget()`), keeps
//!   the 12 s stable buffer, the sliding window, dead-time latency, strict
//!   DYNAMIC thresholds, factor 0.5, 6 switch-history samples with NO_CHANGE
//!   logged and the history reset by an abandonment, and 5 cumulative rates in
//!   AbandonRequestsRule.
//! * `fast_switching` follows v5's logic (`StreamProcessor`) with any base.
//!   How far ahead of the playhead it looks, and the buffer it needs, is
//!   `fast_switch_ahead` segment durations. 4.7.4 and 5.2.1 both compute
//!   `1.5 * (isNaN(rep.fragmentDuration) ? 1 : rep.fragmentDuration)` for the
//!   new representation. 4.7.4's representations carry their segment duration,
//!   so that is 1.5 segments. 5.2.1 initialises `fragmentDuration = null`; only the
//!   `RepresentationController`'s own representations are given the segment
//!   duration, and the one a quality change hands over is built afresh by
//!   `DashAdapter.getVoRepresentations`, so it stays null (with any segment
//!   addressing, ffmpeg's `SegmentTemplate@duration` included); `isNaN(null)` is
//!   false and `1.5 * null` is 0. So v5 replaces
//!   the segment under the playhead, whatever the buffer holds. Both were seen
//!   segment by segment in Chromium (`tools/realstack`, docs/fidelity/www21.md).
//!   dash.js 2.x, where it was off by default, checked the segment ahead at every
//!   schedule rather than at a quality change (`validateExecutedFragmentRequest`);
//!   3.x's code for it we have not read.
//! * v5 has no cache hits: its `ThroughputModel._isCachedResponse` asks the
//!   Resource Timing API (on by default) whether the transfer size was 0, which
//!   a network fetch never is; its thresholds (10 ms video, 5 ms audio, on the
//!   whole request time) serve only browsers without that API. v5 thresholds are
//!   therefore 0; a scenario that sets one gets the v3 filter.
//! * `playback_low_water` is the browser's, not dash.js's. Chromium's media
//!   element stops short of the end of what is buffered: in dash.js sessions on
//!   the real stack (`tools/realstack`, 30 fps H.264, Chromium 156) every stall
//!   began 0.032–0.065 s, 0.050 on average (23 stalls, 4 sessions), before the
//!   buffer would have run out, and `currentTime` stayed there, inside the segment
//!   that ran out; a segment landing a few milliseconds before that still found
//!   playback waiting. At 60 fps two stalls began 0.031 and 0.033 s short: about
//!   one frame plus one 60 Hz display refresh. At the end of the video (end of
//!   stream) it plays to the last frame. A 0 mark gives the ideal buffer.
//!
//! # Constants (v3 / v5; v4 is v3 but for the changes listed above)
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `buffer_time_default` | 12 / 18 | s | stable buffer (v3 `stableBufferTime`) | Settings.js |
//! | `buffer_time_at_top_quality` | 30 | s | buffer target at the top level | Settings.js |
//! | `buffer_time_at_top_quality_long_form` | 60 | s | same, content ≥ `long_form_threshold` | Settings.js |
//! | `long_form_threshold` | 600 | s | long-form content duration | Settings.js |
//! | `stall_threshold` | 0.5 / 0.3 | s | buffer below this is BUFFER_EMPTY | v3 BufferController, v5 Settings.js |
//! | `schedule` | level < target / level + segment < target | — | when the next segment is requested | v3 `BufferLevelRule`, v5 `ScheduleController` |
//! | `schedule_poll` | 500 | ms | the scheduler rechecks a full buffer this often, counted from the last append | v3 `startScheduleTimer(500)`, v4/v5 `scheduling.defaultTimeout` |
//! | `audio_target_extra` | 0 / 1 | s | audio target = video level + this (≥ one segment) | v3 `BufferLevelRule`, spec §1.11 |
//! | `initial_bitrate_video_bps` | 1 000 000 | bit/s | first video request | AbrController `DEFAULT_VIDEO_BITRATE` |
//! | `initial_bitrate_audio_bps` | 100 000 | bit/s | first audio request | AbrController `DEFAULT_AUDIO_BITRATE` |
//! | `abandon_load_timeout` | 10 | s | up/down-switch lock after an abandonment | Settings.js `abandonLoadTimeout` |
//! | `estimator` | sliding window / EWMA | — | throughput average | Settings.js `movingAverageMethod` / `averageCalculationMode` |
//! | `window_vod` | 4 | samples | sliding window (VoD) | ThroughputHistory |
//! | `window_latency` | 4 | samples | latency window | ThroughputHistory |
//! | `window_increase_scale` | 1.3 | — | ratio ≥ this grows the window | ThroughputHistory |
//! | `window_decrease_scale` | 1/1.3 / 0.7 | — | ratio ≤ this grows the window | ThroughputHistory / v5 `decreaseScale` |
//! | `window_scan` | oldest / newest | — | which samples the growth test compares | v3 `arr[i]/arr[i-1]`, PR #3276 |
//! | `max_measurements` | 20 | samples | samples kept | `maxMeasurementsToKeep` |
//! | `ewma_throughput_{fast,slow}_half_life` | 3, 8 | weight units | EWMA half-lives | ThroughputHistory |
//! | `ewma_latency_{fast,slow}_half_life` | 1, 2 | samples | latency EWMA half-lives | ThroughputHistory |
//! | `ewma_weight_per_second` | 1 / 1.5 | 1/s | EWMA weight per download second | v4 `0.001·ms`, v5 `0.0015·ms` |
//! | `bandwidth_safety_factor` | 0.9 | — | safe throughput = average × this | Settings.js |
//! | `cache_threshold_video` | 50 / 0 | ms | shorter downloads are cache hits (v5: none, below) | `cacheLoadThresholds` |
//! | `cache_threshold_audio` | 5 / 0 | ms | same, audio | `cacheLoadThresholds` |
//! | `dead_time_latency` | on / off | — | bitrate × (1 − latency/segment) before mapping | v3/v4 `getQualityForBitrate` |
//! | `dynamic_strict` | on / off | — | DYNAMIC compares `>` (v3) or `≥` (v5) | AbrController |
//! | `dynamic_off_fraction` | 0.5 | — | BOLA off below this × `buffer_time_default` | AbrController |
//! | `insufficient_buffer_factor` | 0.5 / 0.7 | — | cap = throughput × buffer/segment × this | InsufficientBufferRule |
//! | `insufficient_buffer_ignore_segments` | 0 / 2 | segments | rule silent before this many downloads (0: until the first BUFFER_LOADED) | `segmentIgnoreCount` |
//! | `switch_history_depth` | 8 | decisions | rolling history | `SWITCH_REQUEST_HISTORY_DEPTH` |
//! | `switch_history_sample_size` | 6 / 8 | decisions | decisions needed before the rule acts | SwitchHistoryRule `SAMPLE_SIZE` / `sampleSize` |
//! | `switch_history_threshold` | 0.075 | — | drops/no-drops ratio that caps | `MAX_SWITCH` |
//! | `switch_history_logs_no_change` | on / off | — | NO_CHANGE decisions count as no-drops | v3 AbrController / v5 |
//! | `switch_history_logs_abandon` | on / off | — | an abandonment's switch starts the reset history | v3 `onFragmentLoadProgress` / v5 `_onSegmentDownloadShouldBeAbandoned` |
//! | `abandon_multiplier` | 1.8 | — | abandon if projected time ≥ this × segment | AbandonRequestsRule |
//! | `abandon_grace_time` | 500 | ms | no abandonment before this since first byte | AbandonRequestsRule |
//! | `abandon_min_samples` | 5 / 6 | progress events | samples before abandoning | `MIN_LENGTH_TO_AVERAGE` / `minThroughputSamplesThreshold` |
//! | `abandon_rate` | mean of cumulative / since first progress | — | how the in-flight rate is measured | AbandonRequestsRule |
//! | `switches_during_abandon` | up / down | — | switches still applied while ABANDON_LOAD | v3 `newQuality > oldQuality`, v4.5+ and v5 `<` |
//! | `abandon_deflates_to_new_level` | off / on | — | BOLA's placeholder deflates, on an abandonment, towards the new level's minimum buffer rather than the abandoned one's | v3 `onFragmentLoadProgress` aborts (FRAGMENT_LOADING_ABANDONED) before `setPlaybackQuality`; v4.5+ and v5 request the quality first and abort after the buffer is prepared |
//! | `fast_switching` | off / on | — | a rise in level re-fetches the buffered segments from `fast_switch_ahead` on | v3 `fastSwitchEnabled: false`, v4 `true`, v5 `null` (on for VoD); `StreamProcessor._prepareForFastQualitySwitch` |
//! | `fast_switch_ahead` | 1.5 / 0 | segments | where the re-fetch starts, ahead of the playhead, and the buffer it needs (v4 1.5) | `1.5 * fragmentDuration`, which v5.2.1 leaves null (above) |
//! | `switch_ends_check` | off / on | — | a decision that changes the level ends the scheduler's check: the next check, against the new level's buffer target, requests the init segment (v3 requests it in the same check) | 4.7.4 and 5.2.1 `ScheduleController.schedule`: "we only call _getNextFragment if the quality is not changed"; 3.0.3 calls it at once |
//! | `cache_init_segments` | on / off | — | a switch back to a level appends its init segment from memory; off, every change of level fetches one | 3.0.3 `onInitFragmentLoaded` saves every one; 4.7.4 and 5.2.1 `cacheInitSegments: false` |
//! | `playback_low_water` | 50 | ms | the media element stops this far before the buffered end (not at the video's end); the browser's, the same in every profile | Chromium 156 on the real stack, 30 fps video: 23 stalls began 0.032–0.065 s (mean 0.050) before the buffer ran out (below) |

use crate::scenario::kind;
use crate::scenario::units::DurationField;
use crate::time::Duration;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Chromium's stall margin for the 30 fps video of `tools/realstack` (header, last bullet).
pub const PLAYBACK_LOW_WATER: Duration = Duration::from_millis(50);

/// dash.js `DEFAULT_VIDEO_BITRATE` (1000 kbps). // AbrController.js
pub const INITIAL_BITRATE_VIDEO_BPS: f64 = 1_000_000.0;
/// dash.js `DEFAULT_AUDIO_BITRATE` (100 kbps). // AbrController.js
pub const INITIAL_BITRATE_AUDIO_BPS: f64 = 100_000.0;
/// `bandwidthSafetyFactor`, every version. // Settings.js
pub const BANDWIDTH_SAFETY_FACTOR: f64 = 0.9;
/// `maxMeasurementsToKeep`. // ThroughputHistory.js
pub const MAX_MEASUREMENTS: usize = 20;
/// Sliding window for VoD (`AVERAGE_THROUGHPUT_SAMPLE_AMOUNT_VOD`). // ThroughputHistory.js
pub const WINDOW_VOD: usize = 4;
/// Latency window (`AVERAGE_LATENCY_SAMPLE_AMOUNT`). // ThroughputHistory.js
pub const WINDOW_LATENCY: usize = 4;
/// `THROUGHPUT_INCREASE_SCALE`. // ThroughputHistory.js
pub const WINDOW_INCREASE_SCALE: f64 = 1.3;
/// v3/v4: ratio ≤ 1/`THROUGHPUT_DECREASE_SCALE` (1.3). // ThroughputHistory.js
pub const WINDOW_DECREASE_SCALE_V3: f64 = 1.0 / 1.3;
/// v5 `sampleSettings.decreaseScale`. // v5 Settings.js
pub const WINDOW_DECREASE_SCALE_V5: f64 = 0.7;
/// EWMA throughput half-lives, in weight units (download seconds × weight factor). // ThroughputHistory.js
pub const EWMA_THROUGHPUT_FAST_HALF_LIFE: f64 = 3.0;
pub const EWMA_THROUGHPUT_SLOW_HALF_LIFE: f64 = 8.0;
/// EWMA latency half-lives, in samples. // ThroughputHistory.js
pub const EWMA_LATENCY_FAST_HALF_LIFE: f64 = 1.0;
pub const EWMA_LATENCY_SLOW_HALF_LIFE: f64 = 2.0;

/// How dash.js averages throughput samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// Arithmetic mean of the last `window_vod` samples, widened when samples vary (v3/v4 default).
    SlidingWindow,
    /// Fast/slow exponentially weighted averages, the smaller one (v5 default).
    Ewma,
}

/// Which consecutive samples the sliding window's growth test compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowScan {
    /// The oldest stored samples, `arr[i]/arr[i-1]` (dash.js ≤ v3.1.1).
    Oldest,
    /// The newest samples backwards (dash.js ≥ v3.1.2).
    Newest,
}

/// How AbandonRequestsRule measures the rate of the download in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbandonRate {
    /// Mean of the per-progress-event rates bytes/(now − first byte) (v3 code).
    MeanOfCumulative,
    /// Bytes after the first progress event over the time since it (v5, spec §1.9).
    SinceFirstProgress,
}

/// When the scheduler requests the next segment of a track.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// While the buffer level is below the target (dash.js 2.x/3.x `BufferLevelRule`).
    LevelBelowTarget,
    /// While level + one segment is below the target (v4/v5 `ScheduleController`).
    LevelPlusSegmentBelowTarget,
}

/// Which quality changes are still applied while ABANDON_LOAD holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
}

/// dash.js constants that differ between versions. See the module header.
/// Deserialises field by field (every field required); a scenario's `profile`
/// setting, a preset name or a table of overrides, is read by [`setting`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    #[serde(with = "duration_str")]
    pub buffer_time_default: Duration,
    #[serde(with = "duration_str")]
    pub buffer_time_at_top_quality: Duration,
    #[serde(with = "duration_str")]
    pub buffer_time_at_top_quality_long_form: Duration,
    #[serde(with = "duration_str")]
    pub long_form_threshold: Duration,
    #[serde(with = "duration_str")]
    pub stall_threshold: Duration,
    pub schedule: Schedule,
    /// A full buffer is rechecked this often after an append (0: at the instant it drains).
    #[serde(with = "duration_str")]
    pub schedule_poll: Duration,
    /// Audio's buffer target is the video's buffer level plus this (at least one audio segment).
    #[serde(with = "duration_str")]
    pub audio_target_extra: Duration,
    pub initial_bitrate_video_bps: f64,
    pub initial_bitrate_audio_bps: f64,
    #[serde(with = "duration_str")]
    pub abandon_load_timeout: Duration,
    pub abandon_enabled: bool,
    pub insufficient_buffer_enabled: bool,
    pub switch_history_enabled: bool,
    pub estimator: Estimator,
    pub window_vod: usize,
    pub window_latency: usize,
    pub window_increase_scale: f64,
    pub window_decrease_scale: f64,
    pub window_scan: WindowScan,
    pub max_measurements: usize,
    pub ewma_throughput_fast_half_life: f64,
    pub ewma_throughput_slow_half_life: f64,
    pub ewma_latency_fast_half_life: f64,
    pub ewma_latency_slow_half_life: f64,
    pub ewma_weight_per_second: f64,
    pub bandwidth_safety_factor: f64,
    #[serde(with = "duration_str")]
    pub cache_threshold_video: Duration,
    #[serde(with = "duration_str")]
    pub cache_threshold_audio: Duration,
    pub dead_time_latency: bool,
    pub dynamic_strict: bool,
    pub dynamic_off_fraction: f64,
    pub insufficient_buffer_factor: f64,
    pub insufficient_buffer_ignore_segments: usize,
    pub switch_history_depth: usize,
    pub switch_history_sample_size: usize,
    pub switch_history_threshold: f64,
    pub switch_history_logs_no_change: bool,
    pub switch_history_logs_abandon: bool,
    pub abandon_multiplier: f64,
    #[serde(with = "duration_str")]
    pub abandon_grace_time: Duration,
    pub abandon_min_samples: usize,
    pub abandon_rate: AbandonRate,
    pub switches_during_abandon: Direction,
    /// On an abandonment BOLA hears of the new level before the abort, so its placeholder
    /// deflates towards that level's minimum buffer (v4.5+, v5).
    pub abandon_deflates_to_new_level: bool,
    /// A rise in level replaces the buffered segments from `fast_switch_ahead` on.
    pub fast_switching: bool,
    /// Segment durations ahead of the playhead where a fast switch starts (and buffer it needs).
    pub fast_switch_ahead: f64,
    /// A decision that changes the level ends the scheduler's check; the init segment is
    /// requested at a later check, against the new level's buffer target.
    pub switch_ends_check: bool,
    /// A switch back to a level appends its init segment from memory instead of fetching it.
    pub cache_init_segments: bool,
    /// The browser's media element stops this far before the end of what is buffered.
    #[serde(with = "duration_str")]
    pub playback_low_water: Duration,
}

/// Preset names accepted for `profile`.
pub const PROFILE_NAMES: &[&str] = &["v3", "v4", "v5"];

impl Default for Profile {
    fn default() -> Self {
        Profile::v3()
    }
}

impl Profile {
    /// dash.js v3.0–v3.1 (early 2020; WWW'21's Chrome v80 testbed). The default.
    pub fn v3() -> Self {
        Profile {
            buffer_time_default: Duration::from_secs(12),
            buffer_time_at_top_quality: Duration::from_secs(30),
            buffer_time_at_top_quality_long_form: Duration::from_secs(60),
            long_form_threshold: Duration::from_secs(600),
            stall_threshold: Duration::from_millis(500),
            schedule: Schedule::LevelBelowTarget,
            schedule_poll: Duration::from_millis(500),
            audio_target_extra: Duration::ZERO,
            initial_bitrate_video_bps: INITIAL_BITRATE_VIDEO_BPS,
            initial_bitrate_audio_bps: INITIAL_BITRATE_AUDIO_BPS,
            abandon_load_timeout: Duration::from_secs(10),
            abandon_enabled: true,
            insufficient_buffer_enabled: true,
            switch_history_enabled: true,
            estimator: Estimator::SlidingWindow,
            window_vod: WINDOW_VOD,
            window_latency: WINDOW_LATENCY,
            window_increase_scale: WINDOW_INCREASE_SCALE,
            window_decrease_scale: WINDOW_DECREASE_SCALE_V3,
            window_scan: WindowScan::Oldest,
            max_measurements: MAX_MEASUREMENTS,
            ewma_throughput_fast_half_life: EWMA_THROUGHPUT_FAST_HALF_LIFE,
            ewma_throughput_slow_half_life: EWMA_THROUGHPUT_SLOW_HALF_LIFE,
            ewma_latency_fast_half_life: EWMA_LATENCY_FAST_HALF_LIFE,
            ewma_latency_slow_half_life: EWMA_LATENCY_SLOW_HALF_LIFE,
            ewma_weight_per_second: 1.0,
            bandwidth_safety_factor: BANDWIDTH_SAFETY_FACTOR,
            cache_threshold_video: Duration::from_millis(50),
            cache_threshold_audio: Duration::from_millis(5),
            dead_time_latency: true,
            dynamic_strict: true,
            dynamic_off_fraction: 0.5,
            insufficient_buffer_factor: 0.5,
            insufficient_buffer_ignore_segments: 0,
            switch_history_depth: 8,
            switch_history_sample_size: 6,
            switch_history_threshold: 0.075,
            switch_history_logs_no_change: true,
            switch_history_logs_abandon: true,
            abandon_multiplier: 1.8,
            abandon_grace_time: Duration::from_millis(500),
            abandon_min_samples: 5,
            abandon_rate: AbandonRate::MeanOfCumulative,
            switches_during_abandon: Direction::Up,
            abandon_deflates_to_new_level: false,
            fast_switching: false,
            fast_switch_ahead: 1.5,
            switch_ends_check: false,
            cache_init_segments: true,
            playback_low_water: PLAYBACK_LOW_WATER,
        }
    }

    /// dash.js 4.7: v3 with the changes the module header lists.
    pub fn v4() -> Self {
        Profile {
            stall_threshold: Duration::from_millis(300),
            audio_target_extra: Duration::from_secs(1),
            window_scan: WindowScan::Newest,
            insufficient_buffer_ignore_segments: 2,
            switches_during_abandon: Direction::Down,
            abandon_deflates_to_new_level: true,
            fast_switching: true,
            switch_ends_check: true,
            cache_init_segments: false,
            ..Profile::v3()
        }
    }

    /// dash.js v5 (HEAD, spec §1.12 right-hand column).
    pub fn v5() -> Self {
        Profile {
            buffer_time_default: Duration::from_secs(18),
            stall_threshold: Duration::from_millis(300),
            schedule: Schedule::LevelPlusSegmentBelowTarget,
            audio_target_extra: Duration::from_secs(1),
            estimator: Estimator::Ewma,
            window_decrease_scale: WINDOW_DECREASE_SCALE_V5,
            window_scan: WindowScan::Newest,
            ewma_weight_per_second: 1.5,
            cache_threshold_video: Duration::ZERO,
            cache_threshold_audio: Duration::ZERO,
            dead_time_latency: false,
            dynamic_strict: false,
            insufficient_buffer_factor: 0.7,
            insufficient_buffer_ignore_segments: 2,
            switch_history_sample_size: 8,
            switch_history_logs_no_change: false,
            switch_history_logs_abandon: false,
            abandon_min_samples: 6,
            abandon_rate: AbandonRate::SinceFirstProgress,
            switches_during_abandon: Direction::Down,
            abandon_deflates_to_new_level: true,
            fast_switching: true,
            fast_switch_ahead: 0.0,
            switch_ends_check: true,
            cache_init_segments: false,
            ..Profile::v3()
        }
    }

    /// A preset by name (`"v3"`, `"v4"`, `"v5"`).
    pub fn preset(name: &str) -> Result<Self, String> {
        match name {
            "v3" => Ok(Profile::v3()),
            "v4" => Ok(Profile::v4()),
            "v5" => Ok(Profile::v5()),
            other => Err(format!(
                "unknown dash.js profile {other:?} (allowed: {})",
                PROFILE_NAMES.join(", ")
            )),
        }
    }

    /// Buffer level at which DYNAMIC switches to BOLA.
    pub fn dynamic_on_threshold(&self) -> Duration {
        self.buffer_time_default
    }

    /// Buffer level below which DYNAMIC switches back to THROUGHPUT.
    pub fn dynamic_off_threshold(&self) -> Duration {
        self.buffer_time_default.mul_f64(self.dynamic_off_fraction)
    }

    /// Range checks, with a message naming the field.
    pub fn validate(&self) -> Result<(), String> {
        let unit = |name: &str, v: f64| {
            if v > 0.0 && v <= 1.0 {
                Ok(())
            } else {
                Err(format!(
                    "{name} = {v} is out of range: allowed 0 < {name} ≤ 1"
                ))
            }
        };
        let positive = |name: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{name} = {v} is out of range: allowed {name} > 0"))
            }
        };
        unit("bandwidth_safety_factor", self.bandwidth_safety_factor)?;
        unit("dynamic_off_fraction", self.dynamic_off_fraction)?;
        unit("window_decrease_scale", self.window_decrease_scale)?;
        positive(
            "insufficient_buffer_factor",
            self.insufficient_buffer_factor,
        )?;
        positive("initial_bitrate_video_bps", self.initial_bitrate_video_bps)?;
        positive("initial_bitrate_audio_bps", self.initial_bitrate_audio_bps)?;
        positive("ewma_weight_per_second", self.ewma_weight_per_second)?;
        positive("abandon_multiplier", self.abandon_multiplier)?;
        positive("switch_history_threshold", self.switch_history_threshold)?;
        if !(self.fast_switch_ahead >= 0.0 && self.fast_switch_ahead <= 100.0) {
            return Err(format!(
                "fast_switch_ahead = {} is out of range: allowed 0 ≤ fast_switch_ahead ≤ 100 (segments)",
                self.fast_switch_ahead
            ));
        }
        for (name, v) in [
            (
                "ewma_throughput_fast_half_life",
                self.ewma_throughput_fast_half_life,
            ),
            (
                "ewma_throughput_slow_half_life",
                self.ewma_throughput_slow_half_life,
            ),
            (
                "ewma_latency_fast_half_life",
                self.ewma_latency_fast_half_life,
            ),
            (
                "ewma_latency_slow_half_life",
                self.ewma_latency_slow_half_life,
            ),
        ] {
            positive(name, v)?;
        }
        if self.window_increase_scale <= 1.0 {
            return Err(format!(
                "window_increase_scale = {} is out of range: allowed > 1",
                self.window_increase_scale
            ));
        }
        for (name, v) in [
            ("window_vod", self.window_vod),
            ("window_latency", self.window_latency),
            ("max_measurements", self.max_measurements),
            ("switch_history_depth", self.switch_history_depth),
            (
                "switch_history_sample_size",
                self.switch_history_sample_size,
            ),
        ] {
            if v == 0 {
                return Err(format!("{name} must be at least 1"));
            }
        }
        if self.playback_low_water > Duration::from_secs(1) {
            return Err(format!(
                "playback_low_water = {}s is out of range: allowed 0s ≤ playback_low_water ≤ 1s",
                self.playback_low_water.as_secs_f64()
            ));
        }
        if self.buffer_time_default.is_zero() {
            return Err("buffer_time_default must be positive".into());
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ProfileSpec {
    Name(String),
    Table(serde_json::Map<String, serde_json::Value>),
}

/// A scenario's `profile`: `"v3"`, or a table of overrides on a preset,
/// `{ base = "v5", stall_threshold = "0.5s" }` (`profile` is accepted as an
/// alias of `base`; the default base is v3). Use with
/// `#[serde(default, deserialize_with = "setting")]` on an `Option<Profile>`.
pub fn setting<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Profile>, D::Error> {
    use serde::de::Error;
    let mut overrides = match ProfileSpec::deserialize(d)? {
        ProfileSpec::Name(name) => {
            return Profile::preset(&name).map(Some).map_err(D::Error::custom)
        }
        ProfileSpec::Table(t) => t,
    };
    let base = match (overrides.remove("base"), overrides.remove("profile")) {
        (Some(_), Some(_)) => {
            return Err(D::Error::custom("give either base or profile, not both"))
        }
        (Some(v), None) | (None, Some(v)) => match v {
            serde_json::Value::String(s) => s,
            other => {
                return Err(D::Error::custom(format!(
                    "base = {other} is not a preset name"
                )))
            }
        },
        (None, None) => "v3".to_string(),
    };
    let preset = Profile::preset(&base).map_err(D::Error::custom)?;
    let mut full = match serde_json::to_value(&preset).expect("a profile serialises") {
        serde_json::Value::Object(m) => m,
        _ => unreachable!("a profile serialises to a table"),
    };
    full.extend(overrides);
    let full = serde_json::Value::Object(full);
    serde_path_to_error::deserialize(&full)
        .map(Some)
        .map_err(|e| {
            // the app table's reader (`kind::parse`) puts Rust's number types in words
            let message = e.inner().to_string();
            let message =
                kind::expected_names::<Profile>(&full, |v| kind::at_path(v, e.path()), &message)
                    .unwrap_or(message);
            D::Error::custom(format!("{}: {message}", e.path()))
        })
}

/// Durations as unit strings: read through [`DurationField`] ("5s", "100ms"),
/// written as seconds ("0.3s").
pub(crate) mod duration_str {
    use super::*;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}s", d.as_secs_f64()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        DurationField::deserialize(d).map(|f| f.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `profile` setting as a scenario gives it.
    fn read(json: &str) -> Result<Profile, String> {
        let mut de = serde_json::Deserializer::from_str(json);
        setting(&mut de)
            .map(|p| p.expect("a setting"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_match_spec() {
        let v3 = Profile::default();
        assert_eq!(v3, Profile::v3());
        assert_eq!(v3.buffer_time_default, Duration::from_secs(12));
        assert_eq!(v3.buffer_time_at_top_quality, Duration::from_secs(30));
        assert_eq!(
            v3.buffer_time_at_top_quality_long_form,
            Duration::from_secs(60)
        );
        assert_eq!(v3.long_form_threshold, Duration::from_secs(600));
        assert_eq!(v3.stall_threshold, Duration::from_millis(500));
        // v3 `startScheduleTimer(500)`; v4.7.4 and v5.2.1 `scheduling.defaultTimeout: 500`
        assert_eq!(v3.schedule_poll, Duration::from_millis(500));
        assert_eq!(
            (v3.initial_bitrate_video_bps, v3.initial_bitrate_audio_bps),
            (1e6, 1e5)
        );
        assert_eq!(v3.estimator, Estimator::SlidingWindow);
        assert_eq!(
            (v3.window_vod, v3.window_latency, v3.max_measurements),
            (4, 4, 20)
        );
        assert_eq!(v3.window_scan, WindowScan::Oldest);
        assert!((v3.window_decrease_scale - 1.0 / 1.3).abs() < 1e-12);
        assert_eq!(v3.bandwidth_safety_factor, 0.9);
        assert_eq!(v3.cache_threshold_video, Duration::from_millis(50));
        assert!(v3.dead_time_latency && v3.dynamic_strict);
        assert_eq!(v3.dynamic_on_threshold(), Duration::from_secs(12));
        assert_eq!(v3.dynamic_off_threshold(), Duration::from_secs(6));
        assert_eq!(v3.insufficient_buffer_factor, 0.5);
        assert_eq!(
            (v3.switch_history_depth, v3.switch_history_sample_size),
            (8, 6)
        );
        assert_eq!((v3.abandon_multiplier, v3.abandon_min_samples), (1.8, 5));
        assert_eq!(v3.switches_during_abandon, Direction::Up);
        assert!(v3.abandon_enabled && v3.insufficient_buffer_enabled && v3.switch_history_enabled);
        assert!(v3.switch_history_logs_abandon);
        assert!(!v3.fast_switching);
        // 3.0.3 BufferController `onInitFragmentLoaded`: `initCache.save(e.chunk)`, always
        assert!(v3.cache_init_segments);

        let v5 = Profile::v5();
        assert_eq!(v5.buffer_time_default, Duration::from_secs(18));
        assert_eq!(v5.stall_threshold, Duration::from_millis(300));
        assert_eq!(v5.schedule_poll, Duration::from_millis(500));
        assert_eq!(v5.estimator, Estimator::Ewma);
        assert_eq!(v5.ewma_weight_per_second, 1.5);
        assert_eq!(
            (
                v5.ewma_throughput_fast_half_life,
                v5.ewma_throughput_slow_half_life
            ),
            (3.0, 8.0)
        );
        assert_eq!(
            (
                v5.ewma_latency_fast_half_life,
                v5.ewma_latency_slow_half_life
            ),
            (1.0, 2.0)
        );
        assert_eq!(v5.window_decrease_scale, 0.7);
        assert_eq!(v5.cache_threshold_video, Duration::ZERO);
        assert_eq!(v5.cache_threshold_audio, Duration::ZERO);
        assert!(!v5.switch_history_logs_abandon);
        assert!(!v5.dead_time_latency && !v5.dynamic_strict);
        assert_eq!(v5.dynamic_off_threshold(), Duration::from_secs(9));
        assert_eq!(v5.insufficient_buffer_factor, 0.7);
        assert_eq!(v5.insufficient_buffer_ignore_segments, 2);
        assert_eq!(v5.switch_history_sample_size, 8);
        assert_eq!(v5.abandon_min_samples, 6);
        assert_eq!(v5.switches_during_abandon, Direction::Down);
        assert!(v5.fast_switching);
        // 5.2.1 Settings.js `cacheInitSegments: false`
        assert!(!v5.cache_init_segments);
        // 5.2.1: `1.5 * null`, the segment under the playhead
        assert_eq!((v3.fast_switch_ahead, v5.fast_switch_ahead), (1.5, 0.0));
        assert!(v3.validate().is_ok() && v5.validate().is_ok());
        let far = Profile {
            fast_switch_ahead: -1.0,
            ..Profile::v5()
        };
        let e = far.validate().unwrap_err();
        assert!(
            e.contains("fast_switch_ahead = -1") && e.contains("0 ≤"),
            "{e}"
        );
        // the browser's stall margin, the same in every profile (the header's measurement)
        for p in [&v3, &Profile::v4(), &v5] {
            assert_eq!(p.playback_low_water, Duration::from_millis(50));
        }
        let deep = Profile {
            playback_low_water: Duration::from_millis(1500),
            ..Profile::v3()
        };
        let e = deep.validate().unwrap_err();
        assert!(
            e.contains("playback_low_water = 1.5s") && e.contains("≤ 1s"),
            "{e}"
        );
    }

    /// The fields of `p` that differ from v3's, read back from the two presets' echoes.
    fn changed_from_v3(p: &Profile) -> serde_json::Value {
        let echo = |p: &Profile| match serde_json::to_value(p).unwrap() {
            serde_json::Value::Object(m) => m,
            _ => unreachable!("a profile serialises to a table"),
        };
        let v3 = echo(&Profile::v3());
        serde_json::Value::Object(echo(p).into_iter().filter(|(k, v)| v3[k] != *v).collect())
    }

    /// dash.js 4.5.3 / 4.7.3: v3 but for the nine values the header lists.
    #[test]
    fn v4_is_v3_with_what_dash_js_4_changed() {
        let v4 = Profile::v4();
        assert_eq!(
            changed_from_v3(&v4),
            serde_json::json!({
                // Settings.js `buffer.stallThreshold: 0.3`
                "stall_threshold": "0.3s",
                // ScheduleController `Math.max(videoBufferLevel + 1, fragmentDuration)`
                "audio_target_extra": "1s",
                // ThroughputHistory `arr[arr.length - i] / arr[arr.length - i - 1]`
                "window_scan": "newest",
                // InsufficientBufferRule `SEGMENT_IGNORE_COUNT = 2`
                "insufficient_buffer_ignore_segments": 2,
                // AbrController `... === ALLOW_LOAD || newQuality < oldQuality`
                "switches_during_abandon": "down",
                // setPlaybackQuality, then StreamProcessor `_prepareForAbandonQualitySwitch` aborts
                "abandon_deflates_to_new_level": true,
                // Settings.js `buffer.fastSwitchEnabled: true`; 1.5 × fragmentDuration (v3's value)
                "fast_switching": true,
                // ScheduleController.schedule: `if (!qualityChange) _getNextFragment()`
                "switch_ends_check": true,
                // Settings.js `cacheInitSegments: false`; BufferController saves only if set
                "cache_init_segments": false,
            })
        );
        assert_eq!(read("\"v4\"").unwrap(), v4);
        assert!(v4.validate().is_ok());
    }

    /// dash.js v5 (spec §1.12): v3 but for these 25 values; `defaults_match_spec` gives the
    /// sources of most.
    #[test]
    fn v5_is_v3_with_what_dash_js_5_changed() {
        assert_eq!(
            changed_from_v3(&Profile::v5()),
            serde_json::json!({
                "buffer_time_default": "18s",
                "stall_threshold": "0.3s",
                // ScheduleController: bufferLevel + segment duration < target
                "schedule": "level_plus_segment_below_target",
                "audio_target_extra": "1s",
                "estimator": "ewma",
                "ewma_weight_per_second": 1.5,
                "window_decrease_scale": 0.7,
                "window_scan": "newest",
                "cache_threshold_video": "0s",
                "cache_threshold_audio": "0s",
                "dead_time_latency": false,
                "dynamic_strict": false,
                "insufficient_buffer_factor": 0.7,
                "insufficient_buffer_ignore_segments": 2,
                "switch_history_sample_size": 8,
                // only decisions where some rule proposed a level are logged
                "switch_history_logs_no_change": false,
                "switch_history_logs_abandon": false,
                "abandon_min_samples": 6,
                // bytes after the first progress event over the time since it
                "abandon_rate": "since_first_progress",
                "switches_during_abandon": "down",
                "abandon_deflates_to_new_level": true,
                "fast_switching": true,
                "fast_switch_ahead": 0.0,
                "switch_ends_check": true,
                "cache_init_segments": false,
            })
        );
    }

    #[test]
    fn a_name_or_a_table_of_overrides_selects_the_profile() {
        let p = read("\"v5\"").unwrap();
        assert_eq!(p, Profile::v5());
        let p =
            read(r#"{"base": "v5", "buffer_time_default": "20s", "estimator": "sliding_window"}"#)
                .unwrap();
        assert_eq!(p.buffer_time_default, Duration::from_secs(20));
        assert_eq!(p.estimator, Estimator::SlidingWindow);
        assert_eq!(p.stall_threshold, Duration::from_millis(300));
        let p = read(r#"{"stall_threshold": "300ms"}"#).unwrap();
        assert_eq!(
            p,
            Profile {
                stall_threshold: Duration::from_millis(300),
                ..Profile::v3()
            }
        );
        let p = read(r#"{"profile": "v5"}"#).unwrap();
        assert_eq!(p, Profile::v5());
    }

    #[test]
    fn unknown_presets_and_fields_are_errors_that_say_what_is_allowed() {
        let e = read("\"v6\"").unwrap_err();
        assert!(e.contains("v6") && e.contains("v3, v4, v5"), "{e}");
        let e = read(r#"{"bufer_time_default": "20s"}"#).unwrap_err();
        assert!(
            e.contains("bufer_time_default") && e.contains("buffer_time_default"),
            "{e}"
        );
        let e = read(r#"{"stall_threshold": 0.3}"#).unwrap_err();
        assert!(e.contains("unit"), "{e}");
    }

    #[test]
    fn a_profile_echoes_and_reads_back_unchanged() {
        for p in [Profile::v3(), Profile::v5()] {
            let json = serde_json::to_value(&p).unwrap();
            assert_eq!(
                json["stall_threshold"],
                p.stall_threshold.as_secs_f64().to_string() + "s"
            );
            let back: Profile = serde_json::from_value(json).unwrap();
            assert_eq!(back, p);
        }
    }

    #[test]
    fn every_range_is_checked_at_its_edges() {
        type Edit = fn(&mut Profile);
        let with = |f: Edit| {
            let mut p = Profile::v3();
            f(&mut p);
            p.validate()
        };
        let cases: [(Edit, Option<&str>); 16] = [
            (|p| p.bandwidth_safety_factor = 1.0, None),
            (|p| p.bandwidth_safety_factor = 0.0, Some("bandwidth_safety_factor = 0 is out of range: allowed 0 < bandwidth_safety_factor ≤ 1")),
            (|p| p.window_decrease_scale = 1.0 + 1e-9, Some("window_decrease_scale = 1.000000001")),
            (|p| p.abandon_multiplier = 1e-9, None),
            (|p| p.abandon_multiplier = 0.0, Some("abandon_multiplier = 0 is out of range: allowed abandon_multiplier > 0")),
            (|p| p.ewma_weight_per_second = f64::INFINITY, Some("ewma_weight_per_second = inf")),
            (|p| p.ewma_latency_slow_half_life = -1.0, Some("ewma_latency_slow_half_life = -1")),
            (|p| p.fast_switch_ahead = 100.0, None),
            (|p| p.fast_switch_ahead = 100.5, Some("fast_switch_ahead = 100.5")),
            (|p| p.window_increase_scale = 1.0 + 1e-9, None),
            (|p| p.window_increase_scale = 1.0, Some("window_increase_scale = 1 is out of range: allowed > 1")),
            (|p| p.max_measurements = 1, None),
            (|p| p.switch_history_depth = 0, Some("switch_history_depth must be at least 1")),
            (|p| p.playback_low_water = Duration::from_secs(1), None),
            (|p| p.buffer_time_default = Duration::from_nanos(1), None),
            (|p| p.buffer_time_default = Duration::ZERO, Some("buffer_time_default must be positive")),
        ];
        for (i, (set, want)) in cases.into_iter().enumerate() {
            crate::testing::assert_validation(with(set), want, &format_args!("case {i}"));
        }
    }

    #[test]
    fn out_of_range_values_name_the_field() {
        let p = Profile {
            bandwidth_safety_factor: 1.5,
            ..Profile::v3()
        };
        assert!(p
            .validate()
            .unwrap_err()
            .contains("bandwidth_safety_factor"));
        let p = Profile {
            window_vod: 0,
            ..Profile::v5()
        };
        assert!(p.validate().unwrap_err().contains("window_vod"));
    }
}
