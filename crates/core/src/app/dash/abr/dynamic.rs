//! dash.js DYNAMIC: which of BolaRule and ThroughputRule is consulted.
//!
//! # In a nutshell
//!
//! One bit of state per media type, THROUGHPUT at start, updated on every
//! buffer-level observation B with hysteresis around the stable buffer time:
//!
//! ```text
//!   on  = buffer_time_default              (v3: 12 s, v5: 18 s)
//!   off = 0.5 × buffer_time_default        (v3:  6 s, v5:  9 s)
//!
//!            B > on  (v5: B ≥ on)
//!   THROUGHPUT ───────────────────▶ BOLA
//!        ▲                            │
//!        └────────────────────────────┘
//!            B ≤ off (v5: B < off)
//! ```
//!
//! This is what dash.js ships (v3.2.2, v4.7.4, v5 `AbrController`), not the
//! MMSys'18 paper's DYNAMIC (10 s threshold plus "BOLA only if its choice is
//! at least throughput's") that Sabre's `dynamic` implements.
//!
//! # References
//!
//! * dash.js v3.x `AbrController.updateIsUsingBufferOccupancyABR`, v5
//!   `_updateDynamicAbrStrategy`; bloatlab spec `abr-and-traces.md` §1.5.
//!
//! # Deviations
//!
//! * dash.js evaluates the hysteresis on every BUFFER_LEVEL metric (each
//!   append and each playback `timeupdate`); here it is evaluated whenever the
//!   player reports the buffer (`decide`, `on_download`, `on_buffer_level`),
//!   so the player should call `on_buffer_level` at least around appends.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (profile) `buffer_time_default` | 12 / 18 | s | switch-on threshold | Settings.js |
//! | (profile) `dynamic_off_fraction` | 0.5 | — | switch-off threshold / switch-on threshold | AbrController |
//! | (profile) `dynamic_strict` | on / off | — | compare with `>` (v3/v4) or `≥` (v5) | AbrController |

use crate::app::dash::profile::Profile;
use crate::time::Duration;

/// DYNAMIC's state: whether BOLA (buffer occupancy) is in charge.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicSwitch {
    use_bola: bool,
    on: Duration,
    off: Duration,
    strict: bool,
}

impl DynamicSwitch {
    /// Starts in THROUGHPUT mode.
    pub fn new(profile: &Profile) -> Self {
        DynamicSwitch {
            use_bola: false,
            on: profile.dynamic_on_threshold(),
            off: profile.dynamic_off_threshold(),
            strict: profile.dynamic_strict,
        }
    }

    /// A buffer-level observation.
    pub fn update(&mut self, buffer: Duration) {
        let threshold = if self.use_bola { self.off } else { self.on };
        self.use_bola = if self.strict {
            buffer > threshold
        } else {
            buffer >= threshold
        };
    }

    pub fn is_bola(&self) -> bool {
        self.use_bola
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(profile: &Profile, levels_s: &[f64]) -> Vec<bool> {
        let mut d = DynamicSwitch::new(profile);
        levels_s
            .iter()
            .map(|&b| {
                d.update(Duration::from_secs_f64(b));
                d.is_bola()
            })
            .collect()
    }

    #[test]
    fn v3_switches_to_bola_strictly_above_12s_and_back_at_or_below_6s() {
        // 12 s exactly stays THROUGHPUT (strict >); 12.1 → BOLA; 6.1 keeps BOLA; 6 exactly → THROUGHPUT.
        let got = run(
            &Profile::v3(),
            &[0.0, 12.0, 12.1, 8.0, 6.1, 6.0, 11.9, 12.5],
        );
        assert_eq!(got, [false, false, true, true, true, false, false, true]);
    }

    #[test]
    fn v5_switches_to_bola_at_18s_and_back_below_9s() {
        // 18 s exactly → BOLA (≥); 9 s exactly keeps BOLA; 8.99 → THROUGHPUT; 17 stays THROUGHPUT.
        let got = run(&Profile::v5(), &[12.5, 18.0, 9.0, 8.99, 17.0, 18.0]);
        assert_eq!(got, [false, true, true, false, false, true]);
    }

    #[test]
    fn starts_in_throughput_mode() {
        assert!(!DynamicSwitch::new(&Profile::v3()).is_bola());
    }
}
