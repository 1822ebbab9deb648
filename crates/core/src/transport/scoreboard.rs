//! The retransmission queue and SACK scoreboard (Linux `tcp_rtx_queue` with
//! `TCPCB_*` flags and the `packets_out/sacked_out/lost_out/retrans_out` counters).
//!
//! Segments are numbered from the start of the connection (absolute index), so
//! hints and RACK's time-sorted list can refer to them after the front of the
//! queue has been acknowledged. Segment boundaries never change: a
//! retransmission resends exactly the original segment.
//!
//! ```text
//!   inflight = packets_out − (sacked_out + lost_out) + retrans_out
//! ```
//!
//! SACK blocks are applied only to the part not already known to be SACKed
//! (the `sacked` range set), so a block reported again on every ACK of a long
//! recovery costs nothing — the job Linux's `recv_sack_cache` does.

use super::rate_sample::TxSnapshot;
use crate::net::packet::SackBlock;
use crate::time::Time;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct Segment {
    pub seq: u64,
    pub len: u32,
    /// Time of the latest (re)transmission.
    pub sent_at: Time,
    pub snap: TxSnapshot,
    /// `TCPCB_SACKED_ACKED`
    pub sacked: bool,
    /// `TCPCB_LOST`
    pub lost: bool,
    /// `TCPCB_SACKED_RETRANS`: a retransmission is in flight.
    pub retrans_in_flight: bool,
    /// `TCPCB_EVER_RETRANS`
    pub ever_retrans: bool,
    /// The sender must have sent up to here before resending it: the end of the data queued
    /// when it was last marked lost, on a send queue that resends behind it (0: at once).
    pub resend_behind: u64,
}

impl Segment {
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
}

#[derive(Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    /// Absolute index of `segs[0]`.
    base: u64,
    /// Byte ranges above snd_una known to be SACKed, sorted and merged.
    sacked: Vec<(u64, u64)>,
    /// No segment below this absolute index is lost and waiting for retransmission.
    retx_hint: u64,
    pub packets_out: u32,
    pub sacked_out: u32,
    /// Payload bytes of the SACKed segments.
    pub sacked_bytes: u64,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// Where a segment marked lost now joins the send queue (its `resend_behind`); the
    /// sender keeps it current.
    pub resend_behind: u64,
}

impl Scoreboard {
    pub fn inflight(&self) -> u32 {
        self.packets_out - (self.sacked_out + self.lost_out) + self.retrans_out
    }

    /// Absolute index the next new segment will get.
    pub fn next_index(&self) -> u64 {
        self.base + self.segs.len() as u64
    }

    pub fn get(&self, idx: u64) -> Option<&Segment> {
        self.segs.get(idx.checked_sub(self.base)? as usize)
    }

    pub fn get_mut(&mut self, idx: u64) -> Option<&mut Segment> {
        self.segs.get_mut(idx.checked_sub(self.base)? as usize)
    }

    pub fn head(&self) -> Option<&Segment> {
        self.segs.front()
    }

    /// Index of the highest-sequence segment (TLP's probe when no new data can go).
    pub fn last_index(&self) -> Option<u64> {
        (!self.segs.is_empty()).then(|| self.next_index() - 1)
    }

    /// A new segment was sent.
    pub fn push(&mut self, seg: Segment) -> u64 {
        debug_assert!(self.segs.back().is_none_or(|s| s.end() == seg.seq));
        self.segs.push_back(seg);
        self.packets_out += 1;
        self.next_index() - 1
    }

    /// Removes every segment wholly below `cum_ack`, calling `f` on each before
    /// its counters are released. Returns how many were removed.
    pub fn cum_ack(&mut self, cum_ack: u64, mut f: impl FnMut(&mut Segment)) -> u32 {
        let mut n = 0;
        while let Some(seg) = self.segs.front_mut() {
            if seg.end() > cum_ack {
                break;
            }
            f(seg);
            let seg = self.segs.pop_front().unwrap();
            self.base += 1;
            self.packets_out -= 1;
            if seg.sacked {
                self.sacked_out -= 1;
                self.sacked_bytes -= seg.len as u64;
            }
            if seg.lost {
                self.lost_out -= 1;
            }
            if seg.retrans_in_flight {
                self.retrans_out -= 1;
            }
            n += 1;
        }
        self.retx_hint = self.retx_hint.max(self.base);
        let floor = self.segs.front().map_or(cum_ack, |s| s.seq);
        self.sacked.retain_mut(|r| {
            r.0 = r.0.max(floor);
            r.1 > r.0
        });
        n
    }

    /// Applies one SACK block, calling `f` on each newly SACKed segment (before
    /// its counters change). Returns how many were newly SACKed.
    pub fn sack(&mut self, block: SackBlock, mut f: impl FnMut(&mut Segment)) -> u32 {
        let floor = match self.segs.front() {
            Some(s) => s.seq,
            None => return 0,
        };
        let (start, end) = (block.start.max(floor), block.end);
        if start >= end {
            return 0;
        }
        let mut n = 0;
        for (a, b) in uncovered(&self.sacked, start, end) {
            let first = self.segs.partition_point(|s| s.seq < a);
            for seg in self.segs.range_mut(first..) {
                if seg.end() > b {
                    break;
                }
                if seg.sacked {
                    continue;
                }
                f(seg);
                seg.sacked = true;
                self.sacked_out += 1;
                self.sacked_bytes += seg.len as u64;
                if seg.lost {
                    seg.lost = false;
                    self.lost_out -= 1;
                }
                if seg.retrans_in_flight {
                    seg.retrans_in_flight = false;
                    self.retrans_out -= 1;
                }
                n += 1;
            }
        }
        insert_range(&mut self.sacked, start, end);
        n
    }

    /// `tcp_mark_skb_lost`: marks a segment lost (or its retransmission lost again).
    /// Returns true if this counts as a new loss event.
    pub fn mark_lost(&mut self, idx: u64) -> bool {
        let Some(i) = idx.checked_sub(self.base) else {
            return false;
        };
        let Some(seg) = self.segs.get_mut(i as usize) else {
            return false;
        };
        if seg.sacked {
            return false;
        }
        if seg.lost {
            if !seg.retrans_in_flight {
                return false;
            }
            seg.resend_behind = self.resend_behind;
            seg.retrans_in_flight = false;
            self.retrans_out -= 1;
        } else {
            seg.lost = true;
            seg.resend_behind = self.resend_behind;
            self.lost_out += 1;
        }
        self.retx_hint = self.retx_hint.min(idx);
        true
    }

    /// Gives up segment `idx`'s retransmission in flight, if any, so that it is resent (the
    /// RTO resends the head even when a loss probe already did), without counting a loss.
    pub fn forget_retransmission(&mut self, idx: u64) {
        let Some(seg) = self.get_mut(idx) else {
            return;
        };
        if seg.retrans_in_flight && !seg.sacked {
            seg.retrans_in_flight = false;
            self.retrans_out -= 1;
            self.retx_hint = self.retx_hint.min(idx);
        }
    }

    /// Lowest segment marked lost and not yet retransmitted.
    pub fn next_to_retransmit(&mut self) -> Option<u64> {
        let start = self.retx_hint.max(self.base);
        let from = (start - self.base) as usize;
        let found = self
            .segs
            .range(from..)
            .position(|s| s.lost && !s.retrans_in_flight && !s.sacked);
        match found {
            Some(k) => {
                self.retx_hint = start + k as u64;
                Some(self.retx_hint)
            }
            None => {
                self.retx_hint = self.next_index();
                None
            }
        }
    }

    /// Records the retransmission of segment `idx` at `now`.
    pub fn on_retransmit(&mut self, idx: u64, now: Time, snap: TxSnapshot) {
        let seg = self
            .get_mut(idx)
            .expect("retransmitting a segment that is not outstanding");
        debug_assert!(
            !seg.retrans_in_flight,
            "a retransmission of this segment is already in flight"
        );
        seg.retrans_in_flight = true;
        seg.ever_retrans = true;
        seg.sent_at = now;
        seg.snap = snap;
        self.retrans_out += 1;
    }

    /// Absolute indices of all outstanding segments, in sequence order.
    pub fn indices(&self) -> std::ops::Range<u64> {
        self.base..self.next_index()
    }
}

/// Parts of `[start, end)` not covered by the sorted, disjoint `ranges`.
fn uncovered(ranges: &[(u64, u64)], start: u64, end: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
    let first = ranges.partition_point(|r| r.1 <= start);
    let mut cursor = start;
    let mut rest = ranges[first..].iter();
    let mut done = false;
    std::iter::from_fn(move || loop {
        if done || cursor >= end {
            return None;
        }
        match rest.next() {
            Some(&(a, b)) if a < end => {
                let gap = (cursor, a.min(end));
                cursor = cursor.max(b);
                if gap.0 < gap.1 {
                    return Some(gap);
                }
            }
            _ => {
                done = true;
                return Some((cursor, end));
            }
        }
    })
}

/// Inserts `[start, end)` into sorted disjoint `ranges`, merging overlaps and neighbours.
fn insert_range(ranges: &mut Vec<(u64, u64)>, start: u64, end: u64) {
    let lo = ranges.partition_point(|r| r.1 < start);
    let hi = ranges.partition_point(|r| r.0 <= end);
    if lo == hi {
        ranges.insert(lo, (start, end));
    } else {
        let merged = (ranges[lo].0.min(start), ranges[hi - 1].1.max(end));
        ranges.splice(lo..hi, [merged]);
    }
}

#[cfg(test)]
#[path = "scoreboard_tests.rs"]
mod tests;
