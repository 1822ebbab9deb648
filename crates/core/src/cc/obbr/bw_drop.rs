//! oBBR's "timely bandwidth updates": detect a bandwidth drop, lower the
//! estimate to the mean of the recent samples, and revert if delivery got worse.
//!
//! ```text
//!   per valid non-app-limited sample in PROBE_BW:  ring[i++ mod k] = s
//!                                                  low = (s < 0.75 · max_bw) ? low + 1 : 0
//!   per ACK:  high = (rtt_latest > 2.5 · min_rtt) ? high + 1 : 0
//!   on an ACK with loss, idle, and (low ≥ k or high > k):  phase = 0, restart the score window
//!
//!   every T (200 ms) window:  U = delivered − 10 · unacked
//!     phase 0, 1:  S1 = S2, S2 = U;  at phase 1: backup = max_bw, max_bw := mean(ring), low = high = 0
//!     phase 2, 3:  S3 = S4, S4 = U;  at phase 3: if S3 + S4 < S1 + S2 and the last revert is
//!                                    > 10 · min_rtt old: push backup into the max filter,
//!                                    last revert = now;  idle
//! ```
//!
//! This is the last `ngx_bbr.c` (3ae3fc9), as `specs/cca.md` §6 and the paper (§4) have it.
//! Earlier revisions (cb4955b, 14af1f3, 525597c) reset to `max(ring)` (computing the mean and
//! not using it), `drop_reset = "max"`, and put the hold-off on the low-bandwidth trigger
//! instead of the revert (`low ≥ k and the last revert is > 10 · min_rtt old`), `holdoff =
//! "low_bandwidth"`.
//!
//! So two windows are scored with the old estimate, two with the new, and the
//! estimate is restored when the second pair scored lower. Every ACK that finds BBR in
//! PROBE_RTT when it updates min_rtt (entering it, in it, or leaving it) restarts the
//! window at the next ACK (`change_sc`), so no window spans PROBE_RTT.
//!
//! The ring's contents and the two counters belong to the connection (`bbr->max_down`,
//! `bw_down_cnt`, `up_rtt`); everything else is a process global in the artifact (`cc`,
//! `change_sc`, `score_time`, `first_sent`, `first_delivered`, `score1..4`, `bw_back`,
//! `re_timer`, and the ring's write index `bw_cnt`): [`Scoring`], shared by the host's oBBR
//! connections with `shared_state = true`. Then one connection's drop starts the host's
//! scoring, a window is opened by one connection's counters and closed by another's, the
//! connection whose ACK closes the second window has its own estimate reset (and its
//! estimate becomes the backup), the one that closes the fourth gets that backup, and each
//! connection's samples land in its ring at the host's index, so its ring also holds
//! older samples where the other connections' writes went. The artifact's testbed ran one
//! nginx process per flow (`mul.sh`), where none of this happens.
//!
//! "unacked" is the artifact's `sent − delivered`, where `sent` is the bytes
//! sent as of the newest delivered packet's transmission. Every packet sent
//! before that one is by now delivered, lost or (rarely, under reordering)
//! still outstanding, so `sent − delivered` grows by the packets marked lost;
//! we score `unacked` as the packets marked lost in the window (the transport
//! does not lend a per-packet "bytes sent" snapshot). Scores are in packets,
//! the artifact's in bytes: only their comparison matters.

use super::{DropReset, Holdoff, Params};
use crate::time::{Duration, Time};
use std::cell::RefCell;
use std::rc::Rc;

/// What the detector asks of the bandwidth filter on this ACK.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Action {
    None,
    /// Replace the estimate with this (packets/s).
    ResetTo(f64),
    /// Offer the pre-reset estimate (packets/s) back to the max filter.
    Restore(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Window {
    start: Time,
    delivered: u64,
    lost: u64,
}

/// The detector's state that the artifact keeps in process globals.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Scoring {
    /// Samples written into rings so far; the next goes to `writes mod k` (`bw_cnt`).
    writes: u64,
    /// `None` = idle (the artifact's `cc == −1`), else windows scored since detection.
    phase: Option<u8>,
    window: Option<Window>,
    /// The next ACK opens a new window (`change_sc`).
    restart: bool,
    /// S1..S4.
    scores: [i64; 4],
    /// The estimate before the reset (`bw_back`), packets/s.
    backup: f64,
    /// The last revert (`re_timer`).
    last_revert: Option<Time>,
}

/// The detector: a connection's ring and counters, and the (possibly host-wide) [`Scoring`].
#[derive(Clone, Debug)]
pub(super) struct BwDrop {
    /// Last k valid non-app-limited PROBE_BW samples, packets/s (`max_down[30]`).
    ring: Vec<f64>,
    /// Consecutive samples below `bw_drop_ratio × max_bw` (`bw_down_cnt`).
    pub low_bw: u32,
    /// Consecutive ACKs with `rtt_latest > rtt_ratio × min_rtt` (`up_rtt`).
    pub high_rtt: u32,
    scoring: Rc<RefCell<Scoring>>,
}

impl BwDrop {
    pub fn new(k: usize, scoring: Rc<RefCell<Scoring>>) -> Self {
        BwDrop {
            ring: vec![0.0; k],
            low_bw: 0,
            high_rtt: 0,
            scoring,
        }
    }

    /// A valid, non-app-limited sample taken in PROBE_BW; `max_bw` is the estimate before this ACK.
    pub fn on_sample(&mut self, p: &Params, sample: f64, max_bw: f64) {
        let mut s = self.scoring.borrow_mut();
        let slot = (s.writes % self.ring.len() as u64) as usize;
        self.ring[slot] = sample;
        s.writes += 1;
        self.low_bw = if sample < p.bw_drop_ratio * max_bw {
            self.low_bw + 1
        } else {
            0
        };
    }

    /// The next ACK starts a new score window (detection, PROBE_RTT).
    pub fn restart_window(&mut self) {
        self.scoring.borrow_mut().restart = true;
    }

    /// `update_cc_mode`'s detection and scoring. `delivered`/`lost` are the
    /// connection's cumulative packet counts; `max_bw` the estimate before this ACK.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        p: &Params,
        now: Time,
        lost_now: bool,
        rtt_latest: Option<Duration>,
        min_rtt: Option<Duration>,
        (delivered, lost): (u64, u64),
        max_bw: f64,
    ) -> Action {
        let rtt_high = match (rtt_latest, min_rtt) {
            (Some(r), Some(m)) => r.as_secs_f64() > p.rtt_ratio * m.as_secs_f64(),
            _ => false,
        };
        self.high_rtt = if rtt_high { self.high_rtt + 1 } else { 0 };
        let k = self.ring.len() as u32;
        let mut s = self.scoring.borrow_mut();
        let low_bw = self.low_bw >= k && !s.held_off(p, Holdoff::LowBandwidth, now, min_rtt);
        if lost_now && (low_bw || self.high_rtt > k) && s.phase.is_none() {
            s.phase = Some(0);
            s.restart = true;
        }
        let Some(score) = s.close_window(p, now, delivered, lost) else {
            return Action::None;
        };
        let mut action = Action::None;
        match s.phase {
            None => {}
            Some(phase @ (0 | 1)) => {
                s.scores[0] = s.scores[1];
                s.scores[1] = score;
                if phase == 1 {
                    s.backup = max_bw;
                    action = Action::ResetTo(match p.drop_reset {
                        DropReset::Max => self.ring.iter().copied().fold(0.0, f64::max),
                        DropReset::Mean => self.ring.iter().sum::<f64>() / self.ring.len() as f64,
                    });
                    self.low_bw = 0;
                    self.high_rtt = 0;
                }
            }
            Some(phase) => {
                s.scores[2] = s.scores[3];
                s.scores[3] = score;
                if phase == 3 {
                    let [s1, s2, s3, s4] = s.scores;
                    if s3 + s4 < s1 + s2 && !s.held_off(p, Holdoff::Revert, now, min_rtt) {
                        action = Action::Restore(s.backup);
                        s.last_revert = Some(now);
                    }
                    s.phase = None;
                }
            }
        }
        if let Some(phase) = s.phase {
            s.phase = Some(phase + 1);
        }
        action
    }

    /// Windows scored since detection; `None` while idle.
    #[cfg(test)]
    pub fn phase(&self) -> Option<u8> {
        self.scoring.borrow().phase
    }

    /// When the open score window started.
    #[cfg(test)]
    pub fn window_start(&self) -> Option<Time> {
        self.scoring.borrow().window.map(|w| w.start)
    }

    /// The last four window scores, S1..S4 (packets).
    #[cfg(test)]
    pub fn scores(&self) -> [i64; 4] {
        self.scoring.borrow().scores
    }
}

impl Scoring {
    /// Within `revert_holdoff_rtts` min_rtt of the last revert (`re_timer`) for what
    /// `holdoff` gates: the next revert, or low samples flagging a drop.
    fn held_off(&self, p: &Params, gate: Holdoff, now: Time, min_rtt: Option<Duration>) -> bool {
        if p.holdoff != gate {
            return false;
        }
        match (self.last_revert, min_rtt) {
            (None, _) => false,
            (Some(t), Some(m)) => {
                now.saturating_since(t) <= m.mul_f64(p.revert_holdoff_rtts as f64)
            }
            (Some(_), None) => true,
        }
    }

    /// Opens a window if asked or none is open; else, once it is older than T, closes it
    /// with this ACK's counters, opens the next, and returns its score `U = delivered −
    /// weight · lost`. The counters may be another connection's than those that opened
    /// the window (shared scoring), so the differences are signed.
    fn close_window(&mut self, p: &Params, now: Time, delivered: u64, lost: u64) -> Option<i64> {
        let here = Window {
            start: now,
            delivered,
            lost,
        };
        let Some(w) = self.window.filter(|_| !self.restart) else {
            self.restart = false;
            self.window = Some(here);
            return None;
        };
        if now.saturating_since(w.start) <= Duration::from_millis(p.score_interval_ms) {
            return None;
        }
        self.window = Some(here);
        let d = delivered as i64 - w.delivered as i64;
        let l = lost as i64 - w.lost as i64;
        Some(d - p.unacked_weight as i64 * l)
    }
}
