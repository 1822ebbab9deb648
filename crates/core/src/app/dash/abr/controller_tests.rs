use super::super::bola::BolaState;
use super::super::testkit::*;
use super::*;
use crate::app::dash::abr::Download;

/// Segment `index` of the WWW'21 video at `level`, 0.05 s to first byte, then `transfer_s`
/// at `mbps`, requested at `start_s`.
fn seg(index: usize, level: usize, start_s: f64, transfer_s: f64, mbps: f64) -> Download {
    download(index, level, start_s, 0.05, transfer_s, mbps * 1e6)
}

fn dynamic(profile: &Profile) -> (Video, DashJs) {
    let v = Video::www21();
    let abr = DashJs::new(Strategy::Dynamic, &v, profile);
    (v, abr)
}

#[test]
fn the_first_request_goes_out_at_the_initial_bitrates_level() {
    // 1 Mb/s: level 0 of WWW'21 (1 Mb/s), level 2 of BBB (760 kb/s; 1013 kb/s is above).
    for (v, want) in [(Video::www21(), 0), (Video::bbb(), 2)] {
        let mut abr = DashJs::new(Strategy::Dynamic, &v, &Profile::v3());
        assert_eq!(abr.decide(&ctx(&v, &[], 0.0, 0, 0.0)), Decision::now(want));
    }
    // An audio track uses the audio default (100 kb/s): the lowest of its ladder.
    let a = Video::audio(128e3, secs(4.0), 10);
    assert_eq!(initial_level(&a, &Profile::v3()), 0);
    // on a ladder of 64, 96, 128 and 192 kb/s that is 96 kb/s (the video default would be 192)
    let a = Video::constant("audio", vec![64e3, 96e3, 128e3, 192e3], secs(4.0), 10);
    assert_eq!(initial_level(&a, &Profile::v3()), 1);
    assert_eq!(
        quality_for_bitrate(&Video::www21(), &Profile::v3(), 26e6, Some(0.1)),
        10
    );
}

#[test]
fn the_decision_is_the_minimum_over_throughput_and_insufficient_buffer() {
    // After segment 0 (10 Mb/s), 5 s buffered, THROUGHPUT mode (5 ≤ 12):
    //   ThroughputRule: 10 × 0.9 × (1 − 0.05/5) = 8.91 Mb/s → level 3 (7.5)
    //   InsufficientBufferRule: 10 × 5/5 × 0.5 × 0.99 = 4.95 Mb/s → level 1 (2.5)
    //   min → level 1.
    let p = Profile::v3();
    let (v, mut abr) = dynamic(&p);
    assert_eq!(abr.decide(&ctx(&v, &[], 0.0, 0, 0.0)).level, 0);
    let h = vec![seg(0, 0, 0.0, 0.5, 10.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert_eq!(abr.decide(&ctx(&v, &h, 0.55, 1, 5.0)), Decision::now(1));
    assert!(!abr.uses_bola());

    // Without InsufficientBufferRule the throughput choice stands.
    let p = Profile {
        insufficient_buffer_enabled: false,
        ..Profile::v3()
    };
    let (v, mut abr) = dynamic(&p);
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert_eq!(abr.decide(&ctx(&v, &h, 0.55, 1, 5.0)), Decision::now(3));
}

/// The buffer state is the video buffer's own (dash.js keeps one per media type): with 10 s
/// of video buffered the throughput rule speaks, whatever the audio track or the media
/// element does. ThroughputRule 10 × 0.9 × (1 − 0.05/5) = 8.91 Mb/s → level 3;
/// InsufficientBufferRule 10 × 10/5 × 0.5 × 0.99 = 9.9 Mb/s → level 3.
#[test]
fn with_the_video_buffer_loaded_the_throughput_rule_decides() {
    let (v, mut abr) = dynamic(&Profile::v3());
    let h = vec![seg(0, 0, 0.0, 0.5, 10.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert_eq!(abr.decide(&ctx(&v, &h, 0.55, 1, 10.0)), Decision::now(3));
    assert_eq!(abr.buffer_state(), Some(BufferState::Loaded));
    // below the 0.5 s stall threshold the state is BUFFER_EMPTY: ThroughputRule is silent
    // and InsufficientBufferRule picks the lowest level
    assert_eq!(abr.decide(&ctx(&v, &h, 0.6, 1, 0.4)), Decision::now(0));
    assert_eq!(abr.buffer_state(), Some(BufferState::Empty));
}

#[test]
fn dynamic_consults_bola_above_the_stable_buffer_and_throughput_below_half_of_it() {
    // v3: 13 s > 12 s → BOLA. Its first call is STARTUP: the throughput choice (level 3) with
    // placeholder minBuf(3) − 13 = 22.292 − 13 = 9.292 s. InsufficientBufferRule allows
    // 10 × 13/5 × 0.5 × 0.99 = 12.87 → level 5, so the decision is 3.
    let p = Profile::v3();
    let (v, mut abr) = dynamic(&p);
    let h = vec![seg(0, 0, 0.0, 0.5, 10.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    abr.on_buffer_level(at(1.0), secs(13.0));
    assert!(abr.uses_bola());
    assert_eq!(abr.decide(&ctx(&v, &h, 1.0, 1, 13.0)), Decision::now(3));
    assert_eq!(abr.bola().state(), BolaState::Startup);
    assert!((abr.bola().placeholder() - 9.292).abs() < 2e-3);

    // Back under 6 s → THROUGHPUT; BOLA keeps its state but is not asked.
    abr.on_buffer_level(at(2.0), secs(6.0));
    assert!(!abr.uses_bola());
    // 7 s is not enough to return (needs > 12 s).
    abr.on_buffer_level(at(3.0), secs(7.0));
    assert!(!abr.uses_bola());
}

#[test]
fn the_throughput_and_bola_strategies_never_switch() {
    let v = Video::www21();
    let p = Profile::v3();
    let mut t = DashJs::new(Strategy::Throughput, &v, &p);
    let mut b = DashJs::new(Strategy::Bola, &v, &p);
    for buffer in [0.0, 30.0, 3.0] {
        t.on_buffer_level(at(1.0), secs(buffer));
        b.on_buffer_level(at(1.0), secs(buffer));
        assert!(!t.uses_bola() && b.uses_bola());
    }
    assert_eq!((t.name(), b.name()), ("throughput", "bola"));
}

#[test]
fn bola_pacing_delay_reaches_the_decision_only_in_bola_mode() {
    // BOLA strategy, v3, WWW'21. Segments at 1.25 Mb/s → throughput choice level 0
    // (1.25 × 0.9 × 0.99 = 1.11 Mb/s). First call: STARTUP, placeholder max(0, minBuf(0) − 5) = 0.
    // After segment 1 (5 s segments) a call with 6 s buffered enters STEADY. Then 30 s buffered:
    // BOLA alone would pick level 7, BOLA-O holds level 0 (throughput sustains only 0, last was
    // 0), and the excess over maxBuf(0) = Vp·(1 + gp) = 16.835 s is a 13.165 s request delay.
    let p = Profile::v3();
    let v = Video::www21();
    let mut abr = DashJs::new(Strategy::Bola, &v, &p);
    let h = vec![seg(0, 0, 0.0, 4.0, 1.25)];
    abr.on_download(&ctx(&v, &h, 4.05, 1, 0.0), &h[0]);
    let d = abr.decide(&ctx(&v, &h, 4.05, 1, 5.0));
    assert_eq!(d, Decision::now(0));
    let h2 = vec![h[0].clone(), seg(1, 0, 4.05, 4.0, 1.25)];
    abr.on_download(&ctx(&v, &h2, 8.1, 2, 1.0), &h2[1]);
    assert_eq!(abr.decide(&ctx(&v, &h2, 8.1, 2, 6.0)).level, 0);
    assert_eq!(abr.bola().state(), BolaState::Steady);
    let d = abr.decide(&ctx(&v, &h2, 8.1, 3, 30.0));
    assert_eq!(d.level, 0);
    assert!(
        (d.delay.as_secs_f64() - (30.0 - 16.835)).abs() < 2e-3,
        "{:?}",
        d.delay
    );
}

#[test]
fn a_stall_sends_the_next_request_to_the_lowest_level() {
    let p = Profile::v3();
    let (v, mut abr) = dynamic(&p);
    let h = vec![seg(0, 0, 0.0, 0.5, 20.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert!(abr.decide(&ctx(&v, &h, 0.55, 1, 5.0)).level > 0);
    abr.on_buffer_empty(at(9.0));
    assert_eq!(abr.buffer_state(), Some(BufferState::Empty));
    // 0.2 s buffered (< 0.5 s stall threshold): ThroughputRule waits for BUFFER_LOADED,
    // InsufficientBufferRule proposes 0.
    assert_eq!(abr.decide(&ctx(&v, &h, 9.5, 2, 0.2)).level, 0);
}

/// Drives an abandonment of segment 2 at the current level, `buffer_s` buffered: progress at
/// 4 Mb/s for 12.5 MB.
fn abandon_segment(
    abr: &mut DashJs,
    v: &Video,
    level: usize,
    t0: f64,
    buffer_s: f64,
) -> Option<usize> {
    let total = v.size(2, level);
    (1..=10).find_map(|k| {
        let t = t0 + k as f64 * 0.1;
        let received = (4e6 * k as f64 * 0.1 / 8.0) as u64;
        abr.abandon(
            &ctx(v, &[], t, 2, buffer_s),
            &progress(2, level, total, received, t0, k),
        )
    })
}

/// DYNAMIC under `p` at the top level, then abandoning segment 2 for level 1 at 5.6 s; the
/// video, the controller and the history (segment 0).
fn abandoned_from_the_top(p: &Profile) -> (Video, DashJs, Vec<Download>) {
    // A 40 Mb/s sample and 11 s buffered: throughput 40 × 0.9 × 0.99 = 35.6 Mb/s and
    // IBR 40 × 11/5 × 0.5 × 0.99 = 43.6 Mb/s both allow the top level, 10.
    let (v, mut abr) = dynamic(p);
    let h = vec![seg(0, 0, 0.0, 0.5, 40.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert_eq!(abr.decide(&ctx(&v, &h, 0.55, 1, 11.0)).level, 10);
    // The download of segment 2 at level 10 (15.6 MB) crawls at 4 Mb/s: abandoned for level 1
    // (4 × 0.9 = 3.6 → 2.5 Mb/s) after 0.6 s.
    assert_eq!(abandon_segment(&mut abr, &v, 10, 5.0, 8.0), Some(1));
    (v, abr, h)
}

#[test]
fn an_abandonment_locks_the_level_for_ten_seconds() {
    let (v, mut abr, h) = abandoned_from_the_top(&Profile::v3());
    // Within 10 s only up-switches are applied (v3 `newQuality > oldQuality`), and ThroughputRule
    // is silent: IBR alone (40 × 8/5 × 0.5 → 32 → level 10) would go up and is allowed.
    let d = abr.decide(&ctx(&v, &h, 6.0, 2, 8.0));
    assert_eq!(d.level, 10);

    // v5 applies only down-switches while abandoning: the same sequence stays at level 1.
    let p = Profile {
        insufficient_buffer_ignore_segments: 0,
        ..Profile::v5()
    };
    let (v, mut abr, h) = abandoned_from_the_top(&p);
    assert_eq!(abr.decide(&ctx(&v, &h, 6.0, 2, 8.0)).level, 1);
    // ABANDON_LOAD, which also bars a fast switch, holds for 10 s from the abandonment.
    let at = |s: f64| Time::ZERO + Duration::from_secs_f64(s);
    assert!(abr.abandoning(at(15.5)) && !abr.abandoning(at(15.7)));
    let until = abr.abandon_until.unwrap();
    assert!(abr.abandoning(until - Duration::from_nanos(1)) && !abr.abandoning(until));
    // After 10 s the lock is gone and ThroughputRule returns: 36 Mb/s → level 10.
    assert_eq!(abr.decide(&ctx(&v, &h, 15.7, 2, 8.0)).level, 10);
}

#[test]
fn an_abandonment_restarts_the_switch_history_with_its_drop_in_v3_only() {
    for p in [Profile::v3(), Profile::v5()] {
        let (_, abr, _) = abandoned_from_the_top(&p);
        let mut expected = SwitchHistory::new(&p);
        if p.switch_history_logs_abandon {
            expected.push(10, 1); // v3 onFragmentLoadProgress; v5 only resets
        }
        assert_eq!(abr.switches, expected);
    }
}

/// BOLA's placeholder deflates on an abandonment towards the minimum buffer of the level it
/// last heard of: v3 aborts the request (FRAGMENT_LOADING_ABANDONED) before it requests the
/// new quality, v4.5+ and v5 after.
#[test]
fn an_abandonment_deflates_bola_to_the_abandoned_level_in_v3_and_to_the_new_one_in_v4_and_v5() {
    for (p, to_new_level) in [
        (Profile::v3(), false),
        (Profile::v4(), true),
        (Profile::v5(), true),
    ] {
        let v = Video::www21();
        let mut abr = DashJs::new(Strategy::Bola, &v, &p);
        let h = vec![seg(0, 0, 0.0, 0.5, 40.0)];
        abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
        // BOLA's first call, STARTUP: the throughput choice, placeholder minBuf(10) − 11 s
        assert_eq!(abr.decide(&ctx(&v, &h, 0.55, 1, 11.0)).level, 10);
        let before = abr.bola().placeholder();
        assert!((before - 20.634).abs() < 1e-3);
        assert_eq!(abandon_segment(&mut abr, &v, 10, 5.0, 11.5), Some(1));
        // At 11.5 s buffered, towards minBuf(10) − 11.5 = 31.634 − 11.5 s, or towards
        // minBuf(1) − 11.5 s = Vp · (gp + (2.5 · 1 − 1 · u₁) / 1.5) − 11.5 = 12.660 − 11.5 s.
        let want = if to_new_level { 1.160 } else { 20.134 };
        let after = abr.bola().placeholder();
        assert!((after - want).abs() < 1e-3, "{after}");
    }
}

#[test]
fn abandonment_can_be_disabled_by_the_profile() {
    let p = Profile {
        abandon_enabled: false,
        ..Profile::v3()
    };
    let (v, mut abr) = dynamic(&p);
    let h = vec![seg(0, 0, 0.0, 0.5, 40.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    abr.decide(&ctx(&v, &h, 0.55, 1, 11.0));
    assert_eq!(abandon_segment(&mut abr, &v, 10, 5.0, 8.0), None);
}

#[test]
fn repeated_drops_from_a_level_make_switch_history_cap_below_it() {
    // Throughput strategy, v3, IBR off. Blocks of four equal samples alternate 20 Mb/s
    // (→ 17.82 Mb/s safe → level 7) and 5 Mb/s (→ 4.46 → level 1), so ThroughputRule alone would
    // alternate 7, 1, 7, 1, … Decisions logged against the level current at the time:
    //   k=0 0→7, k=1 7→1 (drop at 7), k=2 1→7, k=3 7→1, k=4 1→7, k=5 7→1 (3 drops at 7).
    //   k=6: no-drops 1 at level 0 and 2 at level 1, 3 drops at level 7: 6 decisions ≥ 6, ratio
    //        3/3 > 0.075, level 7 dropped → cap 6: min(7, 6) = 6.  k=7: min(1, 6) = 1.  k=8: 6 again.
    let p = Profile {
        insufficient_buffer_enabled: false,
        ..Profile::v3()
    };
    let v = Video::www21();
    let mut abr = DashJs::new(Strategy::Throughput, &v, &p);
    let mut h: Vec<Download> = Vec::new();
    let mut levels = Vec::new();
    for k in 0..9 {
        let mbps = if k % 2 == 0 { 20.0 } else { 5.0 };
        for _ in 0..4 {
            let d = seg(h.len(), 0, h.len() as f64, 0.5, mbps);
            abr.on_download(
                &ctx(&v, &h, d.completed_at.as_secs_f64(), h.len() + 1, 0.0),
                &d,
            );
            h.push(d);
        }
        levels.push(
            abr.decide(&ctx(&v, &h, h.len() as f64, h.len(), 11.0))
                .level,
        );
    }
    assert_eq!(levels, [7, 1, 7, 1, 7, 1, 6, 1, 6]);
}

#[test]
fn the_estimate_is_the_average_throughput() {
    let p = Profile::v3();
    let (v, mut abr) = dynamic(&p);
    assert_eq!(abr.estimate_bps(), None);
    let h = vec![seg(0, 0, 0.0, 0.5, 10.0)];
    abr.on_download(&ctx(&v, &h, 0.55, 1, 0.0), &h[0]);
    assert!((abr.estimate_bps().unwrap() - 10e6).abs() < 1.0);
    assert_eq!(abr.name(), "dynamic");
}

#[test]
fn a_buffer_at_exactly_the_stall_threshold_is_loaded() {
    let p = Profile::v3();
    let (_, mut abr) = dynamic(&p);
    abr.on_buffer_level(at(1.0), p.stall_threshold);
    assert_eq!(abr.buffer_state(), Some(BufferState::Loaded));
    abr.on_buffer_level(at(1.1), p.stall_threshold - Duration::from_nanos(1));
    assert_eq!(abr.buffer_state(), Some(BufferState::Empty));
}

#[test]
fn v3_logs_a_no_change_decision_as_a_no_drop_and_v5_does_not() {
    // The first request has no rule's proposal (no sample, no buffer level yet).
    for p in [Profile::v3(), Profile::v5()] {
        let (v, mut abr) = dynamic(&p);
        abr.decide(&ctx(&v, &[], 0.0, 0, 0.0));
        let mut expected = SwitchHistory::new(&p);
        if p.switch_history_logs_no_change {
            expected.push(0, 0);
        }
        assert_eq!(abr.switches, expected);
    }
}

#[test]
fn each_completed_download_counts_toward_insufficient_buffer_s_warm_up() {
    let p = Profile::v3();
    let (v, mut abr) = dynamic(&p);
    let h = [seg(0, 0, 0.0, 0.5, 10.0), seg(1, 0, 0.6, 0.5, 10.0)];
    for (k, d) in h.iter().enumerate() {
        abr.on_download(
            &ctx(&v, &h[..=k], d.completed_at.as_secs_f64(), k + 1, 4.0),
            d,
        );
    }
    assert_eq!(abr.downloads, 2);
}

#[test]
fn v5_applies_a_down_switch_while_abandoning() {
    // As in the lock test (v5): abandoned from level 10 to 1 at 5.6 s. A stall then makes
    // InsufficientBufferRule propose level 0, which v5 applies within the 10 s.
    let p = Profile {
        insufficient_buffer_ignore_segments: 0,
        ..Profile::v5()
    };
    let (v, mut abr, h) = abandoned_from_the_top(&p);
    abr.on_buffer_empty(at(6.0));
    assert_eq!(abr.decide(&ctx(&v, &h, 6.1, 2, 0.1)).level, 0);
}
