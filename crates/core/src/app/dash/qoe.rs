//! QoE of one DASH session, in the conventions the papers use.
//!
//! | key | definition | source |
//! |---|---|---|
//! | `avg_quality` | mean level index of the video segments loaded, each at the level that plays (0 = lowest) | WWW'21 §3.3 |
//! | `avg_bitrate_bps` | mean nominal bitrate of those segments | |
//! | `stall_rate` | (playback time − media played) / video length = stall time after start / length; equals Eq. 1 once playback completes | WWW'21 Eq. 1 |
//! | `rebuffer_ratio` | stall time / (media played + stall time), after the first frame | Puffer (spec §5.2) |
//! | `startup_delay_s` | first frame − session start (manifest fetch included) | |
//! | `stall_count`, `stall_total_s`, `stalls_s` | stalls after the first frame | |
//! | `quality_switches` | consecutive video segments with different levels | |
//! | `quality_down_switches` | segments of lower quality than the previous one | ATC'23 §5 |
//! | `bitrate_change_bps`, `log_bitrate_change` | Σ \|ΔR\| between consecutive segments (bit/s), and Σ \|Δ ln R\| | Sabre's "bitrate change" and "log bitrate change" (spec §2.5, §5.3) |
//! | `rebuffer_ratio_sabre` | stall time / (start-up + media played + stall time) | Sabre (spec §2.5, §5.2) |
//! | `segments_replaced`, `replaced_bytes` | fast switching's re-fetches; bytes of complete video loads that do not play (overwritten, or replacements that came too late) | |
//! | `qoe_lin` | Σ R/Mbps − 4.3 · stall s − Σ \|ΔR\|/Mbps over the segments after the first (per-session total), and per such segment | Pensieve QoE_lin (spec §3.3) |
//!
//! `qoe_lin` is summed as Pensieve's evaluation sums it (`test/plot_results.py`, chunks 1..):
//! the first segment's own term (its bitrate, and the start-up, which Pensieve counts as that
//! chunk's rebuffering) is left out; the change from it to the second segment counts.

use super::player::{Player, VIDEO};
use crate::time::Time;
use serde_json::{json, Value};

/// Pensieve's rebuffering penalty per second (`REBUF_PENALTY`).
const QOE_LIN_REBUFFER: f64 = 4.3;
/// Pensieve's smoothness penalty per Mb/s of change (`SMOOTH_PENALTY`).
const QOE_LIN_SMOOTH: f64 = 1.0;

pub fn summarize(player: &Player, session_start: Time, now: Time) -> Value {
    let video = player.video();
    let segs: Vec<_> = player.shown().collect();
    let loads = player
        .records()
        .iter()
        .filter(|r| r.track == VIDEO && !r.download.abandoned);
    let replaced = loads.clone().filter(|r| r.replacement).count();
    let loaded_bytes: u64 = loads.map(|r| r.download.bytes).sum();
    let shown_bytes: u64 = segs.iter().map(|r| r.download.bytes).sum();
    let levels: Vec<usize> = segs.iter().map(|r| r.download.level).collect();
    let rates: Vec<f64> = segs.iter().map(|r| r.bitrate_bps).collect();
    let n = segs.len().max(1) as f64;
    let stalls = player.stalls(now);
    let stall_total = stalls
        .iter()
        .map(|(_, d)| d.as_secs_f64())
        .fold(0.0, |a, b| a + b);
    let played = player.playhead().as_secs_f64();
    let length = video.length().as_secs_f64();
    let switches = levels.windows(2).filter(|w| w[0] != w[1]).count();
    let down = levels.windows(2).filter(|w| w[1] < w[0]).count();
    let change: f64 = rates.windows(2).map(|w| (w[1] - w[0]).abs()).sum();
    let log_change: f64 = rates.windows(2).map(|w| (w[1] / w[0]).ln().abs()).sum();
    let scored = rates.len().saturating_sub(1);
    let qoe_lin = rates.iter().skip(1).map(|r| r / 1e6).sum::<f64>()
        - QOE_LIN_REBUFFER * stall_total
        - QOE_LIN_SMOOTH * change / 1e6;
    let startup = player
        .started()
        .map(|t| t.saturating_since(session_start).as_secs_f64());
    let abandoned = player
        .records()
        .iter()
        .filter(|r| r.download.abandoned)
        .count();
    let opt = |x: Option<f64>| x.map_or(Value::Null, |v| json!(v));
    json!({
        "video": video.name,
        "segments_downloaded": segs.len(),
        "segments_replaced": replaced,
        "replaced_bytes": loaded_bytes - shown_bytes,
        "segments_total": video.segments,
        "segments_abandoned": abandoned,
        "avg_quality": opt((!segs.is_empty()).then(|| levels.iter().sum::<usize>() as f64 / n)),
        "avg_bitrate_bps": opt((!segs.is_empty()).then(|| rates.iter().sum::<f64>() / n)),
        "stall_rate": stall_total / length,
        "rebuffer_ratio": opt((played + stall_total > 0.0).then(|| stall_total / (played + stall_total))),
        "rebuffer_ratio_sabre": opt(startup.map(|s| s + played + stall_total).filter(|t| *t > 0.0).map(|t| stall_total / t)),
        "stall_count": stalls.len(),
        "stall_total_s": stall_total,
        "stalls_s": stalls.iter().map(|(_, d)| d.as_secs_f64()).collect::<Vec<_>>(),
        "startup_delay_s": opt(startup),
        "played_s": played,
        "playback_complete": player.ended().is_some(),
        "quality_switches": switches,
        "quality_down_switches": down,
        "bitrate_change_bps": change,
        "log_bitrate_change": log_change,
        "qoe_lin": qoe_lin,
        "qoe_lin_per_segment": opt((scored > 0).then(|| qoe_lin / scored as f64)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::dash::player::tests::{config, fetch_one, secs, Script};
    use crate::app::dash::player::PlayerConfig;
    use crate::app::dash::video::Video;
    use crate::time::Duration;

    #[test]
    fn a_session_with_one_stall_and_two_switches_scores_as_computed_by_hand() {
        // 1, 2, 4 Mb/s, three 5 s segments at levels 2, 0, 1. Segment 0 lands at 1 s (first
        // frame), segment 1 is asked for at once and lands at 8 s: the buffer ran out at 6 s,
        // a 2 s stall; segment 2 lands at 8 s too, and the video ends at 18 s.
        let video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 3);
        let cfg = config(Duration::ZERO);
        let mut p = Player::new(cfg, video, None, Box::new(Script::new(vec![2, 0, 1])));
        p.begin(Time::ZERO);
        fetch_one(&mut p, Time::ZERO, secs(1.0), 0);
        fetch_one(&mut p, secs(1.0), secs(8.0), 1);
        fetch_one(&mut p, secs(8.0), secs(8.0), 2);
        p.advance(secs(30.0));
        let q = summarize(&p, Time::ZERO, secs(30.0));
        assert_eq!(q["avg_quality"], 1.0);
        assert_eq!(q["avg_bitrate_bps"], 7e6 / 3.0);
        assert_eq!(q["stalls_s"], json!([2.0]));
        assert_eq!(q["stall_rate"], 2.0 / 15.0);
        assert_eq!(q["rebuffer_ratio"], 2.0 / 17.0);
        assert_eq!(q["startup_delay_s"], 1.0);
        assert_eq!(
            (
                q["quality_switches"].clone(),
                q["quality_down_switches"].clone()
            ),
            (json!(2), json!(1))
        );
        // Sabre's: Σ|ΔR| = 3 + 1 Mb/s, Σ|Δ ln R| = ln 4 + ln 2; 2 s stalled of 1 + 15 + 2 s
        assert_eq!(q["bitrate_change_bps"], 4e6);
        let log_change = q["log_bitrate_change"].as_f64().unwrap();
        assert!((log_change - 8f64.ln()).abs() < 1e-12, "{log_change}");
        assert_eq!(q["rebuffer_ratio_sabre"], 2.0 / 18.0);
        // QoE_lin over segments 1 and 2, as Pensieve sums it: (1 + 2) − 4.3 × 2 − (|1 − 4| + |2 − 1|) = −9.6
        let qoe = q["qoe_lin"].as_f64().unwrap();
        assert!((qoe + 9.6).abs() < 1e-12, "{qoe}");
        assert!((q["qoe_lin_per_segment"].as_f64().unwrap() + 4.8).abs() < 1e-12);
        assert_eq!(q["playback_complete"], true);
    }

    #[test]
    fn only_drops_are_down_switches_and_an_abandoned_load_is_not_a_replaced_one() {
        // a first try at level 2 abandoned with 1000 B, then levels 2, 0, 0, 1, 2:
        // switches 2→0, 0→1, 1→2; one of them down (0→0 is none)
        let video = Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 5);
        let cfg = PlayerConfig {
            buffer_time_default: Duration::from_secs(60),
            ..config(Duration::ZERO)
        };
        let script = Script::new(vec![2, 2, 0, 0, 1, 2]);
        let mut p = Player::new(cfg, video, None, Box::new(script));
        p.begin(Time::ZERO);
        let w = p.want(Time::ZERO).unwrap();
        p.on_requested(Time::ZERO, w, 0);
        p.on_fetched(secs(0.5), VIDEO, 1000, Some(secs(0.2)), true);
        for k in 1..=5 {
            fetch_one(&mut p, secs(0.5), secs(0.5), k);
        }
        let q = summarize(&p, Time::ZERO, secs(0.5));
        assert_eq!(q["avg_quality"], 1.0);
        assert_eq!(
            [&q["quality_switches"], &q["quality_down_switches"]],
            [3, 1]
        );
        assert_eq!(
            [
                &q["segments_abandoned"],
                &q["segments_replaced"],
                &q["replaced_bytes"]
            ],
            [1, 0, 0]
        );
    }
}
