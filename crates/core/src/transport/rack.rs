//! RACK loss detection (RFC 8985; Linux `tcp_recovery.c`).
//!
//! In a nutshell: remember the send time of the most recently *sent* packet
//! that has been delivered (`xmit_time`). Any packet sent before it that is
//! still unacknowledged after `rack_rtt + reo_wnd` is lost; one that is not
//! yet that old arms a reorder timer for the remaining time (+2 ms).
//!
//! ```text
//!   lost(P)  ⇔  sent_after(rack.xmit_time, P.sent) ∧ now − P.sent ≥ rack.rtt + reo_wnd
//!   reo_wnd  = 0                         if no reordering seen and (in Recovery/Loss or sacked_out ≥ 3)
//!            = min(min_rtt/4 · steps, srtt) otherwise
//! ```
//!
//! Transmissions are kept in send-time order (Linux's `tsorted_sent_queue`);
//! entries for packets since SACKed, acknowledged, marked lost or resent are
//! skipped and dropped lazily.
//!
//! Deviations: reordering is never detected (the simulated paths are FIFO and
//! there is no DSACK), so `reo_wnd_steps` stays 1.

use super::scoreboard::Scoreboard;
use crate::cc::CaState;
use crate::time::{Duration, Time};
use std::collections::VecDeque;

/// Linux's `tp->reordering` default (`sysctl_tcp_reordering`): the DUPACK threshold.
pub const DUPTHRESH: u32 = 3;
/// Added to the reorder timer (`TCP_TIMEOUT_MIN`, 2 jiffies at HZ=1000).
pub const REO_TIMER_SLACK: Duration = Duration::from_millis(2);

#[derive(Debug, Default)]
pub struct Rack {
    xmit_time: Option<Time>,
    end_seq: u64,
    rtt: Duration,
    advanced: bool,
    sent: VecDeque<(Time, u64)>,
}

/// Outcome of one loss-detection pass.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Detection {
    pub newly_lost: u32,
    /// Of them, retransmissions marked lost again (Linux `FLAG_LOST_RETRANS`: `retrans_out`
    /// fell while marking).
    pub lost_retrans: u32,
    /// When the most recently sent of them was sent.
    pub newest_lost_sent: Option<Time>,
    /// Deadline for the reorder timer, if packets are waiting out their window.
    pub reorder_deadline: Option<Time>,
}

fn sent_after(t1: Time, t2: Time, seq1: u64, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// A segment (absolute index `idx`) was (re)transmitted at `now`.
    pub fn on_transmit(&mut self, now: Time, idx: u64) {
        self.sent.push_back((now, idx));
    }

    /// `tcp_rack_advance`: a segment sent at `sent` ending at `end_seq` was delivered.
    pub fn advance(
        &mut self,
        now: Time,
        sent: Time,
        end_seq: u64,
        ever_retrans: bool,
        min_rtt: Option<Duration>,
    ) {
        let rtt = now.saturating_since(sent);
        if ever_retrans && min_rtt.is_some_and(|m| rtt < m) {
            return; // probably the original was delivered, not this retransmission
        }
        self.advanced = true;
        self.rtt = rtt;
        if self
            .xmit_time
            .is_none_or(|t| sent_after(sent, t, end_seq, self.end_seq))
        {
            self.xmit_time = Some(sent);
            self.end_seq = end_seq;
        }
    }

    /// RTT of the most recently delivered segment (`rack.rtt_us`).
    pub fn rtt(&self) -> Duration {
        self.rtt
    }

    /// `tcp_rack_reo_wnd`.
    pub fn reo_wnd(
        &self,
        ca_state: CaState,
        sacked_out: u32,
        min_rtt: Option<Duration>,
        srtt: Option<Duration>,
    ) -> Duration {
        if ca_state >= CaState::Recovery || sacked_out >= DUPTHRESH {
            return Duration::ZERO;
        }
        let quarter = min_rtt.map_or(Duration::ZERO, |m| m.div(4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// `tcp_rack_mark_lost`: runs detection only if an ACK advanced RACK.
    pub fn on_ack(
        &mut self,
        now: Time,
        sb: &mut Scoreboard,
        reo_wnd: Duration,
        marked: &mut Vec<u64>,
    ) -> Detection {
        if !self.advanced {
            return Detection::default();
        }
        self.advanced = false;
        self.detect(now, sb, reo_wnd, marked)
    }

    /// `tcp_rack_detect_loss`: also run directly when the reorder timer fires. Appends
    /// the packets it marks lost to `marked`, oldest sent first.
    pub fn detect(
        &mut self,
        now: Time,
        sb: &mut Scoreboard,
        reo_wnd: Duration,
        marked: &mut Vec<u64>,
    ) -> Detection {
        let mut out = Detection::default();
        let Some(rack_time) = self.xmit_time else {
            return out;
        };
        let mut wait = Duration::ZERO;
        let mut stale = 0usize;
        let mut i = 0;
        while i < self.sent.len() {
            let (t, idx) = self.sent[i];
            let live = sb
                .get(idx)
                .filter(|s| !s.sacked && s.sent_at == t && (!s.lost || s.retrans_in_flight));
            let Some(seg) = live else {
                if i == 0 {
                    self.sent.pop_front();
                } else {
                    stale += 1;
                    i += 1;
                }
                continue;
            };
            if !sent_after(rack_time, t, self.end_seq, seg.end()) {
                break;
            }
            let deadline = t + self.rtt + reo_wnd;
            if deadline <= now {
                out.lost_retrans += u32::from(seg.lost);
                sb.mark_lost(idx);
                marked.push(idx);
                out.newly_lost += 1;
                out.newest_lost_sent = Some(t);
                stale += 1;
            } else {
                wait = wait.max(deadline - now);
            }
            i += 1;
        }
        if stale > 64 && stale * 2 > self.sent.len() {
            self.sent.retain(|&(t, idx)| {
                sb.get(idx).is_some_and(|s| {
                    !s.sacked && s.sent_at == t && (!s.lost || s.retrans_in_flight)
                })
            });
        }
        if !wait.is_zero() {
            out.reorder_deadline = Some(now + wait + REO_TIMER_SLACK);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SackBlock;
    use crate::transport::rate_sample::TxSnapshot;
    use crate::transport::scoreboard::Segment;

    fn setup(n: u64) -> (Rack, Scoreboard) {
        let mut sb = Scoreboard::default();
        let mut rack = Rack::default();
        for i in 0..n {
            let t = Time::from_millis(i);
            let idx = sb.push(Segment {
                seq: i * 1000,
                len: 1000,
                sent_at: t,
                snap: TxSnapshot::default(),
                sacked: false,
                lost: false,
                retrans_in_flight: false,
                ever_retrans: false,
                resend_behind: 0,
            });
            rack.on_transmit(t, idx);
        }
        (rack, sb)
    }

    #[test]
    fn a_hole_before_three_sacked_segments_is_lost_at_once() {
        let (mut rack, mut sb) = setup(5);
        let now = Time::from_millis(100);
        sb.sack(
            SackBlock {
                start: 1000,
                end: 4000,
            },
            |_| {},
        );
        for i in 1..4u64 {
            rack.advance(now, Time::from_millis(i), (i + 1) * 1000, false, None);
        }
        let reo = rack.reo_wnd(
            CaState::Disorder,
            sb.sacked_out,
            Some(Duration::from_millis(97)),
            None,
        );
        assert_eq!(reo, Duration::ZERO);
        let mut marked = vec![];
        let d = rack.on_ack(now, &mut sb, reo, &mut marked);
        assert_eq!((d.newly_lost, marked), (1, vec![0]));
        assert!(sb.get(0).unwrap().lost);
        assert!(
            !sb.get(4).unwrap().lost,
            "segment sent after the RACK reference stays in flight"
        );
    }

    #[test]
    fn with_one_sacked_segment_the_hole_waits_a_quarter_min_rtt() {
        let (mut rack, mut sb) = setup(3);
        let now = Time::from_millis(100);
        sb.sack(
            SackBlock {
                start: 1000,
                end: 2000,
            },
            |_| {},
        );
        rack.advance(now, Time::from_millis(1), 2000, false, None);
        let min_rtt = Some(Duration::from_millis(80));
        let reo = rack.reo_wnd(CaState::Disorder, sb.sacked_out, min_rtt, min_rtt);
        assert_eq!(reo, Duration::from_millis(20));
        let mut marked = vec![];
        let d = rack.on_ack(now, &mut sb, reo, &mut marked);
        // segment 0: sent at 0, rack.rtt = 99 ms → lost at 119 ms; timer = +19 ms + 2 ms slack
        assert_eq!(
            d,
            Detection {
                newly_lost: 0,
                lost_retrans: 0,
                newest_lost_sent: None,
                reorder_deadline: Some(Time::from_millis(121))
            }
        );
        assert!(marked.is_empty());
        let d = rack.detect(Time::from_millis(119), &mut sb, reo, &mut marked);
        assert_eq!((d.newly_lost, d.newest_lost_sent), (1, Some(Time::ZERO)));
        assert_eq!(d.lost_retrans, 0, "an original transmission");
        assert_eq!(marked, [0]);
    }

    #[test]
    fn of_two_packets_sent_at_once_the_higher_end_sequence_was_sent_after() {
        let (t, later) = (Time::from_millis(5), Time::from_millis(6));
        assert!(sent_after(later, t, 0, 9000));
        assert!(!sent_after(t, later, 9000, 0));
        assert!(sent_after(t, t, 2000, 1000));
        assert!(!sent_after(t, t, 1000, 1000));
        assert!(!sent_after(t, t, 1000, 2000));
    }

    #[test]
    fn an_original_packet_may_beat_min_rtt_and_a_retransmission_may_equal_it() {
        let min_rtt = Some(Duration::from_millis(20));
        let mut rack = Rack::default();
        // the path got faster: only a retransmission's short RTT is suspect
        rack.advance(
            Time::from_millis(15),
            Time::from_millis(5),
            1000,
            false,
            min_rtt,
        );
        assert_eq!(rack.rtt(), Duration::from_millis(10));
        rack.advance(
            Time::from_millis(45),
            Time::from_millis(25),
            2000,
            true,
            min_rtt,
        );
        assert_eq!(rack.rtt(), Duration::from_millis(20));
        assert_eq!(
            (rack.xmit_time, rack.end_seq),
            (Some(Time::from_millis(25)), 2000)
        );
    }

    /// The list is compacted once more than 64 of its entries, and more than half, are dead;
    /// only the live entries stay.
    #[test]
    fn dead_entries_are_dropped_once_they_pass_64_and_half_the_list() {
        // (SACKed segments, segments): the pass marks the head lost, so SACKed + 1 are dead
        for (sacked, n, dropped) in [(63, 127, false), (64, 129, true), (64, 130, false)] {
            let (mut rack, mut sb) = setup(n);
            sb.sack(
                SackBlock {
                    start: 1000,
                    end: (sacked + 1) * 1000,
                },
                |_| {},
            );
            let now = Time::from_millis(1000);
            rack.advance(
                now,
                Time::from_millis(sacked),
                (sacked + 1) * 1000,
                false,
                None,
            );
            let d = rack.detect(now, &mut sb, Duration::ZERO, &mut vec![]);
            assert_eq!(d.newly_lost, 1);
            let kept: Vec<u64> = rack.sent.iter().map(|&(_, idx)| idx).collect();
            let want: Vec<u64> = if dropped {
                (sacked + 1..n).collect()
            } else {
                (0..n).collect()
            };
            assert_eq!(kept, want, "{sacked} SACKed of {n}");
        }
    }

    #[test]
    fn an_ack_for_a_retransmission_faster_than_min_rtt_does_not_advance() {
        let mut rack = Rack::default();
        rack.advance(
            Time::from_millis(10),
            Time::from_millis(5),
            1000,
            true,
            Some(Duration::from_millis(20)),
        );
        assert!(!rack.advanced);
    }
}
