//! The sending end of a TCP connection, following Linux's order of work.
//!
//! Per ACK (Linux `tcp_ack`):
//!
//! ```text
//!  1. SACK blocks → newly SACKed segments   (tcp_sacktag_write_queue)
//!  2. cumulative ACK → acked segments        (tcp_clean_rtx_queue)
//!     each delivered segment feeds rate sampling, RACK, and the RTT samples
//!  3. RTT estimator, RTO, min RTT            (tcp_ack_update_rtt)
//!  4. RACK marks losses                      (tcp_rack_mark_lost; the algorithm hears of them)
//!  5. CA state: leave Recovery/Loss at high_seq, enter Recovery on loss
//!  6. rate sample                            (tcp_rate_gen)
//!  7. congestion control                     (tcp_cong_control)
//!  8. retransmit lost segments, then new data, within cwnd, rwnd and pacing
//!  9. timers: RTO, tail-loss probe, RACK reorder timer
//! ```
//!
//! Connection set-up is a SYN / SYN-ACK exchange (the SYN crosses the
//! bottleneck like any packet and is retried after 1 s, doubling); the
//! algorithm is created once the handshake has given a first RTT sample.
//!
//! TSO (`SenderConfig::tso`): off, each packet is paced on its own; on, the pacer spaces
//! skbs of [`tso`] size (the algorithm's `tso_segs`, else `tcp_tso_autosize`), whose
//! segments leave back to back, as Linux's `tcp_write_xmit` with a TSO or GSO device.
//!
//! An skb is cut where the window, the receive window or the data ends, and new data that
//! would leave as a partial skb may wait for the next ACK (`tcp_tso_should_defer`).
//!
//! Deviations from Linux: no F-RTO and no undo of spurious recoveries; no Nagle (TCP_NODELAY);
//! no zero-window probes (receivers here always reopen with an update). A tail-loss probe
//! that repaired a loss (an ACK beyond the probe's end, with no DSACK or pure duplicate ACK
//! before it) causes the one-shot CWR reduction Linux applies; a window update does not count
//! as news there (`FLAG_WIN_UPDATE`), as ACKs here carry no data and rarely move the window.

use super::pacer::socket_rate::{socket_pacing_rate, Window};
use super::pacer::{Pacer, PacerKind};
use super::rack::{Detection, Rack};
use super::rate_sample::{RateSample, RateState, SamplerKind};
use super::rtt::{RttEstimator, RTO_INITIAL, RTO_MAX, RTO_MIN};
use super::scoreboard::{Scoreboard, Segment};
use super::send_buffer::SendBuffer;
use super::tso;
use super::Outbox;
use crate::cc::{
    CaState, CcConfig, CcInit, CongestionControl, Conn, HostShared, SentPacket, Timeout,
    WindowValidation,
};
use crate::engine::{Alarm, Rng};
use crate::net::packet::{ConnId, Kind, Packet};
use crate::time::{Duration, Time};
use crate::units::Rate;

/// Linux's `TCP_TIMEOUT_MIN` (2 jiffies at HZ=1000), added to a multi-packet probe timeout.
const TLP_MIN_SLACK: Duration = Duration::from_millis(2);
/// `tcp_tso_should_defer` defers only while the last skb left at most this long ago.
const DEFER_RECENT: Duration = Duration::from_millis(1);
/// `net.ipv4.tcp_tso_win_divisor`: a third of the window is worth sending at once.
const TSO_WIN_DIVISOR: u64 = 3;
/// Marker for "the application has unlimited data".
pub const UNLIMITED: u64 = u64::MAX / 4;

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    /// Initial window, packets (RFC 6928 IW10).
    pub initial_cwnd: u32,
    /// `net.ipv4.tcp_slow_start_after_idle` (default on).
    pub slow_start_after_idle: bool,
    /// Which pacer spaces the packets (Linux EDT or the nginx-quic budget).
    pub pacer: PacerKind,
    /// TSO/GSO: the pacer spaces skbs of several segments, sent back to back.
    pub tso: bool,
    /// Which delivery-rate sampler feeds the algorithm (Linux or the nginx-quic one).
    pub rate_sampler: SamplerKind,
}

/// Counters for summaries and conservation checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub segments_retransmitted: u64,
    pub bytes_sent: u64,
    pub bytes_retransmitted: u64,
    pub rto_events: u64,
    pub recovery_events: u64,
    pub loss_probes: u64,
}

enum Phase {
    Idle,
    SynSent { sent_at: Time, attempts: u32 },
    Established,
}

pub struct TcpSender {
    conn: ConnId,
    cfg: SenderConfig,
    cc_config: CcConfig,
    cc_rng: Option<Rng>,
    host: HostShared,
    cc: Option<Box<dyn CongestionControl>>,
    phase: Phase,
    write_seq: u64,
    snd_una: u64,
    snd_nxt: u64,
    snd_wnd_end: u64,
    sb: Scoreboard,
    rate: RateState,
    rtt: RttEstimator,
    rack: Rack,
    pacer: Pacer,
    sndbuf: SendBuffer,
    ca_state: CaState,
    high_seq: u64,
    backoff: u32,
    tlp_high_seq: Option<u64>,
    tlp_was_retrans: bool,
    syn_deadline: Option<Time>,
    rto_deadline: Option<Time>,
    tlp_deadline: Option<Time>,
    reo_deadline: Option<Time>,
    pace_deadline: Option<Time>,
    /// The handshake, retransmission, loss-probe and reordering deadlines' event.
    loss_alarm: Alarm,
    /// The pacing deadline's event, apart: it moves earlier with every paced packet, and
    /// sharing one alarm would leave a stale retransmission-timeout event in the queue
    /// each time (hundreds pending in a bulk run).
    pace_alarm: Alarm,
    is_cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u64,
    cwnd_used: u32,
    cwnd_stamp: Time,
    last_send: Time,
    finished: bool,
    pub stats: SenderStats,
}

impl TcpSender {
    pub fn new(
        conn: ConnId,
        cfg: SenderConfig,
        cc_config: CcConfig,
        cc_rng: Rng,
        host: HostShared,
    ) -> Self {
        let pacer = Pacer::new(cfg.pacer, cfg.mss);
        let rate = RateState::new(cfg.rate_sampler);
        // BBR provisions 3 × cwnd (`bbr_sndbuf_expand`); sized for the initial window at set-up
        let mut sndbuf = SendBuffer::new(cfg.mss, if cc_config.is_model_based() { 3 } else { 2 });
        sndbuf.expand(cfg.initial_cwnd);
        TcpSender {
            conn,
            cfg,
            cc_config,
            cc_rng: Some(cc_rng),
            host,
            cc: None,
            phase: Phase::Idle,
            write_seq: 0,
            snd_una: 0,
            snd_nxt: 0,
            snd_wnd_end: 0,
            sb: Scoreboard::default(),
            rate,
            rtt: RttEstimator::default(),
            rack: Rack::default(),
            pacer,
            sndbuf,
            ca_state: CaState::Open,
            high_seq: 0,
            backoff: 0,
            tlp_high_seq: None,
            tlp_was_retrans: false,
            syn_deadline: None,
            rto_deadline: None,
            tlp_deadline: None,
            reo_deadline: None,
            pace_deadline: None,
            loss_alarm: Alarm::default(),
            pace_alarm: Alarm::default(),
            is_cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
            cwnd_used: 0,
            cwnd_stamp: Time::ZERO,
            last_send: Time::ZERO,
            finished: false,
            stats: SenderStats::default(),
        }
    }

    // ----- application side -------------------------------------------------

    /// Opens the connection (sends the SYN).
    pub fn connect(&mut self, now: Time, out: &mut Outbox) {
        if matches!(self.phase, Phase::Idle) {
            self.send_syn(now, 0, out);
        }
    }

    /// The application hands `bytes` more to the socket (`UNLIMITED` for a bulk source).
    /// `nic_busy`: the host's NIC is still sending packets of this connection (a TSO skb's
    /// segments leave back to back), so Linux's `sk_wmem_alloc` still counts them.
    pub fn write(&mut self, now: Time, bytes: u64, nic_busy: bool, out: &mut Outbox) {
        let idle = now.saturating_since(self.last_send);
        let restart = self.cfg.slow_start_after_idle
            && !self.cc_config.is_model_based()
            && self.sb.packets_out == 0
            && idle > self.rtt.rto();
        if let (true, Some(_)) = (restart, self.cc.as_ref()) {
            let conn = conn_view(self, now, false);
            let event = WindowValidation::RestartAfterIdle {
                idle,
                rto: self.rtt.rto(),
            };
            self.cc
                .as_mut()
                .unwrap()
                .on_window_validation(now, &conn, event);
        }
        if let Some(cc) = self.cc.as_ref() {
            // `tcp_sendmsg`: "is sending application-limited?" Linux asks only here, when the
            // application writes, never on an ACK. A pacer's packets wait in the sender, not
            // in a qdisc, so only the NIC can hold some.
            self.rate.check_app_limited(
                self.write_seq - self.snd_nxt >= self.cfg.mss as u64,
                nic_busy,
                self.sb.inflight(),
                cc.cwnd(),
                self.sb.lost_out,
                self.sb.retrans_out,
            );
        }
        self.write_seq = self.write_seq.saturating_add(bytes).min(UNLIMITED);
        self.try_send(now, out);
    }

    /// Forgets data written but not yet sent (an aborted response, a stopped source).
    pub fn discard_unsent(&mut self) {
        self.write_seq = self.snd_nxt;
    }

    /// The application will write nothing more; once all is acknowledged the sender is drained.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Everything written has been acknowledged and nothing more will come.
    pub fn is_drained(&self) -> bool {
        self.finished && matches!(self.phase, Phase::Established) && self.snd_una >= self.write_seq
    }

    /// Payload bytes the application may write now (see [`SendBuffer`]); none leaves the
    /// writer waiting until [`Self::writer_woken`].
    pub fn write_room(&mut self) -> u64 {
        let rate = self.sk_pacing_bps();
        self.sndbuf.room(self.write_seq - self.snd_una, rate)
    }

    /// After an ACK or a timer: whether a writer that found no room may write again.
    pub fn writer_woken(&mut self) -> bool {
        let Some(cc) = self.cc.as_ref().filter(|_| self.sndbuf.is_waiting()) else {
            return false;
        };
        let (rate, cwnd) = (self.sk_pacing_bps(), cc.cwnd());
        self.sndbuf.wake(
            self.write_seq - self.snd_una,
            rate,
            self.sb.inflight(),
            cwnd,
        )
    }

    pub fn acked_bytes(&self) -> u64 {
        self.snd_una
    }

    // ----- network side -----------------------------------------------------

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
        let det = self.rack.on_ack(now, &mut self.sb, reo_wnd);
        self.losses_detected(now, &det, advanced);
        if det.reorder_deadline.is_some() {
            self.reo_deadline = det.reorder_deadline;
        }
        let tlp_cwr = self.check_tlp_ack(pkt, advanced, newly_sacked);
        self.update_ca_state(now, advanced);

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
        cc.on_ack(now, &conn, &rs);
        if cc.wants_app_limited() {
            self.rate.mark_app_limited(self.sb.inflight());
        }
        out.samples.push(rs);

        if advanced {
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
    fn check_tlp_ack(&mut self, pkt: &Packet, advanced: bool, newly_sacked: bool) -> bool {
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

    /// Linux `tcp_fastretrans_alert`, reduced to what RACK-based SACK TCP does.
    fn update_ca_state(&mut self, now: Time, advanced: bool) {
        if self.ca_state >= CaState::Recovery && self.snd_una >= self.high_seq && advanced {
            self.ca_state = CaState::Open;
        }
        if self.ca_state < CaState::Recovery {
            if self.sb.lost_out > 0 {
                self.high_seq = self.snd_nxt;
                self.ca_state = CaState::Recovery;
                self.stats.recovery_events += 1;
                self.tlp_deadline = None;
                self.tlp_high_seq = None; // tcp_init_cwnd_reduction
                let conn = conn_view(self, now, advanced);
                self.cc.as_mut().unwrap().on_recovery_start(now, &conn);
            } else {
                self.ca_state = if self.sb.sacked_out > 0 {
                    CaState::Disorder
                } else {
                    CaState::Open
                };
            }
        }
    }

    // ----- sending ----------------------------------------------------------

    fn try_send(&mut self, now: Time, out: &mut Outbox) {
        if !matches!(self.phase, Phase::Established) {
            return;
        }
        self.pace_deadline = None;
        let mut cwnd_limited = false;
        let sent_before = self.stats.segments_sent;
        // tcp_write_xmit runs only with unsent data queued (tcp_push_pending_frames)
        let (had_unsent, snd_nxt_before) = (self.write_seq > self.snd_nxt, self.snd_nxt);
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
            let retx = self.sb.next_to_retransmit();
            if retx.is_none() {
                let avail = self.write_seq - self.snd_nxt;
                if avail == 0 && inflight < cwnd {
                    self.pacer.on_app_limited(now);
                }
                if avail == 0 || self.snd_nxt + avail.min(self.cfg.mss as u64) > self.snd_wnd_end {
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

    fn send_new(&mut self, now: Time, continues_skb: bool, out: &mut Outbox) {
        self.before_data_send(now);
        let len = (self.write_seq - self.snd_nxt).min(self.cfg.mss as u64) as u32;
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

    fn retransmit(&mut self, now: Time, idx: u64, continues_skb: bool, out: &mut Outbox) {
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
    /// the last skb's departure time is over 1 ms past, nor when a full skb, a third of the
    /// window or the rest of the data fits, nor when the oldest packet out left less than half
    /// an RTT ago (its ACK would come too late), nor for the last data before the FIN.
    fn should_defer(&self, now: Time, segs: u64) -> Option<bool> {
        let mss = self.cfg.mss as u64;
        let unsent = self.write_seq - self.snd_nxt;
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
    fn validate_cwnd(&mut self, now: Time, cwnd_limited: bool) {
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
    fn sk_pacing_bps(&self) -> u64 {
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
    fn window_full(&self) -> bool {
        self.sb.inflight() >= self.cc.as_ref().unwrap().cwnd()
    }

    /// Linux `tcp_is_cwnd_limited`.
    fn tcp_is_cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        let Some(cc) = self.cc.as_ref() else {
            return false;
        };
        in_slow_start(cc.as_ref()) && cc.cwnd() < 2 * self.max_packets_out
    }

    fn send_syn(&mut self, now: Time, attempts: u32, out: &mut Outbox) {
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

    // ----- timers -----------------------------------------------------------

    fn rto_with_backoff(&self) -> Duration {
        let base = self.rtt.rto().max(RTO_MIN);
        base.checked_mul(1u64 << self.backoff.min(16))
            .unwrap_or(RTO_MAX)
            .min(RTO_MAX)
    }

    fn rearm_rto(&mut self, now: Time) {
        self.rto_deadline = (self.sb.packets_out > 0).then(|| now + self.rto_with_backoff());
        if self.sb.packets_out == 0 {
            self.tlp_deadline = None;
            self.reo_deadline = None;
        }
    }

    /// RTO measured from the oldest outstanding transmission (`tcp_rto_delta_us`).
    fn rearm_rto_from_head(&mut self, now: Time) {
        let head = self.sb.head().map_or(now, |s| s.sent_at);
        self.rto_deadline = (self.sb.packets_out > 0)
            .then(|| (head + self.rto_with_backoff()).max(now + Duration::from_nanos(1)));
    }

    /// `tcp_schedule_loss_probe`.
    fn schedule_loss_probe(&mut self, now: Time) {
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

    fn reo_wnd(&self) -> Duration {
        self.rack.reo_wnd(
            self.ca_state,
            self.sb.sacked_out,
            self.rtt.min_rtt(),
            self.rtt.srtt(),
        )
    }

    /// RACK marked packets lost: count them for the rate sampler and tell the algorithm (the
    /// QUIC stacks' per-loss `on_lost`).
    fn losses_detected(&mut self, now: Time, det: &Detection, snd_una_advanced: bool) {
        let Some(newest_sent) = det.newest_lost_sent else {
            return;
        };
        self.rate.lost += det.newly_lost as u64;
        let conn = conn_view(self, now, snd_una_advanced);
        self.cc
            .as_mut()
            .unwrap()
            .on_loss_detected(now, &conn, newest_sent);
    }

    /// `tcp_rack_reo_timeout`.
    fn on_reorder_timeout(&mut self, now: Time, out: &mut Outbox) {
        let reo_wnd = self.reo_wnd();
        let det = self.rack.detect(now, &mut self.sb, reo_wnd);
        self.reo_deadline = det.reorder_deadline;
        if det.newly_lost > 0 {
            self.losses_detected(now, &det, false);
            if self.ca_state < CaState::Recovery {
                self.update_ca_state(now, false);
                if !self.cc_config.is_model_based() {
                    // tcp_cwnd_reduction(sk, 1, 0): one PRR step as if one packet had been delivered
                    let rs = RateSample {
                        acked_sacked: 1,
                        prior_in_flight: self.sb.inflight(),
                        ..RateSample::default()
                    };
                    let conn = conn_view(self, now, false);
                    self.cc.as_mut().unwrap().on_ack(now, &conn, &rs);
                }
            }
            self.try_send(now, out);
        }
        self.rearm_rto_from_head(now);
    }

    /// `tcp_send_loss_probe`.
    fn send_loss_probe(&mut self, now: Time, out: &mut Outbox) {
        if self.tlp_high_seq.is_none() && self.sb.packets_out > 0 {
            let has_new = self.write_seq > self.snd_nxt
                && self.snd_nxt + (self.write_seq - self.snd_nxt).min(self.cfg.mss as u64)
                    <= self.snd_wnd_end;
            if has_new {
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
        }
        self.rearm_rto_from_head(now);
    }

    /// `tcp_retransmit_timer` → `tcp_enter_loss`.
    fn on_rto(&mut self, now: Time, out: &mut Outbox) {
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
                newly_lost += 1;
                oldest.get_or_insert(sent_at);
                newest = newest.max(Some(sent_at));
                broken |= sacked_since;
                sacked_since = false;
            } else if sacked && oldest.is_some() {
                sacked_since = true;
            }
        }
        self.rate.lost += newly_lost;
        let timeout = Timeout {
            new_episode,
            newest_lost_sent: newest,
            unbroken_loss_span: oldest.zip(newest).filter(|_| newly_lost >= 2 && !broken),
            rtt_deviation4: self.rtt.mean_deviation4(),
        };
        self.ca_state = CaState::Loss;
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

    // ----- telemetry ----------------------------------------------------------

    pub fn cc(&self) -> Option<&dyn CongestionControl> {
        self.cc.as_deref()
    }

    pub fn snapshot(&self, now: Time) -> SenderSnapshot {
        SenderSnapshot {
            inflight: self.sb.inflight(),
            packets_out: self.sb.packets_out,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            rto: self.rto_with_backoff(),
            delivered_pkts: self.rate.delivered,
            lost_pkts: self.rate.lost,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            ca_state: self.ca_state,
            next_departure: self.pacer.next_departure(now),
            established: matches!(self.phase, Phase::Established),
        }
    }
}

/// What telemetry reads from a sender.
#[derive(Clone, Debug)]
pub struct SenderSnapshot {
    pub inflight: u32,
    pub packets_out: u32,
    pub srtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
    pub rto: Duration,
    pub delivered_pkts: u64,
    pub lost_pkts: u64,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub ca_state: CaState,
    pub next_departure: Time,
    pub established: bool,
}

/// Linux `tcp_in_slow_start`: below ssthresh (none yet counts as below).
fn in_slow_start(cc: &dyn CongestionControl) -> bool {
    cc.metrics().ssthresh_pkts.is_none_or(|ss| cc.cwnd() < ss)
}

fn conn_view(s: &TcpSender, now: Time, snd_una_advanced: bool) -> Conn {
    Conn {
        mss: s.cfg.mss,
        delivered: s.rate.delivered,
        lost: s.rate.lost,
        delivered_ce: s.rate.delivered_ce,
        inflight: s.sb.inflight(),
        ca_state: s.ca_state,
        srtt: s.rtt.srtt(),
        min_rtt: s.rtt.min_rtt(),
        delivered_time: s.rate.delivered_time,
        snd_una: s.snd_una,
        snd_nxt: s.snd_nxt,
        snd_una_advanced,
        is_cwnd_limited: s.tcp_is_cwnd_limited(),
        next_departure: s.pacer.next_departure(now),
        last_send: s.last_send,
        app_limited: s.rate.app_limited != 0,
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
