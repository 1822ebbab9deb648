//! The network side: an arriving packet (SYN-ACK or ACK) and what the ACK changes, in
//! Linux's order of work (the list in `mod.rs`): RTT, tail-loss probe, CA state.

use super::*;

impl TcpSender {
    pub fn on_packet(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        match (pkt.kind, &self.phase) {
            (Kind::SynAck, Phase::SynSent { sent_at, attempts }) => {
                if *attempts == 0 {
                    let sample = now - *sent_at;
                    self.rtt.on_sample(sample, 0, 0);
                    self.rtt.update_min(now, sample, false);
                    self.pacer.on_rtt_sample(now, *sent_at, Duration::ZERO);
                }
                self.syn_deadline = None;
                self.phase = Phase::Established;
                let init = CcInit {
                    mss: self.cfg.mss,
                    initial_cwnd: self.cfg.initial_cwnd,
                    srtt: self.rtt.srtt(),
                    rng: self.cc_rng.take().expect("algorithm built once"),
                    host: self.host.clone(),
                };
                self.cc = Some(self.cc_config.build(init));
                self.snd_wnd_end = pkt.rwnd;
                self.try_send(now, out);
            }
            (Kind::Ack, Phase::Established) => self.on_ack(now, pkt, out),
            _ => {}
        }
    }

    fn on_ack(&mut self, now: Time, pkt: &Packet, out: &mut Outbox) {
        if pkt.seq < self.snd_una {
            return; // older than what we know: FIFO paths make this impossible, ignore
        }
        // the queue as it stood when the ACK came: its losses join it behind that
        self.note_resend_position();
        let prior_in_flight = self.sb.inflight();
        self.snd_wnd_end = pkt.seq + pkt.rwnd;
        let mut rs = RateSample {
            prior_in_flight,
            is_ack_delayed: pkt.delayed,
            ..RateSample::default()
        };
        let min_rtt = self.rtt.min_rtt();
        self.rate.begin_ack(now, min_rtt);
        let mut delivered_now = 0u32;
        let (mut first_sackt, mut last_sackt) = (None::<Time>, None::<Time>);
        {
            let TcpSender { sb, rate, rack, .. } = self;
            for &block in pkt.sack_blocks() {
                delivered_now += sb.sack(block, |seg| {
                    rate.delivered += 1;
                    let end = seg.end();
                    rate.on_delivered(
                        &mut seg.snap,
                        seg.sent_at,
                        end,
                        seg.ever_retrans,
                        true,
                        &mut rs,
                    );
                    rack.advance(now, seg.sent_at, seg.end(), seg.ever_retrans, min_rtt);
                    if !seg.ever_retrans {
                        first_sackt = Some(first_sackt.map_or(seg.sent_at, |t| t.min(seg.sent_at)));
                        last_sackt = Some(last_sackt.map_or(seg.sent_at, |t| t.max(seg.sent_at)));
                    }
                });
            }
        }
        let newly_sacked = delivered_now > 0;
        let advanced = pkt.seq > self.snd_una;
        let (mut first_ackt, mut last_ackt, mut retrans_acked) =
            (None::<Time>, None::<Time>, false);
        if advanced {
            let TcpSender { sb, rate, rack, .. } = self;
            sb.cum_ack(pkt.seq, |seg| {
                if seg.ever_retrans {
                    retrans_acked = true;
                } else if !seg.sacked {
                    first_ackt.get_or_insert(seg.sent_at);
                    last_ackt = Some(seg.sent_at);
                }
                if !seg.sacked {
                    rate.delivered += 1;
                    delivered_now += 1;
                    rack.advance(now, seg.sent_at, seg.end(), seg.ever_retrans, min_rtt);
                }
                let end = seg.end();
                rate.on_delivered(
                    &mut seg.snap,
                    seg.sent_at,
                    end,
                    seg.ever_retrans,
                    false,
                    &mut rs,
                );
            });
            self.snd_una = pkt.seq;
        }
        if pkt.dsack {
            // `tcp_dsack_seen`: "A spurious retransmission is delivered" (one segment: the
            // receiver here acknowledges each duplicate at once)
            self.rate.delivered += 1;
            delivered_now += 1;
        }
        self.update_rtt(
            now,
            pkt,
            first_ackt.filter(|_| !retrans_acked),
            last_ackt.filter(|_| !retrans_acked),
            first_sackt,
            last_sackt,
            &mut rs,
        );

        // loss detection
        let reo_wnd = self.reo_wnd();
        let det = self
            .rack
            .on_ack(now, &mut self.sb, reo_wnd, &mut self.lost_now);
        self.losses_detected(now, &det, advanced);
        if det.reorder_deadline.is_some() {
            self.reo_deadline = det.reorder_deadline;
        }
        let tlp_cwr = self.check_tlp_ack(pkt, advanced, newly_sacked);
        self.update_ca_state(now, advanced, det.lost_retrans > 0);

        self.rate.generate(
            now,
            delivered_now,
            det.newly_lost,
            self.rtt.min_rtt(),
            &mut rs,
        );
        if tlp_cwr {
            // the probe repaired a loss: one CWR reduction (tcp_process_tlp_ack)
            let conn = conn_view(self, now, advanced);
            self.cc.as_mut().unwrap().on_recovery_start(
                now,
                &Conn {
                    ca_state: CaState::Cwr,
                    ..conn
                },
            );
        }
        let conn = conn_view(self, now, advanced);
        let cc = self.cc.as_mut().unwrap();
        if hears_ack(cc.as_ref(), &rs) {
            cc.on_ack(now, &conn, &rs);
            if cc.wants_app_limited() {
                self.rate.mark_app_limited(self.sb.inflight());
            }
        }
        out.samples.push(rs);

        if advanced || self.cfg.send_queue.timer_restarts_on_every_ack() {
            self.backoff = 0;
            self.rearm_rto(now);
        }
        self.try_send(now, out);
        if advanced {
            self.schedule_loss_probe(now);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn update_rtt(
        &mut self,
        now: Time,
        pkt: &Packet,
        first_ackt: Option<Time>,
        last_ackt: Option<Time>,
        first_sackt: Option<Time>,
        last_sackt: Option<Time>,
        rs: &mut RateSample,
    ) {
        let seq_rtt = first_ackt.or(first_sackt).map(|t| now - t);
        // The newest packet this ACK covers: RTT for the connection, and for the algorithm
        // on the rate sampler's clock.
        let newest_sent = last_sackt.or(last_ackt);
        let ca_rtt = newest_sent.map(|t| now - t);
        rs.rtt = newest_sent.map(|t| self.rate.rtt(now, t));
        if let Some(ca) = ca_rtt {
            self.rtt.update_min(now, ca, pkt.delayed);
        }
        if let Some(sent) = newest_sent {
            self.pacer.on_rtt_sample(now, sent, pkt.ack_delay);
        }
        if let Some(m) = seq_rtt {
            self.rtt.on_sample(m, self.snd_una, self.snd_nxt);
        }
    }

    /// `tcp_process_tlp_ack`; returns true when the probe repaired a loss. An ACK of exactly
    /// the probe's end that advances or SACKs leaves the episode open: only an ACK beyond it
    /// tells a repaired loss (CWR) from a probe whose original also arrived (DSACK, or a pure
    /// duplicate ACK).
    pub(super) fn check_tlp_ack(
        &mut self,
        pkt: &Packet,
        advanced: bool,
        newly_sacked: bool,
    ) -> bool {
        let Some(high) = self.tlp_high_seq else {
            return false;
        };
        if pkt.seq < high {
            return false;
        }
        if !self.tlp_was_retrans || pkt.dsack {
            self.tlp_high_seq = None;
            return false;
        }
        if pkt.seq > high {
            self.tlp_high_seq = None;
            return self.ca_state < CaState::Recovery;
        }
        if !advanced && !newly_sacked {
            self.tlp_high_seq = None;
        }
        false
    }

    /// Linux `tcp_fastretrans_alert`, reduced to what RACK-based SACK TCP does. In Loss,
    /// `leave_loss` (a retransmission marked lost again: `FLAG_LOST_RETRANS`, "Change state
    /// if cwnd is undone or retransmits are lost") starts Recovery, with a new reduction
    /// (`tcp_enter_recovery`: Loss is not a cwnd reduction); the nginx-quic stack has no
    /// such states, so its flows stay in Loss. True if Recovery began.
    pub(super) fn update_ca_state(&mut self, now: Time, advanced: bool, leave_loss: bool) -> bool {
        if self.ca_state >= CaState::Recovery && self.snd_una >= self.high_seq && advanced {
            if self.ca_state == CaState::Recovery {
                // `tcp_end_cwnd_reduction` restamps the window
                self.cwnd_stamp = now;
            }
            self.ca_state = CaState::Open;
        }
        let loss_to_recovery = leave_loss
            && self.ca_state == CaState::Loss
            && self.cfg.send_queue.has_tcp_loss_states();
        if self.ca_state < CaState::Recovery || loss_to_recovery {
            if self.sb.lost_out > 0 {
                self.high_seq = self.snd_nxt;
                self.ca_state = CaState::Recovery;
                self.stats.recovery_events += 1;
                self.tlp_deadline = None;
                self.tlp_high_seq = None; // tcp_init_cwnd_reduction
                let conn = conn_view(self, now, advanced);
                self.cc.as_mut().unwrap().on_recovery_start(now, &conn);
                return true;
            }
            self.ca_state = if self.sb.sacked_out > 0 {
                CaState::Disorder
            } else {
                CaState::Open
            };
        }
        false
    }
}
