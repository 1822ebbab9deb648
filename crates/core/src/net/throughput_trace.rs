//! Throughput traces — a link's capacity over time, as ABR studies publish it — turned into
//! Mahimahi delivery opportunities ([`Trace`]), so that they drive the bottleneck as a
//! Mahimahi file does.
//!
//! Two formats:
//! * **Pensieve's simulation traces** (`cooked_traces`, `test_sim_traces`, the FCC and Norway
//!   sets in `t_s Mbps` form): one line per sample, `time_s throughput_Mbps`, times not
//!   decreasing. We read them as Pensieve's simulator does (`test/fixed_env.py`,
//!   `sim/env.py`): line k's throughput holds from line k−1's time to its own, so a sample is
//!   the throughput of the interval that *ends* at its timestamp, and the first line only
//!   marks the start. (`specs/abr-and-traces.md` §3.8 summarises it the other way round, "the
//!   value holds until the next timestamp"; we follow the code, which produced the published
//!   numbers.) The trace repeats every t_last − t_first. fixed_env restarts later cycles
//!   from time 0 rather than t_first; the two agree for files that start at 0, as its comment
//!   says they do.
//! * **Sabre's network JSON** (`example/network.json`, `3Glogs/`, `4Glogs/`, `sd_fs/`,
//!   `hd_fs/`): a list of periods `{ "duration_ms", "bandwidth_kbps", "latency_ms" }`,
//!   repeated. `latency_ms` is Sabre's delay before a download's first bit, a stand-in for the
//!   round trip; here the packet-level path has its own (`bottleneck.rtt`), so the field is
//!   checked and not used.
//!
//! Conversion, as Pensieve's `traces/*/convert_mahimahi_format.py` makes Mahimahi files: at
//! each millisecond m, one 1500-byte opportunity for every whole packet the capacity has
//! carried by m that no earlier opportunity has. The script restarts its count at every
//! sample, dropping up to one packet per sample; here the fraction carries over. The period is
//! rounded to the millisecond.
//!
//! | constant | value | source |
//! |---|---|---|
//! | bits per opportunity | 1500 × 8 | [`OPPORTUNITY_BYTES`] (Mahimahi's 1500-byte packet) |
//! | Mb/s in a Pensieve trace | 10⁶ bit/s | `fixed_env.py` `B_IN_MB` |
//! | kb/s in a Sabre trace | 10³ bit/s | `sabre.py` (bits, kbit/s, ms) |
//! | [`MAX_OPPORTUNITIES`] | 20 000 000 per period (160 MB) | bloatlab's memory bound |

use serde::Deserialize;

use super::mahimahi::{Trace, OPPORTUNITY_BYTES};

/// The most delivery opportunities one period of a converted trace may hold.
pub const MAX_OPPORTUNITIES: u64 = 20_000_000;

const NS_PER_MS: u64 = 1_000_000;

/// Capacity from the previous piece's end (or the trace's start) to `end_ns`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    end_ns: u64,
    rate_bps: f64,
}

impl Piece {
    /// Bits its rate carries from `from_ns` to `to_ns`.
    fn bits(&self, from_ns: u64, to_ns: u64) -> f64 {
        self.rate_bps * (to_ns - from_ns) as f64 / 1e9
    }
}

/// Parses a Pensieve simulation trace and converts it; errors name the 1-based line.
pub fn from_pensieve(text: &str) -> Result<Trace, String> {
    let mut start_s = None;
    let mut previous_s = f64::NEG_INFINITY;
    let mut pieces = Vec::new();
    for (i, line) in text.trim_end().lines().enumerate() {
        let line_no = i + 1;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [time, mbps] = fields[..] else {
            return Err(format!(
                "line {line_no}: {line:?} is not a sample: expected two numbers, `time_s throughput_Mbps`"
            ));
        };
        let number = |field: &str, what: &str| match field.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(format!(
                "line {line_no}: {field:?} is not a {what}: expected a number ≥ 0"
            )),
        };
        let time_s = number(time, "time in seconds")?;
        let mbps = number(mbps, "throughput in Mb/s")?;
        if time_s < previous_s {
            return Err(format!("line {line_no}: time {time_s} s is earlier than the previous line's {previous_s} s (times must not decrease)"));
        }
        previous_s = time_s;
        match start_s {
            None => start_s = Some(time_s),
            Some(start) => pieces.push(Piece {
                end_ns: ((time_s - start) * 1e9).round() as u64,
                rate_bps: mbps * 1e6,
            }),
        }
    }
    if start_s.is_none() {
        return Err("the trace is empty (expected lines `time_s throughput_Mbps`)".into());
    }
    if pieces.is_empty() {
        return Err("one sample is not a trace: line 1 only marks its start, and each later line gives the throughput up to its time".into());
    }
    to_trace(&pieces)
}

/// One period of a Sabre network trace.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SabrePeriod {
    duration_ms: f64,
    bandwidth_kbps: f64,
    /// Checked, not used: the path has its own round trip.
    latency_ms: f64,
}

/// Parses a Sabre network JSON trace and converts it; errors name the 0-based period.
pub fn from_sabre(text: &str) -> Result<Trace, String> {
    let periods: Vec<SabrePeriod> = serde_json::from_str(text).map_err(|e| {
        let e = crate::scenario::in_words(&e.to_string());
        format!("{e}: expected a list of {{\"duration_ms\", \"bandwidth_kbps\", \"latency_ms\"}}")
    })?;
    if periods.is_empty() {
        return Err("the trace is an empty list of periods".into());
    }
    let mut end_ms = 0.0;
    let mut pieces = Vec::with_capacity(periods.len());
    for (i, p) in periods.iter().enumerate() {
        for (name, v) in [
            ("duration_ms", p.duration_ms),
            ("bandwidth_kbps", p.bandwidth_kbps),
            ("latency_ms", p.latency_ms),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!(
                    "period {i}: {name} = {v} is out of range: expected a number ≥ 0"
                ));
            }
        }
        end_ms += p.duration_ms;
        pieces.push(Piece {
            end_ns: (end_ms * 1e6).round() as u64,
            rate_bps: p.bandwidth_kbps * 1e3,
        });
    }
    to_trace(&pieces)
}

/// The opportunities of one period of `pieces` (ends not decreasing, from time 0).
fn to_trace(pieces: &[Piece]) -> Result<Trace, String> {
    let period_ns = pieces.last().map_or(0, |p| p.end_ns);
    let period_ms = (period_ns + NS_PER_MS / 2) / NS_PER_MS;
    if period_ms == 0 {
        return Err("the trace lasts less than 1 ms".into());
    }
    let bits_per_opportunity = f64::from(OPPORTUNITY_BYTES) * 8.0;
    let total_bits: f64 = pieces
        .iter()
        .scan(0, |start, p| {
            let bits = p.bits(*start, p.end_ns);
            *start = p.end_ns;
            Some(bits)
        })
        .sum();
    let most = (total_bits / bits_per_opportunity).floor();
    if most > MAX_OPPORTUNITIES as f64 {
        return Err(format!(
            "one period carries {most} packets of 1500 bytes: at most {MAX_OPPORTUNITIES} are supported (shorten the trace or lower its rates)"
        ));
    }
    let mut opportunities = Vec::with_capacity(most as usize);
    let (mut piece, mut piece_start_ns, mut bits_before) = (0, 0, 0.0);
    for ms in 1..=period_ms {
        let now_ns = (ms * NS_PER_MS).min(period_ns);
        while piece < pieces.len() && pieces[piece].end_ns <= now_ns {
            let p = pieces[piece];
            bits_before += p.bits(piece_start_ns, p.end_ns);
            piece_start_ns = p.end_ns;
            piece += 1;
        }
        let within = pieces
            .get(piece)
            .map_or(0.0, |p| p.bits(piece_start_ns, now_ns));
        let carried = ((bits_before + within) / bits_per_opportunity).floor() as usize;
        opportunities.resize(carried.max(opportunities.len()), ms);
    }
    if opportunities.is_empty() {
        return Err("the trace carries less than one 1500-byte packet in a period".into());
    }
    Ok(Trace::from_opportunities(opportunities, period_ms))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Duration, Time};

    fn times_ms(t: &Trace, n: usize) -> Vec<u64> {
        let mut c = t.cursor();
        (0..n)
            .map(|_| {
                let ms = c.time(t).as_millis();
                c.advance(t);
                ms
            })
            .collect()
    }

    #[test]
    fn a_pensieve_sample_holds_over_the_interval_that_ends_at_its_time() {
        // 0–1 s at 12 Mb/s (one packet a millisecond), 1–3 s at 0: line 1's 99 is unused
        let t = from_pensieve("0 99\n1 12\n3 0\n").unwrap();
        assert_eq!(t.period(), Duration::from_secs(3));
        assert_eq!(t.mean_rate_bps(), 4e6);
        assert_eq!(times_ms(&t, 3), vec![1, 2, 3]);
        // the 1000th opportunity ends the first second; the next cycle starts at 3 s
        let mut c = t.cursor();
        (0..999).for_each(|_| c.advance(&t));
        assert_eq!(c.time(&t), Time::from_millis(1000));
        c.advance(&t);
        assert_eq!(c.time(&t), Time::from_millis(3001));
    }

    #[test]
    fn fractions_of_a_packet_carry_over_samples_and_times_need_not_start_at_0() {
        // 6 Mb/s: a packet every 2 ms, across the sample boundary at 1.5 s
        let t = from_pensieve("10.0 0\n10.0015 6\n10.004 6").unwrap();
        assert_eq!(t.period(), Duration::from_millis(4));
        assert_eq!(times_ms(&t, 4), vec![2, 4, 6, 8]);
        // two 3 ms samples at 2 Mb/s carry half a packet each: one packet, at 6 ms (the
        // script's per-sample restart would give none)
        let t = from_pensieve("0 0\n0.003 2\n0.006 2").unwrap();
        assert_eq!((t.mean_rate_bps(), times_ms(&t, 2)), (2e6, vec![6, 12]));
    }

    #[test]
    fn sabre_periods_repeat_and_their_latency_is_not_used() {
        let json = r#"[{"duration_ms": 2, "bandwidth_kbps": 12000, "latency_ms": 75},
                       {"duration_ms": 2, "bandwidth_kbps": 0, "latency_ms": 0}]"#;
        let t = from_sabre(json).unwrap();
        assert_eq!(t.period(), Duration::from_millis(4));
        assert_eq!(times_ms(&t, 4), vec![1, 2, 5, 6]);
    }

    #[test]
    fn repeated_times_are_allowed_and_the_period_rounds_to_the_nearest_millisecond() {
        // line 3 repeats line 2's time: an empty interval, not an error
        let t = from_pensieve("0 0\n0.002 12\n0.002 99\n0.004 12").unwrap();
        assert_eq!(times_ms(&t, 4), vec![1, 2, 3, 4]);
        let period = |ms: f64| {
            let json =
                format!(r#"[{{"duration_ms": {ms}, "bandwidth_kbps": 12000, "latency_ms": 0}}]"#);
            from_sabre(&json).unwrap().period()
        };
        assert_eq!(period(2.5), Duration::from_millis(3));
        assert_eq!(period(2.4), Duration::from_millis(2));
    }

    #[test]
    fn a_period_of_exactly_the_most_opportunities_is_accepted() {
        // 1 s at 240 Gb/s: 20 000 000 packets of 1500 bytes
        let t = from_pensieve("0 0\n1 240000").unwrap();
        assert_eq!(t.mean_rate_bps(), 240e9);
    }

    #[test]
    fn bad_traces_are_refused_with_the_line_or_period() {
        let e = |text: &str| from_pensieve(text).unwrap_err();
        assert!(e("").contains("empty"));
        assert!(e("0 1").contains("line 1 only marks its start"));
        assert!(e("0 1\n1 2 3").starts_with("line 2: \"1 2 3\" is not a sample"));
        assert!(e("0 1\n1 fast").starts_with("line 2: \"fast\" is not a throughput"));
        assert!(e("0 1\n-1 2").starts_with("line 2: \"-1\" is not a time"));
        assert!(e("0 1\n2 2\n1 2").starts_with("line 3: time 1 s is earlier"));
        assert!(e("0 1\n1 0").contains("less than one 1500-byte packet"));
        // 16 000 bits, but after the last whole millisecond of the (rounded) period
        assert!(e("0 0\n0.001 0\n0.0014 40").contains("less than one 1500-byte packet"));
        assert!(e("0 1\n0.0001 1").contains("less than 1 ms"));
        assert!(e("0 0\n1000 1000").contains("at most 20000000"));
        let s = |text: &str| from_sabre(text).unwrap_err();
        assert!(s("[]").contains("empty list"));
        assert!(s(r#"[{"duration_ms": 1, "bandwidth_kbps": 1}]"#).contains("latency_ms"));
        assert!(
            s(r#"[{"duration_ms": 1, "bandwidth_kbps": 1, "latency_ms": 1, "x": 1}]"#)
                .contains("unknown field `x`")
        );
        assert!(
            s(r#"[{"duration_ms": 1000, "bandwidth_kbps": -5, "latency_ms": 1}]"#)
                .starts_with("period 0: bandwidth_kbps = -5 is out of range")
        );
        assert!(
            s(r#"[{"duration_ms": "1s", "bandwidth_kbps": 1, "latency_ms": 1}]"#)
                .starts_with("invalid type: string \"1s\", expected a number at line 1")
        );
    }
}
