//! [`AbrConfig`]: which ABR a DASH player runs, by name or table, and the
//! factory that builds it for a track.
//!
//! ```text
//!   abr = "dynamic"                                         # dash.js default
//!   abr = { kind = "bba", reservoir = "5s", cushion = "10s" }
//!   abr = { kind = "fixed", level = 3 }
//! ```
//!
//! Kinds: `fixed | throughput | bola | dynamic | bba | rb | festive |
//! robust_mpc`. The dash.js kinds take no parameters here: their constants
//! come from the player's [`Profile`]. Unknown kinds and fields are errors
//! that list what is allowed.

use super::bba::{Bba, BbaMap, CUSHION, RESERVOIR};
use super::controller::{initial_level, DashJs, Strategy};
use super::festive::{self, Festive};
use super::fixed::Fixed;
use super::pensieve::HORIZON;
use super::rb::{Rb, P_RB};
use super::robust_mpc::{self, MpcParams, RobustMpc};
use super::Abr;
use crate::app::dash::profile::{duration_str, Profile};
use crate::app::dash::video::Video;
use crate::scenario::kind::name_or_table;
use crate::time::Duration;
use serde::{Deserialize, Deserializer, Serialize};

/// Names accepted for `abr`, for error messages and `bloatlab validate`.
pub const ABR_NAMES: &[&str] = &[
    "fixed",
    "throughput",
    "bola",
    "dynamic",
    "bba",
    "rb",
    "festive",
    "robust_mpc",
];

/// `{ kind = "fixed", level = 3 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedParams {
    pub level: usize,
}

/// The dash.js strategies take no parameters (the profile has them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashJsParams {}

/// `{ kind = "bba", reservoir = "5s", cushion = "10s", map = "rate" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BbaParams {
    #[serde(with = "duration_str")]
    pub reservoir: Duration,
    #[serde(with = "duration_str")]
    pub cushion: Duration,
    /// `rate` (Pensieve's dash.js, default) or `index` (Pensieve's simulator).
    pub map: BbaMap,
}

impl Default for BbaParams {
    fn default() -> Self {
        BbaParams {
            reservoir: RESERVOIR,
            cushion: CUSHION,
            map: BbaMap::Rate,
        }
    }
}

/// `{ kind = "rb", horizon = 5, p_rb = 1.0 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RbParams {
    pub horizon: usize,
    pub p_rb: f64,
}

impl Default for RbParams {
    fn default() -> Self {
        RbParams {
            horizon: HORIZON,
            p_rb: P_RB,
        }
    }
}

/// `{ kind = "festive", p = 0.85, alpha = 12, horizon = 5 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FestiveParams {
    pub p: f64,
    pub alpha: f64,
    pub horizon: usize,
}

impl Default for FestiveParams {
    fn default() -> Self {
        FestiveParams {
            p: festive::P,
            alpha: festive::ALPHA,
            horizon: HORIZON,
        }
    }
}

/// `{ kind = "robust_mpc", horizon = 5, past = 5, rebuf_penalty = 4.3, smooth_penalty = 1, robust = true }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RobustMpcParams {
    pub horizon: usize,
    pub past: usize,
    pub rebuf_penalty: f64,
    pub smooth_penalty: f64,
    /// `false` runs fastMPC (no error discount).
    pub robust: bool,
}

impl Default for RobustMpcParams {
    fn default() -> Self {
        RobustMpcParams {
            horizon: robust_mpc::HORIZON,
            past: robust_mpc::PAST,
            rebuf_penalty: robust_mpc::REBUF_PENALTY,
            smooth_penalty: robust_mpc::SMOOTH_PENALTY,
            robust: true,
        }
    }
}

/// Which ABR a player runs: a table with `kind` (a scenario may also give the bare
/// name; see [`setting`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AbrConfig {
    Fixed(FixedParams),
    Throughput(DashJsParams),
    Bola(DashJsParams),
    Dynamic(DashJsParams),
    Bba(BbaParams),
    Rb(RbParams),
    Festive(FestiveParams),
    RobustMpc(RobustMpcParams),
}

impl Default for AbrConfig {
    /// dash.js's default, DYNAMIC.
    fn default() -> Self {
        AbrConfig::Dynamic(DashJsParams {})
    }
}

impl AbrConfig {
    pub fn name(&self) -> &'static str {
        match self {
            AbrConfig::Fixed(_) => "fixed",
            AbrConfig::Throughput(_) => "throughput",
            AbrConfig::Bola(_) => "bola",
            AbrConfig::Dynamic(_) => "dynamic",
            AbrConfig::Bba(_) => "bba",
            AbrConfig::Rb(_) => "rb",
            AbrConfig::Festive(_) => "festive",
            AbrConfig::RobustMpc(_) => "robust_mpc",
        }
    }

    /// Range checks on the parameters, with a message naming the parameter.
    pub fn validate(&self) -> Result<(), String> {
        let at_least_one = |name: &str, v: usize| {
            if v >= 1 {
                Ok(())
            } else {
                Err(format!("{name} = {v} is out of range: allowed {name} ≥ 1"))
            }
        };
        let positive = |name: &str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(format!("{name} = {v} is out of range: allowed {name} > 0"))
            }
        };
        match self {
            AbrConfig::Fixed(_)
            | AbrConfig::Throughput(_)
            | AbrConfig::Bola(_)
            | AbrConfig::Dynamic(_) => Ok(()),
            AbrConfig::Bba(p) if p.cushion.is_zero() => Err("cushion must be positive".into()),
            AbrConfig::Bba(_) => Ok(()),
            AbrConfig::Rb(p) => {
                at_least_one("horizon", p.horizon)?;
                positive("p_rb", p.p_rb)
            }
            AbrConfig::Festive(p) => {
                at_least_one("horizon", p.horizon)?;
                positive("p", p.p)?;
                if p.alpha >= 0.0 && p.alpha.is_finite() {
                    Ok(())
                } else {
                    Err(format!(
                        "alpha = {} is out of range: allowed alpha ≥ 0",
                        p.alpha
                    ))
                }
            }
            AbrConfig::RobustMpc(p) => {
                at_least_one("horizon", p.horizon)?;
                at_least_one("past", p.past)?;
                if p.horizon > 8 {
                    return Err(format!(
                        "horizon = {} is out of range: allowed 1 ≤ horizon ≤ 8",
                        p.horizon
                    ));
                }
                for (name, v) in [
                    ("rebuf_penalty", p.rebuf_penalty),
                    ("smooth_penalty", p.smooth_penalty),
                ] {
                    if !(v >= 0.0 && v.is_finite()) {
                        return Err(format!("{name} = {v} is out of range: allowed {name} ≥ 0"));
                    }
                }
                Ok(())
            }
        }
    }

    /// Checks that the configuration fits the video (a fixed level exists on its ladder).
    pub fn check_video(&self, video: &Video) -> Result<(), String> {
        match self {
            AbrConfig::Fixed(p) if p.level >= video.levels() => Err(format!(
                "level = {} does not exist: video {:?} has levels 0 to {}",
                p.level,
                video.name,
                video.levels().saturating_sub(1)
            )),
            _ => Ok(()),
        }
    }

    /// The ABR for one track of `video`, with the player's dash.js `profile`
    /// (its constants for the dash.js kinds, its initial bitrate for all).
    pub fn build(&self, video: &Video, profile: &Profile) -> Box<dyn Abr> {
        let initial = initial_level(video, profile);
        match self {
            AbrConfig::Fixed(p) => Box::new(Fixed::new(p.level)),
            AbrConfig::Throughput(_) => Box::new(DashJs::new(Strategy::Throughput, video, profile)),
            AbrConfig::Bola(_) => Box::new(DashJs::new(Strategy::Bola, video, profile)),
            AbrConfig::Dynamic(_) => Box::new(DashJs::new(Strategy::Dynamic, video, profile)),
            AbrConfig::Bba(p) => Box::new(Bba::new(p.reservoir, p.cushion, p.map, initial)),
            AbrConfig::Rb(p) => Box::new(Rb::new(p.horizon, p.p_rb, initial)),
            AbrConfig::Festive(p) => Box::new(Festive::new(p.p, p.alpha, p.horizon, initial)),
            AbrConfig::RobustMpc(p) => Box::new(RobustMpc::new(
                MpcParams {
                    horizon: p.horizon,
                    past: p.past,
                    rebuf_penalty: p.rebuf_penalty,
                    smooth_penalty: p.smooth_penalty,
                    robust: p.robust,
                },
                initial,
            )),
        }
    }
}

/// A scenario's `abr`: a name (`"bola"`) or a table with `kind`. Use with
/// `#[serde(default, deserialize_with = "setting")]` on an `Option<AbrConfig>`.
pub fn setting<'de, D: Deserializer<'de>>(d: D) -> Result<Option<AbrConfig>, D::Error> {
    name_or_table(d, ABR_NAMES).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<AbrConfig, String> {
        let mut de = serde_json::Deserializer::from_str(s);
        setting(&mut de)
            .map(|c| c.expect("a setting"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_name_or_a_table_selects_the_abr() {
        assert_eq!(parse("\"dynamic\"").unwrap(), AbrConfig::default());
        assert_eq!(
            parse(r#"{"kind": "bola"}"#).unwrap(),
            AbrConfig::Bola(DashJsParams {})
        );
        assert_eq!(
            parse(r#"{"kind": "fixed", "level": 3}"#).unwrap(),
            AbrConfig::Fixed(FixedParams { level: 3 })
        );
        let bba = parse(r#"{"kind": "bba", "reservoir": "4s", "cushion": "20s", "map": "index"}"#)
            .unwrap();
        assert_eq!(
            bba,
            AbrConfig::Bba(BbaParams {
                reservoir: Duration::from_secs(4),
                cushion: Duration::from_secs(20),
                map: BbaMap::Index
            })
        );
        assert_eq!(
            parse("\"bba\"").unwrap(),
            AbrConfig::Bba(BbaParams::default())
        );
        assert_eq!(
            parse("\"robust_mpc\"").unwrap(),
            AbrConfig::RobustMpc(RobustMpcParams::default())
        );
    }

    #[test]
    fn unknown_kinds_and_fields_are_errors_that_say_what_is_allowed() {
        let e = parse("\"pensieve\"").unwrap_err();
        assert!(
            e.contains("pensieve")
                && e.contains(
                    "`fixed`, `throughput`, `bola`, `dynamic`, `bba`, `rb`, `festive`, `robust_mpc`"
                ),
            "{e}"
        );
        let e = parse(r#"{"kind": "bba", "reservior": "5s"}"#).unwrap_err();
        assert!(e.contains("reservior") && e.contains("reservoir"), "{e}");
        let e = parse(r#"{"kind": "dynamic", "safety": 0.9}"#).unwrap_err();
        assert!(e.contains("safety"), "{e}");
        let e = parse(r#"{"kind": "fixed"}"#).unwrap_err();
        assert!(e.contains("level"), "{e}");
        let e = parse(r#"{"kind": "bba", "cushion": 10}"#).unwrap_err();
        assert!(e.contains("unit"), "{e}");
    }

    #[test]
    fn every_config_echoes_as_a_table_that_reads_back() {
        let all = [
            AbrConfig::Fixed(FixedParams { level: 2 }),
            AbrConfig::Throughput(DashJsParams {}),
            AbrConfig::Bola(DashJsParams {}),
            AbrConfig::Dynamic(DashJsParams {}),
            AbrConfig::Bba(BbaParams::default()),
            AbrConfig::Rb(RbParams::default()),
            AbrConfig::Festive(FestiveParams::default()),
            AbrConfig::RobustMpc(RobustMpcParams::default()),
        ];
        for c in all {
            let json = serde_json::to_value(&c).unwrap();
            assert_eq!(json["kind"], c.name());
            assert_eq!(serde_json::from_value::<AbrConfig>(json).unwrap(), c);
        }
        let json = serde_json::to_value(AbrConfig::Bba(BbaParams::default())).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "bba", "reservoir": "5s", "cushion": "10s", "map": "rate"})
        );
    }

    #[test]
    fn defaults_match_spec() {
        let b = BbaParams::default();
        assert_eq!(
            (b.reservoir, b.cushion, b.map),
            (
                Duration::from_secs(5),
                Duration::from_secs(10),
                BbaMap::Rate
            )
        );
        assert_eq!(
            RbParams::default(),
            RbParams {
                horizon: 5,
                p_rb: 1.0
            }
        );
        assert_eq!(
            FestiveParams::default(),
            FestiveParams {
                p: 0.85,
                alpha: 12.0,
                horizon: 5
            }
        );
        let m = RobustMpcParams::default();
        assert_eq!(
            (
                m.horizon,
                m.past,
                m.rebuf_penalty,
                m.smooth_penalty,
                m.robust
            ),
            (5, 5, 4.3, 1.0, true)
        );
        assert_eq!(AbrConfig::default().name(), "dynamic");
    }

    #[test]
    fn build_returns_the_named_abr_starting_at_the_initial_level() {
        let v = Video::www21();
        let p = Profile::v3();
        for name in ABR_NAMES {
            let json = if *name == "fixed" {
                r#"{"kind": "fixed", "level": 4}"#.to_string()
            } else {
                format!("\"{name}\"")
            };
            let c = parse(&json).unwrap();
            assert!(c.validate().is_ok());
            let mut abr = c.build(&v, &p);
            assert_eq!(abr.name(), *name);
            let ctx = super::super::testkit::ctx(&v, &[], 0.0, 0, 0.0);
            let want = if *name == "fixed" { 4 } else { 0 };
            assert_eq!(abr.decide(&ctx).level, want, "{name}");
        }
    }

    #[test]
    fn every_range_is_checked_at_its_edges() {
        let rb = |p_rb| {
            AbrConfig::Rb(RbParams {
                p_rb,
                ..RbParams::default()
            })
        };
        let festive = |p, alpha| {
            AbrConfig::Festive(FestiveParams {
                p,
                alpha,
                ..FestiveParams::default()
            })
        };
        let bba = |cushion| {
            AbrConfig::Bba(BbaParams {
                cushion,
                ..BbaParams::default()
            })
        };
        let mpc = |horizon, rebuf_penalty, smooth_penalty| {
            AbrConfig::RobustMpc(RobustMpcParams {
                horizon,
                rebuf_penalty,
                smooth_penalty,
                ..RobustMpcParams::default()
            })
        };
        let cases = [
            (rb(1e-9), None),
            (rb(0.0), Some("p_rb = 0 is out of range: allowed p_rb > 0")),
            (rb(f64::INFINITY), Some("p_rb = inf")),
            (festive(1e-9, 0.0), None),
            (festive(0.0, 12.0), Some("p = 0 is out of range")),
            (
                festive(0.85, -1.0),
                Some("alpha = -1 is out of range: allowed alpha ≥ 0"),
            ),
            (festive(0.85, f64::INFINITY), Some("alpha = inf")),
            (bba(Duration::from_nanos(1)), None),
            (bba(Duration::ZERO), Some("cushion must be positive")),
            (mpc(8, 0.0, 0.0), None),
            (
                mpc(9, 4.3, 1.0),
                Some("horizon = 9 is out of range: allowed 1 ≤ horizon ≤ 8"),
            ),
            (
                mpc(5, -0.5, 1.0),
                Some("rebuf_penalty = -0.5 is out of range"),
            ),
            (mpc(5, f64::INFINITY, 1.0), Some("rebuf_penalty = inf")),
            (
                mpc(5, 4.3, -1.0),
                Some("smooth_penalty = -1 is out of range"),
            ),
            (mpc(5, 4.3, f64::NAN), Some("smooth_penalty = NaN")),
        ];
        for (config, want) in cases {
            crate::testing::assert_validation(config.validate(), want, &config);
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let c = AbrConfig::RobustMpc(RobustMpcParams {
            horizon: 0,
            ..RobustMpcParams::default()
        });
        assert!(c.validate().unwrap_err().contains("horizon"));
        let c = AbrConfig::Festive(FestiveParams {
            p: -1.0,
            ..FestiveParams::default()
        });
        assert!(c.validate().unwrap_err().contains("p ="));
        let c = AbrConfig::Fixed(FixedParams { level: 11 });
        assert!(c
            .check_video(&Video::www21())
            .unwrap_err()
            .contains("0 to 10"));
        assert!(AbrConfig::Fixed(FixedParams { level: 10 })
            .check_video(&Video::www21())
            .is_ok());
    }
}
