//! The timers: retransmission timeout, tail-loss probe and RACK's reorder timer on one
//! alarm, the pacing deadline on its own.

use super::*;

impl TcpSender {
    pub(super) fn rto_with_backoff(&self) -> Duration {
        let base = self.rtt.rto().max(RTO_MIN);
        base.checked_mul(1u64 << self.backoff.min(16))
            .unwrap_or(RTO_MAX)
            .min(RTO_MAX)
    }

    pub(super) fn rearm_rto(&mut self, now: Time) {
        self.rto_deadline = (self.sb.packets_out > 0).then(|| now + self.rto_with_backoff());
        if self.sb.packets_out == 0 {
            self.tlp_deadline = None;
            self.reo_deadline = None;
        }
    }

    /// RTO measured from the oldest outstanding transmission (`tcp_rto_delta_us`); on a
    /// send queue whose retransmissions wait behind new data, from now (QUIC's probe timeout
    /// runs from the latest packet sent, not from the oldest lost one).
    pub(super) fn rearm_rto_from_head(&mut self, now: Time) {
        let head = match self.cfg.send_queue.timer_restarts_on_every_ack() {
            true => now,
            false => self.sb.head().map_or(now, |s| s.sent_at),
        };
        self.rto_deadline = (self.sb.packets_out > 0)
            .then(|| (head + self.rto_with_backoff()).max(now + Duration::from_nanos(1)));
    }

    /// `tcp_schedule_loss_probe`.
    pub(super) fn schedule_loss_probe(&mut self, now: Time) {
        if self.sb.packets_out == 0 || self.ca_state != CaState::Open {
            self.tlp_deadline = None;
            return;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) => {
                srtt + srtt
                    + if self.sb.packets_out == 1 {
                        RTO_MIN
                    } else {
                        TLP_MIN_SLACK
                    }
            }
            None => RTO_INITIAL,
        };
        let mut at = now + pto;
        if let Some(rto) = self.rto_deadline {
            at = at.min(rto);
        }
        self.tlp_deadline = Some(at);
    }

    pub fn on_timer(&mut self, now: Time, out: &mut Outbox) {
        let loss_due = self.loss_alarm.on_fire(now);
        let pace_due = self.pace_alarm.on_fire(now);
        if !loss_due && !pace_due {
            return;
        }
        let due = |d: Option<Time>| d.is_some_and(|t| t <= now);
        if due(self.syn_deadline) {
            if let Phase::SynSent { attempts, .. } = self.phase {
                self.send_syn(now, attempts + 1, out);
            }
        }
        if due(self.reo_deadline) {
            self.reo_deadline = None;
            self.on_reorder_timeout(now, out);
        }
        if due(self.tlp_deadline) {
            self.tlp_deadline = None;
            self.send_loss_probe(now, out);
        }
        if due(self.rto_deadline) {
            self.rto_deadline = None;
            self.on_rto(now, out);
        }
        if due(self.pace_deadline) {
            self.try_send(now, out);
        }
    }

    pub(super) fn reo_wnd(&self) -> Duration {
        self.rack.reo_wnd(
            self.ca_state,
            self.sb.sacked_out,
            self.rtt.min_rtt(),
            self.rtt.srtt(),
        )
    }

    /// RACK marked packets lost: count them and tell the algorithm of each, then of all of
    /// them at once (the QUIC stacks' per-loss `on_lost`).
    pub(super) fn losses_detected(&mut self, now: Time, det: &Detection, snd_una_advanced: bool) {
        let Some(newest_sent) = det.newest_lost_sent else {
            return;
        };
        let conn = self.count_lost(now, snd_una_advanced);
        self.cc
            .as_mut()
            .unwrap()
            .on_loss_detected(now, &conn, newest_sent);
    }

    /// Counts the packets just marked lost (`lost_now`) one by one and tells the algorithm
    /// of each as it is counted (Linux `tcp_sum_lost` → `skb_marked_lost`); returns the
    /// connection as it then is.
    fn count_lost(&mut self, now: Time, snd_una_advanced: bool) -> Conn {
        let mut conn = conn_view(self, now, snd_una_advanced);
        let cc = self.cc.as_mut().unwrap();
        for &idx in &self.lost_now {
            self.rate.lost += 1;
            conn.lost = self.rate.lost;
            let sent = self.sb.get(idx).expect("a packet just marked lost").snap;
            cc.on_packet_lost(now, &conn, &sent);
        }
        self.lost_now.clear();
        conn
    }

    /// `tcp_rack_reo_timeout`.
    fn on_reorder_timeout(&mut self, now: Time, out: &mut Outbox) {
        self.note_resend_position();
        let reo_wnd = self.reo_wnd();
        let det = self
            .rack
            .detect(now, &mut self.sb, reo_wnd, &mut self.lost_now);
        self.reo_deadline = det.reorder_deadline;
        if det.newly_lost > 0 {
            self.losses_detected(now, &det, false);
            // `icsk_ca_state != TCP_CA_Recovery`: Recovery begins, from Loss too
            if self.update_ca_state(now, false, true) && !self.cc_config.is_model_based() {
                // tcp_cwnd_reduction(sk, 1, 0): one PRR step as if one packet had been delivered
                let rs = RateSample {
                    acked_sacked: 1,
                    prior_in_flight: self.sb.inflight(),
                    ..RateSample::default()
                };
                let conn = conn_view(self, now, false);
                self.cc.as_mut().unwrap().on_ack(now, &conn, &rs);
            }
            self.try_send(now, out);
        }
        self.rearm_rto_from_head(now);
    }

    /// `tcp_send_loss_probe`.
    fn send_loss_probe(&mut self, now: Time, out: &mut Outbox) {
        if self.tlp_high_seq.is_none() && self.sb.packets_out > 0 {
            if self.new_data_fits() {
                // tcp_write_xmit(push_one = 2), which validates the window as any send does
                self.send_new(now, false, out);
                self.validate_cwnd(now, self.window_full());
                self.tlp_was_retrans = false;
            } else if let Some(idx) = self.sb.last_index() {
                let seg = self.sb.get(idx).unwrap();
                if seg.sacked || seg.retrans_in_flight {
                    self.rearm_rto_from_head(now);
                    return;
                }
                self.retransmit(now, idx, false, out);
                self.tlp_was_retrans = true;
            }
            self.tlp_high_seq = Some(self.snd_nxt);
            self.stats.loss_probes += 1;
            // "Reset s.t. tcp_rearm_rto will restart timer from now"
            self.rearm_rto(now);
            return;
        }
        self.rearm_rto_from_head(now);
    }

    /// `tcp_retransmit_timer` → `tcp_enter_loss`.
    fn on_rto(&mut self, now: Time, out: &mut Outbox) {
        self.note_resend_position();
        if self.sb.packets_out == 0 {
            return;
        }
        let new_episode = self.ca_state <= CaState::Disorder
            || self.snd_una >= self.high_seq
            || (self.ca_state == CaState::Loss && self.backoff == 0);
        // tcp_timeout_mark_lost: the head, and everything sent at least a RACK RTT ago
        let rack_rtt = self.rack.rtt();
        let mut newly_lost = 0;
        let head = self.sb.indices().start;
        // the marked packets' send times: oldest, newest, and whether an acknowledged
        // (SACKed) packet lies between two of them
        let (mut oldest, mut newest, mut broken, mut sacked_since) = (None, None, false, false);
        for idx in self.sb.indices() {
            let seg = self.sb.get(idx).unwrap();
            let (sent_at, sacked) = (seg.sent_at, seg.sacked);
            let old_enough = idx == head || now.saturating_since(sent_at) >= rack_rtt;
            if old_enough && self.sb.mark_lost(idx) {
                self.lost_now.push(idx);
                newly_lost += 1;
                oldest.get_or_insert(sent_at);
                newest = newest.max(Some(sent_at));
                broken |= sacked_since;
                sacked_since = false;
            } else if sacked && oldest.is_some() {
                sacked_since = true;
            }
        }
        // `tcp_retransmit_timer` resends the head whatever it holds: a probe's retransmission
        // of it (marked lost just now, not lost again) is given up
        self.sb.forget_retransmission(head);
        self.count_lost(now, false);
        let timeout = Timeout {
            new_episode,
            newest_lost_sent: newest,
            unbroken_loss_span: oldest.zip(newest).filter(|_| newly_lost >= 2 && !broken),
            rtt_deviation4: self.rtt.mean_deviation4(),
        };
        self.ca_state = CaState::Loss;
        self.cwnd_stamp = now; // tcp_enter_loss
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.tlp_deadline = None;
        self.reo_deadline = None;
        self.stats.rto_events += 1;
        let conn = conn_view(self, now, false);
        self.cc.as_mut().unwrap().on_rto(now, &conn, &timeout);
        self.backoff += 1;
        self.rto_deadline = Some(now + self.rto_with_backoff());
        self.try_send(now, out);
    }

    /// Times the owner must schedule timer events at (none, one or two).
    pub fn poll_timer(&mut self) -> impl Iterator<Item = Time> {
        let loss = [
            self.syn_deadline,
            self.rto_deadline,
            self.tlp_deadline,
            self.reo_deadline,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(Time::NEVER);
        let pace = self.pace_deadline.unwrap_or(Time::NEVER);
        let loss = self.loss_alarm.set(loss);
        let pace = self.pace_alarm.set(pace);
        [loss, pace].into_iter().flatten()
    }
}
