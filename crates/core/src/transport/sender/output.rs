//! Sending: retransmissions first, then new data, within cwnd, the receive window and
//! the pacer, cut into skbs as `tcp_write_xmit` does; cwnd validation; the SYN.

use super::*;

impl TcpSender {
    pub(super) fn try_send(&mut self, now: Time, out: &mut Outbox) {
        if !matches!(self.phase, Phase::Established) {
            return;
        }
        self.pace_deadline = None;
        let mut cwnd_limited = false;
        let sent_before = self.stats.segments_sent;
        // tcp_write_xmit runs only with unsent data queued (tcp_push_pending_frames)
        let (had_unsent, snd_nxt_before) = (self.queued_end() > self.snd_nxt, self.snd_nxt);
        let rate = self.pacing_rate();
        self.pacer.on_output(now, rate);
        // segments the current skb may still carry; the pacer is asked once per skb, and
        // charges its idle credit to the skb's first packet and those that continue it
        let (mut skb_left, mut continues_skb) = (0, false);
        // tcp_xmit_retransmit_queue: resending the head restarts the RTO unless the reorder
        // timer holds the connection's one retransmission timer
        let mut head_resent = false;
        loop {
            let cwnd = self.cc.as_ref().unwrap().cwnd();
            let inflight = self.sb.inflight();
            let retx = self.next_retransmission();
            if retx.is_none() {
                if self.queued_end() == self.snd_nxt && inflight < cwnd {
                    self.pacer.on_app_limited(now);
                }
                if !self.new_data_fits() {
                    break;
                }
            }
            if inflight >= cwnd {
                break; // cwnd-limited: the window is full, as checked after the loop
            }
            if skb_left == 0 {
                if !self.pacer.allows(now, rate) {
                    self.pace_deadline = Some(self.pacer.retry_at(now, rate));
                    break;
                }
                skb_left = self.skb_segments();
                continues_skb = false;
                if retx.is_none() && skb_left > 1 {
                    if let Some(window_full) = self.should_defer(now, skb_left) {
                        cwnd_limited |= window_full;
                        break;
                    }
                }
            }
            match retx {
                Some(idx) => {
                    head_resent |= idx == self.sb.indices().start;
                    self.retransmit(now, idx, continues_skb, out);
                }
                None => self.send_new(now, continues_skb, out),
            }
            skb_left -= 1;
            continues_skb = true;
        }
        // tcp_write_xmit: a window left full counts as cwnd-limited, and only sending new
        // data or being cwnd-limited updates the window's validation
        cwnd_limited |= self.window_full();
        if had_unsent && (self.snd_nxt > snd_nxt_before || cwnd_limited) {
            self.validate_cwnd(now, cwnd_limited);
        }
        if (head_resent && self.reo_deadline.is_none())
            || (self.sb.packets_out > 0 && self.rto_deadline.is_none())
        {
            self.rearm_rto(now);
        }
        if self.stats.segments_sent > sent_before {
            self.schedule_loss_probe(now);
        }
    }

    fn before_data_send(&mut self, now: Time) {
        if self.sb.inflight() == 0 {
            let conn = conn_view(self, now, false);
            self.cc.as_mut().unwrap().on_tx_start(now, &conn);
        }
    }

    /// `continues_skb`: the packet is not the first of its TSO skb.
    fn after_data_send(
        &mut self,
        now: Time,
        payload: u32,
        is_retrans: bool,
        continues_skb: bool,
        out: &mut Outbox,
        pkt: Packet,
    ) {
        let rate = self.pacing_rate();
        self.pacer.on_send(now, payload, rate, continues_skb);
        self.last_send = now;
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += payload as u64;
        if is_retrans {
            self.stats.segments_retransmitted += 1;
            self.stats.bytes_retransmitted += payload as u64;
        }
        let conn = conn_view(self, now, false);
        let sent = SentPacket {
            payload_bytes: payload,
            is_retrans,
            inflight: conn.inflight,
        };
        self.cc.as_mut().unwrap().on_packet_sent(now, &conn, &sent);
        out.packets.push(pkt);
    }

    pub(super) fn send_new(&mut self, now: Time, continues_skb: bool, out: &mut Outbox) {
        self.before_data_send(now);
        let len = (self.queued_end() - self.snd_nxt).min(self.cfg.mss as u64) as u32;
        let snap = self
            .rate
            .on_send(now, self.sb.packets_out, self.sb.inflight() + 1);
        let seq = self.snd_nxt;
        let idx = self.sb.push(Segment {
            seq,
            len,
            sent_at: now,
            snap,
            sacked: false,
            lost: false,
            retrans_in_flight: false,
            ever_retrans: false,
            resend_behind: 0,
        });
        self.rack.on_transmit(now, idx);
        self.snd_nxt += len as u64;
        self.after_data_send(
            now,
            len,
            false,
            continues_skb,
            out,
            Packet::data(self.conn, seq, len, false, now),
        );
    }

    pub(super) fn retransmit(
        &mut self,
        now: Time,
        idx: u64,
        continues_skb: bool,
        out: &mut Outbox,
    ) {
        self.before_data_send(now);
        let snap = self
            .rate
            .on_send(now, self.sb.packets_out, self.sb.inflight() + 1);
        self.sb.on_retransmit(idx, now, snap);
        self.rack.on_transmit(now, idx);
        let seg = self.sb.get(idx).unwrap();
        let (seq, len) = (seg.seq, seg.len);
        self.after_data_send(
            now,
            len,
            true,
            continues_skb,
            out,
            Packet::data(self.conn, seq, len, true, now),
        );
    }

    /// Linux `tcp_tso_should_defer`: whether to hold back new data that would leave as a
    /// partial skb of `segs` segments, to send a larger one when the next ACK opens the
    /// window; `Some(cwnd_limited)` to wait. Not for one segment, nor in recovery, nor when
    /// the last skb's departure time is over 1 ms past, nor when a full skb or a third of the
    /// window fits, nor when the oldest packet out left less than half an RTT ago (its ACK
    /// would come too late), nor for the last data before the FIN. A tail that fits still
    /// waits for more data. (Linux also sends a middle skb that fits; cut from a byte stream,
    /// a middle skb here is always full, so the full-skb test has already sent it.)
    pub(super) fn should_defer(&self, now: Time, segs: u64) -> Option<bool> {
        let mss = self.cfg.mss as u64;
        let unsent = self.queued_end() - self.snd_nxt;
        let skb_len = unsent.min(segs * mss);
        // a one-segment skb goes to Nagle's test instead, which TCP_NODELAY passes
        if skb_len <= mss
            || self.ca_state >= CaState::Recovery
            || now.saturating_since(self.pacer.wstamp()) > DEFER_RECENT
        {
            return None;
        }
        let cwnd = self.cc.as_ref().unwrap().cwnd();
        let send_win = self.snd_wnd_end.saturating_sub(self.snd_nxt);
        let cong_win = cwnd.saturating_sub(self.sb.inflight()) as u64 * mss;
        let limit = send_win.min(cong_win);
        let is_tail = unsent <= segs * mss;
        let snd_wnd = self.snd_wnd_end - self.snd_una;
        if limit >= segs * mss
            || (!is_tail && limit >= skb_len)
            || limit >= snd_wnd.min(cwnd as u64 * mss) / TSO_WIN_DIVISOR
        {
            return None;
        }
        let (Some(head), Some(srtt)) = (self.sb.head(), self.rtt.srtt()) else {
            return None;
        };
        let half_srtt = Duration::from_nanos(srtt.as_nanos() / 2); // Linux: srtt_us >> 4
        if now.saturating_since(head.sent_at) < half_srtt || (is_tail && self.finished) {
            return None;
        }
        Some(cong_win < send_win && cong_win <= skb_len)
    }

    /// Segments the next skb may carry: 1 without TSO.
    fn skb_segments(&self) -> u64 {
        if !self.cfg.tso {
            return 1;
        }
        let cc = self.cc.as_ref().unwrap();
        cc.tso_segs().map_or_else(
            || tso::autosize(self.sk_pacing_bps(), self.cfg.mss as u64),
            u64::from,
        )
    }

    /// `tcp_cwnd_validate` (+ RFC 2861 decay for classic algorithms). Keeps the strongest
    /// sign of use for the current window (Linux 5.19+): a cwnd-limited send restarts the
    /// window as limited; otherwise a new window, or (while not limited) a new maximum of
    /// packets out, restarts it with that maximum.
    pub(super) fn validate_cwnd(&mut self, now: Time, cwnd_limited: bool) {
        if self.snd_una >= self.cwnd_usage_seq
            || cwnd_limited
            || (!self.is_cwnd_limited && self.sb.packets_out > self.max_packets_out)
        {
            self.is_cwnd_limited = cwnd_limited;
            self.max_packets_out = self.sb.packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
        if self.tcp_is_cwnd_limited() {
            self.cwnd_used = 0;
            self.cwnd_stamp = now;
            return;
        }
        self.cwnd_used = self.cwnd_used.max(self.sb.packets_out);
        let rto = self.rtt.rto();
        if self.cfg.slow_start_after_idle
            && !self.cc_config.is_model_based()
            && now.saturating_since(self.cwnd_stamp) >= rto
        {
            if self.ca_state == CaState::Open {
                let used = self.cwnd_used.max(self.cfg.initial_cwnd);
                let conn = conn_view(self, now, false);
                self.cc.as_mut().unwrap().on_window_validation(
                    now,
                    &conn,
                    WindowValidation::ApplicationLimited { used },
                );
                self.cwnd_used = 0;
            }
            self.cwnd_stamp = now;
        }
    }

    /// The rate the sender paces at: the algorithm's own, or, for a window-based
    /// algorithm, what the pacer derives from its window (`None` = unpaced).
    pub fn pacing_rate(&self) -> Option<Rate> {
        let cc = self.cc.as_ref()?;
        cc.pacing_rate()
            .or_else(|| self.pacer.window_rate(|| self.window()))
    }

    /// The window in bytes, and whether in slow start.
    fn window(&self) -> Option<(u64, bool)> {
        let cc = self.cc.as_ref()?;
        Some((
            cc.cwnd() as u64 * self.cfg.mss as u64,
            in_slow_start(cc.as_ref()),
        ))
    }

    /// Linux's `sk_pacing_rate`, which sizes TSO skbs and the send buffer's charge even for
    /// an unpaced sender: the rate the sender paces at, or what `tcp_update_pacing_rate`
    /// derives from the window. 0 before there is either.
    pub(super) fn sk_pacing_bps(&self) -> u64 {
        let Some(cc) = self.cc.as_ref() else {
            return 0;
        };
        self.pacing_rate()
            .or_else(|| {
                let window = Window {
                    mss: self.cfg.mss,
                    cwnd: cc.cwnd(),
                    packets_out: self.sb.packets_out,
                    ssthresh: cc.metrics().ssthresh_pkts,
                };
                socket_pacing_rate(window, self.rtt.srtt())
            })
            .map_or(0, Rate::bps)
    }

    /// Packets in flight fill the congestion window.
    pub(super) fn window_full(&self) -> bool {
        self.sb.inflight() >= self.cc.as_ref().unwrap().cwnd()
    }

    /// Linux `tcp_is_cwnd_limited`.
    pub(super) fn tcp_is_cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        let Some(cc) = self.cc.as_ref() else {
            return false;
        };
        in_slow_start(cc.as_ref()) && cc.cwnd() < 2 * self.max_packets_out
    }

    pub(super) fn send_syn(&mut self, now: Time, attempts: u32, out: &mut Outbox) {
        self.phase = Phase::SynSent {
            sent_at: now,
            attempts,
        };
        let timeout = RTO_INITIAL
            .checked_mul(1 << attempts.min(7))
            .unwrap_or(RTO_MAX)
            .min(RTO_MAX);
        self.syn_deadline = Some(now + timeout);
        out.packets.push(Packet::syn(self.conn, now));
    }
}
