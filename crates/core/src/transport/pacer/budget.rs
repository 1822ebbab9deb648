//! The byte-budget pacer of the ATC'23 testbed's QUIC stack (nginx-quic as the
//! oBBR artifact ships it, `ngx_pacing.c` and `ngx_quic_create_datagrams`).
//!
//! Unlike Linux's per-packet departure times, it lets bursts out: a budget of
//! bytes grows with the pacing rate for every **whole millisecond** of the
//! server's cached clock (`ngx_current_msec`), capped at 6 ms of the rate (at
//! least 10 packets). A packet leaves whenever the budget holds one; when it
//! does not, a timer of at least 3 ms is set, so the connection sends
//! millisecond-sized bursts back to back at line rate.
//!
//! ```text
//!   accrue(now)  = min(budget + (now_ms − last_ms)·rate/1000, max_burst)      (all of it at the first call)
//!   output(now):   budget = max(accrue(now), budget + pending); pending = 0; last = now_ms
//!   can send?      budget ≥ mss
//!   blocked:       pending = mss − budget;  retry at now_ms + max(pending·1000/rate, 3) ms
//!   sent(len):     budget = accrue(now) − len (floored at 0); last = now_ms
//!   app-limited:   budget = 10·mss; last = now_ms
//!   max_burst    = max(10·mss, 6 ms · rate)
//! ```
//!
//! Integer arithmetic as the artifact's (`uint32_t` bytes, `ngx_msec_t` ms,
//! rate in bytes per second). An algorithm without a pacing rate of its own
//! (CUBIC, Reno) is paced as the artifact paces its CUBIC (`ngx_pacing_rate_calc`):
//!
//! ```text
//!   window_rate = cwnd_bytes · 1000 / avg_rtt  · (2 in slow start, cwnd < ssthresh; else 1.2)
//! ```
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `CLOCK_GRANULARITY_MS` | 3 | ms | added to the burst horizon | `NGX_CLOCK_GRANULARITY_MS` |
//! | `PACING_DELAY_MS` | 3 | ms | least wait when blocked; the other part of the horizon | `NGX_PACING_DELAY_MS` |
//! | `MAX_BURST_PACKETS` | 10 | packets | least burst cap; the budget after an app-limited pause | `NGX_MAX_BURST_NUM` |
//! | `SLOW_START_RATIO` | 2 | — | window-rate multiplier in slow start | `ngx_pacing_rate_calc` |
//! | `AVOIDANCE_RATIO` | 1.2 | — | window-rate multiplier after slow start | `ngx_pacing_rate_calc` |

use super::avg_rtt::AvgRtt;
use crate::time::{Duration, Time};
use crate::units::Rate;

pub const CLOCK_GRANULARITY_MS: u64 = 3; // ngx_pacing.c NGX_CLOCK_GRANULARITY_MS
pub const PACING_DELAY_MS: u64 = CLOCK_GRANULARITY_MS; // ngx_pacing.c NGX_PACING_DELAY_MS
pub const MAX_BURST_PACKETS: u64 = 10; // ngx_pacing.c NGX_MAX_BURST_NUM (× NGX_QUIC_MSS)
pub const SLOW_START_RATIO: f64 = 2.0; // ngx_pacing.c ngx_pacing_rate_calc, CubicInSlowStart
pub const AVOIDANCE_RATIO: f64 = 1.2; // ngx_pacing.c ngx_pacing_rate_calc

#[derive(Clone, Debug)]
pub struct Budget {
    mss: u64,
    /// Bytes that may leave now (`bytes_budget`).
    budget: u64,
    /// The ms stamp of the last send or output (`last_sent_time`); `None` before the first.
    last_ms: Option<u64>,
    /// The shortfall a blocked send was waiting for (`pending_budget`).
    pending: u64,
    /// The connection's `avg_rtt`, which window-based algorithms are paced over.
    avg_rtt: AvgRtt,
}

fn bytes_per_s(rate: Option<Rate>) -> Option<u64> {
    rate.map(|r| r.bps() / 8).filter(|&r| r > 0)
}

/// `ngx_pacing_rate_calc` for a window-based algorithm: the window per `avg_rtt` (whole ms,
/// [`super::avg_rtt`]), doubled in slow start and × 1.2 after.
pub fn window_rate(cwnd_bytes: u64, avg_rtt: Duration, slow_start: bool) -> Rate {
    let avg_ms = avg_rtt.as_millis().max(1);
    let base = (cwnd_bytes * 1000 / avg_ms) as f64;
    let ratio = if slow_start {
        SLOW_START_RATIO
    } else {
        AVOIDANCE_RATIO
    };
    Rate::from_bps((base * ratio) as u64 * 8)
}

impl Budget {
    pub fn new(mss: u32) -> Self {
        let mss = mss as u64;
        Budget {
            mss,
            budget: MAX_BURST_PACKETS * mss,
            last_ms: None,
            pending: 0,
            avg_rtt: AvgRtt::default(),
        }
    }

    pub fn on_rtt_sample(&mut self, now: Time, sent: Time, ack_delay: Duration) {
        self.avg_rtt.on_sample(now, sent, ack_delay);
    }

    pub fn avg_rtt(&self) -> Option<Duration> {
        self.avg_rtt.avg()
    }

    fn max_burst(&self, rate: u64) -> u64 {
        let horizon = PACING_DELAY_MS + CLOCK_GRANULARITY_MS;
        (horizon * rate / 1000).max(MAX_BURST_PACKETS * self.mss)
    }

    /// `ngx_pacing_calc_budget`.
    fn accrue(&self, now_ms: u64, rate: u64) -> u64 {
        let cap = self.max_burst(rate);
        match self.last_ms {
            None => cap,
            Some(last) => (self.budget + (now_ms - last) * rate / 1000).min(cap),
        }
    }

    /// A send opportunity begins (`ngx_pacing_on_timeout` at the top of every output).
    pub fn on_output(&mut self, now: Time, rate: Option<Rate>) {
        let Some(rate) = bytes_per_s(rate) else {
            return;
        };
        let now_ms = now.as_millis();
        self.budget = self.accrue(now_ms, rate).max(self.budget + self.pending);
        self.pending = 0;
        self.last_ms = Some(now_ms);
    }

    pub fn allows(&self, rate: Option<Rate>) -> bool {
        bytes_per_s(rate).is_none() || self.budget >= self.mss
    }

    /// Blocked: when the output timer fires again (`ngx_pacing_time_until_send`).
    pub fn retry_at(&mut self, now: Time, rate: Option<Rate>) -> Time {
        let Some(rate) = bytes_per_s(rate) else {
            return now;
        };
        let short = self.mss.saturating_sub(self.budget);
        let delay = (short * 1000 / rate).max(PACING_DELAY_MS);
        self.pending = short;
        Time::from_millis(now.as_millis() + delay)
    }

    /// `ngx_pacing_on_packet_sent`.
    pub fn on_send(&mut self, now: Time, payload: u32, rate: Option<Rate>) {
        let Some(rate) = bytes_per_s(rate) else {
            return;
        };
        let now_ms = now.as_millis();
        self.budget = self.accrue(now_ms, rate).saturating_sub(payload as u64);
        self.last_ms = Some(now_ms);
    }

    /// Nothing left to send with room in cwnd (`ngx_pacing_on_app_limit`).
    pub fn on_app_limited(&mut self, now: Time) {
        self.budget = MAX_BURST_PACKETS * self.mss;
        self.last_ms = Some(now.as_millis());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1252;

    /// 100 Mb/s = 12 500 000 B/s = 12 500 B per ms; max burst = 6 ms = 75 000 B.
    fn rate() -> Option<Rate> {
        Some(Rate::from_mbps(100))
    }

    #[test]
    fn first_output_grants_the_full_burst_of_six_milliseconds() {
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(5), rate());
        assert_eq!(p.budget, 75_000);
        // 59 packets fit (59 × 1252 = 73 868), the 60th does not.
        for _ in 0..59 {
            assert!(p.allows(rate()));
            p.on_send(Time::from_millis(5), MSS, rate());
        }
        assert_eq!(p.budget, 75_000 - 59 * 1252);
        assert!(!p.allows(rate()));
    }

    #[test]
    fn budget_accrues_per_whole_millisecond_only() {
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(0), rate());
        p.budget = 0;
        // 0.9 ms later the cached clock has not ticked: nothing accrued.
        p.on_output(Time::from_nanos(900_000), rate());
        assert_eq!(p.budget, 0);
        // At 2.3 ms two whole ms have passed since the stamp: 25 000 B.
        p.on_output(Time::from_nanos(2_300_000), rate());
        assert_eq!(p.budget, 25_000);
    }

    #[test]
    fn a_blocked_send_waits_at_least_three_ms_and_is_then_granted_its_shortfall() {
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(10), rate());
        p.budget = 200;
        assert!(!p.allows(rate()));
        // Shortfall 1052 B at 12 500 B/ms is < 1 ms: the floor of 3 ms applies.
        assert_eq!(
            p.retry_at(Time::from_nanos(10_400_000), rate()),
            Time::from_millis(13)
        );
        assert_eq!(p.pending, 1052);
        // A retry within the same ms still gets the shortfall (budget + pending).
        p.on_output(Time::from_millis(10), rate());
        assert_eq!(p.budget, 1252);
        assert!(p.allows(rate()));
    }

    #[test]
    fn a_slow_rate_waits_for_its_shortfall() {
        // 1 Mb/s = 125 000 B/s: a whole packet takes 10.016 ms → 10 ms (integer ms).
        let slow = Some(Rate::from_mbps(1));
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(0), slow);
        p.budget = 0;
        assert_eq!(
            p.retry_at(Time::from_millis(0), slow),
            Time::from_millis(10)
        );
    }

    #[test]
    fn the_cap_is_ten_packets_at_low_rates() {
        let slow = Some(Rate::from_mbps(1));
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(1000), slow);
        assert_eq!(p.budget, 10 * 1252);
        for _ in 0..10 {
            p.on_send(Time::from_millis(1000), MSS, slow);
        }
        assert_eq!(p.budget, 0);
        // a second earns 125 000 B, capped at ten packets
        p.on_output(Time::from_millis(2000), slow);
        assert_eq!(p.budget, 10 * 1252);
    }

    /// Below 8 b/s the rate is 0 bytes per second: unpaced, rather than a division by zero.
    #[test]
    fn a_rate_under_a_byte_per_second_is_unpaced() {
        let crawl = Some(Rate::from_bps(7));
        let mut p = Budget::new(MSS);
        p.budget = 0;
        assert!(p.allows(crawl));
        assert_eq!(
            p.retry_at(Time::from_millis(3), crawl),
            Time::from_millis(3)
        );
    }

    #[test]
    fn an_app_limited_pause_resets_the_budget_to_ten_packets() {
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(0), rate());
        p.on_app_limited(Time::from_millis(1));
        assert_eq!(p.budget, 12_520);
        // The pause earns budget again from its stamp, capped at 6 ms.
        p.on_output(Time::from_millis(100), rate());
        assert_eq!(p.budget, 75_000);
    }

    #[test]
    fn a_window_algorithm_is_paced_at_twice_then_1_2_times_its_window_per_srtt() {
        // 100 packets of 1252 B over 40.7 ms → 40 ms (nginx's integer ms): 3 130 000 B/s.
        let srtt = Duration::from_micros(40_700);
        let ss = window_rate(125_200, srtt, true);
        assert_eq!(ss.bps(), 2 * 3_130_000 * 8);
        let ca = window_rate(125_200, srtt, false);
        assert_eq!(ca.bps(), 3_756_000 * 8);
        // Below 1 ms the artifact's avg_rtt is at least 1.
        assert_eq!(
            window_rate(1252, Duration::from_micros(300), false).bps(),
            1_502_400 * 8
        );
    }

    #[test]
    fn an_unpaced_sender_is_never_held() {
        let mut p = Budget::new(MSS);
        p.on_output(Time::from_millis(0), None);
        p.on_send(Time::from_millis(0), MSS, None);
        assert!(p.allows(None));
        assert_eq!(p.budget, 10 * 1252);
    }
}
