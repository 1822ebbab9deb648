//! A log-linear histogram of `u64` values with weights, for percentiles of
//! RTTs, queueing delays and time-weighted backlogs without keeping every value.
//!
//! Values below 2^7 have a bucket each; above, every power of two is split
//! into 128 sub-buckets, so a reported percentile is within 0.8 % of the true
//! value (HdrHistogram-style). The mean is exact.

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total_weight: u128,
    weighted_sum: u128,
}

fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = 63 - v.leading_zeros();
    let sub = (v >> (exp - SUB_BITS)) & (SUB - 1);
    ((exp - SUB_BITS + 1) as u64 * SUB + sub) as usize
}

/// Midpoint of bucket `i`.
fn value_of(i: usize) -> f64 {
    let i = i as u64;
    if i < SUB {
        return i as f64;
    }
    let exp = i / SUB + SUB_BITS as u64 - 1;
    let sub = i % SUB;
    let width = 1u64 << (exp - SUB_BITS as u64);
    let low = (1u64 << exp) + sub * width;
    low as f64 + (width as f64 - 1.0) / 2.0
}

impl Histogram {
    pub fn add(&mut self, value: u64, weight: u64) {
        if weight == 0 {
            return;
        }
        let i = index(value);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += weight;
        self.total_weight += weight as u128;
        self.weighted_sum += value as u128 * weight as u128;
    }

    /// Adds every value of `other` (for summaries over several connections).
    pub fn merge(&mut self, other: &Histogram) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total_weight += other.total_weight;
        self.weighted_sum += other.weighted_sum;
    }

    pub fn is_empty(&self) -> bool {
        self.total_weight == 0
    }

    pub fn mean(&self) -> Option<f64> {
        (!self.is_empty()).then(|| self.weighted_sum as f64 / self.total_weight as f64)
    }

    /// The value below which a fraction `q` (0..=1) of the weight lies.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.is_empty() {
            return None;
        }
        let target = (q.clamp(0.0, 1.0) * self.total_weight as f64)
            .ceil()
            .max(1.0) as u128;
        let mut seen = 0u128;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c as u128;
            if seen >= target {
                return Some(value_of(i));
            }
        }
        self.counts.iter().rposition(|&c| c > 0).map(value_of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::default();
        for v in 0..100 {
            h.add(v, 1);
        }
        assert_eq!(h.quantile(0.5), Some(49.0));
        assert_eq!(h.mean(), Some(49.5));
    }

    #[test]
    fn a_larger_value_reads_as_the_middle_of_its_bucket() {
        // 1000 falls in the bucket 1000–1003 (a width of 4 between 512 and 1024)
        let mut h = Histogram::default();
        h.add(1000, 1);
        assert_eq!(h.quantile(0.5), Some(1001.5));
        assert_eq!(h.mean(), Some(1000.0));
    }

    #[test]
    fn an_empty_histogram_has_no_mean_or_quantile() {
        let h = Histogram::default();
        assert!(h.is_empty());
        assert_eq!((h.mean(), h.quantile(0.5)), (None, None));
    }

    #[test]
    fn a_total_weight_that_rounds_up_as_a_float_still_finds_the_top_value() {
        // 2^53 + 3 becomes 2^53 + 4 as an f64: the 100th percentile's target exceeds the
        // total, and the answer is the highest value present
        let mut h = Histogram::default();
        h.add(3, 1);
        h.add(5, (1 << 53) + 2);
        assert_eq!(h.quantile(1.0), Some(5.0));
    }

    #[test]
    fn merging_equals_adding_everything_to_one() {
        let (mut a, mut b, mut both) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        for v in [3u64, 900, 77_000] {
            a.add(v, 2);
            both.add(v, 2);
        }
        for v in [5u64, 1_000_000] {
            b.add(v, 1);
            both.add(v, 1);
        }
        a.merge(&b);
        assert_eq!(
            (a.quantile(0.5), a.mean()),
            (both.quantile(0.5), both.mean())
        );
    }

    #[test]
    fn weights_shift_the_median() {
        let mut h = Histogram::default();
        h.add(10, 1);
        h.add(1000, 3);
        assert!((h.quantile(0.5).unwrap() - 1000.0).abs() < 8.0);
    }

    proptest! {
        /// Any quantile is within 0.8 % of the exact order statistic.
        #[test]
        fn quantiles_are_within_a_bucket(values in proptest::collection::vec(1u64..10_000_000_000, 1..500), q in 0.0f64..1.0) {
            let mut h = Histogram::default();
            for &v in &values { h.add(v, 1); }
            let mut sorted = values.clone();
            sorted.sort();
            let k = ((q * sorted.len() as f64).ceil().max(1.0) as usize - 1).min(sorted.len() - 1);
            let exact = sorted[k] as f64;
            let got = h.quantile(q).unwrap();
            prop_assert!((got - exact).abs() <= exact * 0.008 + 0.5, "q={} exact={} got={}", q, exact, got);
        }
    }
}
