//! What Pensieve's baselines share: the bandwidth predictor of its modified
//! dash.js (`predict_throughput`) and the dash.js start-up level.
//!
//! # In a nutshell
//!
//! ```text
//!   per chunk i:  d_i = max(response end − first byte, 0.1 s)    (latency excluded)
//!                 T_i = 8·bytes_i / d_i
//!   estimate    = Σ d_i / Σ (d_i / T_i)     over the last `horizon` (5) chunks
//! ```
//!
//! A download-time-weighted harmonic mean (the paper calls it a harmonic
//! mean of the last 5 chunks). The baselines ran inside dash.js, so the first
//! segment goes out at dash.js's initial level (1 Mb/s video mapped onto the
//! ladder; on Pensieve's ladder that is 750 kb/s = `DEFAULT_QUALITY` 1).
//!
//! # References
//!
//! * hongzimao/pensieve `dash.js/src/streaming/controllers/AbrController.js`
//!   (`predict_throughput`, `horizon = 5`) at `1120bb17`; bloatlab spec
//!   `abr-and-traces.md` §3.5.
//!
//! # Deviations
//!
//! * The window is the last `horizon` completed (not abandoned) downloads;
//!   Pensieve indexes it by chunk number, which is the same when every chunk
//!   is downloaded once.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `HORIZON` | 5 | chunks | predictor window | AbrController.js `horizon` |
//! | `MIN_DOWNLOAD_TIME` | 0.1 | s | floor on a chunk's download time | `predict_throughput` |

use super::Download;

/// "number of chunks considered" // Pensieve AbrController.js `horizon`
pub const HORIZON: usize = 5;
/// `if (lastDownloadTime < 0.1) lastDownloadTime = 0.1` // Pensieve AbrController.js
pub const MIN_DOWNLOAD_TIME_S: f64 = 0.1;

/// The completed downloads of `history`, oldest first.
pub fn completed(history: &[Download]) -> impl DoubleEndedIterator<Item = &Download> + Clone {
    history.iter().filter(|d| !d.abandoned)
}

/// Pensieve's `predict_throughput`, bit/s; `None` before the first download.
pub fn predict_throughput_bps(history: &[Download], horizon: usize) -> Option<f64> {
    let (mut time, mut weighted) = (0.0, 0.0);
    for d in completed(history).rev().take(horizon.max(1)) {
        let dl = d.transfer_time().as_secs_f64().max(MIN_DOWNLOAD_TIME_S);
        let t = d.bytes as f64 * 8.0 / dl;
        time += dl;
        weighted += dl / t;
    }
    (time > 0.0).then(|| time / weighted)
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::*;

    #[test]
    fn defaults_match_spec() {
        assert_eq!(HORIZON, 5);
        assert_eq!(MIN_DOWNLOAD_TIME_S, 0.1);
    }

    #[test]
    fn the_estimate_weights_chunks_by_download_time() {
        // Chunks of 1 s at 4 Mb/s and 3 s at 1 Mb/s: Σd = 4, Σ d/T = 1/4e6 + 3/1e6 = 3.25e-6
        // → 4 / 3.25e-6 = 1.2308 Mb/s (the plain harmonic mean would be 1.6 Mb/s).
        let h = vec![
            download(0, 0, 0.0, 0.1, 1.0, 4e6),
            download(1, 0, 2.0, 0.1, 3.0, 1e6),
        ];
        let est = predict_throughput_bps(&h, HORIZON).unwrap();
        assert!((est - 4.0 / 3.25e-6).abs() < 1.0, "{est}");
    }

    #[test]
    fn only_the_last_five_chunks_count_and_short_downloads_are_floored() {
        // Six chunks; the first (0.05 Mb/s) is outside the window. The last five are 1 s at
        // 2 Mb/s except one 0.02 s download of 50 kB (floored to 0.1 s → 4 Mb/s):
        // Σd = 4.1, Σ d/T = 4 × 0.5e-6 + 0.1/4e6 = 2.025e-6 → 2.0247 Mb/s.
        let mut h = chain(0, 0.05, 1.0, &[0.05e6, 2e6, 2e6, 2e6, 2e6]);
        h.push(download(5, 0, 20.0, 0.05, 0.02, 20e6));
        let est = predict_throughput_bps(&h, HORIZON).unwrap();
        assert!((est - 4.1 / 2.025e-6).abs() < 1.0, "{est}");
    }

    #[test]
    fn no_download_means_no_estimate() {
        assert_eq!(predict_throughput_bps(&[], HORIZON), None);
    }
}
