use super::*;
use crate::app::dash::abr::Decision;
use crate::app::dash::profile::Schedule;

/// When the ABR heard BUFFER_EMPTY.
type Empties = std::rc::Rc<std::cell::RefCell<Vec<Time>>>;

/// Always picks `level` on an estimate of 3 Mb/s; records buffer-empty events.
struct Fixed {
    level: usize,
    empties: Empties,
}

impl Abr for Fixed {
    fn decide(&mut self, _ctx: &AbrContext) -> Decision {
        Decision::now(self.level)
    }
    fn on_buffer_empty(&mut self, now: Time) {
        self.empties.borrow_mut().push(now);
    }
    fn estimate_bps(&self) -> Option<f64> {
        Some(3e6)
    }
    fn name(&self) -> &'static str {
        "fixed"
    }
}

pub(in crate::app::dash) fn secs(s: f64) -> Time {
    Time::ZERO + Duration::from_secs_f64(s)
}

fn ms(n: u64) -> Time {
    Time::ZERO + Duration::from_millis(n)
}

/// Asks for a pacing delay of `delay` at its first decision, then picks `level` at once.
/// Asks for `delay` at its first decision, then for `later` without delay.
struct DelayFirst {
    level: usize,
    delay: Option<Duration>,
    later: usize,
}

impl Abr for DelayFirst {
    fn decide(&mut self, _ctx: &AbrContext) -> Decision {
        match self.delay.take() {
            Some(delay) => Decision {
                level: self.level,
                delay,
            },
            None => Decision::now(self.later),
        }
    }
    fn estimate_bps(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "delay-first"
    }
}

fn player(level: usize, segments: usize, audio: bool) -> (Player, Empties) {
    player_polled(level, segments, audio, Duration::ZERO)
}

/// dash.js v5's scheduling (level + segment below a 12 s target), checks every `poll`;
/// an ideal media element, which plays to the last nanosecond buffered.
pub(in crate::app::dash) fn config(poll: Duration) -> PlayerConfig {
    PlayerConfig {
        buffer_time_default: Duration::from_secs(12),
        buffer_time_at_top_quality: Duration::from_secs(30),
        stall_threshold: Duration::from_millis(500),
        schedule: Schedule::LevelPlusSegmentBelowTarget,
        schedule_poll: poll,
        audio_target_extra: Duration::ZERO,
        fast_switching: false,
        fast_switch_ahead: 1.5,
        switch_ends_check: false,
        cache_init_segments: true,
        playback_low_water: Duration::ZERO,
    }
}

/// A player whose scheduler checks a full buffer every `poll` after an append.
fn player_polled(level: usize, segments: usize, audio: bool, poll: Duration) -> (Player, Empties) {
    let video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), segments);
    let audio = audio.then(|| Video::audio(128e3, Duration::from_secs(5), segments));
    let cfg = config(poll);
    let empties = Empties::default();
    let p = Player::new(
        cfg,
        video,
        audio,
        Box::new(Fixed {
            level,
            empties: empties.clone(),
        }),
    );
    (p, empties)
}

/// Requests what the player wants at `at` and completes each download instantly.
fn fetch_all(p: &mut Player, at: Time) -> Vec<Want> {
    let mut got = Vec::new();
    while let Some(w) = p.want(at) {
        p.on_requested(at, w, got.len() as u64);
        p.on_fetched(at, w.track, w.bytes, Some(at), false);
        got.push(w);
    }
    got
}

#[test]
fn requests_stop_once_the_buffer_plus_a_segment_reaches_the_target() {
    let (mut p, _) = player(1, 100, false);
    assert!(p.want(Time::ZERO).is_none(), "nothing before the manifest");
    assert_eq!(p.began(), None);
    p.begin(Time::ZERO);
    assert_eq!(p.began(), Some(Time::ZERO));
    let got = fetch_all(&mut p, Time::ZERO);
    // levels 0 s and 5 s are at most 12 − 5 = 7 s: two segments, then 10 s > 7 s stops
    assert_eq!(got.iter().map(|w| w.index).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(got[0].bytes, 2e6 as u64 * 5 / 8);
    // playing drains 10 s → 7 s after 3 s; before that it only wakes to report its buffer level
    assert_eq!(p.next_wakeup(), Some(secs(0.25)));
    assert!(p.want(secs(2.999)).is_none());
    assert_eq!(fetch_all(&mut p, secs(3.0)).len(), 1);
}

#[test]
fn the_segment_term_is_dropped_from_a_target_of_one_segment_or_less() {
    // 5 s segments. Target 6 s: level + 5 s must stay under 6 s, so the first segment's 5 s
    // stops requests. Target 5 s or 4 s: the level alone is compared, and 5 s buffered is still
    // at most 5 s but more than 4 s.
    for (target_s, requests) in [(6, 1), (5, 2), (4, 1)] {
        let (mut p, _) = player(0, 100, false);
        p.cfg.buffer_time_default = Duration::from_secs(target_s);
        p.begin(Time::ZERO);
        assert_eq!(
            fetch_all(&mut p, Time::ZERO).len(),
            requests,
            "{target_s} s"
        );
    }
}

#[test]
fn at_the_top_level_the_buffer_target_is_the_top_quality_one() {
    let (mut p, _) = player(2, 100, false);
    p.begin(Time::ZERO);
    // the first segment sets the level; then the target is 30 s: requests while level ≤ 25 s
    // (0, 5, 10, 15, 20, 25 s buffered when asked)
    assert_eq!(fetch_all(&mut p, Time::ZERO).len(), 6);
}

/// Begins `p`, loads segment 0 by 1 s (playback starts there) and requests segment 1 at once.
fn playing_from_one_second(p: &mut Player) -> Want {
    p.begin(Time::ZERO);
    let w = p.want(Time::ZERO).unwrap();
    p.on_requested(Time::ZERO, w, 0);
    p.on_fetched(secs(1.0), VIDEO, w.bytes, None, false);
    let w = p.want(secs(1.0)).unwrap();
    p.on_requested(secs(1.0), w, 1);
    w
}

#[test]
fn a_stall_starts_the_instant_the_buffer_empties_and_lasts_until_data_returns() {
    let (mut p, empties) = player(0, 100, false);
    // the second segment is requested at once but only arrives at 9.25 s; the buffer ran out at 6 s
    let w = playing_from_one_second(&mut p);
    assert_eq!(p.started(), Some(secs(1.0)));
    p.advance(secs(8.0));
    assert_eq!(
        *empties.borrow(),
        vec![secs(5.5)],
        "at the 500 ms stall threshold"
    );
    p.on_fetched(secs(9.25), 0, w.bytes, Some(secs(9.0)), false);
    assert_eq!(
        p.stalls(secs(9.25)),
        vec![(secs(6.0), Duration::from_millis(3250))]
    );
    assert!(p.records()[1].stalled);
}

#[test]
fn buffer_empty_is_heard_once_per_fall_to_the_stall_threshold_and_not_at_the_streams_end() {
    // 3 segments of 5 s; segment 0 plays from 1 s, so 500 ms are left at 5.5 s
    let (mut p, empties) = player(0, 3, false);
    playing_from_one_second(&mut p);
    assert_eq!(p.fetching(VIDEO).map(|f| f.index), Some(1));
    p.advance(secs(5.4));
    assert_eq!(p.next_wakeup(), Some(secs(5.5)), "woken for the crossing");
    p.advance(secs(5.5) - Duration::from_nanos(1));
    assert!(empties.borrow().is_empty());
    p.advance(secs(5.5));
    assert_eq!(*empties.borrow(), vec![secs(5.5)]);
    // the stall begins at 6 s; segment 1 is abandoned at 6.5 s, which neither re-arms the
    // report nor resumes playback, and fetched again by 7 s
    p.on_fetched(secs(6.5), VIDEO, 1000, None, true);
    let w = p.want(secs(6.5)).unwrap();
    assert_eq!(w.index, 1);
    p.on_requested(secs(6.5), w, 2);
    p.advance(secs(6.9));
    assert_eq!(*empties.borrow(), vec![secs(5.5)]);
    // segment 1 ends the stall at 7 s with 5 s buffered, which re-arms the report
    p.on_fetched(secs(7.0), VIDEO, w.bytes, None, false);
    let w = p.want(secs(7.0)).unwrap();
    p.on_requested(secs(7.0), w, 3);
    p.advance(secs(11.5));
    assert_eq!(*empties.borrow(), vec![secs(5.5), secs(11.5)]);
    // the last segment arrives during the stall: from then on all that is left is buffered,
    // and playing it out to the end is no BUFFER_EMPTY (at 17 s, 500 ms before the end, the
    // next wake-up is the level report)
    p.on_fetched(secs(12.5), VIDEO, w.bytes, None, false);
    p.advance(secs(17.0));
    assert_eq!(p.next_wakeup(), Some(secs(17.25)));
    p.advance(secs(17.3));
    assert_eq!(p.next_wakeup(), Some(secs(17.5)));
    p.advance(secs(100.0));
    assert_eq!(p.ended(), Some(secs(17.5)));
    assert_eq!(*empties.borrow(), vec![secs(5.5), secs(11.5)]);
    assert_eq!(
        p.stalls(secs(100.0)),
        [
            (secs(6.0), secs(1.0) - Time::ZERO),
            (secs(12.0), secs(0.5) - Time::ZERO)
        ]
    );
}

#[test]
fn a_browser_stalls_at_its_low_water_mark_but_plays_the_video_to_its_end() {
    // 2 segments of 5 s; playback starts at 1 s; the element stops 50 ms short of the
    // buffered end, so segment 0 plays until 5.95 s
    let (mut p, _) = player(0, 2, false);
    p.cfg.playback_low_water = Duration::from_millis(50);
    let w = playing_from_one_second(&mut p);
    assert_eq!(
        p.next_wakeup(),
        Some(secs(1.25)),
        "the level report comes first"
    );
    p.advance(secs(5.96));
    assert_eq!(p.stall_since, Some(secs(5.95)));
    // a segment landing 10 ms before the buffer would have run dry still finds it stalled
    p.on_fetched(secs(5.99), VIDEO, w.bytes, None, false);
    assert_eq!(
        p.stalls(secs(5.99)),
        vec![(secs(5.95), Duration::from_millis(40))]
    );
    assert!(p.records()[1].stalled);
    // the last segment is the end of the stream: it plays to the last nanosecond
    p.advance(secs(100.0));
    assert_eq!(p.ended(), Some(secs(5.99) + Duration::from_millis(5050)));
}

#[test]
fn playback_waits_for_every_track_and_ends_at_the_exact_media_end() {
    let (mut p, _) = player(0, 2, true);
    p.begin(Time::ZERO);
    let v = p.want(Time::ZERO).unwrap();
    p.on_requested(Time::ZERO, v, 0);
    let a = p.want(Time::ZERO).unwrap();
    assert_eq!(a.track, AUDIO, "audio is fetched alongside video");
    p.on_requested(Time::ZERO, a, 1);
    p.on_fetched(secs(0.5), VIDEO, v.bytes, None, false);
    assert_eq!(p.started(), None, "no audio yet");
    p.on_fetched(secs(0.7), AUDIO, a.bytes, None, false);
    assert_eq!(p.started(), Some(secs(0.7)));
    fetch_all(&mut p, secs(0.7));
    p.advance(secs(100.0));
    assert_eq!(p.ended(), Some(secs(10.7)));
    assert!(p.stalls(secs(100.0)).is_empty());
    // the ABR's estimate is logged with each video request; audio has none
    let estimates: Vec<_> = p
        .records()
        .iter()
        .map(|r| (r.track, r.estimate_bps))
        .collect();
    assert_eq!(
        estimates,
        [
            (VIDEO, Some(3e6)),
            (AUDIO, None),
            (VIDEO, Some(3e6)),
            (AUDIO, None)
        ]
    );
}

#[test]
fn nothing_is_requested_past_the_last_segment() {
    // at the top level's 30 s target, 3 segments of 5 s are all fetched at once, and no more
    let (mut p, _) = player(2, 3, false);
    p.begin(Time::ZERO);
    let got = fetch_all(&mut p, Time::ZERO);
    assert_eq!(got.iter().map(|w| w.index).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(p.next_wakeup(), Some(secs(0.25)), "only the level report");
}

#[test]
fn an_abandoned_download_does_not_fill_the_buffer() {
    let (mut p, _) = player(1, 100, false);
    p.begin(Time::ZERO);
    let w = p.want(Time::ZERO).unwrap();
    p.on_requested(Time::ZERO, w, 0);
    p.on_fetched(secs(2.0), 0, 1000, Some(secs(1.0)), true);
    assert_eq!(p.started(), None);
    let again = p.want(secs(2.0)).unwrap();
    assert_eq!(again.index, 0, "the same segment is fetched again");
    assert!(p.records()[0].download.abandoned);
}

#[test]
fn audio_following_the_video_does_not_keep_waking_the_player() {
    let (mut p, _) = player(0, 100, true);
    p.begin(Time::ZERO);
    fetch_all(&mut p, Time::ZERO);
    p.advance(secs(1.0));
    // both tracks drain together; nothing changes for audio before the next report or video request
    let next = p.next_wakeup().unwrap();
    assert!(
        next >= secs(1.0) + Duration::from_millis(1),
        "woke at {next:?}"
    );
}

/// Segment 0 arrives at 0.1 s; as an append is a check and 5 s buffered ≤ 12 − 5 s, segment 1
/// is requested at once and arrives at 0.3 s: 9.8 s buffered, draining to 7 s at 3.1 s.
fn two_segments_by_300_ms(poll: Duration) -> Player {
    let (mut p, _) = player_polled(1, 100, false, poll);
    p.begin(Time::ZERO);
    let w = p.want(Time::ZERO).unwrap();
    p.on_requested(Time::ZERO, w, 0);
    p.on_fetched(ms(100), VIDEO, w.bytes, Some(ms(50)), false);
    let w = p.want(ms(100)).unwrap();
    p.on_requested(ms(100), w, 1);
    p.on_fetched(ms(300), VIDEO, w.bytes, Some(ms(250)), false);
    p
}

#[test]
fn a_full_buffer_is_rechecked_every_poll_interval_from_the_last_append() {
    let mut p = two_segments_by_300_ms(Duration::from_millis(500));
    // the checks fall at 0.3 s + k × 0.5 s
    assert!(p.want(ms(300)).is_none());
    assert!(
        p.want(ms(3100)).is_none(),
        "below the threshold, but between checks"
    );
    assert_eq!(p.next_wakeup(), Some(ms(3300)));
    assert!(p.want(ms(3299)).is_none());
    assert_eq!(p.want(ms(3300)).map(|w| w.index), Some(2));
}

#[test]
fn without_a_poll_interval_the_request_goes_the_instant_the_level_crosses() {
    let mut p = two_segments_by_300_ms(Duration::ZERO);
    // playing, the player wakes for the crossing at 3.1 s, before the level report at 3.25 s
    p.advance(ms(3000));
    assert_eq!(p.next_wakeup(), Some(ms(3100)));
    assert!(p.want(ms(3099)).is_none());
    assert_eq!(p.want(ms(3100)).map(|w| w.index), Some(2));
}

/// A begun player of 5 s segments whose ABR chooses level 1 with a 200 ms delay at its first
/// check, then `later`, checking every `interval_ms`.
fn delayed_first(bitrates: Vec<f64>, interval_ms: u64, later: usize) -> Player {
    let video = Video::constant("v", bitrates, Duration::from_secs(5), 10);
    let abr = DelayFirst {
        level: 1,
        delay: Some(Duration::from_millis(200)),
        later,
    };
    let cfg = config(Duration::from_millis(interval_ms));
    let mut p = Player::new(cfg, video, None, Box::new(abr));
    p.begin(Time::ZERO);
    p
}

#[test]
fn a_pacing_delay_holds_back_the_request_its_check_chose() {
    let mut p = delayed_first(vec![1e6, 2e6], 500, 0);
    // the check at 0 s asks for 200 ms of delay: the request goes at 0.2 s, between checks,
    // at the level that check chose (dash.js delays the request; it does not decide again)
    assert!(p.want(Time::ZERO).is_none());
    assert_eq!(p.next_wakeup(), Some(ms(200)));
    let w = p.want(ms(200)).unwrap();
    assert_eq!((w.index, w.level), (0, 1));
}

#[test]
fn an_append_as_a_pacing_delay_ends_restarts_the_check_grid() {
    // the check at 0 s delays segment 0 to 0.2 s; it and segment 1 arrive at once, so 10 s
    // are buffered at 0.2 s and fall to the 7 s threshold at 3.2 s, between the checks at
    // 0.2 s + k × 0.4 s: segment 2 goes at the check at 3.4 s
    let mut p = delayed_first(vec![1e6, 2e6, 4e6], 400, 1);
    assert!(p.want(Time::ZERO).is_none());
    assert_eq!(requests(&fetch_all(&mut p, ms(200))), vec![(0, 1), (1, 1)]);
    assert!(p.want(ms(3200)).is_none());
    assert_eq!(p.next_wakeup(), Some(ms(3400)));
    assert_eq!(p.want(ms(3400)).map(|w| w.index), Some(2));
}

/// Picks `level`, and abandons any download at `level` for `to` at its second progress event.
struct AbandonsTo {
    level: usize,
    to: usize,
}

impl Abr for AbandonsTo {
    fn decide(&mut self, _ctx: &AbrContext) -> Decision {
        Decision::now(self.level)
    }
    fn abandon(&mut self, _ctx: &AbrContext, p: &Progress) -> Option<usize> {
        (p.level == self.level && p.events == 2).then_some(self.to)
    }
    fn estimate_bps(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "abandons-to"
    }
}

#[test]
fn an_abandoned_segment_is_re_requested_at_the_level_the_abandonment_chose() {
    let video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 10);
    let abr = AbandonsTo { level: 2, to: 0 };
    let mut p = Player::new(config(Duration::ZERO), video, None, Box::new(abr));
    p.begin(Time::ZERO);
    let w = p.want(Time::ZERO).unwrap();
    assert_eq!(w.level, 2);
    p.on_requested(Time::ZERO, w, 0);
    assert_eq!(p.on_progress(ms(300), 500, Some(ms(100))), None);
    assert_eq!(p.on_progress(ms(600), 1000, Some(ms(100))), Some(0));
    p.on_fetched(ms(600), VIDEO, 1000, Some(ms(100)), true);
    // the re-request goes at level 0 without asking the ABR (which would say 2 again)
    let again = p.want(ms(600)).unwrap();
    assert_eq!((again.index, again.level), (0, 0));
    p.on_requested(ms(600), again, 1);
    p.on_fetched(ms(900), VIDEO, again.bytes, Some(ms(700)), false);
    assert_eq!(p.want(ms(900)).map(|w| (w.index, w.level)), Some((1, 2)));
}

type Counter = std::rc::Rc<std::cell::Cell<usize>>;

/// Picks the levels of `script` in turn (the last one from then on); counts its
/// decisions and the downloads it is told about.
pub(in crate::app::dash) struct Script {
    script: Vec<usize>,
    decisions: Counter,
    downloads: Counter,
    empties: Counter,
    /// Reports an abandonment's ABANDON_LOAD state throughout.
    abandoning: bool,
}

impl Script {
    /// Picks the levels of `script` in turn, never holding an abandonment's state.
    pub(in crate::app::dash) fn new(script: Vec<usize>) -> Self {
        Script {
            script,
            decisions: Counter::default(),
            downloads: Counter::default(),
            empties: Counter::default(),
            abandoning: false,
        }
    }
}

impl Abr for Script {
    fn decide(&mut self, _ctx: &AbrContext) -> Decision {
        let n = self.decisions.get();
        self.decisions.set(n + 1);
        Decision::now(self.script[n.min(self.script.len() - 1)])
    }
    fn abandoning(&self, _now: Time) -> bool {
        self.abandoning
    }
    fn on_download(&mut self, _ctx: &AbrContext, _d: &Download) {
        self.downloads.set(self.downloads.get() + 1);
    }
    fn on_buffer_empty(&mut self, _now: Time) {
        self.empties.set(self.empties.get() + 1);
    }
    fn estimate_bps(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "script"
    }
}

/// A player of a 3-level video with 840 B init segments, picking the levels of `script`.
fn scripted(script: Vec<usize>) -> (Player, Counter, Counter) {
    let mut video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 10);
    video.init_bytes = 840;
    let abr = Script::new(script);
    let (decisions, downloads) = (abr.decisions.clone(), abr.downloads.clone());
    let p = Player::new(config(Duration::ZERO), video, None, Box::new(abr));
    (p, decisions, downloads)
}

/// Requests what the player wants at `at` and completes it at `done`.
pub(in crate::app::dash) fn fetch_one(p: &mut Player, at: Time, done: Time, exchange: u64) -> Want {
    let w = p.want(at).expect("a request is due");
    p.on_requested(at, w, exchange);
    p.on_fetched(done, w.track, w.bytes, Some(done), false);
    w
}

#[test]
fn a_levels_first_segment_waits_for_its_init_segment_and_is_not_decided_again() {
    let (mut p, decisions, _) = scripted(vec![0, 2]);
    p.begin(Time::ZERO);
    let init = p.want(Time::ZERO).unwrap();
    assert_eq!((init.init, init.level, init.bytes), (true, 0, 840));
    p.on_requested(Time::ZERO, init, 0);
    assert!(
        p.want(ms(50)).is_none(),
        "the media request waits for the init segment"
    );
    p.on_fetched(ms(100), VIDEO, 840, Some(ms(100)), false);
    // the media request goes at once, at the level already chosen: one decision so far
    let media = fetch_one(&mut p, ms(100), ms(300), 1);
    assert_eq!((media.init, media.index, media.level), (false, 0, 0));
    assert_eq!(decisions.get(), 1);
    // a switch to level 2 fetches its init segment first; the media follows at level 2
    let w = fetch_one(&mut p, ms(300), ms(400), 2);
    assert_eq!((w.init, w.level, w.bytes), (true, 2, 840));
    let w = fetch_one(&mut p, ms(400), ms(600), 3);
    assert_eq!((w.init, w.index, w.level), (false, 1, 2));
    assert_eq!(decisions.get(), 2);
    // the next segment at level 2 uses the cached init segment
    let w = fetch_one(&mut p, ms(600), ms(800), 4);
    assert_eq!((w.init, w.index, w.level), (false, 2, 2));
}

#[test]
fn a_level_seen_before_needs_no_second_init_segment() {
    let (mut p, _, _) = scripted(vec![0, 1, 0, 1]);
    p.begin(Time::ZERO);
    let mut got = Vec::new();
    // one request every 4 s keeps the buffer below the target
    for k in 0..6 {
        got.push(fetch_one(&mut p, ms(4000 * k), ms(4000 * k + 50), k));
    }
    let sequence: Vec<_> = got.iter().map(|w| (w.init, w.level)).collect();
    assert_eq!(
        sequence,
        vec![
            (true, 0),
            (false, 0),
            (true, 1),
            (false, 1),
            (false, 0),
            (false, 1)
        ]
    );
}

/// dash.js 4.x/5.x (`cacheInitSegments: false`): a level's init segment is fetched again
/// at every change to that level, and not for a second segment at the same level.
#[test]
fn without_the_init_cache_every_change_of_level_fetches_an_init_segment() {
    let (mut p, _, _) = scripted(vec![0, 0, 1, 0]);
    p.cfg.cache_init_segments = false;
    p.begin(Time::ZERO);
    let got: Vec<_> = (0..7)
        .map(|k| fetch_one(&mut p, ms(4000 * k), ms(4000 * k + 50), k))
        .map(|w| (w.init, w.level))
        .collect();
    assert_eq!(
        got,
        vec![
            (true, 0),
            (false, 0),
            (false, 0),
            (true, 1),
            (false, 1),
            (true, 0),
            (false, 0)
        ]
    );
}

/// A request as (init, segment, level).
type Sent = (bool, usize, usize);

/// Loads levels 1, 2, 2, 2, 2 at time 0 (init segments fetched at once), filling the
/// buffer to 25 s, the top level's threshold (30 − 5 s); the sixth decision steps down to
/// level 1, whose threshold is 7 s (12 − 5 s). Returns what went out at 0 s, and at 18 s,
/// when playback has drained the buffer to 7 s.
fn step_down_from_the_top(cache: bool, switch_ends_check: bool) -> (Vec<Sent>, Vec<Sent>) {
    let (mut p, decisions, _) = scripted(vec![1, 2, 2, 2, 2, 1]);
    p.cfg.cache_init_segments = cache;
    p.cfg.switch_ends_check = switch_ends_check;
    p.begin(Time::ZERO);
    let sent = |got: Vec<Want>| {
        got.iter()
            .map(|w| (w.init, w.index, w.level))
            .collect::<Vec<_>>()
    };
    let at_zero = sent(fetch_all(&mut p, Time::ZERO));
    assert_eq!(decisions.get(), 6);
    assert!(
        p.want(ms(17_999)).is_none(),
        "the buffer is above the new level's threshold"
    );
    let at_18 = sent(fetch_all(&mut p, secs(18.0)));
    assert_eq!(
        decisions.get(),
        6,
        "no decision between the step down and its media request"
    );
    (at_zero, at_18)
}

/// dash.js asks `isPlayingAtTopQuality` for the quality of its last decision: after a step
/// down from the top level, the media waits for the buffer to fall below the lower target.
#[test]
fn a_step_down_from_the_top_waits_for_the_lower_levels_buffer_target() {
    let top_fill = vec![
        (true, 0, 1),
        (false, 0, 1),
        (true, 1, 2),
        (false, 1, 2),
        (false, 2, 2),
        (false, 3, 2),
        (false, 4, 2),
    ];
    // 3.x: level 1's init segment is appended from the cache; the media is the next check's
    let (at_zero, at_18) = step_down_from_the_top(true, false);
    assert_eq!(at_zero, top_fill);
    assert_eq!(at_18[0], (false, 5, 1));
    // without the cache, the init segment goes at the check that chose the level
    let (at_zero, at_18) = step_down_from_the_top(false, false);
    assert_eq!(at_zero[..7], top_fill[..]);
    assert_eq!(at_zero[7..], [(true, 5, 1)]);
    assert_eq!(at_18[0], (false, 5, 1));
    // 4.x/5.x: the change of quality ends that check, and the init segment waits too
    let (at_zero, at_18) = step_down_from_the_top(false, true);
    assert_eq!(at_zero, top_fill);
    assert_eq!(at_18[..2], [(true, 5, 1), (false, 5, 1)]);
}

#[test]
fn init_segments_are_neither_media_nor_throughput_samples() {
    let (mut p, _, downloads) = scripted(vec![1]);
    p.begin(Time::ZERO);
    let init = p.want(Time::ZERO).unwrap();
    p.on_requested(Time::ZERO, init, 0);
    assert_eq!(p.on_progress(ms(50), 400, Some(ms(40))), None);
    p.on_fetched(ms(100), VIDEO, 840, Some(ms(100)), false);
    assert_eq!((downloads.get(), p.records().len()), (0, 0));
    assert_eq!(p.started(), None, "an init segment plays nothing");
    fetch_one(&mut p, ms(100), ms(200), 1);
    assert_eq!((downloads.get(), p.records().len()), (1, 1));
    assert_eq!(p.records()[0].download.requested_at, ms(100));
}

#[test]
fn an_abandonment_to_a_new_level_fetches_that_levels_init_segment_first() {
    let mut video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 10);
    video.init_bytes = 840;
    let abr = AbandonsTo { level: 2, to: 0 };
    let mut p = Player::new(config(Duration::ZERO), video, None, Box::new(abr));
    p.begin(Time::ZERO);
    fetch_one(&mut p, Time::ZERO, ms(100), 0);
    let w = p.want(ms(100)).unwrap();
    p.on_requested(ms(100), w, 1);
    assert_eq!(p.on_progress(ms(300), 500, Some(ms(200))), None);
    assert_eq!(p.on_progress(ms(600), 1000, Some(ms(200))), Some(0));
    p.on_fetched(ms(600), VIDEO, 1000, Some(ms(200)), true);
    let init = fetch_one(&mut p, ms(600), ms(700), 2);
    assert_eq!((init.init, init.level), (true, 0));
    let again = p.want(ms(700)).unwrap();
    assert_eq!((again.init, again.index, again.level), (false, 0, 0));
}

/// A v5-like player (18 s target below the top level: requests while level + 5 s
/// segment < 18 s) of a 4-level video without init segments, picking the levels of
/// `script`.
fn switching(script: Vec<usize>, fast_switching: bool) -> Player {
    switching_abandoning(script, fast_switching, false)
}

fn switching_abandoning(script: Vec<usize>, fast_switching: bool, abandoning: bool) -> Player {
    let video = Video::constant("v", vec![1e6, 2e6, 4e6, 8e6], Duration::from_secs(5), 10);
    let abr = Script {
        abandoning,
        ..Script::new(script)
    };
    let cfg = PlayerConfig {
        buffer_time_default: Duration::from_secs(18),
        fast_switching,
        ..config(Duration::ZERO)
    };
    Player::new(cfg, video, None, Box::new(abr))
}

fn requests(got: &[Want]) -> Vec<(usize, usize)> {
    got.iter().map(|w| (w.index, w.level)).collect()
}

fn shown_levels(p: &Player) -> Vec<usize> {
    p.shown().map(|r| r.download.level).collect()
}

#[test]
fn an_up_switch_re_fetches_the_buffer_from_one_and_a_half_segments_ahead() {
    let mut p = switching(vec![0, 0, 0, 2], true);
    p.begin(Time::ZERO);
    // 0, 5 and 10 s buffered when asked (≤ 13 s): segments 0–2 at level 0
    assert_eq!(
        requests(&fetch_all(&mut p, Time::ZERO)),
        [(0, 0), (1, 0), (2, 0)]
    );
    // at 2 s the level is 13 s and the rule goes up; 2 + 7.5 s lies in segment 1, loaded at
    // level 0: it and segment 2 are fetched again, then the buffer grows with segment 3
    let got = fetch_all(&mut p, secs(2.0));
    assert_eq!(requests(&got), [(1, 2), (2, 2), (3, 2)]);
    assert_eq!(shown_levels(&p), [0, 2, 2, 2]);
    let replaced: Vec<bool> = p.records().iter().map(|r| r.replacement).collect();
    assert_eq!(replaced, [false, false, false, true, true, false]);
    // overwriting did not lengthen the buffer: 20 s buffered, 18 s ahead of the playhead
    assert_eq!(p.level(VIDEO), Duration::from_secs(18));
}

#[test]
fn dash_js_5_re_fetches_the_segment_under_the_playhead_whatever_the_buffer() {
    // v5.2.1: 1.5 × a null fragment duration = 0 segments ahead, and no buffer needed
    let zero_ahead = |script| {
        let mut p = switching(script, true);
        p.cfg.fast_switch_ahead = 0.0;
        p.begin(Time::ZERO);
        fetch_all(&mut p, Time::ZERO);
        p
    };
    // at 2 s segment 0 is playing: it is fetched again (too late to play), then 1 and 2
    let mut p = zero_ahead(vec![0, 0, 0, 2]);
    let got = fetch_all(&mut p, secs(2.0));
    assert_eq!(requests(&got), [(0, 2), (1, 2), (2, 2), (3, 2)]);
    assert_eq!(shown_levels(&p), [0, 2, 2, 2]);
    // with 1 s buffered, at 14 s, it still replaces the segment playing (2) before going on
    let mut p = zero_ahead(vec![0, 0, 0, 2]);
    let got = fetch_all(&mut p, secs(14.0));
    assert_eq!(requests(&got)[..2], [(2, 2), (3, 2)]);
    assert!(p.records()[3].replacement && !p.records()[4].replacement);
    // stalled at the end of segment 2 (15 s), Chrome's element is still in segment 2, at its
    // low-water mark: segment 2 is fetched again, then 3; an ideal element, stopped at the
    // start of segment 3, has nothing there to replace and goes on with 3
    for (low_water, expected) in [(50, [(2, 2), (3, 2)]), (0, [(3, 2), (4, 2)])] {
        let mut p = zero_ahead(vec![0, 0, 0, 2]);
        p.cfg.playback_low_water = Duration::from_millis(low_water);
        p.advance(secs(16.0));
        assert!(p.stall_since.is_some());
        assert_eq!(
            requests(&fetch_all(&mut p, secs(16.0)))[..2],
            expected,
            "low water {low_water} ms"
        );
    }
}

#[test]
fn a_replacement_that_leaves_the_buffer_low_does_not_re_arm_buffer_empty() {
    // dash.js 5: 15 s buffered from 0 s falls to the 500 ms stall threshold at 14.5 s; the
    // up-switch at 14.7 s re-fetches segment 2, under the playhead, which adds no buffer
    let video = Video::constant("v", vec![1e6, 2e6, 4e6, 8e6], Duration::from_secs(5), 10);
    let abr = Script::new(vec![0, 0, 0, 2]);
    let empties = abr.empties.clone();
    let cfg = PlayerConfig {
        buffer_time_default: Duration::from_secs(18),
        fast_switching: true,
        fast_switch_ahead: 0.0,
        ..config(Duration::ZERO)
    };
    let mut p = Player::new(cfg, video, None, Box::new(abr));
    p.begin(Time::ZERO);
    fetch_all(&mut p, Time::ZERO);
    p.advance(secs(14.6));
    assert_eq!(empties.get(), 1);
    let w = fetch_one(&mut p, secs(14.7), secs(14.8), 3);
    assert_eq!((w.index, w.level), (2, 2));
    p.advance(secs(14.9));
    assert_eq!(empties.get(), 1);
}

#[test]
fn without_fast_switching_or_while_abandoning_the_new_level_starts_after_the_buffer() {
    for (fast, abandoning) in [(false, false), (true, true)] {
        let mut p = switching_abandoning(vec![0, 0, 0, 2], fast, abandoning);
        p.begin(Time::ZERO);
        fetch_all(&mut p, Time::ZERO);
        assert_eq!(requests(&fetch_all(&mut p, secs(2.0))), [(3, 2)]);
        assert_eq!(shown_levels(&p), [0, 0, 0, 2]);
    }
}

#[test]
fn a_down_switch_or_a_short_buffer_replaces_nothing() {
    // down: segment 1 is buffered at a higher level than the new one
    let mut p = switching(vec![2, 2, 2, 0], true);
    p.begin(Time::ZERO);
    fetch_all(&mut p, Time::ZERO);
    assert_eq!(requests(&fetch_all(&mut p, secs(2.0))), [(3, 0)]);
    // short: at the second request 5 s is buffered, below the 7.5 s the switch needs
    let mut p = switching(vec![0, 2], true);
    p.begin(Time::ZERO);
    assert_eq!(
        requests(&fetch_all(&mut p, Time::ZERO)),
        [(0, 0), (1, 2), (2, 2)]
    );
}

#[test]
fn a_replacement_that_arrives_after_its_segment_began_does_not_play() {
    let mut p = switching(vec![0, 0, 0, 2], true);
    p.begin(Time::ZERO);
    fetch_all(&mut p, Time::ZERO);
    // segment 1 (5–10 s) is re-fetched from 2 s, but its last byte comes at 6 s
    let w = fetch_one(&mut p, secs(2.0), secs(6.0), 9);
    assert_eq!((w.index, w.level), (1, 2));
    assert!(p.records().last().unwrap().replacement);
    assert_eq!(shown_levels(&p), [0, 0, 0]);
}

#[test]
fn the_comparison_is_with_a_segments_latest_load() {
    // segments 1 and 2 are replaced at level 2 (first loaded at 0); at 7 s (level 13 s
    // again) 7 + 7.5 s falls in segment 2, and dash.js's executed-request lookup, scanning
    // from the newest, finds the level-2 copy
    let at_seven = |last: usize| {
        let mut p = switching(vec![0, 0, 0, 2, 2, 2, last], true);
        p.begin(Time::ZERO);
        fetch_all(&mut p, Time::ZERO);
        fetch_all(&mut p, secs(2.0));
        let got = requests(&fetch_all(&mut p, secs(7.0)));
        (got, shown_levels(&p))
    };
    // a switch to level 1 is below that copy: nothing is replaced, the buffer grows
    assert_eq!(at_seven(1), (vec![(4, 1)], vec![0, 2, 2, 2, 1]));
    // a switch back to level 2 at 12 s (level 13 s; 12 + 7.5 s falls in segment 3, also held
    // at level 2) is no rise over that copy: the buffer grows with segment 5
    let mut p = switching(vec![0, 0, 0, 2, 2, 2, 1, 2], true);
    p.begin(Time::ZERO);
    for t in [0.0, 2.0, 7.0] {
        fetch_all(&mut p, secs(t));
    }
    assert_eq!(requests(&fetch_all(&mut p, secs(12.0))), [(5, 2)]);
    // a switch to level 3 is above it: segments 2 and 3 are fetched again (and, at the top
    // level's 30 s target, the buffer grows on to segment 6)
    let (got, shown) = at_seven(3);
    assert_eq!(got[..3], [(2, 3), (3, 3), (4, 3)]);
    assert_eq!(shown[..5], [0, 2, 3, 3, 3]);
}

type Levels = std::rc::Rc<std::cell::RefCell<Vec<Duration>>>;

/// Picks level 0 and records the buffer levels it is told about.
struct Listener {
    levels: Levels,
}

impl Abr for Listener {
    fn decide(&mut self, _ctx: &AbrContext) -> Decision {
        Decision::now(0)
    }
    fn on_buffer_level(&mut self, _now: Time, buffer: Duration) {
        self.levels.borrow_mut().push(buffer);
    }
    fn estimate_bps(&self) -> Option<f64> {
        None
    }
    fn name(&self) -> &'static str {
        "listener"
    }
}

/// A player of `segments` segments of a 3-level video and a 128 kb/s audio track, audio
/// targeted `audio_extra` above the video's level, whose ABR records the levels it hears.
fn listening(audio_extra: Duration, segments: usize) -> (Player, Levels) {
    let video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), segments);
    let audio = Video::audio(128e3, Duration::from_secs(5), segments);
    let levels = Levels::default();
    let abr = Listener {
        levels: levels.clone(),
    };
    let cfg = PlayerConfig {
        audio_target_extra: audio_extra,
        ..config(Duration::ZERO)
    };
    (Player::new(cfg, video, Some(audio), Box::new(abr)), levels)
}

#[test]
fn audio_ahead_of_the_video_wakes_the_player_as_its_threshold_reaches_its_floor() {
    // audio targets the video level + 1 s: at 0 s the video fetches segments 0–1 (10 s) and
    // the audio 0–2 (15 s). Video segment 2 goes at 3 s (7 s) and is still loading at 5.9 s,
    // when the video level is 4.1 s: audio's threshold, 5.1 s, drains to its 5 s floor at 6 s,
    // before the level report due at 6.15 s
    let (mut p, _) = listening(Duration::from_secs(1), 10);
    p.begin(Time::ZERO);
    let got = fetch_all(&mut p, Time::ZERO);
    let tracks: Vec<usize> = got.iter().map(|w| w.track).collect();
    assert_eq!(tracks, [VIDEO, VIDEO, AUDIO, AUDIO, AUDIO]);
    let w = p.want(secs(3.0)).unwrap();
    assert_eq!((w.track, w.index), (VIDEO, 2));
    p.on_requested(secs(3.0), w, 5);
    p.advance(secs(5.9));
    assert_eq!(p.next_wakeup(), Some(secs(6.0)));
}

/// Fetches, at t = 0, all that `listening(audio_extra, 100)` wants: the audio wants and the
/// buffer levels its ABR heard.
fn fetch_with_audio(audio_extra: Duration) -> (Vec<Want>, Vec<Duration>) {
    let (mut p, levels) = listening(audio_extra, 100);
    p.begin(Time::ZERO);
    let got = fetch_all(&mut p, Time::ZERO);
    let audio: Vec<Want> = got.into_iter().filter(|w| w.track == AUDIO).collect();
    let heard = levels.borrow().clone();
    (audio, heard)
}

#[test]
fn audio_buffers_to_the_videos_level_plus_the_profiles_extra() {
    // video: 0 and 5 s ≤ 12 − 5 s, so two segments, 10 s. Audio requests while strictly below
    // the video's 10 s (+ 1 s in dash.js 4 and 5): two segments, or three.
    let (audio, _) = fetch_with_audio(Duration::ZERO);
    assert_eq!(audio.iter().map(|w| w.index).collect::<Vec<_>>(), [0, 1]);
    let (audio, _) = fetch_with_audio(Duration::from_secs(1));
    assert_eq!(audio.iter().map(|w| w.index).collect::<Vec<_>>(), [0, 1, 2]);
}

#[test]
fn the_abr_hears_the_video_buffer_level_after_each_video_append_only() {
    let (audio, heard) = fetch_with_audio(Duration::from_secs(1));
    assert_eq!(audio.len(), 3);
    let secs = Duration::from_secs;
    // the periodic report of the empty buffer at the first request, then one per video append
    assert_eq!(heard, [secs(0), secs(5), secs(10)]);
}

#[test]
fn buffer_levels_are_reported_every_period_between_the_manifest_and_the_end() {
    let (mut p, levels) = listening(Duration::ZERO, 2);
    p.advance(secs(1.0));
    assert!(levels.borrow().is_empty(), "no reports before the manifest");
    p.begin(secs(1.0));
    fetch_all(&mut p, secs(1.0));
    let at_start = levels.borrow().len();
    p.advance(secs(1.0) + BUFFER_LEVEL_PERIOD);
    p.advance(secs(1.0) + BUFFER_LEVEL_PERIOD + BUFFER_LEVEL_PERIOD);
    assert_eq!(levels.borrow().len(), at_start + 2);
    p.advance(secs(100.0));
    assert_eq!(p.ended(), Some(secs(11.0)));
    assert_eq!(
        levels.borrow().len(),
        at_start + 2,
        "no reports after the end"
    );
}
