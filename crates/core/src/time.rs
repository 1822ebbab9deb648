//! Virtual time: integer nanoseconds since the start of a run.
//!
//! `Time` is an instant, `Duration` a span. Both are `u64` nanoseconds, so a
//! run can last 584 years of simulated time and every computation is exact and
//! reproducible. Arithmetic that could go negative is explicit
//! (`saturating_since`), everything else panics on overflow in debug builds.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the run started.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(u64);

const NANOS_PER_SEC: u64 = 1_000_000_000;

/// A host clock's resolution: the simulation's nanoseconds, or a millisecond clock such
/// as nginx's `ngx_current_msec`, on which the oBBR artifact's stack stamps and compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Nanosecond,
    Millisecond,
}

impl Clock {
    /// The millisecond clock if `millisecond`, else nanoseconds.
    pub const fn millisecond_if(millisecond: bool) -> Clock {
        if millisecond {
            Clock::Millisecond
        } else {
            Clock::Nanosecond
        }
    }

    /// `t` as this clock reads it (floored to its tick).
    pub const fn time(self, t: Time) -> Time {
        match self {
            Clock::Nanosecond => t,
            Clock::Millisecond => t.floor_millis(),
        }
    }

    /// `d` as a span of this clock's ticks (floored).
    pub const fn span(self, d: Duration) -> Duration {
        match self {
            Clock::Nanosecond => d,
            Clock::Millisecond => d.floor_millis(),
        }
    }
}

impl Time {
    pub const ZERO: Time = Time(0);
    /// Far future: used as "never" for timers.
    pub const NEVER: Time = Time(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Time(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Time(s * NANOS_PER_SEC)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Whole milliseconds, floored (a millisecond clock such as jiffies or `ngx_current_msec`).
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// This instant on a millisecond clock: floored to the whole millisecond.
    pub const fn floor_millis(self) -> Time {
        Time(self.0 - self.0 % 1_000_000)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// `self - d`, or zero if `d` reaches back before it.
    pub fn saturating_sub(self, d: Duration) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
    pub fn saturating_add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NANOS_PER_SEC)
    }
    /// Rounds to the nearest nanosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_nan() || s <= 0.0 {
            Duration(0)
        } else {
            Duration((s * NANOS_PER_SEC as f64).round().min(u64::MAX as f64) as u64)
        }
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Whole milliseconds, floored.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// This span on a millisecond clock: floored to whole milliseconds.
    pub const fn floor_millis(self) -> Duration {
        Duration(self.0 - self.0 % 1_000_000)
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    pub fn saturating_sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
    pub fn mul_f64(self, k: f64) -> Duration {
        Duration::from_secs_f64(self.as_secs_f64() * k)
    }
    pub fn checked_mul(self, k: u64) -> Option<Duration> {
        self.0.checked_mul(k).map(Duration)
    }
    pub const fn div(self, k: u64) -> Duration {
        Duration(self.0 / k)
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0 + d.0)
    }
}

impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}

impl Sub<Time> for Time {
    type Output = Duration;
    /// Panics (debug) if `rhs` is later than `self`; use `saturating_since` when that can happen.
    fn sub(self, rhs: Time) -> Duration {
        Duration(self.0 - rhs.0)
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        Time(self.0 - d.0)
    }
}

impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}

impl AddAssign for Duration {
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}

impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0 - d.0)
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

impl fmt::Debug for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}

/// In the largest unit that states it exactly, as a scenario would write it: "10s", "2500ms".
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let units = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")];
        match units.iter().find(|&&(n, _)| self.0.is_multiple_of(n)) {
            Some(&(n, unit)) => write!(f, "{}{unit}", self.0 / n),
            None => write!(f, "{}ns", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_and_spans_round_trip() {
        let t = Time::from_millis(1500);
        assert_eq!(t.as_nanos(), 1_500_000_000);
        assert_eq!(
            (t + Duration::from_micros(1)) - t,
            Duration::from_nanos(1_000)
        );
        assert_eq!(Time::ZERO.saturating_since(t), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(0.1), Duration::from_millis(100));
        assert_eq!(Duration::from_secs_f64(-1.0), Duration::ZERO);
    }

    #[test]
    fn constructors_scale_by_their_unit() {
        assert_eq!(Time::from_nanos(7).as_nanos(), 7);
        assert_eq!(Time::from_micros(7).as_nanos(), 7_000);
        assert_eq!(Time::from_millis(7).as_nanos(), 7_000_000);
        assert_eq!(Time::from_secs(7).as_nanos(), 7_000_000_000);
        assert_eq!(Duration::from_nanos(7).as_nanos(), 7);
        assert_eq!(Duration::from_micros(7).as_nanos(), 7_000);
        assert_eq!(Duration::from_millis(7).as_nanos(), 7_000_000);
        assert_eq!(Duration::from_secs(7).as_nanos(), 7_000_000_000);
    }

    #[test]
    fn conversions_out_floor_to_whole_units() {
        assert_eq!(Time::from_nanos(2_999_999).as_millis(), 2);
        assert_eq!(Time::from_nanos(2_500_000_000).as_secs_f64(), 2.5);
        assert_eq!(Duration::from_nanos(2_999).as_micros(), 2);
        assert_eq!(Duration::from_nanos(2_999_999).as_millis(), 2);
        assert_eq!(Duration::from_nanos(250_000_000).as_secs_f64(), 0.25);
        assert!(Duration::ZERO.is_zero());
        assert!(!Duration::from_nanos(1).is_zero());
    }

    #[test]
    fn a_millisecond_clock_floors_instants_and_spans() {
        assert_eq!(
            Time::from_nanos(2_999_999).floor_millis(),
            Time::from_millis(2)
        );
        assert_eq!(Time::from_millis(3).floor_millis(), Time::from_millis(3));
        assert_eq!(Time::from_nanos(999_999).floor_millis(), Time::ZERO);
        assert_eq!(
            Duration::from_nanos(10_090_000).floor_millis(),
            Duration::from_millis(10)
        );
        assert_eq!(
            Duration::from_millis(10).floor_millis(),
            Duration::from_millis(10)
        );
        let t = Time::from_nanos(2_999_999);
        assert_eq!(Clock::millisecond_if(true).time(t), Time::from_millis(2));
        assert_eq!(Clock::millisecond_if(false).time(t), t);
        let d = Duration::from_nanos(10_090_000);
        assert_eq!(Clock::Millisecond.span(d), Duration::from_millis(10));
        assert_eq!(Clock::Nanosecond.span(d), d);
    }

    #[test]
    fn seconds_as_f64_round_to_the_nearest_nanosecond() {
        assert_eq!(Duration::from_secs_f64(1.4e-9), Duration::from_nanos(1));
        assert_eq!(Duration::from_secs_f64(1.6e-9), Duration::from_nanos(2));
        assert_eq!(Duration::from_secs_f64(2.5), Duration::from_millis(2500));
        assert_eq!(Duration::from_secs_f64(0.0), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(1e30), Duration::MAX);
        assert_eq!(
            Duration::from_millis(100).mul_f64(2.5),
            Duration::from_millis(250)
        );
        assert_eq!(Duration::from_millis(100).mul_f64(-1.0), Duration::ZERO);
    }

    #[test]
    fn saturating_arithmetic_stops_at_the_ends() {
        let t = Time::from_secs(3);
        assert_eq!(t.saturating_sub(Duration::from_secs(1)), Time::from_secs(2));
        assert_eq!(t.saturating_sub(Duration::from_secs(5)), Time::ZERO);
        assert_eq!(
            t.saturating_since(Time::from_secs(1)),
            Duration::from_secs(2)
        );
        assert_eq!(t.saturating_add(Duration::from_secs(1)), Time::from_secs(4));
        assert_eq!(t.saturating_add(Duration::MAX), Time::NEVER);
        let d = Duration::from_secs(3);
        assert_eq!(
            d.saturating_sub(Duration::from_secs(1)),
            Duration::from_secs(2)
        );
        assert_eq!(d.saturating_sub(Duration::from_secs(5)), Duration::ZERO);
    }

    #[test]
    fn spans_add_subtract_multiply_and_divide_exactly() {
        let mut t = Time::from_millis(10);
        t += Duration::from_millis(5);
        assert_eq!(t, Time::from_millis(15));
        assert_eq!(t + Duration::from_millis(5), Time::from_millis(20));
        assert_eq!(t - Duration::from_millis(5), Time::from_millis(10));
        assert_eq!(t - Time::from_millis(4), Duration::from_millis(11));
        let mut d = Duration::from_millis(10);
        d += Duration::from_millis(5);
        assert_eq!(d, Duration::from_millis(15));
        assert_eq!(d + Duration::from_millis(5), Duration::from_millis(20));
        assert_eq!(d - Duration::from_millis(4), Duration::from_millis(11));
        assert_eq!(d.checked_mul(3), Some(Duration::from_millis(45)));
        assert_eq!(Duration::MAX.checked_mul(2), None);
        assert_eq!(d.div(4), Duration::from_nanos(3_750_000));
    }

    #[test]
    fn debug_output_states_the_unit() {
        assert_eq!(format!("{:?}", Time::from_millis(1500)), "1.500000000s");
        assert_eq!(format!("{:?}", Duration::from_micros(3)), "3000ns");
    }

    #[test]
    fn a_span_displays_in_the_largest_exact_unit() {
        assert_eq!(Duration::from_secs(10).to_string(), "10s");
        assert_eq!(Duration::from_millis(2500).to_string(), "2500ms");
        assert_eq!(Duration::from_micros(50).to_string(), "50us");
        assert_eq!(Duration::from_nanos(1_000_001).to_string(), "1000001ns");
        assert_eq!(Duration::ZERO.to_string(), "0s");
    }
}
