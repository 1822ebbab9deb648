//! The DASH player: playout buffer, start-up, stalls, and when to request
//! the next segment — dash.js's `ScheduleController` and media element, as
//! the spec (`abr-and-traces.md` §1.11) describes them.
//!
//! ```text
//!   buffer level (per track) = media time buffered − playhead
//!   request the next video segment when   level < target               (dash.js 2.x/3.x)
//!                                   or   level + segment < target     (v4/v5)
//!       target = buffer_time_default (12 s in dash.js v3, 18 s in v5), or
//!                buffer_time_at_top_quality (30 s; 60 s for content ≥ 10 min) at the top level
//!   request the next audio segment when   audio level < max(video level + extra, segment)
//!   playback starts when every track has a segment; it stalls the instant a
//!   track's buffer falls to the low-water mark and resumes when every track
//!   has more data again
//!       playable end = buffered end − playback_low_water   (the video's end: itself)
//! ```
//!
//! The low-water mark is the browser's: Chromium's media element stops short
//! of the end of what is buffered (its decoder holds the last frames until more
//! data or the end of the stream arrives), so a stalled playhead sits inside
//! the segment that ran out, and a segment that lands in the last few frames
//! still finds playback waiting (`PlayerConfig::playback_low_water`).
//!
//! The playhead moves in exact integer time, so a stall begins at the
//! nanosecond the buffer reaches the mark, not at the next event. The audio track (if
//! any) follows the video's buffer level at its single level. A request goes
//! out when the level is at most the threshold (≤ rather than dash.js's <, which
//! differs only at that one nanosecond and lets a timer set for the crossing fire),
//! at one of the scheduler's checks: dash.js checks a track when a segment is
//! appended, and while the buffer is full, again every `schedule_poll` (500 ms)
//! after that, so a request goes out up to 500 ms after the level falls below the
//! threshold. A BOLA pacing delay set at a check runs from that check, and delays
//! the request that check chose: dash.js 3.x stamps the request
//! (`NextFragmentRequestRule`: `delayLoadingTime = now + timeToLoadDelay`) and its
//! `HTTPLoader` holds it back, so no second decision is made when the delay ends.
//!
//! Initialization segments: a track's first segment at a level is preceded by
//! that level's init segment (`Video::init_bytes`), requested at the check that
//! chose the level; the media request follows at a later check, once it has
//! arrived, at that level without another ABR decision. Later segments at a level
//! need none. This is dash.js 3.x's `ScheduleController.schedule()`: a quality
//! that differs from `lastInitQuality` calls `switchInitData`, which loads the init
//! segment unless `InitCache` holds it, and sets `checkPlaybackQuality = false` for
//! the schedule that follows. 3.x caches every init segment it loads, so a switch
//! back to a level fetches nothing (the init segment is appended from memory, and
//! the media request is still the next check's); 4.x and 5.x cache only with
//! `cacheInitSegments`, off by default, so every change of level fetches the new
//! level's init segment again (`PlayerConfig::cache_init_segments`). The check that
//! requests the media tests the buffer against the new level's target: dash.js's
//! `isPlayingAtTopQuality` asks for the quality of its last decision, so after a
//! step down from the top level the media waits until the buffer falls below the
//! lower target (`BufferLevelRule` in 3.x, `_shouldBuffer` in 4.x and 5.x). In 4.x
//! and 5.x a decision that changes the level ends its check before the init segment
//! too ("we only call _getNextFragment if the quality is not changed"), so the init
//! segment waits as well (`PlayerConfig::switch_ends_check`). Init segments are not
//! media: the ABR's throughput history and the segment records leave them out
//! (`AbrController.onMetricAdded` keeps `MEDIA_SEGMENT_TYPE` requests only).
//!
//! Fast switching (dash.js v4's and v5's default; `Profile::fast_switching`), as
//! `StreamProcessor._prepareForFastQualitySwitch` does it: when a decision changes
//! the video level, the segment `fast_switch_ahead` segment durations ahead of the
//! playhead (v4: 1.5; v5: 0, the segment playing) was last loaded at a lower
//! bitrate, the buffer holds at least that much and no abandonment holds
//! (ALLOW_LOAD), the request goes for that segment instead of the next one, and
//! requests continue in order from there, re-fetching what is buffered behind it
//! (the buffer level is unchanged by an overwrite, so the usual target gates each
//! one). dash.js compares with the executed request that `FragmentModel`'s
//! `getRequestForTime` finds for that time, scanning from the newest: a segment's
//! latest complete load, replacements included (4.7.4 and 5.2.1 alike). A
//! replacement plays if it arrives before its segment begins to play; one that
//! arrives later is counted but does not change what played (the media element
//! keeps playing what it has).
//!
//! Deviations: no seeking.

use super::abr::{Abr, AbrContext, Download, Progress};
use super::profile::Schedule;
use super::video::Video;
use crate::time::{Duration, Time};

/// The player constants that depend on the dash.js version (from `Profile`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerConfig {
    /// Buffer target below the top level (dash.js `stableBufferTime` / `bufferTimeDefault`).
    pub buffer_time_default: Duration,
    /// Buffer target at the top level.
    pub buffer_time_at_top_quality: Duration,
    /// Below this level the player reports BUFFER_EMPTY to the ABR (dash.js `stallThreshold`).
    pub stall_threshold: Duration,
    pub schedule: Schedule,
    /// Interval of the scheduler's checks after an append (zero: checks at every instant).
    pub schedule_poll: Duration,
    pub audio_target_extra: Duration,
    /// A rise in level re-fetches buffered segments (dash.js `fastSwitchEnabled`) from
    /// `fast_switch_ahead` segment durations ahead of the playhead.
    pub fast_switching: bool,
    pub fast_switch_ahead: f64,
    /// A decision that changes the level ends the check (dash.js 4.x/5.x): the new level's
    /// init segment is requested at a later check, against its buffer target.
    pub switch_ends_check: bool,
    /// Init segments once loaded are kept and appended from memory at a later switch
    /// back to their level (dash.js `InitCache`); otherwise every change of level
    /// fetches the new level's init segment again.
    pub cache_init_segments: bool,
    /// The media element stops this far before the end of what is buffered, unless
    /// that end is the video's (the browser's decoder delay).
    pub playback_low_water: Duration,
}

/// How often a playing media element reports its buffer level (dash.js reacts to
/// `timeupdate`/playback progression, about every 250 ms).
pub const BUFFER_LEVEL_PERIOD: Duration = Duration::from_millis(250);

pub const VIDEO: usize = 0;
pub const AUDIO: usize = 1;

/// A segment download the player started.
#[derive(Clone, Debug)]
pub struct Fetch {
    pub track: usize,
    pub index: usize,
    pub level: usize,
    /// HTTP exchange carrying it.
    pub exchange: u64,
    pub requested_at: Time,
    pub buffer_at_request: Duration,
    pub estimate_bps: Option<f64>,
    pub events: usize,
    /// The level's initialization segment, not media.
    pub init: bool,
}

/// One finished or abandoned segment, for segments.parquet and QoE.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentRecord {
    pub track: usize,
    pub download: Download,
    pub bitrate_bps: f64,
    pub estimate_bps: Option<f64>,
    /// Playback was stalled when it arrived.
    pub stalled: bool,
    pub exchange: u64,
    /// A fast-switching re-fetch of a segment that had already been loaded.
    pub replacement: bool,
}

/// What the player wants fetched next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Want {
    pub track: usize,
    pub index: usize,
    pub level: usize,
    pub bytes: u64,
    /// The level's initialization segment, fetched before its first media segment.
    pub init: bool,
}

struct TrackState {
    media: Video,
    /// The segment the next media request is for.
    next: usize,
    fetching: Option<Fetch>,
    /// End of the media time buffered from the start of the content (first loads
    /// arrive in order; a replacement overwrites and does not extend it).
    buffered: Duration,
    /// Per segment: the level of its latest complete load (what dash.js's
    /// executed-request lookup finds), once it has been loaded.
    loaded_level: Vec<Option<usize>>,
    /// Per segment: the record (into `Player::records`) of the load that plays.
    shown: Vec<Option<usize>>,
    history: Vec<Download>,
    last_level: Option<usize>,
    /// Earliest time the next request may go (BOLA's pacing delay).
    not_before: Time,
    /// The scheduler's checks fall at this time plus multiples of `schedule_poll`
    /// (the last append or abandonment, or the manifest's arrival).
    checks_from: Time,
    /// The level already chosen for the next media request, which goes out without
    /// another ABR decision: an abandonment's (dash.js re-requests the segment
    /// without `checkPlaybackQuality`), the one whose init segment was fetched first,
    /// or the one a BOLA pacing delay holds back.
    chosen_level: Option<usize>,
    /// Levels whose init segment has arrived (dash.js's `InitCache`).
    initialized: Vec<bool>,
    /// The level whose init segment the media buffer holds last (dash.js
    /// `lastInitializedRepresentationId`): a media request at another level needs one.
    appended_init: Option<usize>,
}

pub struct Player {
    cfg: PlayerConfig,
    tracks: Vec<TrackState>,
    abr: Box<dyn Abr>,
    playhead: Duration,
    /// When `playhead` was last brought up to date.
    clock: Time,
    playing: bool,
    started_at: Option<Time>,
    began_at: Option<Time>,
    stall_since: Option<Time>,
    stalls: Vec<(Time, Duration)>,
    ended_at: Option<Time>,
    records: Vec<SegmentRecord>,
    /// The buffer is below `stall_threshold` and BUFFER_EMPTY has been reported.
    reported_empty: bool,
    next_level_report: Time,
}

impl Player {
    pub fn new(cfg: PlayerConfig, video: Video, audio: Option<Video>, abr: Box<dyn Abr>) -> Self {
        let track = |media: Video| TrackState {
            initialized: vec![false; media.levels()],
            loaded_level: vec![None; media.segments],
            shown: vec![None; media.segments],
            media,
            next: 0,
            fetching: None,
            buffered: Duration::ZERO,
            history: Vec::new(),
            last_level: None,
            not_before: Time::ZERO,
            checks_from: Time::ZERO,
            chosen_level: None,
            appended_init: None,
        };
        let mut tracks = vec![track(video)];
        tracks.extend(audio.map(track));
        Player {
            cfg,
            tracks,
            abr,
            playhead: Duration::ZERO,
            clock: Time::ZERO,
            playing: false,
            started_at: None,
            began_at: None,
            stall_since: None,
            stalls: Vec::new(),
            ended_at: None,
            records: Vec::new(),
            reported_empty: false,
            next_level_report: Time::ZERO,
        }
    }

    /// The manifest arrived: the player starts fetching segments.
    pub fn begin(&mut self, now: Time) {
        self.began_at = Some(now);
        self.clock = now;
        for t in &mut self.tracks {
            t.checks_from = now;
        }
    }

    /// The first scheduler check of `track` at or after `at`; a pacing delay already
    /// set by a passing check needs no further check.
    fn check_at(&self, track: usize, at: Time) -> Time {
        let t = &self.tracks[track];
        let poll = self.cfg.schedule_poll.as_nanos();
        if poll == 0 || t.not_before > t.checks_from || at <= t.checks_from {
            return at.max(t.checks_from);
        }
        let since = (at - t.checks_from).as_nanos();
        t.checks_from + Duration::from_nanos(since.div_ceil(poll) * poll)
    }

    fn length(&self) -> Duration {
        self.tracks[VIDEO].media.length()
    }

    /// Where playback must stop for want of data: the low-water mark short of the
    /// buffered end, or the video's end once all of it is buffered.
    fn playable_end(&self) -> Duration {
        self.playable_before(self.buffered_end())
    }

    /// The playable end when `end` is buffered.
    fn playable_before(&self, end: Duration) -> Duration {
        if end >= self.length() {
            end
        } else {
            end.saturating_sub(self.cfg.playback_low_water)
        }
    }

    fn buffered_end(&self) -> Duration {
        self.tracks
            .iter()
            .map(|t| t.buffered)
            .min()
            .unwrap_or(Duration::ZERO)
            .min(self.length())
    }

    /// Buffer level of `track` at the current playhead.
    fn level(&self, track: usize) -> Duration {
        self.tracks[track].buffered.saturating_sub(self.playhead)
    }

    /// Brings the playhead to `now`, starting a stall (at the exact time the
    /// buffer emptied) or ending playback on the way, and tells the ABR about
    /// the buffer level (BUFFER_EMPTY below the stall threshold, periodic levels).
    pub fn advance(&mut self, now: Time) {
        if self.playing && !self.reported_empty {
            let headroom = self.buffered_end().saturating_sub(self.playhead);
            let crossing = self.clock + headroom.saturating_sub(self.cfg.stall_threshold);
            if headroom < self.length().saturating_sub(self.playhead) && crossing <= now {
                self.reported_empty = true;
                self.abr.on_buffer_empty(crossing);
            }
        }
        self.move_playhead(now);
        if self.began_at.is_some() && self.ended_at.is_none() && now >= self.next_level_report {
            self.abr.on_buffer_level(now, self.level(VIDEO));
            self.next_level_report = now + BUFFER_LEVEL_PERIOD;
        }
    }

    fn move_playhead(&mut self, now: Time) {
        if self.playing {
            let elapsed = now.saturating_since(self.clock);
            let end = self.playable_end();
            let room = end.saturating_sub(self.playhead);
            if elapsed >= room {
                let at = self.clock + room;
                self.playhead = end;
                self.playing = false;
                if end >= self.length() {
                    self.ended_at = Some(at);
                } else {
                    self.stall_since = Some(at);
                }
            } else {
                self.playhead += elapsed;
            }
        }
        self.clock = now;
    }

    /// The ABR beside what it sees of `track` at segment `index` (the ABR borrowed mutably,
    /// the tracks shared).
    fn abr_and_context(
        &mut self,
        now: Time,
        track: usize,
        index: usize,
    ) -> (&mut dyn Abr, AbrContext<'_>) {
        let t = &self.tracks[track];
        let ctx = AbrContext {
            now,
            video: &t.media,
            index,
            buffer: t.buffered.saturating_sub(self.playhead),
            last_level: t.last_level,
            history: &t.history,
            playback_started: self.started_at.is_some(),
        };
        (self.abr.as_mut(), ctx)
    }

    /// The video's buffer target. dash.js asks whether it plays at the top quality, the
    /// level of its last decision: a level chosen and not yet requested counts.
    fn target(&self) -> Duration {
        let v = &self.tracks[VIDEO];
        let top = v.media.levels() - 1;
        if v.chosen_level.or(v.last_level) == Some(top) {
            self.cfg.buffer_time_at_top_quality
        } else {
            self.cfg.buffer_time_default
        }
    }

    /// `track` requests while its buffer level is at most this.
    fn threshold(&self, track: usize) -> Duration {
        let seg = self.tracks[track].media.segment_duration;
        if track == AUDIO {
            // strictly behind the video (or a segment): one nanosecond under the target
            let target = (self.level(VIDEO) + self.cfg.audio_target_extra).max(seg);
            return target.saturating_sub(Duration::from_nanos(1));
        }
        let target = self.target();
        match self.cfg.schedule {
            Schedule::LevelPlusSegmentBelowTarget if target > seg => target - seg,
            _ => target,
        }
    }

    /// A check that changed `track`'s level to `level` ends; the next check requests at that
    /// level once the buffer is within its threshold, which may be now. True if it is not yet.
    fn waits_at_new_level(&mut self, track: usize, level: usize) -> bool {
        self.tracks[track].chosen_level = Some(level);
        let waits = self.level(track) > self.threshold(track);
        if !waits {
            self.tracks[track].chosen_level = None;
        }
        waits
    }

    fn may_request(&self, track: usize) -> bool {
        let t = &self.tracks[track];
        self.began_at.is_some()
            && self.ended_at.is_none()
            && t.fetching.is_none()
            && t.next < t.media.segments
    }

    /// The next segment to request now, if any (at most one in flight per track).
    pub fn want(&mut self, now: Time) -> Option<Want> {
        self.advance(now);
        for track in 0..self.tracks.len() {
            if !self.may_request(track)
                || self.level(track) > self.threshold(track)
                || now < self.tracks[track].not_before
                || now < self.check_at(track, now)
            {
                continue;
            }
            let index = self.tracks[track].next;
            let level = if let Some(level) = self.tracks[track].chosen_level.take() {
                level
            } else if track == VIDEO {
                let (abr, ctx) = self.abr_and_context(now, track, index);
                let decision = abr.decide(&ctx);
                if let Some(j) = self.fast_switch(now, decision.level) {
                    self.tracks[track].next = j;
                }
                if !decision.delay.is_zero() {
                    self.tracks[track].not_before = now + decision.delay;
                    self.tracks[track].chosen_level = Some(decision.level);
                    continue;
                }
                let switching = self.tracks[track]
                    .appended_init
                    .is_some_and(|a| a != decision.level);
                if self.cfg.switch_ends_check
                    && switching
                    && self.waits_at_new_level(track, decision.level)
                {
                    continue;
                }
                decision.level
            } else {
                0
            };
            let t = &mut self.tracks[track];
            let index = t.next;
            let switching = t.appended_init.is_some_and(|a| a != level);
            let cached = self.cfg.cache_init_segments && t.initialized[level];
            let init = t.media.init_bytes > 0 && t.appended_init != Some(level) && !cached;
            if switching && !init {
                // the init segment is appended from the cache (or there is none to fetch): the
                // media request is the next check's, against the new level's target
                t.appended_init = Some(level);
                if self.waits_at_new_level(track, level) {
                    continue;
                }
            }
            let t = &mut self.tracks[track];
            let bytes = if init {
                t.chosen_level = Some(level);
                t.media.init_bytes
            } else {
                t.media.size(index, level)
            };
            return Some(Want {
                track,
                index,
                level,
                bytes,
                init,
            });
        }
        None
    }

    /// The segment a fast switch to `level` re-fetches from, if the switch replaces
    /// buffered media (see the module header).
    fn fast_switch(&self, now: Time, level: usize) -> Option<usize> {
        let t = &self.tracks[VIDEO];
        // dash.js's current representation: the level of the last media request, which (no
        // fetch being in flight at a decision) is the last download, complete or abandoned
        let current = t.history.last().map(|d| d.level);
        if !self.cfg.fast_switching || current.is_none_or(|q| q == level) {
            return None;
        }
        if self.abr.abandoning(now) {
            return None;
        }
        // dash.js also wants the buffer to hold `safe`: here that follows from the lookup
        // below, as segments load whole and in order, so one `safe` ahead of the playhead has
        // been loaded only if the buffer reaches past it
        let seg = t.media.segment_duration;
        let safe = seg.mul_f64(self.cfg.fast_switch_ahead);
        // dash.js looks up the media element's currentTime: stalled, it sits at the low-water
        // mark, inside the segment that ran out
        let ahead = ((self.playhead + safe).as_nanos() / seg.as_nanos()) as usize;
        let loaded = t.loaded_level.get(ahead).copied().flatten()?;
        let rates = &t.media.bitrates_bps;
        (rates[loaded] < rates[level]).then_some(ahead)
    }

    /// A request for `want` went out as HTTP exchange `exchange`.
    pub fn on_requested(&mut self, now: Time, want: Want, exchange: u64) {
        let estimate_bps = if want.track == VIDEO {
            self.abr.estimate_bps()
        } else {
            None
        };
        let buffer_at_request = self.level(want.track);
        let t = &mut self.tracks[want.track];
        if !want.init {
            // the level's init segment is in the buffer: fetched, or appended from the cache
            t.appended_init = Some(want.level);
        }
        t.fetching = Some(Fetch {
            track: want.track,
            index: want.index,
            level: want.level,
            exchange,
            requested_at: now,
            buffer_at_request,
            estimate_bps,
            events: 0,
            init: want.init,
        });
    }

    /// The in-flight fetch of `track`, if any.
    pub fn fetching(&self, track: usize) -> Option<&Fetch> {
        self.tracks[track].fetching.as_ref()
    }

    /// Bytes of the video fetch arrived; returns `Some(level)` if the ABR abandons it for `level`.
    pub fn on_progress(
        &mut self,
        now: Time,
        received: u64,
        first_byte_at: Option<Time>,
    ) -> Option<usize> {
        self.advance(now);
        let t = &mut self.tracks[VIDEO];
        let f = t.fetching.as_mut().filter(|f| !f.init)?;
        f.events += 1;
        let p = Progress {
            index: f.index,
            level: f.level,
            bytes_total: t.media.size(f.index, f.level),
            bytes_received: received,
            requested_at: f.requested_at,
            first_byte_at,
            events: f.events,
        };
        let (abr, ctx) = self.abr_and_context(now, VIDEO, p.index);
        let choice = abr.abandon(&ctx, &p)?;
        if choice == p.level {
            return None;
        }
        self.tracks[VIDEO].chosen_level = Some(choice);
        Some(choice)
    }

    /// The fetch of `track` ended at `now`: complete (appended) or abandoned.
    pub fn on_fetched(
        &mut self,
        now: Time,
        track: usize,
        bytes: u64,
        first_byte_at: Option<Time>,
        abandoned: bool,
    ) {
        self.advance(now);
        let Some(f) = self.tracks[track].fetching.take() else {
            return;
        };
        if f.init {
            // appended to the buffer at once; the next check requests the media
            let t = &mut self.tracks[track];
            t.initialized[f.level] = true;
            t.appended_init = Some(f.level);
            t.checks_from = now;
            return;
        }
        let download = Download {
            index: f.index,
            level: f.level,
            bytes,
            requested_at: f.requested_at,
            first_byte_at: first_byte_at.unwrap_or(now),
            completed_at: now,
            buffer_at_request: f.buffer_at_request,
            abandoned,
        };
        let stalled = self.stall_since.is_some();
        if track == VIDEO {
            // the ABR sees the buffer as it was before this segment is appended
            let (abr, ctx) = self.abr_and_context(now, VIDEO, f.index);
            abr.on_download(&ctx, &download);
        }
        let playhead = self.playhead;
        let record = self.records.len();
        let t = &mut self.tracks[track];
        t.checks_from = now;
        let replacement = t.loaded_level[f.index].is_some();
        if !abandoned {
            let start = t.media.start(f.index);
            t.loaded_level[f.index] = Some(f.level);
            if playhead <= start {
                t.shown[f.index] = Some(record);
            }
            t.buffered = t.buffered.max(t.media.start(f.index + 1));
            t.next = f.index + 1;
            t.last_level = Some(f.level);
        }
        t.history.push(download.clone());
        let bitrate_bps = t.media.bitrates_bps[f.level];
        self.records.push(SegmentRecord {
            track,
            download,
            bitrate_bps,
            estimate_bps: f.estimate_bps,
            stalled,
            exchange: f.exchange,
            replacement,
        });
        if !abandoned && self.level(VIDEO) >= self.cfg.stall_threshold {
            self.reported_empty = false;
        }
        if track == VIDEO && !abandoned {
            self.abr.on_buffer_level(now, self.level(VIDEO));
        }
        self.maybe_play(now);
    }

    fn maybe_play(&mut self, now: Time) {
        if self.playing || self.ended_at.is_some() || self.playable_end() <= self.playhead {
            return;
        }
        if let Some(since) = self.stall_since.take() {
            self.stalls.push((since, now - since));
        }
        self.started_at.get_or_insert(now);
        self.playing = true;
        self.clock = now;
    }

    /// When the player next needs to act: the buffer emptying, playback ending,
    /// a track's buffer falling below its target, or a pacing delay expiring.
    pub fn next_wakeup(&self) -> Option<Time> {
        let mut next = Time::NEVER;
        if self.playing {
            let end = self.buffered_end();
            let room = self.playable_before(end).saturating_sub(self.playhead);
            next = next.min(self.clock + room).min(self.next_level_report);
            let headroom = end.saturating_sub(self.playhead);
            if !self.reported_empty && headroom > self.cfg.stall_threshold {
                next = next.min(self.clock + (headroom - self.cfg.stall_threshold));
            }
        }
        for track in 0..self.tracks.len() {
            if !self.may_request(track) {
                continue;
            }
            let t = &self.tracks[track];
            if t.not_before > self.clock {
                next = next.min(t.not_before);
            }
            let surplus = self.level(track).saturating_sub(self.threshold(track));
            if surplus.is_zero() {
                // due at the next check, or when a pacing delay set at one expires
                next = next.min(self.check_at(track, self.clock).max(t.not_before));
                continue;
            }
            if !self.playing {
                continue;
            }
            if track == AUDIO {
                // audio's threshold drains with the video level, so the surplus only shrinks
                // once the threshold sits on its one-segment floor
                let seg = t.media.segment_duration;
                let above_floor =
                    (self.level(VIDEO) + self.cfg.audio_target_extra).saturating_sub(seg);
                if !above_floor.is_zero() {
                    next = next.min(self.clock + above_floor);
                    continue;
                }
            }
            next = next.min(self.check_at(track, self.clock + surplus));
        }
        (next != Time::NEVER).then_some(next)
    }

    pub fn ended(&self) -> Option<Time> {
        self.ended_at
    }

    pub fn started(&self) -> Option<Time> {
        self.started_at
    }

    pub fn began(&self) -> Option<Time> {
        self.began_at
    }

    /// Completed stalls (start, duration), plus the one in progress up to `now`.
    pub fn stalls(&self, now: Time) -> Vec<(Time, Duration)> {
        let mut v = self.stalls.clone();
        if let Some(since) = self.stall_since {
            v.push((since, now.saturating_since(since)));
        }
        v
    }

    pub fn records(&self) -> &[SegmentRecord] {
        &self.records
    }

    /// The video loads that play (or will: those buffered ahead of the playhead), in
    /// segment order: one per segment loaded so far.
    pub fn shown(&self) -> impl Iterator<Item = &SegmentRecord> {
        self.tracks[VIDEO]
            .shown
            .iter()
            .map_while(|r| r.map(|i| &self.records[i]))
    }

    pub fn video(&self) -> &Video {
        &self.tracks[VIDEO].media
    }

    pub fn playhead(&self) -> Duration {
        self.playhead
    }
}

#[cfg(test)]
#[path = "player_tests.rs"]
pub(super) mod tests;
