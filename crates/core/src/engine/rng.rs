//! Seeded random-number streams.
//!
//! Every component that draws random numbers owns an [`Rng`] made from the
//! scenario seed and a stream id naming the component, so adding a flow or a
//! lossy link never shifts another component's draws.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A ChaCha8 stream selected by (scenario seed, stream id).
#[derive(Clone, Debug)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        r.set_stream(stream);
        Rng(r)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.random::<f64>()
    }

    /// Uniform integer in [0, n); n must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chance_of_zero_draws_nothing_from_the_stream() {
        // a scenario without random loss must see the same draws as one that never asks
        let mut asked = Rng::stream(7, 1);
        let mut not_asked = Rng::stream(7, 1);
        assert!(!asked.chance(0.0));
        assert_eq!(asked.below(1 << 40), not_asked.below(1 << 40));
        assert!(asked.chance(1.0));
    }

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4).map(|_| Rng::stream(7, 1).below(1000)).collect();
        let mut r1 = Rng::stream(7, 1);
        let mut r2 = Rng::stream(7, 2);
        let s1: Vec<u64> = (0..8).map(|_| r1.below(1 << 40)).collect();
        let s2: Vec<u64> = (0..8).map(|_| r2.below(1 << 40)).collect();
        assert_eq!(a[0], a[1]);
        assert_ne!(s1, s2);
        assert_eq!(
            s1,
            (0..8)
                .map({
                    let mut r = Rng::stream(7, 1);
                    move |_| r.below(1 << 40)
                })
                .collect::<Vec<_>>()
        );
    }
}
