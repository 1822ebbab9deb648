//! Unit strings in scenarios: rates ("25Mbps"), durations ("100ms"), sizes
//! ("1MB", "64KiB") and queue limits ("100KB", "100pkts", "8BDP").
//!
//! `K/M/G` are 1000-based and `Ki/Mi/Gi` 1024-based (tc's own parser uses
//! 1024 for sizes — scenarios say which they mean). Each parser returns a
//! message naming the value and what is allowed, for the field-named error
//! the scenario loader wraps around it.

use crate::time::Duration;
use crate::units::Rate;
use serde::{Deserialize, Deserializer};

/// The number and the unit of `s`; the number may have an exponent (`"1.5e6bps"`), as no
/// unit starts with an `e`.
fn split(s: &str) -> (&str, &str) {
    let s = s.trim();
    let numeric = |c: char| c.is_ascii_digit() || c == '.' || c == '-' || c == '+';
    let mut i = s.find(|c: char| !numeric(c)).unwrap_or(s.len());
    let rest = &s.as_bytes()[i..];
    if matches!(rest.first(), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(rest.get(1), Some(b'+' | b'-')));
        let digits = rest[1 + sign..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 {
            i += 1 + sign + digits;
        }
    }
    (s[..i].trim(), s[i..].trim())
}

/// The largest values a scenario may give, so that sums of them cannot overflow the core's
/// integer nanoseconds, bits per second and bytes (each bound leaves a factor of ≥ 18).
const MAX_SECONDS: f64 = 1e9; // 31.7 years
const MAX_BPS: f64 = 1e13; // 10 Tb/s
const MAX_BYTES: f64 = 1e18;

/// `value` (in the parser's base unit) if it is at most `max`, else the error naming `raw`.
fn at_most(value: f64, max: f64, raw: &str, allowed: &str) -> Result<f64, String> {
    if value <= max {
        Ok(value)
    } else {
        Err(format!("{raw:?} is out of range: allowed ≤ {allowed}"))
    }
}

fn number(num: &str, raw: &str, what: &str) -> Result<f64, String> {
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{raw:?} is not a valid {what}"))?;
    if !v.is_finite() {
        return Err(format!("{raw:?} is not a valid {what}"));
    }
    Ok(v)
}

const RATE_HELP: &str =
    "expected a number ≥ 0 with a unit: bps, Kbps, Mbps, Gbps (1000-based), e.g. \"25Mbps\"";
const DURATION_HELP: &str = "expected a number ≥ 0 with a unit: ns, us, ms, s, min, e.g. \"100ms\"";
const SIZE_HELP: &str = "expected a number ≥ 0 with a unit: B, KB, MB, GB (1000-based) or KiB, MiB, GiB (1024-based), e.g. \"1MB\"";
const LIMIT_HELP: &str = "expected bytes (\"100KB\"), packets (\"100pkts\") or a multiple of the bandwidth-delay product (\"8BDP\")";

pub fn parse_rate(raw: &str) -> Result<Rate, String> {
    let (num, unit) = split(raw);
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bps" | "bit" | "bit/s" => 1.0,
        "kbps" | "kbit" | "kbit/s" => 1e3,
        "mbps" | "mbit" | "mbit/s" => 1e6,
        "gbps" | "gbit" | "gbit/s" => 1e9,
        _ => return Err(format!("{raw:?} is not a rate: {RATE_HELP}")),
    };
    let v = number(num, raw, "rate").map_err(|e| format!("{e}: {RATE_HELP}"))?;
    if v < 0.0 {
        return Err(format!("{raw:?} is negative: {RATE_HELP}"));
    }
    let bps = at_most(v * scale, MAX_BPS, raw, "10000Gbps")?;
    if bps > 0.0 && bps < 0.5 {
        // it would round to 0 bps, which a field would then report as "0bps"
        return Err(format!(
            "{raw:?} is out of range: allowed 0 or ≥ 1bps (rates are whole bits per second)"
        ));
    }
    Ok(Rate::from_bps_f64(bps))
}

pub fn parse_duration(raw: &str) -> Result<Duration, String> {
    let (num, unit) = split(raw);
    let scale = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        "min" => 60.0,
        _ => return Err(format!("{raw:?} is not a duration: {DURATION_HELP}")),
    };
    let v = number(num, raw, "duration").map_err(|e| format!("{e}: {DURATION_HELP}"))?;
    if v < 0.0 {
        return Err(format!("{raw:?} is negative: {DURATION_HELP}"));
    }
    Ok(Duration::from_secs_f64(at_most(
        v * scale,
        MAX_SECONDS,
        raw,
        "1e9s (31.7 years)",
    )?))
}

fn size_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "B" | "b" | "bytes" => 1.0,
        "KB" | "kB" | "kb" => 1e3,
        "MB" | "mb" => 1e6,
        "GB" | "gb" => 1e9,
        "KiB" | "kib" => 1024.0,
        "MiB" | "mib" => 1024.0 * 1024.0,
        "GiB" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

pub fn parse_size(raw: &str) -> Result<u64, String> {
    let (num, unit) = split(raw);
    let scale = size_scale(unit).ok_or_else(|| format!("{raw:?} is not a size: {SIZE_HELP}"))?;
    let v = number(num, raw, "size").map_err(|e| format!("{e}: {SIZE_HELP}"))?;
    if v < 0.0 {
        return Err(format!("{raw:?} is negative: {SIZE_HELP}"));
    }
    Ok(at_most(v * scale, MAX_BYTES, raw, "1e18B")?.round() as u64)
}

/// A queue limit as written, before BDP multiples are resolved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitSpec {
    Bytes(u64),
    Packets(u64),
    Bdp(f64),
}

pub fn parse_limit(raw: &str) -> Result<LimitSpec, String> {
    let (num, unit) = split(raw);
    let lower = unit.to_ascii_lowercase();
    if lower == "pkts" || lower == "pkt" || lower == "packets" || lower == "p" {
        let v = number(num, raw, "packet count").map_err(|e| format!("{e}: {LIMIT_HELP}"))?;
        if v < 0.0 || v.fract() != 0.0 {
            return Err(format!(
                "{raw:?} is not a whole number of packets: {LIMIT_HELP}"
            ));
        }
        return Ok(LimitSpec::Packets(at_most(
            v,
            MAX_BYTES / super::FULL_PACKET_BYTES as f64,
            raw,
            "6.7e14pkts (1e18B of full packets)",
        )? as u64));
    }
    if lower == "bdp" {
        let v = number(num, raw, "BDP multiple").map_err(|e| format!("{e}: {LIMIT_HELP}"))?;
        if v < 0.0 {
            return Err(format!("{raw:?} is negative: {LIMIT_HELP}"));
        }
        return Ok(LimitSpec::Bdp(at_most(v, 1e6, raw, "1e6BDP")?));
    }
    if size_scale(unit).is_some() {
        return parse_size(raw).map(LimitSpec::Bytes);
    }
    Err(format!("{raw:?} is not a queue limit: {LIMIT_HELP}"))
}

/// Declares a serde wrapper that reads a unit string through a parser.
macro_rules! unit_field {
    ($name:ident, $inner:ty, $parse:path, $help:expr) => {
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use serde::de::Error;
                match serde_json::Value::deserialize(d)? {
                    serde_json::Value::String(s) => $parse(&s).map($name).map_err(D::Error::custom),
                    other => Err(D::Error::custom(format!(
                        "{other} is not a string with a unit: {}",
                        $help
                    ))),
                }
            }
        }
    };
}

unit_field!(RateField, Rate, parse_rate, RATE_HELP);
unit_field!(DurationField, Duration, parse_duration, DURATION_HELP);
unit_field!(SizeField, u64, parse_size, SIZE_HELP);
unit_field!(LimitField, LimitSpec, parse_limit, LIMIT_HELP);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_scale_as_documented() {
        assert_eq!(parse_rate("25Mbps").unwrap(), Rate::from_mbps(25));
        assert_eq!(parse_rate("1.5 Gbps").unwrap().bps(), 1_500_000_000);
        assert_eq!(parse_duration("100ms").unwrap(), Duration::from_millis(100));
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_size("1MB").unwrap(), 1_000_000);
        assert_eq!(parse_size("64KiB").unwrap(), 65_536);
        assert_eq!(parse_limit("8BDP").unwrap(), LimitSpec::Bdp(8.0));
        assert_eq!(parse_limit("100pkts").unwrap(), LimitSpec::Packets(100));
        assert_eq!(parse_limit("10MB").unwrap(), LimitSpec::Bytes(10_000_000));
    }

    #[test]
    fn every_unit_spelling_scales_as_documented() {
        for (raw, bps) in [
            ("3bps", 3),
            ("3bit", 3),
            ("3bit/s", 3),
            ("3Kbps", 3_000),
            ("3kbit", 3_000),
            ("3kbit/s", 3_000),
            ("3mbps", 3_000_000),
            ("3Mbit", 3_000_000),
            ("3mbit/s", 3_000_000),
            ("3GBPS", 3_000_000_000),
            ("3gbit", 3_000_000_000),
            ("3Gbit/s", 3_000_000_000),
        ] {
            assert_eq!(parse_rate(raw).unwrap().bps(), bps, "{raw}");
        }
        for (raw, ns) in [
            ("3ns", 3),
            ("3us", 3_000),
            ("3µs", 3_000),
            ("3ms", 3_000_000),
            ("3s", 3_000_000_000),
            ("3sec", 3_000_000_000),
            ("3min", 180_000_000_000),
        ] {
            assert_eq!(parse_duration(raw).unwrap().as_nanos(), ns, "{raw}");
        }
        for (raw, bytes) in [
            ("3B", 3),
            ("3b", 3),
            ("3bytes", 3),
            ("3KB", 3_000),
            ("3kB", 3_000),
            ("3kb", 3_000),
            ("3MB", 3_000_000),
            ("3mb", 3_000_000),
            ("3GB", 3_000_000_000),
            ("3gb", 3_000_000_000),
            ("3KiB", 3 << 10),
            ("3kib", 3 << 10),
            ("3MiB", 3 << 20),
            ("3mib", 3 << 20),
            ("3GiB", 3 << 30),
            ("3gib", 3 << 30),
        ] {
            assert_eq!(parse_size(raw).unwrap(), bytes, "{raw}");
            assert_eq!(parse_limit(raw).unwrap(), LimitSpec::Bytes(bytes), "{raw}");
        }
        for raw in ["3pkts", "3pkt", "3packets", "3p", "3PKTS"] {
            assert_eq!(parse_limit(raw).unwrap(), LimitSpec::Packets(3), "{raw}");
        }
        assert_eq!(parse_limit("2.5bdp").unwrap(), LimitSpec::Bdp(2.5));
    }

    #[test]
    fn numbers_may_be_fractional_zero_or_spaced_and_sizes_round_to_bytes() {
        assert_eq!(parse_rate(" 2.5 Mbps ").unwrap().bps(), 2_500_000);
        assert_eq!(parse_rate("0Mbps").unwrap().bps(), 0);
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert_eq!(
            parse_duration("+1.5ms").unwrap(),
            Duration::from_micros(1500)
        );
        assert_eq!(parse_size("1.5B").unwrap(), 2);
        assert_eq!(parse_size("1.4B").unwrap(), 1);
        assert_eq!(parse_limit("0pkts").unwrap(), LimitSpec::Packets(0));
        assert_eq!(parse_limit("0BDP").unwrap(), LimitSpec::Bdp(0.0));
    }

    #[test]
    fn negative_or_unreadable_numbers_are_refused_by_every_parser() {
        let overflow = format!("1{}", "0".repeat(400)); // parses to infinity
        for unit in ["Mbps", "ms", "MB", "BDP", "pkts"] {
            let negative = format!("-2{unit}");
            let parse = |raw: &str| match unit {
                "Mbps" => parse_rate(raw).map(drop),
                "ms" => parse_duration(raw).map(drop),
                "MB" => parse_size(raw).map(drop),
                _ => parse_limit(raw).map(drop),
            };
            let e = parse(&negative).unwrap_err();
            assert!(e.contains(&format!("{negative:?}")), "{e}");
            assert!(e.contains("negative") || e.contains("whole number"), "{e}");
            for bad in [
                format!("{overflow}{unit}"),
                format!("1.2.3{unit}"),
                unit.to_string(),
            ] {
                let e = parse(&bad).unwrap_err();
                assert!(e.contains("is not a valid"), "{bad}: {e}");
                assert!(e.contains("expected"), "the allowed form is stated: {e}");
            }
        }
    }

    #[test]
    fn a_field_reads_a_unit_string_and_refuses_a_bare_number() {
        let rate: RateField = serde_json::from_str("\"25Mbps\"").unwrap();
        assert_eq!(rate.0, Rate::from_mbps(25));
        let limit: LimitField = serde_json::from_str("\"100pkts\"").unwrap();
        assert_eq!(limit.0, LimitSpec::Packets(100));
        let e = serde_json::from_str::<DurationField>("100").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("100 is not a string with a unit: expected a number ≥ 0"),
            "{e}"
        );
        let e = serde_json::from_str::<SizeField>("\"10 parsecs\"").unwrap_err();
        assert!(e.to_string().contains("is not a size"), "{e}");
    }

    #[test]
    fn numbers_may_have_an_exponent_and_are_bounded_so_sums_cannot_overflow() {
        assert_eq!(parse_rate("1.5e6bps").unwrap().bps(), 1_500_000);
        assert_eq!(parse_rate("2E+1 Mbps").unwrap(), Rate::from_mbps(20));
        assert_eq!(parse_duration("1e-3s").unwrap(), Duration::from_millis(1));
        assert_eq!(parse_size("1e3KB").unwrap(), 1_000_000);
        assert_eq!(parse_limit("5e1pkts").unwrap(), LimitSpec::Packets(50));
        assert_eq!(parse_rate("1e4Gbps").unwrap().bps(), 10_000_000_000_000);
        let cases = [
            (
                parse_rate("1.1e4Gbps").map(drop),
                "\"1.1e4Gbps\" is out of range: allowed ≤ 10000Gbps",
            ),
            (
                parse_duration("1e23s").map(drop),
                "\"1e23s\" is out of range: allowed ≤ 1e9s (31.7 years)",
            ),
            (
                parse_size("2e18B").map(drop),
                "\"2e18B\" is out of range: allowed ≤ 1e18B",
            ),
            (
                parse_limit("1e15pkts").map(drop),
                "\"1e15pkts\" is out of range: allowed ≤ 6.7e14pkts (1e18B of full packets)",
            ),
            (
                parse_limit("2e6BDP").map(drop),
                "\"2e6BDP\" is out of range: allowed ≤ 1e6BDP",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got.unwrap_err(), want);
        }
        assert!(parse_duration("1e9s").is_ok() && parse_size("1e18B").is_ok());
        // a rate that would round to 0 bps is refused as written
        assert_eq!(
            parse_rate("1e-12bps").unwrap_err(),
            "\"1e-12bps\" is out of range: allowed 0 or ≥ 1bps (rates are whole bits per second)"
        );
        assert_eq!(parse_rate("0.5bps").unwrap().bps(), 1);
        // an `e` without digits is not an exponent
        assert!(parse_rate("1e").unwrap_err().contains("is not a rate"));
    }

    #[test]
    fn bad_strings_name_the_value_and_the_allowed_form() {
        let e = parse_rate("-5Mbps").unwrap_err();
        assert!(e.contains("\"-5Mbps\"") && e.contains("Mbps"), "{e}");
        assert!(parse_rate("25").unwrap_err().contains("unit"));
        assert!(parse_duration("10 parsecs")
            .unwrap_err()
            .contains("\"10 parsecs\""));
        assert!(parse_limit("1.5pkts").unwrap_err().contains("whole number"));
        assert!(parse_size("lots").is_err());
        assert!(parse_limit("5")
            .unwrap_err()
            .contains("is not a queue limit"));
        assert!(parse_limit("-1BDP").unwrap_err().contains("negative"));
        assert!(parse_limit("-1pkts").unwrap_err().contains("whole number"));
    }
}
