//! What every BBR generation reports to the sender the same way, written once.
//!
//! v1 (`Bbr`) and v2/v3 (`Bbr2`) keep their outputs in fields of the same names
//! (`cwnd`, `pacing_rate_bytes`, `state`, `app_limited_requested`, the model's
//! `bw()`, `min_rtt`, gains and `full_bw`) and restart from idle the same way
//! (Linux `bbr_cwnd_event`, identical in v1, v2 and v3). The wrappers that run v1
//! underneath (B3R, oBBR) pass its outputs straight through. A trait impl cannot
//! inherit methods, so these two macros write those `CongestionControl` methods
//! into each impl; an impl that differs (oBBR's `metrics`) writes its own.

/// `on_packet_sent`, `on_tx_start` and the outputs of a BBR generation. `$round`
/// names its packet-timed round counter (v1 `rtt_cnt`, v2 `round_count`); the
/// caller's `State` must have a `ProbeRtt` variant.
macro_rules! model_outputs {
    ($round:ident) => {
        fn on_packet_sent(
            &mut self,
            now: $crate::time::Time,
            _conn: &$crate::cc::Conn,
            _sent: &$crate::cc::SentPacket,
        ) {
            self.start_clock(now);
        }

        /// `bbr_cwnd_event`: a send with nothing in flight restarts from idle only
        /// on an app-limited connection (not, say, the first resend after a timeout).
        fn on_tx_start(&mut self, now: $crate::time::Time, conn: &$crate::cc::Conn) {
            self.start_clock(now);
            if conn.app_limited {
                self.restart_from_idle(now, conn);
            }
        }

        fn cwnd(&self) -> u32 {
            self.cwnd
        }

        fn tso_segs(&self) -> Option<u32> {
            Some(self.tso_segs_goal())
        }

        fn pacing_rate(&self) -> Option<$crate::units::Rate> {
            Some($crate::units::Rate::from_bps(self.pacing_rate_bytes * 8))
        }

        /// True after every ACK processed in PROBE_RTT, including the one that leaves
        /// it (Linux sets `tp->app_limited` in `bbr_update_min_rtt` before the exit
        /// check). Meant to be read once after each `on_ack`, as Linux marks once per
        /// ACK.
        fn wants_app_limited(&self) -> bool {
            self.state == State::ProbeRtt || self.app_limited_requested
        }

        fn state_name(&self) -> &'static str {
            self.state.name()
        }

        fn metrics(&self) -> $crate::cc::CcMetrics {
            $crate::cc::CcMetrics {
                ssthresh_pkts: self.ssthresh,
                bw_est_bps: Some(self.bw() * self.mss as f64 * 8.0),
                min_rtt: self.min_rtt,
                pacing_gain: Some(self.pacing_gain),
                cwnd_gain: Some(self.cwnd_gain),
                round: Some(self.$round),
                full_bw_reached: Some(self.full_bw.reached),
            }
        }
    };
}

/// The outputs of a wrapper around v1 (field `bbr`) that reports v1's own.
macro_rules! outputs_of_inner_v1 {
    () => {
        fn on_packet_sent(
            &mut self,
            now: $crate::time::Time,
            conn: &$crate::cc::Conn,
            sent: &$crate::cc::SentPacket,
        ) {
            self.bbr.on_packet_sent(now, conn, sent);
        }

        fn cwnd(&self) -> u32 {
            self.bbr.cwnd()
        }

        fn tso_segs(&self) -> Option<u32> {
            self.bbr.tso_segs()
        }

        fn pacing_rate(&self) -> Option<$crate::units::Rate> {
            self.bbr.pacing_rate()
        }

        fn wants_app_limited(&self) -> bool {
            self.bbr.wants_app_limited()
        }

        fn valid_samples_only(&self) -> bool {
            self.bbr.valid_samples_only()
        }

        fn state_name(&self) -> &'static str {
            self.bbr.state_name()
        }
    };
}

pub(crate) use model_outputs;
pub(crate) use outputs_of_inner_v1;
