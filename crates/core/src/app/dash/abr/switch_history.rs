//! dash.js SwitchHistoryRule (with its `SwitchRequestHistory`): cap the
//! quality below a level that keeps having to drop.
//!
//! # In a nutshell
//!
//! Every decision is logged against the level that was current when it was
//! made, as a *drop* (new < current) or a *no-drop*, in a rolling window of
//! the last 8 decisions. The rule walks the levels upwards accumulating the
//! counts:
//!
//! ```text
//!   drops = noDrops = 0
//!   for level i = 0, 1, …:
//!       drops += drops_i;  noDrops += noDrops_i
//!       if drops + noDrops ≥ sample_size and drops / noDrops > 0.075:
//!           propose i − 1 if i > 0 and drops_i > 0, else i;  stop
//!   NO_CHANGE
//! ```
//!
//! `drops / noDrops` with no no-drops is +∞ (JS division), so with a full
//! sample one drop suffices. An abandonment resets the history and logs the
//! abandonment's switch.
//!
//! # References
//!
//! * dash.js v3.x/v4 `src/streaming/rules/SwitchRequestHistory.js`
//!   (`SWITCH_REQUEST_HISTORY_DEPTH` = 8), `rules/abr/SwitchHistoryRule.js`
//!   (`SAMPLE_SIZE` = 6, `MAX_SWITCH` = 0.075); v5 `sampleSize` = 8.
//! * bloatlab spec `abr-and-traces.md` §1.7.
//!
//! # Deviations
//!
//! * None in the rule. Whether NO_CHANGE decisions are logged (as no-drops,
//!   v3) or not (v5) is the profile's `switch_history_logs_no_change`,
//!   applied by the controller.
//!
//! # Constants
//!
//! | Name | Value | Unit | Meaning | Source |
//! |------|-------|------|---------|--------|
//! | (profile) `switch_history_depth` | 8 | decisions | rolling window | `SWITCH_REQUEST_HISTORY_DEPTH` |
//! | (profile) `switch_history_sample_size` | 6 / 8 | decisions | needed before acting | `SAMPLE_SIZE` / `sampleSize` |
//! | (profile) `switch_history_threshold` | 0.075 | — | drops/no-drops ratio | `MAX_SWITCH` |

use crate::app::dash::profile::Profile;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Counts {
    drops: u32,
    no_drops: u32,
}

/// The decision log and the rule reading it.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchHistory {
    depth: usize,
    sample_size: u32,
    threshold: f64,
    /// Running totals per level (the level current when the decision was made).
    totals: Vec<Counts>,
    /// (level, was a drop), oldest first.
    window: VecDeque<(usize, bool)>,
}

impl SwitchHistory {
    pub fn new(profile: &Profile) -> Self {
        SwitchHistory {
            depth: profile.switch_history_depth,
            sample_size: profile.switch_history_sample_size as u32,
            threshold: profile.switch_history_threshold,
            totals: Vec::new(),
            window: VecDeque::new(),
        }
    }

    /// Logs a decision taken at level `old` that chose `new`.
    pub fn push(&mut self, old: usize, new: usize) {
        if self.totals.len() <= old {
            self.totals.resize(old + 1, Counts::default());
        }
        let drop = new < old;
        self.count(old, drop, true);
        self.window.push_back((old, drop));
        if self.window.len() > self.depth {
            let (level, drop) = self.window.pop_front().expect("non-empty");
            self.count(level, drop, false);
        }
    }

    fn count(&mut self, level: usize, drop: bool, add: bool) {
        let c = &mut self.totals[level];
        let n = if drop { &mut c.drops } else { &mut c.no_drops };
        if add {
            *n += 1;
        } else {
            *n -= 1;
        }
    }

    /// Forgets everything (after an abandonment).
    pub fn reset(&mut self) {
        self.totals.clear();
        self.window.clear();
    }

    /// The rule's proposal, `None` for NO_CHANGE.
    pub fn propose(&self) -> Option<usize> {
        let (mut drops, mut no_drops) = (0u32, 0u32);
        for (i, c) in self.totals.iter().enumerate() {
            drops += c.drops;
            no_drops += c.no_drops;
            if drops + no_drops >= self.sample_size
                && drops as f64 / no_drops as f64 > self.threshold
            {
                return Some(if i > 0 && c.drops > 0 { i - 1 } else { i });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_decisions_never_cap() {
        let mut h = SwitchHistory::new(&Profile::v3());
        for _ in 0..20 {
            h.push(4, 4);
        }
        assert_eq!(h.propose(), None);
    }

    #[test]
    fn one_drop_in_a_full_sample_caps_below_the_dropping_level() {
        // v3 (sample 6): five no-drops at level 5, then a drop 5 → 3 logged against level 5.
        // Walk: levels 0–4 have nothing; at level 5 drops = 1, noDrops = 5, total 6 ≥ 6, ratio 0.2 >
        // 0.075 and level 5 itself dropped → propose 4.
        let mut h = SwitchHistory::new(&Profile::v3());
        for _ in 0..5 {
            h.push(5, 5);
        }
        assert_eq!(h.propose(), None);
        h.push(5, 3);
        assert_eq!(h.propose(), Some(4));
    }

    #[test]
    fn a_ratio_at_exactly_the_threshold_does_not_cap() {
        // One drop against five no-drops is 0.2: with a threshold of 0.2 that is not above it.
        for (threshold, proposal) in [(0.2, None), (0.19, Some(4))] {
            let profile = Profile {
                switch_history_threshold: threshold,
                ..Profile::v3()
            };
            let mut h = SwitchHistory::new(&profile);
            for _ in 0..5 {
                h.push(5, 5);
            }
            h.push(5, 3);
            assert_eq!(h.propose(), proposal, "threshold {threshold}");
        }
    }

    #[test]
    fn a_sample_of_drops_alone_caps_as_javascript_divides_by_zero_to_infinity() {
        // Six decisions at level 5, each a drop: drops 6, noDrops 0, 6 / 0 = +∞ > 0.075.
        let mut h = SwitchHistory::new(&Profile::v3());
        for _ in 0..6 {
            h.push(5, 3);
        }
        assert_eq!(h.propose(), Some(4));
    }

    #[test]
    fn v5_needs_eight_decisions() {
        let mut h = SwitchHistory::new(&Profile::v5());
        for _ in 0..6 {
            h.push(5, 5);
        }
        h.push(5, 3);
        assert_eq!(h.propose(), None);
        h.push(3, 3);
        // Level 3: 0 drops, 1 no-drop (total 1); level 5: 1 drop, 6 no-drops → cumulative 8, ratio
        // 1/7 = 0.143 > 0.075 → level 5 dropped → propose 4.
        assert_eq!(h.propose(), Some(4));
    }

    #[test]
    fn a_level_without_drops_where_the_sample_fills_is_proposed_itself() {
        // Drops logged at level 2 (2 → 0, twice), then six no-drops at level 3. Walking up:
        // level 2 gives drops 2, total 2 < 6; level 3 gives total 8 ≥ 6, ratio 2/6 > 0.075, and
        // level 3 has no drops of its own → propose 3.
        let mut h = SwitchHistory::new(&Profile::v3());
        h.push(2, 0);
        h.push(2, 0);
        for _ in 0..6 {
            h.push(3, 3);
        }
        assert_eq!(h.propose(), Some(3));
    }

    #[test]
    fn old_decisions_leave_the_window_after_eight_more() {
        let mut h = SwitchHistory::new(&Profile::v3());
        for _ in 0..5 {
            h.push(5, 5);
        }
        h.push(5, 3);
        assert_eq!(h.propose(), Some(4));
        for _ in 0..8 {
            h.push(3, 3);
        }
        assert_eq!(h.propose(), None);
    }

    #[test]
    fn reset_forgets_all_decisions() {
        let mut h = SwitchHistory::new(&Profile::v3());
        for _ in 0..5 {
            h.push(5, 5);
        }
        h.push(5, 3);
        h.reset();
        assert_eq!(h.propose(), None);
    }
}
