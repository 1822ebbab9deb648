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
//!  5. CA state: leave Recovery/Loss at high_seq, enter Recovery on loss (from Loss
//!     when a retransmission is lost again)
//!  6. rate sample                            (tcp_rate_gen)
//!  7. congestion control                     (tcp_cong_control)
//!  8. retransmit lost segments, then new data, within cwnd, rwnd and pacing
//!  9. timers: RTO, tail-loss probe, RACK reorder timer
//! ```
//!
//! This file holds the connection's state and the application's side; steps 1–7 are in
//! `ack.rs`, step 8 and the SYN in `output.rs`, step 9 in `timers.rs`.
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
//! no zero-window probes (receivers here always reopen with an update); no TCP timestamps, so
//! an ACK that covers only retransmitted data gives no RTT sample (Linux takes one from the
//! echoed timestamp, in whole milliseconds, and hands it to the algorithm as `rs->rtt_us`).
//!
//! A D-SACK counts its duplicate segment as delivered, to the rate sampler and to the
//! algorithm's `acked_sacked` (`tcp_dsack_seen`: "A spurious retransmission is delivered").
//! The nginx-quic stack counts it too: there the spurious copy is a new packet, which the
//! client acknowledges. A tail-loss probe that repaired a loss (an ACK beyond the probe's
//! end, with no DSACK or pure duplicate ACK before it) causes the one-shot CWR reduction
//! Linux applies; a window update does not count as news there (`FLAG_WIN_UPDATE`), as ACKs
//! here carry no data and rarely move the window.

use super::pacer::socket_rate::{socket_pacing_rate, Window};
use super::pacer::{Pacer, PacerKind};
use super::rack::{Detection, Rack};
use super::rate_sample::{RateSample, RateState, SamplerKind};
use super::rtt::{RttEstimator, RTO_INITIAL, RTO_MAX, RTO_MIN};
use super::scoreboard::{Scoreboard, Segment};
use super::send_buffer::SendBuffer;
use super::send_queue::SendQueueKind;
use super::tso;
use super::Outbox;
use crate::cc::{
    hears_ack, CaState, CcConfig, CcInit, CongestionControl, Conn, HostShared, SentPacket, Timeout,
    WindowValidation,
};
use crate::engine::{Alarm, Rng};
use crate::net::packet::{ConnId, Kind, Packet};
use crate::time::{Duration, Time};
use crate::units::Rate;

mod ack;
mod output;
mod timers;

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
    /// Where a retransmission joins the data queued to send (TCP: first).
    pub send_queue: SendQueueKind,
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
    SynSent {
        sent_at: Time,
        attempts: u32,
    },
    Established,
    /// The peer reset the connection: nothing more is sent, no timer runs, ACKs are ignored.
    Reset,
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
    /// Packets the current loss detection marked lost, in marking order, not yet counted
    /// (kept to reuse its allocation).
    lost_now: Vec<u64>,
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
            lost_now: Vec::new(),
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
            // `tcp_cwnd_restart` starts a new validation period: no second cut follows
            self.cwnd_stamp = now;
            self.cwnd_used = 0;
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

    /// The peer reset the connection (`tcp_reset`, which purges the write queue): what is
    /// unsent or unacknowledged is given up, and no retransmission, probe or timeout follows.
    pub fn reset(&mut self) {
        self.phase = Phase::Reset;
        self.discard_unsent();
        self.finish();
        self.syn_deadline = None;
        self.rto_deadline = None;
        self.tlp_deadline = None;
        self.reo_deadline = None;
        self.pace_deadline = None;
    }

    /// Everything written has been acknowledged, or given up by a reset, and nothing more will
    /// come.
    pub fn is_drained(&self) -> bool {
        self.finished
            && match self.phase {
                Phase::Established => self.snd_una >= self.write_seq,
                Phase::Reset => true,
                _ => false,
            }
    }

    /// Payload bytes the application may write now (see [`SendBuffer`]); none leaves the
    /// writer waiting until [`Self::writer_woken`].
    pub fn write_room(&mut self) -> u64 {
        let rate = self.sk_pacing_bps();
        let (sent, unsent) = self.written_bytes();
        self.sndbuf.room(sent, unsent, rate)
    }

    /// After an ACK or a timer: whether a writer that found no room may write again.
    pub fn writer_woken(&mut self) -> bool {
        let Some(cc) = self.cc.as_ref().filter(|_| self.sndbuf.is_waiting()) else {
            return false;
        };
        let (rate, cwnd) = (self.sk_pacing_bps(), cc.cwnd());
        let (sent, unsent) = self.written_bytes();
        self.sndbuf
            .wake(sent, unsent, rate, self.sb.inflight(), cwnd)
    }

    /// Bytes written and not acknowledged: those sent, and those not yet sent.
    fn written_bytes(&self) -> (u64, u64) {
        (self.snd_nxt - self.snd_una, self.write_seq - self.snd_nxt)
    }

    /// End of the data ready to send: all that was written, or on nginx-quic's send queue
    /// what its stream buffer lets in ([`SendQueueKind::queued_end`]).
    pub(super) fn queued_end(&self) -> u64 {
        match self.cfg.send_queue {
            SendQueueKind::Linux => self.write_seq,
            kind => kind
                .queued_end(self.write_seq, self.snd_una + self.sb.sacked_bytes)
                .max(self.snd_nxt),
        }
    }

    /// New data is queued and the receive window takes its next segment.
    pub(super) fn new_data_fits(&self) -> bool {
        let avail = self.queued_end() - self.snd_nxt;
        avail > 0 && self.snd_nxt + avail.min(self.cfg.mss as u64) <= self.snd_wnd_end
    }

    /// Before a loss detection: where a segment it marks lost joins the send queue.
    pub(super) fn note_resend_position(&mut self) {
        self.sb.resend_behind = self
            .cfg
            .send_queue
            .resend_behind(self.queued_end(), self.snd_wnd_end);
    }

    /// The next segment to resend, unless it waits behind queued data that can still go.
    pub(super) fn next_retransmission(&mut self) -> Option<u64> {
        let idx = self.sb.next_to_retransmit()?;
        let waits = self.sb.get(idx)?.resend_behind > self.snd_nxt && self.new_data_fits();
        (!waits).then_some(idx)
    }

    pub fn acked_bytes(&self) -> u64 {
        self.snd_una
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
        cwnd_fully_used: s.is_cwnd_limited,
        next_departure: s.pacer.next_departure(now),
        last_send: s.last_send,
        app_limited: s.rate.app_limited != 0,
    }
}

#[cfg(test)]
mod tests;
