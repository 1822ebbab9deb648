//! RTT estimation and the retransmission timeout, as Linux `tcp_rtt_estimator`
//! and `tcp_set_rto` compute them (RFC 6298 with Linux's per-window `mdev_max`).
//!
//! ```text
//!   srtt   ← 7/8 srtt + 1/8 m
//!   mdev   ← 3/4 mdev + 1/4 |m − srtt|     (decreases damped by 1/8 more)
//!   rttvar ← max of mdev over the current flight, decaying towards it once per flight,
//!            never below rto_min
//!   RTO    = srtt + rttvar  (≈ srtt + max(4·mdev, 200 ms)), at most 120 s
//! ```
//!
//! Also keeps `tcp_min_rtt`: the minimum RTT over a 300 s window
//! (`tcp_min_rtt_wlen`), which samples from possibly delayed ACKs may not raise.
//!
//! Deviations: nanoseconds instead of microseconds; the 300 s minimum is a
//! single expiring minimum rather than win_minmax's three-sample filter (they
//! differ only in which sample replaces an expired minimum).

use crate::time::{Duration, Time};

/// Floor of the RTO and of `rttvar` (`TCP_RTO_MIN`).
pub const RTO_MIN: Duration = Duration::from_millis(200);
/// Ceiling of the RTO (`TCP_RTO_MAX`).
pub const RTO_MAX: Duration = Duration::from_secs(120);
/// RTO before any RTT sample (`TCP_TIMEOUT_INIT`, RFC 6298).
pub const RTO_INITIAL: Duration = Duration::from_secs(1);
/// Window of the connection's minimum-RTT filter (`tcp_min_rtt_wlen`).
pub const MIN_RTT_WINDOW: Duration = Duration::from_secs(300);

#[derive(Clone, Debug)]
pub struct RttEstimator {
    /// Smoothed RTT × 8, ns (0 = no sample yet).
    srtt8: u64,
    /// Mean deviation × 4, ns.
    mdev4: u64,
    mdev_max: u64,
    rttvar: u64,
    /// Sequence number ending the flight over which `mdev_max` is tracked.
    rtt_seq: u64,
    rto: Duration,
    min_rtt: Option<(Duration, Time)>,
    latest: Option<Duration>,
}

impl Default for RttEstimator {
    fn default() -> Self {
        RttEstimator {
            srtt8: 0,
            mdev4: 0,
            mdev_max: 0,
            rttvar: 0,
            rtt_seq: 0,
            rto: RTO_INITIAL,
            min_rtt: None,
            latest: None,
        }
    }
}

impl RttEstimator {
    /// Feeds one RTT sample `m` (Linux `tcp_rtt_estimator` + `tcp_set_rto`).
    /// `snd_una`/`snd_nxt` delimit flights for the `mdev_max` window.
    pub fn on_sample(&mut self, m: Duration, snd_una: u64, snd_nxt: u64) {
        let m_ns = m.as_nanos().max(1) as i64;
        let rto_min = RTO_MIN.as_nanos();
        self.latest = Some(m);
        if self.srtt8 != 0 {
            let mut err = m_ns - (self.srtt8 >> 3) as i64;
            self.srtt8 = (self.srtt8 as i64 + err) as u64;
            if err < 0 {
                err = -err - (self.mdev4 >> 2) as i64;
                if err > 0 {
                    err >>= 3;
                }
            } else {
                err -= (self.mdev4 >> 2) as i64;
            }
            self.mdev4 = (self.mdev4 as i64 + err) as u64;
            if self.mdev4 > self.mdev_max {
                self.mdev_max = self.mdev4;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= (self.rttvar - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = rto_min;
            }
        } else {
            self.srtt8 = (m_ns as u64) << 3;
            self.mdev4 = (m_ns as u64) << 1;
            self.rttvar = self.mdev4.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        }
        self.srtt8 = self.srtt8.max(1);
        self.rto = Duration::from_nanos((self.srtt8 >> 3) + self.rttvar).min(RTO_MAX);
    }

    /// Updates the 300 s minimum (`tcp_update_rtt_min`); a delayed ACK may not raise it.
    pub fn update_min(&mut self, now: Time, rtt: Duration, ack_maybe_delayed: bool) {
        match self.min_rtt {
            Some((m, _)) if ack_maybe_delayed && rtt > m => {}
            Some((m, at)) if rtt > m && now.saturating_since(at) <= MIN_RTT_WINDOW => {}
            _ => self.min_rtt = Some((rtt.max(Duration::from_nanos(1)), now)),
        }
    }

    pub fn srtt(&self) -> Option<Duration> {
        (self.srtt8 != 0).then(|| Duration::from_nanos(self.srtt8 >> 3))
    }

    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt.map(|(m, _)| m)
    }

    /// Four times the mean deviation (`mdev_us`, before the per-flight maximum).
    pub fn mean_deviation4(&self) -> Duration {
        Duration::from_nanos(self.mdev4)
    }

    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// The RTO without backoff.
    pub fn rto(&self) -> Duration {
        self.rto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn first_sample_sets_srtt_and_an_rto_of_srtt_plus_max_of_2rtt_and_200ms() {
        let mut e = RttEstimator::default();
        assert_eq!(e.rto(), RTO_INITIAL);
        e.on_sample(ms(100), 0, 10);
        assert_eq!(e.srtt(), Some(ms(100)));
        // mdev×4 = 2·m = 200 ms → rttvar = max(200 ms, rto_min) → RTO = 300 ms
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn steady_rtt_decays_rto_to_srtt_plus_rto_min() {
        let mut e = RttEstimator::default();
        for i in 0..200u64 {
            e.on_sample(ms(25), i * 10, i * 10 + 10);
        }
        assert_eq!(e.srtt(), Some(ms(25)));
        assert_eq!(e.rto(), ms(225));
    }

    #[test]
    fn srtt_moves_an_eighth_of_the_error() {
        let mut e = RttEstimator::default();
        e.on_sample(ms(80), 0, 1);
        e.on_sample(ms(160), 0, 1);
        assert_eq!(e.srtt(), Some(ms(90)));
    }

    /// Six samples computed by hand from `tcp_rtt_estimator` (ns; rttvar = RTO − srtt):
    /// a first sample, a fall within mdev (not damped), a fall past it (damped by 1/8), a
    /// rise within the flight that lifts rttvar, a flight end that decays rttvar a quarter of
    /// the way to mdev_max, and an ACK of exactly `rtt_seq`, which does not end the flight.
    #[test]
    fn the_estimator_follows_tcp_rtt_estimator_sample_by_sample() {
        let mut e = RttEstimator::default();
        // (sample ms, snd_una, snd_nxt) → (srtt, mdev × 4, RTO)
        let script = [
            ((100, 0, 10), (100_000_000, 200_000_000, 300_000_000)),
            // err −40 ms: |err| − mdev/4 = −10 ms, not damped
            ((60, 5, 20), (95_000_000, 190_000_000, 295_000_000)),
            // err −85 ms: |err| − mdev/4 = 37.5 ms, damped to 1/8
            ((10, 8, 25), (84_375_000, 194_687_500, 284_375_000)),
            // err +115.6 ms: mdev 261.6 ms > mdev_max → rttvar; snd_una passes rtt_seq 10
            ((200, 12, 40), (98_828_125, 261_640_625, 360_468_750)),
            // flight end: rttvar −= (261.6 − 200) / 4
            ((100, 41, 60), (98_974_609, 197_402_344, 345_205_078)),
            // snd_una = rtt_seq: the same flight, rttvar unchanged
            ((100, 60, 80), (99_102_783, 149_077_149, 345_333_252)),
        ];
        for ((m, una, nxt), (srtt, mdev4, rto)) in script {
            e.on_sample(ms(m), una, nxt);
            let got = (e.srtt().unwrap(), e.mean_deviation4(), e.rto());
            let want = (
                Duration::from_nanos(srtt),
                Duration::from_nanos(mdev4),
                Duration::from_nanos(rto),
            );
            assert_eq!(got, want, "after the {m} ms sample");
            assert_eq!(e.latest(), Some(ms(m)));
        }
    }

    #[test]
    fn a_first_sample_above_100ms_sets_rttvar_to_twice_it() {
        let mut e = RttEstimator::default();
        assert_eq!(e.latest(), None);
        e.on_sample(ms(150), 0, 10);
        assert_eq!((e.mean_deviation4(), e.rto()), (ms(300), ms(450)));
    }

    #[test]
    fn the_rto_stops_at_120_seconds() {
        let mut e = RttEstimator::default();
        e.on_sample(Duration::from_secs(50), 0, 10);
        assert_eq!(e.rto(), RTO_MAX);
    }

    #[test]
    fn delayed_acks_cannot_raise_the_minimum_but_expiry_can() {
        let mut e = RttEstimator::default();
        e.update_min(Time::ZERO, ms(50), false);
        e.update_min(Time::from_secs(1), ms(70), true);
        assert_eq!(e.min_rtt(), Some(ms(50)));
        e.update_min(Time::from_secs(301), ms(70), false);
        assert_eq!(e.min_rtt(), Some(ms(70)));
    }

    #[test]
    fn a_delayed_ack_is_skipped_even_when_the_minimum_has_expired() {
        let mut e = RttEstimator::default();
        e.update_min(Time::ZERO, ms(50), false);
        e.update_min(Time::from_secs(301), ms(70), true);
        assert_eq!(e.min_rtt(), Some(ms(50)));
    }

    #[test]
    fn the_minimum_holds_for_exactly_300_seconds() {
        let mut e = RttEstimator::default();
        e.update_min(Time::ZERO, ms(50), false);
        e.update_min(Time::from_secs(300), ms(70), false);
        assert_eq!(e.min_rtt(), Some(ms(50)));
        e.update_min(
            Time::from_secs(300) + Duration::from_nanos(1),
            ms(70),
            false,
        );
        assert_eq!(e.min_rtt(), Some(ms(70)));
    }

    /// An equal sample restarts the window (`minmax_running_min` resets on `<=`), delayed
    /// ACK or not.
    #[test]
    fn a_sample_equal_to_the_minimum_restarts_its_window() {
        for delayed in [false, true] {
            let mut e = RttEstimator::default();
            e.update_min(Time::ZERO, ms(50), false);
            e.update_min(Time::from_secs(200), ms(50), delayed);
            e.update_min(Time::from_secs(400), ms(70), false);
            assert_eq!(e.min_rtt(), Some(ms(50)), "delayed: {delayed}");
        }
    }
}
