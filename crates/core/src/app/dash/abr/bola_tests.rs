use super::super::controller::{BufferState, RuleInput};
use super::super::estimator::ThroughputHistory;
use super::super::testkit::*;
use super::*;
use crate::app::dash::abr::AbrContext;
use crate::app::dash::profile::Profile;
use crate::app::dash::video::Video;

fn bbb_kbps() -> Vec<f64> {
    Video::bbb().bitrates_bps
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() < tol
}

/// What BOLA sees with a loaded buffer.
fn input<'a>(c: &'a AbrContext<'a>, p: &'a Profile, h: &'a ThroughputHistory) -> RuleInput<'a> {
    rule_input(c, p, h, Some(BufferState::Loaded))
}

#[test]
fn defaults_match_spec() {
    assert_eq!(
        (
            MINIMUM_BUFFER_S,
            MINIMUM_BUFFER_PER_BITRATE_LEVEL_S,
            PLACEHOLDER_BUFFER_DECAY
        ),
        (10.0, 2.0, 0.99)
    );
}

#[test]
fn pensieve_ladder_parameters_and_quality_steps() {
    // 6 levels: T = max(12, 10 + 12) = 22 s; u_top = ln(4300/300) + 1 = 3.6626;
    // gp = 2.6626 / (2.2 − 1) = 2.2188; Vp = 10 / gp = 4.5069.
    // minBuf(1) = Vp·(gp + (750·1 − 300·1.9163)/450) = 4.5069 × 2.6079 = 11.754 s, and so on.
    let p = BolaParams::new(&pensieve().bitrates_bps, Duration::from_secs(12)).unwrap();
    assert!(
        close(p.gp, 2.2188, 1e-4) && close(p.vp, 4.5069, 1e-4),
        "{} {}",
        p.gp,
        p.vp
    );
    let steps = [0.0, 11.754, 15.106, 17.153, 19.103, 21.010];
    for (q, &s) in steps.iter().enumerate() {
        assert!(
            close(p.min_buffer(q), s, 2e-3),
            "minBuf({q}) = {}",
            p.min_buffer(q)
        );
        if q > 0 {
            assert_eq!(p.quality(s - 0.01), q - 1, "just below step {q}");
            assert_eq!(p.quality(s + 0.01), q, "just above step {q}");
        }
    }
    // maxBuf(q) = Vp·(u_q + gp): 14.507 s at the lowest level, 26.507 s at the top.
    assert!(close(p.max_buffer(0), 14.507, 1e-3) && close(p.max_buffer(5), 26.507, 1e-3));
}

#[test]
fn bbb_ladder_parameters_and_quality_steps() {
    // 10 levels: T = 30 s, gp = 2.0363, Vp = 4.9108; steps 0/11.50/14.32/16.05/17.30/18.77/20.98/
    // 23.37/26.09/28.93 s (the spec's 0/6.6/9.5/… subtract Vp: it scores with u − 1 + gp).
    for stable in [12, 18] {
        let p = BolaParams::new(&bbb_kbps(), Duration::from_secs(stable)).unwrap();
        assert!(close(p.gp, 2.0363, 1e-4) && close(p.vp, 4.9108, 1e-4));
        let steps = [
            0.0, 11.502, 14.316, 16.048, 17.295, 18.768, 20.978, 23.372, 26.089, 28.926,
        ];
        for (q, &s) in steps.iter().enumerate() {
            assert!(
                close(p.min_buffer(q), s, 2e-3),
                "minBuf({q}) = {}",
                p.min_buffer(q)
            );
        }
        assert_eq!(p.quality(20.0), 5);
        assert_eq!(p.quality(0.0), 0);
    }
}

#[test]
fn www21_ladder_needs_12_66s_for_its_second_level() {
    // 11 levels: T = 32 s, gp = 1.4631, Vp = 6.8347; minBuf(1) = 12.66 s, minBuf(10) = 31.63 s.
    let p = BolaParams::new(&Video::www21().bitrates_bps, Duration::from_secs(12)).unwrap();
    assert!(close(p.gp, 1.4631, 1e-4) && close(p.vp, 6.8347, 1e-4));
    assert!(close(p.min_buffer(1), 12.660, 2e-3) && close(p.min_buffer(10), 31.634, 2e-3));
}

#[test]
fn a_single_level_ladder_never_proposes() {
    let v = Video::audio(128e3, secs(4.0), 10);
    let prof = Profile::v3();
    let h = history(&prof, &[5.0], 0.0);
    let mut bola = BolaRule::new(&v.bitrates_bps, prof.buffer_time_default);
    let c = ctx(&v, &[], 10.0, 1, 8.0);
    assert_eq!(bola.decide(&input(&c, &prof, &h)), (None, Duration::ZERO));
    assert_eq!(bola.state(), BolaState::OneBitrate);
}

#[test]
fn startup_follows_throughput_and_sets_the_placeholder_to_that_levels_minimum_buffer() {
    // Pensieve ladder, v3, 3 Mb/s measured: safe 2.7 Mb/s (× 0.99975 dead time) → level 3 (1850).
    // Buffer 4 s: placeholder = minBuf(3) − 4 = 17.153 − 4 = 13.153 s. No segment has been seen
    // yet, so STARTUP continues.
    let v = pensieve();
    let prof = Profile::v3();
    let h = history(&prof, &[3.0], 0.0);
    let mut bola = BolaRule::new(&v.bitrates_bps, prof.buffer_time_default);
    let c = ctx(&v, &[], 10.0, 1, 4.0);
    assert_eq!(
        bola.decide(&input(&c, &prof, &h)),
        (Some(3), Duration::ZERO)
    );
    assert!(
        close(bola.placeholder(), 13.153, 2e-3),
        "{}",
        bola.placeholder()
    );
    assert_eq!(bola.state(), BolaState::Startup);

    // Segment 1 arrives (requested at 10 s, done at 12 s, 2 s buffered before the append):
    // placeholder × 0.99 = 13.022; cap maxBuf(3) − (2 + 2) = 18.706 does not bind.
    bola.on_download(
        &download(1, 3, 10.0, 0.1, 1.9, 3e6),
        v.segment_duration,
        secs(2.0),
    );
    assert!(close(bola.placeholder(), 13.153 * 0.99, 2e-3));

    // Next call with 6 s buffered ≥ one segment (4 s): placeholder recomputed as 17.153 − 6,
    // and BOLA moves to STEADY.
    let c = ctx(&v, &[], 12.0, 2, 6.0);
    assert_eq!(bola.decide(&input(&c, &prof, &h)).0, Some(3));
    assert!(close(bola.placeholder(), 11.153, 2e-3));
    assert_eq!(bola.state(), BolaState::Steady);
}

/// A STEADY rule on the Pensieve ladder with the given placeholder and last quality, whose last
/// segment finished at `finish_s`.
fn steady(placeholder: f64, last_quality: usize, finish_s: f64) -> BolaRule {
    let mut bola = BolaRule::new(&pensieve().bitrates_bps, Duration::from_secs(12));
    bola.state = BolaState::Steady;
    bola.placeholder = placeholder;
    bola.last_quality = last_quality;
    bola.last_segment_finish = Some(at(finish_s));
    bola.last_segment_duration = Some(4.0);
    bola
}

#[test]
fn the_placeholder_grows_by_the_time_since_the_last_segment_finished() {
    // Placeholder 11 s, last segment done at 12 s, call at 16 s: +4 → 15 s. Buffer 4 s: effective
    // 19 s → BOLA's level 3 (17.15 ≤ 19 < 19.10); throughput allows level 5 (≥ 4.3 Mb/s measured
    // at 5 Mb/s × 0.9 = 4.5) so no anti-oscillation cap; no delay (19 < maxBuf(3) = 22.7).
    let v = pensieve();
    let prof = Profile::v3();
    let h = history(&prof, &[5.0], 0.0);
    let mut bola = steady(11.0, 3, 12.0);
    let c = ctx(&v, &[], 16.0, 3, 4.0);
    assert_eq!(
        bola.decide(&input(&c, &prof, &h)),
        (Some(3), Duration::ZERO)
    );
    assert!(close(bola.placeholder(), 15.0, 1e-9));
    // The finish time is consumed: a call 1 s later adds only the 1 s since the last call.
    let c = ctx(&v, &[], 17.0, 3, 3.0);
    bola.decide(&input(&c, &prof, &h));
    assert!(close(bola.placeholder(), 16.0, 1e-9));
}

#[test]
fn anti_oscillation_caps_an_up_switch_at_what_throughput_sustains() {
    // Effective buffer 4 + 15.2 = 19.2 s → BOLA alone would pick level 4 (19.10 ≤ 19.2 < 21.01).
    // Throughput 2 Mb/s × 0.9 = 1.8 → level 2. 4 > last (3) and 4 > 2 → max(2, 3) = 3.
    let v = pensieve();
    let prof = Profile::v3();
    let h = history(&prof, &[2.0], 0.0);
    let mut bola = steady(15.2, 3, 16.0);
    let c = ctx(&v, &[], 16.0, 3, 4.0);
    assert_eq!(bola.decide(&input(&c, &prof, &h)).0, Some(3));
    // With throughput for level 5 the same buffer gives level 4.
    let h = history(&prof, &[5.0], 0.0);
    let mut bola = steady(15.2, 3, 16.0);
    assert_eq!(bola.decide(&input(&c, &prof, &h)).0, Some(4));
}

#[test]
fn pacing_takes_from_the_placeholder_first_then_delays_the_request() {
    // Last quality 0, throughput only for level 0 (0.5 Mb/s × 0.9): BOLA-O keeps level 0.
    // Buffer 20 s + placeholder 2 s = 22 s > maxBuf(0) = 14.507 → excess 7.493 s: the
    // placeholder absorbs 2, the request waits 5.493 s.
    let v = pensieve();
    let prof = Profile::v3();
    let h = history(&prof, &[0.5], 0.0);
    let mut bola = steady(2.0, 0, 16.0);
    let c = ctx(&v, &[], 16.0, 3, 20.0);
    let (q, delay) = bola.decide(&input(&c, &prof, &h));
    assert_eq!(q, Some(0));
    assert!(close(delay.as_secs_f64(), 20.0 - 14.507, 2e-3), "{delay:?}");
    assert_eq!(bola.placeholder(), 0.0);

    // A smaller excess comes out of the placeholder alone: buffer 14 + 2 = 16 → 1.493 s off it.
    let mut bola = steady(2.0, 0, 16.0);
    let c = ctx(&v, &[], 16.0, 3, 14.0);
    assert_eq!(
        bola.decide(&input(&c, &prof, &h)),
        (Some(0), Duration::ZERO)
    );
    assert!(close(bola.placeholder(), 2.0 - (16.0 - 14.507), 2e-3));
}

#[test]
fn the_top_level_is_never_delayed() {
    // Level 5 chosen with buffer 40 s > maxBuf(5) = 26.5: no delay (the scheduler's 30/60 s
    // top-quality target governs instead).
    let v = pensieve();
    let prof = Profile::v3();
    let h = history(&prof, &[10.0], 0.0);
    let mut bola = steady(0.0, 5, 16.0);
    let c = ctx(&v, &[], 16.0, 3, 40.0);
    assert_eq!(
        bola.decide(&input(&c, &prof, &h)),
        (Some(5), Duration::ZERO)
    );
}

#[test]
fn a_download_decays_and_clips_the_placeholder_and_a_replacement_adds_its_duration() {
    let v = pensieve();
    // Placeholder 10 s; segment 5 at level 1 requested 10 s, done 13 s; 5 s buffered before append.
    // × 0.99 = 9.9; cap = maxBuf(1) − (5 + 3) = 18.637 − 8 = 10.637 → 9.9 stays.
    let mut bola = steady(10.0, 1, 0.0);
    bola.on_download(
        &download(5, 1, 10.0, 0.1, 2.9, 1e6),
        v.segment_duration,
        secs(5.0),
    );
    assert!(close(bola.placeholder(), 9.9, 1e-9));
    // With 12 s buffered the cap is 18.637 − 15 = 3.637 s.
    let mut bola = steady(10.0, 1, 0.0);
    bola.on_download(
        &download(5, 1, 10.0, 0.1, 2.9, 1e6),
        v.segment_duration,
        secs(12.0),
    );
    assert!(close(bola.placeholder(), 3.637, 2e-3));
    // A second download of index 5 (fast switching) does not grow the buffer: +4 s.
    let before = bola.placeholder();
    bola.on_download(
        &download(5, 2, 13.0, 0.1, 1.0, 4e6),
        v.segment_duration,
        secs(11.0),
    );
    let cap = (BolaParams::new(&v.bitrates_bps, secs(12.0))
        .unwrap()
        .max_buffer(2)
        - 12.1)
        .max(0.0);
    assert!(close(
        bola.placeholder(),
        (before * 0.99).min(cap) + 4.0,
        1e-6
    ));
    // The next index is no replacement: decay and clip only.
    let before = bola.placeholder();
    bola.on_download(
        &download(6, 2, 14.0, 0.1, 1.0, 4e6),
        v.segment_duration,
        secs(11.0),
    );
    assert!(close(bola.placeholder(), (before * 0.99).min(cap), 1e-6));
}

#[test]
fn a_stall_empties_the_placeholder_and_an_abandonment_deflates_it() {
    let mut bola = steady(10.0, 3, 0.0);
    bola.on_buffer_empty();
    assert_eq!(bola.placeholder(), 0.0);

    // Last requested quality 3: deflate to minBuf(3) − buffer = 17.153 − 8 = 9.153 s.
    let mut bola = steady(12.0, 3, 0.0);
    bola.on_quality_change(3);
    bola.on_abandon(secs(8.0));
    assert!(close(bola.placeholder(), 9.153, 2e-3));
    // At level 0 the target is MINIMUM_BUFFER_S: 10 − 8 = 2 s.
    let mut bola = steady(12.0, 0, 0.0);
    bola.on_quality_change(0);
    bola.on_abandon(secs(8.0));
    assert!(close(bola.placeholder(), 2.0, 1e-9));
}

#[test]
fn events_before_the_first_consult_are_ignored() {
    let v = pensieve();
    let mut bola = BolaRule::new(&v.bitrates_bps, Duration::from_secs(12));
    bola.on_download(
        &download(0, 1, 0.0, 0.1, 1.0, 1e6),
        v.segment_duration,
        secs(0.0),
    );
    bola.on_quality_change(4);
    assert_eq!(bola.state(), BolaState::Uninitialised);
    assert_eq!(bola.last_segment_duration, None);
    assert_eq!(bola.abr_quality, None);
}

#[test]
fn no_throughput_sample_means_no_change() {
    let v = pensieve();
    let prof = Profile::v3();
    let h = ThroughputHistory::new(&prof, false);
    let mut bola = BolaRule::new(&v.bitrates_bps, prof.buffer_time_default);
    let c = ctx(&v, &[], 0.0, 0, 0.0);
    assert_eq!(bola.decide(&input(&c, &prof, &h)), (None, Duration::ZERO));
    assert_eq!(bola.state(), BolaState::Startup);
}
