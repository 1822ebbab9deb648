//! BBA (buffer-based adaptation, BBA-0) as Pensieve ran it.
//!
//! # In a nutshell
//!
//! The level is a function of the buffer alone: the lowest level in the
//! reservoir, the highest above reservoir + cushion, a linear map in between.
//!
//! ```text
//!   rate-linear (Pensieve's dash.js, DEFAULT):
//!     B ≤ r        → R_min          B > r + c → R_max
//!     else target = R_min + (R_max − R_min)·(B − r)/c;  level = highest with R ≤ target
//!   index-linear (Pensieve's simulator, test/bb.py):
//!     B < r        → 0              B ≥ r + c → top
//!     else level = ⌊top·(B − r)/c⌋
//!   r = 5 s, c = 10 s
//! ```
//!
//! The rate-linear variant is the default because WWW'21 ran Pensieve's
//! browser implementations (its reference 30) inside dash.js, and that is
//! the variant the compiled `dash.all.min.js` carries; the index-linear one
//! reproduces Pensieve's simulation numbers. They differ inside the cushion
//! (e.g. Pensieve's ladder at B = 10 s: rate-linear 2300 kb/s → level 3,
//! index-linear ⌊2.5⌋ = level 2).
//!
//! # References
//!
//! * T.-Y. Huang et al., "A Buffer-Based Approach to Rate Adaptation",
//!   SIGCOMM 2014 (BBA-0).
//! * hongzimao/pensieve `dash.js/src/streaming/controllers/AbrController.js`
//!   (`getBitrateBB`), `test/bb.py` at `1120bb17`; bloatlab spec
//!   `abr-and-traces.md` §3.4.
//!
//! # Deviations
//!
//! * The first segment goes out at dash.js's initial level (as in Pensieve's
//!   player, whose ABR is first consulted after a download).
//! * `estimate_bps` reports Pensieve's `predict_throughput` (its player
//!   logged it for every algorithm); BBA does not use it.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `RESERVOIR` | 5 | s | buffer below which the lowest level is used | Pensieve `reservoir`, `RESEVOIR` |
//! | `CUSHION` | 10 | s | buffer span of the linear map | Pensieve `cushion`, `CUSHION` |

use super::pensieve::{predict_throughput_bps, HORIZON};
use super::{Abr, AbrContext, Decision};
use crate::time::Duration;
use serde::{Deserialize, Serialize};

/// "RESEVOIR = 5  # BB" // Pensieve test/bb.py; `reservoir = 5` in its AbrController.js
pub const RESERVOIR: Duration = Duration::from_secs(5);
/// "CUSHION = 10  # BB" // Pensieve test/bb.py; `cushion = 10` in its AbrController.js
pub const CUSHION: Duration = Duration::from_secs(10);

/// Which of Pensieve's two BBA maps to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BbaMap {
    /// Linear in bitrate, then the highest level below (Pensieve's dash.js).
    #[default]
    Rate,
    /// Linear in level index (Pensieve's `test/bb.py`).
    Index,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Bba {
    reservoir: f64,
    cushion: f64,
    map: BbaMap,
    initial: usize,
    estimate: Option<f64>,
}

impl Bba {
    pub fn new(reservoir: Duration, cushion: Duration, map: BbaMap, initial: usize) -> Self {
        Bba {
            reservoir: reservoir.as_secs_f64(),
            cushion: cushion.as_secs_f64(),
            map,
            initial,
            estimate: None,
        }
    }

    /// The level for a buffer of `buffer_s` on `bitrates` (ascending).
    pub fn level(&self, bitrates: &[f64], buffer_s: f64) -> usize {
        let top = bitrates.len() - 1;
        let (r, c) = (self.reservoir, self.cushion);
        match self.map {
            BbaMap::Rate => {
                let (lo, hi) = (bitrates[0], bitrates[top]);
                let target = if buffer_s <= r {
                    lo
                } else if buffer_s > r + c {
                    hi
                } else {
                    lo + (hi - lo) * (buffer_s - r) / c
                };
                bitrates.iter().rposition(|&b| b <= target).unwrap_or(0)
            }
            BbaMap::Index => {
                if buffer_s < r {
                    0
                } else if buffer_s >= r + c {
                    top
                } else {
                    ((top as f64 * (buffer_s - r) / c) as usize).min(top)
                }
            }
        }
    }
}

impl Abr for Bba {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        self.estimate = predict_throughput_bps(ctx.history, HORIZON);
        if ctx.history.is_empty() {
            return Decision::now(self.initial);
        }
        Decision::now(self.level(&ctx.video.bitrates_bps, ctx.buffer.as_secs_f64()))
    }

    /// Pensieve's player logged its `predict_throughput` for every algorithm; BBA ignores it.
    fn estimate_bps(&self) -> Option<f64> {
        self.estimate
    }

    fn name(&self) -> &'static str {
        "bba"
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;
    use crate::app::dash::video::Video;

    fn bba(map: BbaMap) -> Bba {
        Bba::new(RESERVOIR, CUSHION, map, 1)
    }

    #[test]
    fn defaults_match_spec() {
        assert_eq!(
            (RESERVOIR, CUSHION),
            (Duration::from_secs(5), Duration::from_secs(10))
        );
        assert_eq!(BbaMap::default(), BbaMap::Rate);
    }

    #[test]
    fn the_reservoir_gives_the_lowest_and_beyond_the_cushion_the_highest_level() {
        let ladder = pensieve().bitrates_bps;
        for map in [BbaMap::Rate, BbaMap::Index] {
            assert_eq!(bba(map).level(&ladder, 0.0), 0);
            assert_eq!(bba(map).level(&ladder, 4.9), 0);
            assert_eq!(bba(map).level(&ladder, 15.1), 5);
            assert_eq!(bba(map).level(&ladder, 40.0), 5);
        }
    }

    #[test]
    fn rate_linear_maps_the_cushion_in_bitrate_space() {
        // Pensieve ladder 300…4300 kb/s. B = 10 s: 300 + 4000 × 5/10 = 2300 → 1850 = level 3.
        // B = 7 s: 300 + 4000 × 0.2 = 1100 → 750 = level 1. B = 14 s: 3900 → 2850 = level 4.
        let ladder = pensieve().bitrates_bps;
        let b = bba(BbaMap::Rate);
        assert_eq!(
            [
                b.level(&ladder, 10.0),
                b.level(&ladder, 7.0),
                b.level(&ladder, 14.0)
            ],
            [3, 1, 4]
        );
        // At exactly r + c the target is R_max.
        assert_eq!(b.level(&ladder, 15.0), 5);
    }

    #[test]
    fn index_linear_maps_the_cushion_in_level_space() {
        // ⌊5 × (B − 5)/10⌋: B = 10 → 2, B = 7 → 1, B = 14 → 4, B = 15 → 5.
        let ladder = pensieve().bitrates_bps;
        let b = bba(BbaMap::Index);
        let got: Vec<_> = [10.0, 7.0, 14.0, 15.0]
            .iter()
            .map(|&x| b.level(&ladder, x))
            .collect();
        assert_eq!(got, [2, 1, 4, 5]);
    }

    #[test]
    fn the_first_segment_uses_the_initial_level_then_the_buffer_decides() {
        let v = Video::www21();
        let mut b = Bba::new(RESERVOIR, CUSHION, BbaMap::Rate, 0);
        assert_eq!(b.decide(&ctx(&v, &[], 0.0, 0, 0.0)), Decision::now(0));
        // WWW'21 ladder, B = 12 s: 1 + 24 × 7/10 = 17.8 Mb/s → 17.5 = level 7.
        let h = chain(0, 0.05, 1.0, &[5e6]);
        assert_eq!(b.decide(&ctx(&v, &h, 20.0, 1, 12.0)), Decision::now(7));
        assert!((b.estimate_bps().unwrap() - 5e6).abs() < 1.0);
    }
}
