//! RobustMPC (and fastMPC) as Pensieve ran it: plan 5 segments ahead on a
//! pessimistic bandwidth prediction, maximise QoE_lin, take the first step.
//!
//! # In a nutshell
//!
//! ```text
//!   s_k    = 8·bytes_k / (first to last byte)      per completed download
//!   H_k    = harmonic mean of s_{k−4..k}
//!   e_k    = |H_{k−1} − s_k| / s_k   (e_0 = 0)
//!   ŵ      = H_n / (1 + max(e_{n−4..n}))            (fastMPC: ŵ = H_n)
//!   h      = min(5, segments left including this one)
//!   for every level sequence q_1..q_h (exact search):
//!       B = buffer; rebuf = 0
//!       each step: dl = size(q_j) / ŵ;  rebuf += max(dl − B, 0);  B = max(B − dl, 0) + L
//!       QoE = Σ R_j − 4.3·rebuf − Σ |R_j − R_{j−1}|     (R in Mb/s, R_0 = current level)
//!   choose q_1 of the best sequence; ties → the last in lexicographic order
//! ```
//!
//! The search is exhaustive but depth-first with incremental sums and
//! branch-and-bound (a branch whose QoE so far plus `R_max` per remaining
//! step cannot beat the best is cut), visiting sequences in reverse
//! lexicographic order and keeping the first strictly better one, which
//! selects the same sequence as Pensieve's `>=` over itertools order (a test
//! checks this against the plain loop). An 11-level, 5-step plan takes
//! 0.01–0.7 ms instead of enumerating 161 051 sequences.
//!
//! # References
//!
//! * X. Yin, A. Jindal, V. Sekar, B. Sinopoli, "A Control-Theoretic Approach
//!   for Dynamic Adaptive Video Streaming over HTTP", SIGCOMM 2015.
//! * hongzimao/pensieve `test/mpc.py` (QoE_lin, tie rule) and
//!   `rl_server/robust_mpc_server.py` (samples from the browser: latency
//!   excluded; future chunk indices) at `1120bb17`; bloatlab spec
//!   `abr-and-traces.md` §3.3, §3.7.
//!
//! # Deviations
//!
//! * Future segment sizes are those of the segments actually planned
//!   (`index + j`). `test/mpc.py` looks one segment ahead of that; the browser
//!   server does not (and uses `>`, QoE_hd); the sim's QoE_lin and tie rule
//!   are kept since QoE_lin is the metric Pensieve reports.
//! * Throughput samples exclude the time to first byte (the browser server's
//!   `lastChunkFinishTime − lastChunkStartTime`), not the sim's delay + 80 ms.
//! * The first segment goes out at dash.js's initial level.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | `HORIZON` | 5 | segments | planning horizon | `MPC_FUTURE_CHUNK_COUNT` |
//! | `PAST` | 5 | samples | harmonic-mean and error window | `state[3, -5:]`, `past_errors[-5:]` |
//! | `REBUF_PENALTY` | 4.3 | 1/s (per Mb/s) | QoE_lin rebuffer weight | `REBUF_PENALTY` |
//! | `SMOOTH_PENALTY` | 1 | — | QoE_lin switch weight | `SMOOTH_PENALTY` |

use super::pensieve::completed;
use super::{Abr, AbrContext, Decision};

/// `MPC_FUTURE_CHUNK_COUNT = 5` // Pensieve test/mpc.py
pub const HORIZON: usize = 5;
/// "harmonic mean of last 5 bandwidths", "max of last 5 errors" // Pensieve test/mpc.py
pub const PAST: usize = 5;
/// "REBUF_PENALTY = 4.3  # 1 sec rebuffering -> 3 Mbps" // Pensieve test/mpc.py
pub const REBUF_PENALTY: f64 = 4.3;
/// `SMOOTH_PENALTY = 1` // Pensieve test/mpc.py
pub const SMOOTH_PENALTY: f64 = 1.0;

/// MPC's tunables (see [`RobustMpc::new`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MpcParams {
    pub horizon: usize,
    pub past: usize,
    pub rebuf_penalty: f64,
    pub smooth_penalty: f64,
    /// Divide the prediction by 1 + max recent error (robustMPC); `false` = fastMPC.
    pub robust: bool,
}

impl Default for MpcParams {
    fn default() -> Self {
        MpcParams {
            horizon: HORIZON,
            past: PAST,
            rebuf_penalty: REBUF_PENALTY,
            smooth_penalty: SMOOTH_PENALTY,
            robust: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RobustMpc {
    params: MpcParams,
    initial: usize,
    prediction: Option<f64>,
}

fn harmonic(samples: &[f64]) -> f64 {
    samples.len() as f64 / samples.iter().map(|s| 1.0 / s).sum::<f64>()
}

/// The planning problem of one decision. Bitrates in kb/s as Pensieve writes them.
struct Plan<'a> {
    sizes: &'a [Vec<f64>],
    kbps: &'a [f64],
    bytes_per_s: f64,
    segment_s: f64,
    rebuf_penalty: f64,
    smooth_penalty: f64,
    max_mbps: f64,
}

struct Best {
    value: f64,
    first: usize,
    /// Sequences evaluated to the end (the rest were cut).
    leaves: u64,
}

impl Plan<'_> {
    /// Depth-first over levels, highest first; `value` so far excludes nothing yet to come.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        step: usize,
        buffer: f64,
        rebuf: f64,
        sum_kbps: f64,
        smooth_kbps: f64,
        last: usize,
        first: usize,
        best: &mut Best,
    ) {
        let h = self.sizes.len();
        if step == h {
            best.leaves += 1;
            let value = sum_kbps / 1000.0
                - self.rebuf_penalty * rebuf
                - self.smooth_penalty * smooth_kbps / 1000.0;
            if value > best.value {
                best.value = value;
                best.first = first;
            }
            return;
        }
        let so_far = sum_kbps / 1000.0
            - self.rebuf_penalty * rebuf
            - self.smooth_penalty * smooth_kbps / 1000.0;
        if so_far + (h - step) as f64 * self.max_mbps <= best.value {
            return;
        }
        for q in (0..self.kbps.len()).rev() {
            let dl = self.sizes[step][q] / self.bytes_per_s;
            let (rebuf, buffer) = if buffer < dl {
                (rebuf + dl - buffer, 0.0)
            } else {
                (rebuf, buffer - dl)
            };
            let first = if step == 0 { q } else { first };
            self.search(
                step + 1,
                buffer + self.segment_s,
                rebuf,
                sum_kbps + self.kbps[q],
                smooth_kbps + (self.kbps[q] - self.kbps[last]).abs(),
                q,
                first,
                best,
            );
        }
    }
}

impl RobustMpc {
    pub fn new(params: MpcParams, initial: usize) -> Self {
        RobustMpc {
            params,
            initial,
            prediction: None,
        }
    }

    /// ŵ from the completed downloads, bytes/s.
    pub fn predict_bytes_per_s(&self, ctx: &AbrContext) -> Option<f64> {
        let samples: Vec<f64> = completed(ctx.history)
            .map(|d| d.throughput_bps() / 8.0)
            .collect();
        let n = samples.len();
        if n == 0 {
            return None;
        }
        let past = self.params.past.max(1);
        let window = |k: usize| &samples[(k + 1).saturating_sub(past)..=k];
        let estimate = harmonic(window(n - 1));
        if !self.params.robust {
            return Some(estimate);
        }
        let max_error = (n.saturating_sub(past)..n)
            .map(|k| {
                if k == 0 {
                    0.0
                } else {
                    (harmonic(window(k - 1)) - samples[k]).abs() / samples[k]
                }
            })
            .fold(0.0, f64::max);
        Some(estimate / (1.0 + max_error))
    }

    /// The exact search over the next `h` segments' level sequences at `bytes_per_s`.
    fn best_plan(&self, ctx: &AbrContext, bytes_per_s: f64) -> Best {
        let video = ctx.video;
        let h = self
            .params
            .horizon
            .min(video.segments.saturating_sub(ctx.index))
            .max(1);
        let sizes: Vec<Vec<f64>> = (0..h)
            .map(|j| {
                let index = (ctx.index + j).min(video.segments.saturating_sub(1));
                (0..video.levels())
                    .map(|q| video.size(index, q) as f64)
                    .collect()
            })
            .collect();
        let kbps: Vec<f64> = video.bitrates_bps.iter().map(|b| b / 1000.0).collect();
        let plan = Plan {
            sizes: &sizes,
            kbps: &kbps,
            bytes_per_s,
            segment_s: video.segment_duration.as_secs_f64(),
            rebuf_penalty: self.params.rebuf_penalty,
            smooth_penalty: self.params.smooth_penalty,
            max_mbps: kbps.last().copied().unwrap_or(0.0) / 1000.0,
        };
        let last = ctx.last_level.unwrap_or(self.initial);
        let mut best = Best {
            value: f64::NEG_INFINITY,
            first: 0,
            leaves: 0,
        };
        plan.search(
            0,
            ctx.buffer.as_secs_f64(),
            0.0,
            0.0,
            0.0,
            last,
            0,
            &mut best,
        );
        best
    }
}

impl Abr for RobustMpc {
    fn decide(&mut self, ctx: &AbrContext) -> Decision {
        let Some(bw) = self.predict_bytes_per_s(ctx) else {
            self.prediction = None;
            return Decision::now(self.initial);
        };
        self.prediction = Some(bw * 8.0);
        Decision::now(self.best_plan(ctx, bw).first)
    }

    fn estimate_bps(&self) -> Option<f64> {
        self.prediction
    }

    fn name(&self) -> &'static str {
        "robust_mpc"
    }
}

#[cfg(test)]
#[path = "robust_mpc_tests.rs"]
mod tests;
