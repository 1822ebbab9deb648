//! Long-term ("policer") bandwidth, after Linux `bbr_lt_bw_sampling`.
//!
//! Token-bucket policers let a burst through, then drop everything above the
//! token rate. BBR's max filter would keep the burst rate and lose heavily, so
//! BBR looks for two consecutive lossy sampling intervals with consistent
//! throughput and then uses their average (`lt_bw`) instead, with pacing gain 1:
//!
//! ```text
//!   sampling starts at the first loss (tokens exhausted); app-limited samples reset it
//!   an interval lasts 4..16 rounds and ends on an ACK with losses, if lost/delivered ≥ 50/256
//!   bw = delivered / (whole ms since the interval began)
//!   previous interval's bw within 1/8 or 4 kbit/s  →  lt_bw = average; use it
//!   otherwise                                      →  lt_bw = bw; start the next interval
//!   after 48 rounds of PROBE_BW on lt_bw           →  reset and restart gain cycling
//! ```
//!
//! Interval start times are whole milliseconds, as in Linux. Linux's "4 kbit/s"
//! comparison includes the 1 % pacing margin; so does this one.

use super::{model, Bbr, Params, State};
use crate::cc::Conn;

/// What an ACK did to the long-term estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtEvent {
    Nothing,
    /// A policer was detected: `lt_bw` is now in use (pacing gain → 1).
    Policed,
    /// `lt_bw` was used long enough: sampling was reset; restart gain cycling.
    Expired,
}

/// Long-term sampling state (`lt_*` fields of `struct bbr`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LongTermBw {
    /// Estimated policed rate, packets/s (0 = none).
    pub bw: f64,
    /// `bw()` returns `lt_bw`.
    pub use_bw: bool,
    is_sampling: bool,
    /// Rounds in the current interval (or, while `use_bw`, rounds spent using it).
    rtt_cnt: u32,
    last_stamp_ms: u64,
    last_delivered: u64,
    last_lost: u64,
}

impl LongTermBw {
    /// Linux `bbr_reset_lt_bw_sampling`.
    pub fn reset(&mut self, conn: &Conn) {
        self.bw = 0.0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(conn);
    }

    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    fn reset_interval(&mut self, conn: &Conn) {
        self.last_stamp_ms = conn.delivered_time.as_millis();
        self.last_delivered = conn.delivered;
        self.last_lost = conn.lost;
        self.rtt_cnt = 0;
    }

    /// One ACK (or the RTO's fake `losses = 1` sample).
    pub fn on_sample(
        &mut self,
        p: &Params,
        conn: &Conn,
        in_probe_bw: bool,
        round_start: bool,
        losses: u32,
        is_app_limited: bool,
    ) -> LtEvent {
        if self.use_bw {
            if in_probe_bw && round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= p.lt_bw_max_rounds {
                    self.reset(conn);
                    return LtEvent::Expired;
                }
            }
            return LtEvent::Nothing;
        }
        // Wait for the first loss, so the policer has exhausted its tokens.
        if !self.is_sampling {
            if losses == 0 {
                return LtEvent::Nothing;
            }
            self.reset_interval(conn);
            self.is_sampling = true;
        }
        // Running out of data would underestimate the rate.
        if is_app_limited {
            self.reset(conn);
            return LtEvent::Nothing;
        }
        if round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < p.lt_intvl_min_rounds {
            return LtEvent::Nothing;
        }
        if self.rtt_cnt > 4 * p.lt_intvl_min_rounds {
            self.reset(conn);
            return LtEvent::Nothing;
        }
        // End the interval only on a loss: the tokens are exhausted then.
        if losses == 0 {
            return LtEvent::Nothing;
        }
        let lost = conn.lost - self.last_lost;
        let delivered = conn.delivered - self.last_delivered;
        if delivered == 0 || (lost as f64) < p.lt_loss_thresh * delivered as f64 {
            return LtEvent::Nothing;
        }
        let now_ms = conn.delivered_time.as_millis();
        let Some(t_ms) = now_ms.checked_sub(self.last_stamp_ms).filter(|&t| t >= 1) else {
            return LtEvent::Nothing;
        };
        let bw = delivered as f64 * 1e3 / t_ms as f64;
        self.interval_done(p, conn, bw)
    }

    /// Linux `bbr_lt_bw_interval_done`: policed if two intervals agree.
    fn interval_done(&mut self, p: &Params, conn: &Conn, bw: f64) -> LtEvent {
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            let diff_bytes =
                model::pacing_rate_bytes(diff, conn.mss, 1.0, p.pacing_margin_percent) as f64;
            if diff <= p.lt_bw_ratio * self.bw || diff_bytes <= p.lt_bw_diff_bytes_per_sec {
                self.bw = (bw + self.bw) / 2.0;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtEvent::Policed;
            }
        }
        self.bw = bw;
        self.reset_interval(conn);
        LtEvent::Nothing
    }
}

impl Bbr {
    /// Linux `bbr_lt_bw_sampling`, with its writes to `pacing_gain` and the mode.
    pub(super) fn lt_bw_sampling(&mut self, conn: &Conn, losses: u32, is_app_limited: bool) {
        if !self.p.lt_enabled {
            return;
        }
        let in_probe_bw = self.state == State::ProbeBw;
        match self.lt.on_sample(
            &self.p,
            conn,
            in_probe_bw,
            self.round_start,
            losses,
            is_app_limited,
        ) {
            LtEvent::Nothing => {}
            LtEvent::Policed => self.pacing_gain = 1.0, // "try to avoid drops"
            LtEvent::Expired => self.enter_probe_bw(conn),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;

    /// A connection that by `ms` has delivered `delivered` and lost `lost` packets.
    fn conn(ms: u64, delivered: u64, lost: u64) -> Conn {
        Conn {
            mss: 1448,
            delivered,
            lost,
            delivered_time: Time::from_millis(ms),
            ..Conn::default()
        }
    }

    /// Sampling begun by a loss at t = 0, when `lost_before` packets had been lost.
    fn sampling(lost_before: u64) -> LongTermBw {
        let mut lt = LongTermBw::default();
        let first = lt.on_sample(
            &Params::default(),
            &conn(0, 0, lost_before),
            true,
            false,
            1,
            false,
        );
        assert_eq!(first, LtEvent::Nothing);
        assert!(lt.is_sampling);
        lt
    }

    /// Round start `r` without loss: 10·r ms and 100·r packets delivered into the interval.
    fn round_start(lt: &mut LongTermBw, r: u64, lost: u64) {
        let c = conn(10 * r, 100 * r, lost);
        lt.on_sample(&Params::default(), &c, true, true, 0, false);
    }

    fn rounds(lt: &mut LongTermBw, n: u64, lost: u64) {
        (1..=n).for_each(|r| round_start(lt, r, lost));
    }

    /// An ACK with one loss at `ms`, delivered and lost so far as given, not a round start.
    fn lossy_ack(lt: &mut LongTermBw, ms: u64, delivered: u64, lost: u64) -> LtEvent {
        lt.on_sample(
            &Params::default(),
            &conn(ms, delivered, lost),
            true,
            false,
            1,
            false,
        )
    }

    #[test]
    fn an_interval_ends_on_a_lossy_ack_once_it_has_four_rounds() {
        let mut lt = sampling(0);
        rounds(&mut lt, 3, 0);
        assert_eq!(lossy_ack(&mut lt, 35, 350, 100), LtEvent::Nothing);
        assert_eq!(lt.bw, 0.0, "three rounds are too few");
        round_start(&mut lt, 4, 100);
        assert_eq!(lossy_ack(&mut lt, 40, 400, 100), LtEvent::Nothing);
        assert_eq!(lt.bw, 10_000.0); // 400 packets in 40 ms: the first interval's rate
    }

    #[test]
    fn an_interval_lasts_at_most_sixteen_rounds() {
        let mut lt = sampling(0);
        rounds(&mut lt, 16, 0);
        let mut longer = lt.clone();
        assert_eq!(lossy_ack(&mut lt, 160, 1600, 400), LtEvent::Nothing);
        assert_eq!(lt.bw, 10_000.0, "16 rounds still end");
        round_start(&mut longer, 17, 0);
        assert_eq!(lossy_ack(&mut longer, 170, 1700, 400), LtEvent::Nothing);
        assert_eq!(longer.bw, 0.0, "the 17th round start began sampling again");
    }

    #[test]
    fn the_loss_share_counts_this_intervals_losses_from_50_in_256() {
        // 512 delivered in 4 rounds: 100 lost is exactly 50/256 of them; 99 is below.
        for (lost, ends) in [(100, true), (99, false)] {
            let mut lt = sampling(1000);
            rounds(&mut lt, 4, 1000);
            lossy_ack(&mut lt, 40, 512, 1000 + lost);
            assert_eq!(lt.bw > 0.0, ends, "{lost} lost");
        }
    }

    /// A first interval of 10 000 packets/s (400 in 40 ms), then a second of `delivered`
    /// packets in the next 40 ms (4 rounds, 100 more lost); the second's outcome.
    fn after_two_intervals(delivered: u64) -> (LtEvent, LongTermBw) {
        let mut lt = sampling(0);
        rounds(&mut lt, 4, 0);
        lossy_ack(&mut lt, 40, 400, 100);
        (5..=8).for_each(|r| round_start(&mut lt, r, 100));
        (lossy_ack(&mut lt, 80, 400 + delivered, 200), lt)
    }

    #[test]
    fn two_intervals_match_within_an_eighth_of_the_first() {
        let (event, lt) = after_two_intervals(440); // 11 000/s: 1000 ≤ 10 000 / 8
        assert_eq!(event, LtEvent::Policed);
        assert_eq!((lt.bw, lt.use_bw), (10_500.0, true));
        let (event, lt) = after_two_intervals(460); // 11 500/s: 1500 > 1250 and ≫ 4 kbit/s
        assert_eq!(event, LtEvent::Nothing);
        assert_eq!((lt.bw, lt.use_bw), (11_500.0, false));
    }

    /// A first interval of 0.2 packets/s: 2 delivered (1 lost) in 10 s of 4 rounds.
    fn slow_first_interval() -> LongTermBw {
        let mut lt = sampling(0);
        for ms in [2_500, 5_000, 7_500, 10_000] {
            lt.on_sample(&Params::default(), &conn(ms, 0, 0), true, true, 0, false);
        }
        assert_eq!(lossy_ack(&mut lt, 10_000, 2, 1), LtEvent::Nothing);
        lt
    }

    #[test]
    fn slow_intervals_match_within_4_kbit_s() {
        // 0.2 then 0.5 packets/s: 150 % apart, but 0.3 · 1448 · 0.99 = 430 B/s ≤ 500 B/s.
        let mut lt = slow_first_interval();
        for ms in [12_500, 15_000, 17_500, 20_000] {
            lt.on_sample(&Params::default(), &conn(ms, 2, 1), true, true, 0, false);
        }
        assert_eq!(lossy_ack(&mut lt, 20_000, 7, 3), LtEvent::Policed);
        assert_eq!(lt.bw, 0.35);
    }

    #[test]
    fn a_first_interval_is_never_a_match_however_slow() {
        // 0.2 packets/s is within 4 kbit/s of nothing, but there is no previous interval.
        let lt = slow_first_interval();
        assert_eq!((lt.bw, lt.use_bw), (0.2, false));
    }
}
