//! Mahimahi packet-delivery traces (`mm-link UPLINK DOWNLINK`).
//!
//! One line per delivery opportunity: an unsigned millisecond timestamp from
//! the start of the trace, non-decreasing; a repeated timestamp means several
//! opportunities in the same millisecond. The schedule repeats with a period
//! equal to the last timestamp (which must be > 0); a schedule converted from a
//! throughput trace ([`super::throughput_trace`]) repeats with that trace's
//! length. Each opportunity carries [`OPPORTUNITY_BYTES`]; accounting is
//! byte-level, and bytes an opportunity cannot use are wasted (mahimahi
//! `link_queue.cc`), including an opportunity at the very instant a packet
//! arrives: mahimahi uses up every opportunity due by an arrival's millisecond
//! before it enqueues the packet (`rationalize` in `read_packet`).
//!
//! Deviation: mahimahi's code uses 1504-byte opportunities (its TUN MTU);
//! its man page, and this simulator, use 1500 bytes — the size of a full
//! packet here — so one opportunity delivers exactly one full packet.

use crate::time::{Duration, Time};

/// Bytes one delivery opportunity carries.
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// A parsed trace: opportunity times within one period, in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    opportunities_ms: Vec<u64>,
    period_ms: u64,
}

impl Trace {
    /// Parses trace text; errors name the 1-based line and what is wrong.
    pub fn parse(text: &str) -> Result<Trace, String> {
        let mut ops = Vec::new();
        let body = text.strip_suffix('\n').unwrap_or(text);
        let body = body.strip_suffix('\r').unwrap_or(body);
        if body.is_empty() {
            return Err("the trace is empty (expected one millisecond timestamp per line)".into());
        }
        for (i, line) in body.split('\n').enumerate() {
            let line = line.trim_end_matches('\r').trim();
            if line.is_empty() {
                return Err(format!(
                    "line {}: invalid empty line (expected an unsigned millisecond timestamp)",
                    i + 1
                ));
            }
            let ms: u64 = line.parse().map_err(|_| {
                format!(
                    "line {}: {line:?} is not an unsigned integer millisecond timestamp",
                    i + 1
                )
            })?;
            if let Some(&prev) = ops.last() {
                if ms < prev {
                    return Err(format!("line {}: {ms} is earlier than the previous timestamp {prev} (timestamps must not decrease)", i + 1));
                }
            }
            ops.push(ms);
        }
        let period_ms = *ops.last().unwrap();
        if period_ms == 0 {
            return Err(
                "the last timestamp must be greater than 0 (it is the period of the trace)".into(),
            );
        }
        Ok(Trace {
            opportunities_ms: ops,
            period_ms,
        })
    }

    /// A schedule of `opportunities_ms` (non-decreasing, at most `period_ms`, at least one)
    /// repeating every `period_ms`, which may run past the last opportunity.
    pub fn from_opportunities(opportunities_ms: Vec<u64>, period_ms: u64) -> Trace {
        assert!(
            !opportunities_ms.is_empty()
                && opportunities_ms.windows(2).all(|w| w[0] <= w[1])
                && opportunities_ms.last() <= Some(&period_ms)
                && period_ms > 0,
            "opportunities must be sorted within one non-empty period"
        );
        Trace {
            opportunities_ms,
            period_ms,
        }
    }

    /// Length of one repetition of the schedule.
    pub fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms)
    }

    /// Long-run average rate the trace offers, bits/s.
    pub fn mean_rate_bps(&self) -> f64 {
        self.opportunities_ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0
            / self.period().as_secs_f64()
    }

    /// Bits the opportunities in `[from, to)` carry.
    pub fn capacity_bits(&self, from: Time, to: Time) -> f64 {
        let before = |t: Time| {
            let period_ns = self.period_ms * 1_000_000;
            let (cycles, within_ns) = (t.as_nanos() / period_ns, t.as_nanos() % period_ns);
            let within = self
                .opportunities_ms
                .partition_point(|&ms| ms * 1_000_000 < within_ns);
            cycles * self.opportunities_ms.len() as u64 + within as u64
        };
        before(to).saturating_sub(before(from)) as f64 * OPPORTUNITY_BYTES as f64 * 8.0
    }

    pub fn cursor(&self) -> Cursor {
        Cursor {
            cycle: 0,
            index: 0,
            bytes_left: 0,
        }
    }

    fn time_of(&self, c: &Cursor) -> Time {
        let base = c.cycle * self.period_ms;
        Time::from_millis(base + self.opportunities_ms[c.index])
    }
}

/// Position in the (repeating) schedule: the next opportunity not yet used up.
#[derive(Clone, Debug, PartialEq)]
pub struct Cursor {
    cycle: u64,
    index: usize,
    /// Bytes left in the current opportunity once it has started being used (0 = untouched).
    bytes_left: u32,
}

impl Cursor {
    pub fn time(&self, trace: &Trace) -> Time {
        trace.time_of(self)
    }

    /// Bytes the current opportunity still offers.
    pub fn bytes_left(&self) -> u32 {
        if self.bytes_left == 0 {
            OPPORTUNITY_BYTES
        } else {
            self.bytes_left
        }
    }

    /// Consumes `n` bytes of the current opportunity, moving on when it is used up.
    pub fn consume(&mut self, trace: &Trace, n: u32) {
        let left = self.bytes_left() - n;
        if left == 0 {
            self.advance(trace);
        } else {
            self.bytes_left = left;
        }
    }

    /// Abandons the current opportunity (its remaining bytes are wasted).
    pub fn advance(&mut self, trace: &Trace) {
        self.bytes_left = 0;
        self.index += 1;
        if self.index == trace.opportunities_ms.len() {
            self.index = 0;
            self.cycle += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_line_trace_of_1_ms_is_12_mbps() {
        let t = Trace::parse("1\n").unwrap();
        assert_eq!(t.mean_rate_bps(), 12e6);
        let mut c = t.cursor();
        assert_eq!(c.time(&t), Time::from_millis(1));
        c.advance(&t);
        assert_eq!(c.time(&t), Time::from_millis(2));
    }

    #[test]
    fn the_schedule_wraps_with_the_last_timestamp_as_period() {
        let t = Trace::parse("0\n5\n5\n10").unwrap();
        let mut c = t.cursor();
        let times: Vec<u64> = (0..6)
            .map(|_| {
                let x = c.time(&t).as_millis();
                c.advance(&t);
                x
            })
            .collect();
        assert_eq!(times, vec![0, 5, 5, 10, 10, 15]);
    }

    #[test]
    fn capacity_counts_the_opportunities_in_a_window_across_cycles() {
        let t = Trace::from_opportunities(vec![1, 2, 2], 4);
        let bits = |a, b| t.capacity_bits(Time::from_millis(a), Time::from_millis(b)) / 12_000.0;
        assert_eq!(bits(0, 4), 3.0);
        assert_eq!(bits(2, 3), 2.0);
        assert_eq!(bits(3, 6), 1.0); // the next cycle's 5 ms
        assert_eq!(bits(0, 400), 300.0);
        assert_eq!(t.mean_rate_bps(), 3.0 * 12_000.0 / 0.004);
    }

    #[test]
    fn malformed_traces_are_rejected_with_the_line() {
        assert!(Trace::parse("").unwrap_err().contains("empty"));
        assert!(Trace::parse("1\n\n2").unwrap_err().contains("line 2"));
        assert!(Trace::parse("3\n2").unwrap_err().contains("line 2"));
        assert!(Trace::parse("1\nx").unwrap_err().contains("line 2"));
        assert!(Trace::parse("0\n0").unwrap_err().contains("greater than 0"));
    }

    #[test]
    fn partial_use_keeps_the_rest_of_an_opportunity() {
        let t = Trace::parse("1").unwrap();
        let mut c = t.cursor();
        c.consume(&t, 500);
        assert_eq!(c.bytes_left(), 1000);
        c.consume(&t, 1000);
        assert_eq!((c.bytes_left(), c.time(&t)), (1500, Time::from_millis(2)));
    }
}
