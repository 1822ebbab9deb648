//! The video catalogue: a bitrate ladder, a segment duration, a segment
//! count, and every segment's size at every level.
//!
//! Sizes are either constant (bitrate × duration) or a per-segment table, as
//! Sabre's movie JSON gives them (`segment_sizes_bits[segment][level]`).
//! Built-in videos:
//!
//! | name | ladder | segments | source |
//! |---|---|---|---|
//! | `www21` | 1, 2.5, 5, 7.5, … 25 Mb/s (11 levels) | 127 × 5 s | WWW'21 §3.2 (BBB 4K, ffmpeg CBR-like) |
//! | `bbb` | 254 … 14931 kb/s (10 levels) | 159 × 4 s | dash.js reference MPD `bbb_30fps` (@bandwidth) |
//!
//! Both use constant sizes (the papers' encodes are near-CBR; no per-segment
//! table for them is public — `abr-and-traces.md` §7).

use crate::time::Duration;
use serde::Deserialize;

#[derive(Clone, Debug, PartialEq)]
enum Sizes {
    /// bitrate × duration / 8 for every segment.
    Constant,
    /// Bytes, `[segment][level]`.
    Table(Vec<Vec<u64>>),
}

/// One media track (the video, or an audio track fetched alongside it).
#[derive(Clone, Debug, PartialEq)]
pub struct Video {
    pub name: String,
    /// Nominal bitrates (the MPD's @bandwidth), bits/s, ascending.
    pub bitrates_bps: Vec<f64>,
    pub segment_duration: Duration,
    pub segments: usize,
    sizes: Sizes,
    /// Bytes of each level's initialization segment (0: the player fetches none).
    pub init_bytes: u64,
}

/// Sabre / Pensieve-style movie JSON (`abr-and-traces.md` D.4).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SabreMovie {
    segment_duration_ms: u64,
    bitrates_kbps: Vec<f64>,
    segment_sizes_bits: Vec<Vec<f64>>,
}

impl Video {
    /// A constant-size ladder.
    pub fn constant(
        name: &str,
        bitrates_bps: Vec<f64>,
        segment_duration: Duration,
        segments: usize,
    ) -> Self {
        Video {
            name: name.into(),
            bitrates_bps,
            segment_duration,
            segments,
            sizes: Sizes::Constant,
            init_bytes: 0,
        }
    }

    /// The WWW'21 video: 11 levels 1, 2.5, 5, … 25 Mb/s; 127 segments of 5 s.
    pub fn www21() -> Self {
        let mut ladder = vec![1e6];
        ladder.extend((1..=10).map(|k| k as f64 * 2.5e6));
        Video::constant("www21", ladder, Duration::from_secs(5), 127)
    }

    /// Big Buck Bunny as dash.js serves it (`bbb_30fps`): 10 levels, 4 s segments, ~10.6 min.
    pub fn bbb() -> Self {
        let kbps = [
            254.320, 507.246, 759.798, 1013.310, 1254.758, 1883.700, 3134.488, 4952.892, 9914.554,
            14931.538,
        ];
        Video::constant(
            "bbb",
            kbps.iter().map(|k| k * 1e3).collect(),
            Duration::from_secs(4),
            159,
        )
    }

    /// Refuses a constant-size ladder whose lowest level's segments would round to 0 bytes
    /// (a Sabre movie's sizes are rounded up instead, and must be positive).
    pub fn check_segment_bytes(&self) -> Result<(), String> {
        let lowest = self.bitrates_bps[0];
        if self.sizes != Sizes::Constant || self.size(0, 0) > 0 {
            return Ok(());
        }
        // round(bitrate · duration / 8) ≥ 1 from 4 bits per segment on
        let least = (4.0 / self.segment_duration.as_secs_f64()).ceil();
        Err(format!(
            "{lowest}bps gives {} segments of 0 bytes: allowed ≥ {least}bps (a byte per segment)",
            self.segment_duration
        ))
    }

    /// A single-level audio track.
    pub fn audio(bitrate_bps: f64, segment_duration: Duration, segments: usize) -> Self {
        Video::constant("audio", vec![bitrate_bps], segment_duration, segments)
    }

    /// Parses Sabre's movie JSON.
    pub fn from_sabre_json(name: &str, text: &str) -> Result<Self, String> {
        let m: SabreMovie = serde_json::from_str(text).map_err(|e| {
            format!(
                "not a Sabre movie JSON: {}",
                crate::scenario::in_words(&e.to_string())
            )
        })?;
        if m.bitrates_kbps.is_empty()
            || m.bitrates_kbps.windows(2).any(|w| w[1] <= w[0])
            || m.bitrates_kbps[0] <= 0.0
        {
            return Err(
                "bitrates_kbps must be a non-empty, strictly increasing list of positive bitrates"
                    .into(),
            );
        }
        if m.segment_duration_ms == 0 {
            return Err("segment_duration_ms must be positive".into());
        }
        if m.segment_sizes_bits.is_empty() {
            return Err("segment_sizes_bits is empty".into());
        }
        let levels = m.bitrates_kbps.len();
        let mut table = Vec::with_capacity(m.segment_sizes_bits.len());
        for (i, row) in m.segment_sizes_bits.iter().enumerate() {
            if row.len() != levels {
                return Err(format!(
                    "segment {i} has {} sizes, expected one per bitrate ({levels})",
                    row.len()
                ));
            }
            if row.iter().any(|b| !(b.is_finite() && *b > 0.0)) {
                return Err(format!(
                    "segment {i} has a size that is not a positive number of bits"
                ));
            }
            table.push(row.iter().map(|b| (b / 8.0).ceil() as u64).collect());
        }
        Ok(Video {
            name: name.into(),
            bitrates_bps: m.bitrates_kbps.iter().map(|k| k * 1e3).collect(),
            segment_duration: Duration::from_millis(m.segment_duration_ms),
            segments: table.len(),
            sizes: Sizes::Table(table),
            init_bytes: 0,
        })
    }

    pub fn levels(&self) -> usize {
        self.bitrates_bps.len()
    }

    /// Bytes of segment `index` at `level` (media payload, without HTTP headers).
    pub fn size(&self, index: usize, level: usize) -> u64 {
        match &self.sizes {
            Sizes::Constant => (self.bitrates_bps[level] * self.segment_duration.as_secs_f64()
                / 8.0)
                .round() as u64,
            Sizes::Table(t) => t[index][level],
        }
    }

    /// Total media time.
    pub fn length(&self) -> Duration {
        self.start(self.segments)
    }

    /// Media time at which segment `index` begins.
    pub fn start(&self, index: usize) -> Duration {
        Duration::from_nanos(self.segment_duration.as_nanos() * index as u64)
    }

    /// Highest level whose bitrate is at most `bps` (the lowest if none is): dash.js
    /// `getOptimalRepresentationForBitrate`.
    pub fn level_for_bitrate(&self, bps: f64) -> usize {
        self.bitrates_bps
            .iter()
            .rposition(|&b| b <= bps)
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_www21_video_has_11_levels_and_127_five_second_segments() {
        let v = Video::www21();
        assert_eq!(v.levels(), 11);
        assert_eq!(v.bitrates_bps[1], 2.5e6);
        assert_eq!(v.bitrates_bps[10], 25e6);
        assert_eq!(v.size(0, 10), 15_625_000);
        assert_eq!(v.length(), Duration::from_secs(635));
    }

    #[test]
    fn bitrates_map_to_the_highest_level_not_above_them() {
        let v = Video::bbb();
        assert_eq!(v.level_for_bitrate(1_000_000.0), 2);
        assert_eq!(v.level_for_bitrate(1.0), 0);
        assert_eq!(v.level_for_bitrate(1e9), 9);
    }

    #[test]
    fn sabre_movies_parse_and_bad_ones_say_why() {
        let v = Video::from_sabre_json("m", r#"{"segment_duration_ms": 3000, "bitrates_kbps": [100, 200], "segment_sizes_bits": [[300000, 600008], [280000, 590000]]}"#).unwrap();
        assert_eq!(
            (v.segments, v.size(0, 1), v.size(1, 0)),
            (2, 75_001, 35_000)
        );
        assert_eq!(v.bitrates_bps, [100e3, 200e3]);
        assert!(Video::from_sabre_json("m", r#"{"segment_duration_ms": 3000, "bitrates_kbps": [200, 100], "segment_sizes_bits": [[1, 2]]}"#).unwrap_err().contains("increasing"));
        assert!(Video::from_sabre_json("m", r#"{"segment_duration_ms": 3000, "bitrates_kbps": [100, 200], "segment_sizes_bits": [[1]]}"#).unwrap_err().contains("segment 0"));
        let e = Video::from_sabre_json("m", r#"{"segment_duration_ms": 3000, "bitrates_kbps": [100, 200], "segment_sizes_bits": [[1, "2"]]}"#).unwrap_err();
        assert!(
            e.starts_with(
                "not a Sabre movie JSON: invalid type: string \"2\", expected a number at line 1"
            ),
            "{e}"
        );
        for bad in ["0", "-8"] {
            let movie = format!(
                r#"{{"segment_duration_ms": 3000, "bitrates_kbps": [100, 200], "segment_sizes_bits": [[300000, 600008], [280000, {bad}]]}}"#
            );
            let e = Video::from_sabre_json("m", &movie).unwrap_err();
            assert!(
                e.contains("segment 1 has a size that is not a positive"),
                "{e}"
            );
        }
    }
}
