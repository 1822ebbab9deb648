//! `Rate` (bits per second) and the byte/time conversions built on it.
//!
//! Conversions between bytes and time are done in 128-bit integers so that a
//! packet's serialisation time is exact to the nanosecond (rounded up) and a
//! token bucket can be accounted without floating-point drift.

use crate::time::Duration;
use std::fmt;

/// A data rate in bits per second. Rates on the wire count headers.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Rate(u64);

const NANOS_PER_SEC: u128 = 1_000_000_000;

impl Rate {
    pub const ZERO: Rate = Rate(0);

    pub const fn from_bps(bps: u64) -> Self {
        Rate(bps)
    }
    pub const fn from_mbps(mbps: u64) -> Self {
        Rate(mbps * 1_000_000)
    }
    /// Rounds to the nearest bit per second; negative or NaN gives zero.
    pub fn from_bps_f64(bps: f64) -> Self {
        if bps.is_nan() || bps <= 0.0 {
            Rate(0)
        } else {
            Rate(bps.round().min(u64::MAX as f64) as u64)
        }
    }
    /// Rate that carries `bytes` in `d` (zero if `d` is zero).
    pub fn from_bytes_per(bytes: u64, d: Duration) -> Self {
        if d.is_zero() {
            return Rate(0);
        }
        Rate((bytes as u128 * 8 * NANOS_PER_SEC / d.as_nanos() as u128) as u64)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    pub fn bps_f64(self) -> f64 {
        self.0 as f64
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    /// Time to serialise `bytes` at this rate, rounded up to the nanosecond.
    /// A zero rate never finishes (`Duration::MAX`).
    pub fn tx_time(self, bytes: u64) -> Duration {
        if self.0 == 0 {
            return Duration::MAX;
        }
        let num = bytes as u128 * 8 * NANOS_PER_SEC;
        let ns = num.div_ceil(self.0 as u128);
        Duration::from_nanos(ns.min(u64::MAX as u128) as u64)
    }
    /// Whole bytes this rate carries in `d` (rounded down).
    pub fn bytes_in(self, d: Duration) -> u64 {
        let bits = self.0 as u128 * d.as_nanos() as u128 / NANOS_PER_SEC;
        (bits / 8).min(u64::MAX as u128) as u64
    }
    /// Bandwidth-delay product in bytes, rounded down.
    pub fn bdp_bytes(self, rtt: Duration) -> u64 {
        self.bytes_in(rtt)
    }
}

impl fmt::Debug for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}bps", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialisation_time_is_exact_and_rounds_up() {
        assert_eq!(
            Rate::from_mbps(25).tx_time(1500),
            Duration::from_micros(480)
        );
        assert_eq!(
            Rate::from_mbps(1000).tx_time(1500),
            Duration::from_micros(12)
        );
        // 1500 B at 7 Mb/s = 1714285.714.. ns → rounds up
        assert_eq!(
            Rate::from_mbps(7).tx_time(1500),
            Duration::from_nanos(1_714_286)
        );
        assert_eq!(Rate::ZERO.tx_time(1), Duration::MAX);
    }

    #[test]
    fn bdp_of_25_mbps_and_100_ms_is_312500_bytes() {
        assert_eq!(
            Rate::from_mbps(25).bdp_bytes(Duration::from_millis(100)),
            312_500
        );
        assert_eq!(
            Rate::from_bytes_per(312_500, Duration::from_millis(100)),
            Rate::from_mbps(25)
        );
    }
}
