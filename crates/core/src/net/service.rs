//! When the bottleneck may release its head packet: the token-bucket shaper
//! (Linux `tc tbf`), a plain rate-limited line, or a Mahimahi trace.
//!
//! TBF in a nutshell (net/sched/sch_tbf.c): tokens accrue at `rate` up to
//! `burst` bytes; the head packet leaves when the tokens cover its length and
//! then goes onto the physical line, which serialises it at `line_rate`. With a
//! full bucket a whole burst leaves back to back at line rate — the effect
//! that inflates BBR's max-filtered bandwidth estimate in WWW'21.
//!
//! Tokens are counted exactly in integer bit-nanoseconds (bits × 10⁹), so a
//! bucket never drifts however long the run. A packet costs its `qdisc_len`, the IP
//! length plus the device's link-layer header, as `psched_l2t_ns(&q->rate, len)` does
//! with `len = qdisc_pkt_len(skb)`; the line serialises that length too.
//!
//! A scheduled rate change is `tc qdisc change … tbf rate R`: `tbf_change` sets
//! `q->tokens = q->buffer`, so the bucket is full again and the queue stays, as on a
//! testbed that switches its rate with tc (the ATC'23 artifact's `nets/change.sh`).
//! A rate of 0 is an outage: nothing leaves, whatever the bucket holds (tc has no
//! rate 0).
//!
//! Deviations: no `peakrate`/`mtu` second bucket; the line has no transmit
//! ring, so TBF hands over a packet only when the line is free (a NIC ring
//! would let it hand over earlier without changing departure times).
//!
//! Constants: none. `rate`, `burst`, the line rate (default 1 Gb/s) and the
//! trace come from the scenario's `bottleneck`.

use super::mahimahi::{Cursor, Trace};
use crate::time::{Duration, Time};
use crate::units::Rate;

const NANOS: u128 = 1_000_000_000;

/// A token bucket: `rate` bits/s of tokens, at most `burst` bytes stored. Starts full (as tc's does).
#[derive(Clone, Debug)]
pub struct TokenBucket {
    rate: Rate,
    burst_bytes: u64,
    /// Stored tokens in bit-nanoseconds (bits × 10⁹).
    tokens: u128,
    updated: Time,
}

impl TokenBucket {
    pub fn new(rate: Rate, burst_bytes: u64) -> Self {
        TokenBucket {
            rate,
            burst_bytes,
            tokens: Self::cost(burst_bytes),
            updated: Time::ZERO,
        }
    }

    fn cost(bytes: u64) -> u128 {
        bytes as u128 * 8 * NANOS
    }

    /// The tokens stored at `t` (at or after the last update), nothing spent meanwhile.
    fn tokens_at(&self, t: Time) -> u128 {
        let dt = t.saturating_since(self.updated).as_nanos() as u128;
        (self.tokens + self.rate.bps() as u128 * dt).min(Self::cost(self.burst_bytes))
    }

    fn refill(&mut self, now: Time) {
        self.tokens = self.tokens_at(now);
        self.updated = now;
    }

    /// Earliest time at or after `t` when the bucket covers `bytes` (`NEVER` at rate 0, an
    /// outage), if nothing is spent before.
    pub fn ready_at(&self, t: Time, bytes: u64) -> Time {
        if self.rate.is_zero() {
            return Time::NEVER;
        }
        let (tokens, need) = (self.tokens_at(t), Self::cost(bytes));
        if tokens >= need {
            return t;
        }
        let wait = (need - tokens).div_ceil(self.rate.bps() as u128);
        t.saturating_add(Duration::from_nanos(wait.min(u64::MAX as u128) as u64))
    }

    /// Spends tokens for `bytes`; only after `ready_at` said so.
    pub fn take(&mut self, now: Time, bytes: u64) {
        self.refill(now);
        self.tokens -= Self::cost(bytes).min(self.tokens);
    }

    /// `tc qdisc change`: the new rate, and a full bucket (`tbf_change`).
    pub fn set_rate(&mut self, now: Time, rate: Rate) {
        self.rate = rate;
        self.tokens = Self::cost(self.burst_bytes);
        self.updated = now;
    }

    /// Stored tokens, bytes (for telemetry).
    pub fn tokens_bytes(&mut self, now: Time) -> f64 {
        self.refill(now);
        self.tokens as f64 / (8.0 * NANOS as f64)
    }
}

/// How the bottleneck serves its queue.
#[derive(Clone, Debug)]
pub enum Service {
    /// TBF shaper on top of the physical line.
    Shaped {
        bucket: TokenBucket,
        line_rate: Rate,
    },
    /// The line itself runs at the bottleneck rate.
    Plain { rate: Rate },
    /// Delivery opportunities from a Mahimahi trace (no serialisation).
    Trace {
        trace: Box<Trace>,
        cursor: Cursor,
        head_sent: u32,
    },
}

impl Service {
    pub fn trace(trace: Trace) -> Self {
        let cursor = trace.cursor();
        Service::Trace {
            trace: Box::new(trace),
            cursor,
            head_sent: 0,
        }
    }

    /// Applies a scheduled rate change (shaper rate or plain line rate).
    pub fn set_rate(&mut self, now: Time, rate: Rate) {
        match self {
            Service::Shaped { bucket, .. } => bucket.set_rate(now, rate),
            Service::Plain { rate: r } => *r = rate,
            Service::Trace { .. } => {}
        }
    }

    pub fn tokens_bytes(&mut self, now: Time) -> f64 {
        match self {
            Service::Shaped { bucket, .. } => bucket.tokens_bytes(now),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bucket_passes_a_burst_then_paces_at_the_token_rate() {
        let mut b = TokenBucket::new(Rate::from_mbps(25), 3000);
        assert_eq!(b.ready_at(Time::ZERO, 1500), Time::ZERO);
        b.take(Time::ZERO, 1500);
        b.take(Time::ZERO, 1500);
        // empty: the next 1500 B need 480 µs of tokens at 25 Mb/s
        assert_eq!(b.ready_at(Time::ZERO, 1500), Time::from_micros(480));
        // tokens never exceed the burst however long the bucket idles
        assert_eq!(b.tokens_bytes(Time::from_secs(100)), 3000.0);
    }

    #[test]
    fn a_zero_rate_is_an_outage_whatever_the_bucket_holds() {
        let mut b = TokenBucket::new(Rate::from_mbps(1), 1500);
        b.set_rate(Time::ZERO, Rate::ZERO);
        assert_eq!(b.ready_at(Time::from_secs(5), 1500), Time::NEVER);
    }

    /// `tbf_change` sets `q->tokens = q->buffer`: a change of rate, even to the same rate,
    /// refills the bucket where the old one was empty.
    #[test]
    fn a_rate_change_refills_the_bucket_as_tc_qdisc_change_does() {
        let mut b = TokenBucket::new(Rate::from_mbps(25), 3000);
        b.take(Time::ZERO, 3000);
        assert_eq!(
            b.ready_at(Time::from_micros(100), 1500),
            Time::from_micros(480)
        );
        b.set_rate(Time::from_micros(100), Rate::from_mbps(10));
        assert_eq!(b.tokens_bytes(Time::from_micros(100)), 3000.0);
        assert_eq!(
            b.ready_at(Time::from_micros(100), 1500),
            Time::from_micros(100)
        );
        b.take(Time::from_micros(100), 3000);
        // then the new rate: 1500 B at 10 Mb/s take 1.2 ms
        assert_eq!(
            b.ready_at(Time::from_micros(100), 1500),
            Time::from_micros(1300)
        );
    }
}
