//! Pacing: when the sender may put its next packet on the wire.
//!
//! * `linux` ([`edt`]): per-packet earliest departure times, as Linux TCP
//!   with internal pacing or `fq` (the default).
//! * `nginx-quic` ([`budget`]): the ATC'23 testbed's QUIC pacer, a byte budget
//!   on a millisecond clock that lets bursts of a few ms of data out at once;
//!   it also paces window-based algorithms, which Linux (without `fq`) does not.
//! * [`socket_rate`]: the rate Linux derives from a window-based algorithm's cwnd
//!   (`sk_pacing_rate`), which sizes TSO skbs though nothing paces at it.
//!
//! The sender calls [`Pacer::on_output`] at the start of each send
//! opportunity, asks [`Pacer::allows`] before each packet, [`Pacer::retry_at`]
//! when held, and reports each packet with [`Pacer::on_send`].

pub mod avg_rtt;
pub mod budget;
pub mod edt;
pub mod socket_rate;

use crate::time::{Duration, Time};
use crate::units::Rate;
use serde::{Deserialize, Serialize};

/// Which pacer a flow's sender runs (scenario field `pacer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PacerKind {
    #[default]
    Linux,
    NginxQuic,
}

#[derive(Clone, Debug)]
pub enum Pacer {
    Edt(edt::Edt),
    Budget(budget::Budget),
}

impl Pacer {
    pub fn new(kind: PacerKind, mss: u32) -> Self {
        match kind {
            PacerKind::Linux => Pacer::Edt(edt::Edt::default()),
            PacerKind::NginxQuic => Pacer::Budget(budget::Budget::new(mss)),
        }
    }

    /// The rate to pace an algorithm at that has none of its own (window-based): none for
    /// Linux; for nginx-quic, from `window()` = (window in bytes, in slow start), which is
    /// only asked for then, over the pacer's `avg_rtt`.
    pub fn window_rate(&self, window: impl FnOnce() -> Option<(u64, bool)>) -> Option<Rate> {
        match self {
            Pacer::Edt(_) => None,
            Pacer::Budget(b) => {
                let (cwnd_bytes, slow_start) = window()?;
                Some(budget::window_rate(cwnd_bytes, b.avg_rtt()?, slow_start))
            }
        }
    }

    /// An ACK newly acknowledged a packet sent at `sent`, held `ack_delay` by the peer (the
    /// nginx-quic pacer's `avg_rtt`).
    pub fn on_rtt_sample(&mut self, now: Time, sent: Time, ack_delay: Duration) {
        if let Pacer::Budget(b) = self {
            b.on_rtt_sample(now, sent, ack_delay);
        }
    }

    pub fn on_output(&mut self, now: Time, rate: Option<Rate>) {
        if let Pacer::Budget(b) = self {
            b.on_output(now, rate);
        }
    }

    pub fn allows(&self, now: Time, rate: Option<Rate>) -> bool {
        match self {
            Pacer::Edt(e) => e.allows(now),
            Pacer::Budget(b) => b.allows(rate),
        }
    }

    /// The sender is held: when to try again.
    pub fn retry_at(&mut self, now: Time, rate: Option<Rate>) -> Time {
        match self {
            Pacer::Edt(e) => e.next_departure(now),
            Pacer::Budget(b) => b.retry_at(now, rate),
        }
    }

    /// A packet left; `continues_skb`: it is not the first of its TSO skb.
    pub fn on_send(&mut self, now: Time, payload: u32, rate: Option<Rate>, continues_skb: bool) {
        match self {
            Pacer::Edt(e) => e.on_send(now, payload, rate, continues_skb),
            Pacer::Budget(b) => b.on_send(now, payload, rate),
        }
    }

    /// Nothing is left to send while the window has room.
    pub fn on_app_limited(&mut self, now: Time) {
        if let Pacer::Budget(b) = self {
            b.on_app_limited(now);
        }
    }

    /// Linux `tcp_wstamp_ns`: when the next packet may leave, however long ago that is
    /// (the Linux pacer only; TSO, its one user, is not offered with the other).
    pub fn wstamp(&self) -> Time {
        match self {
            Pacer::Edt(e) => e.wstamp(),
            Pacer::Budget(_) => Time::ZERO,
        }
    }

    /// Earliest departure of the next packet, for telemetry.
    pub fn next_departure(&self, now: Time) -> Time {
        match self {
            Pacer::Edt(e) => e.next_departure(now),
            Pacer::Budget(_) => now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1252;

    #[test]
    fn only_the_nginx_pacer_paces_a_window_and_only_once_it_has_an_rtt() {
        let window = || Some((125_200, false));
        let mut quic = Pacer::new(PacerKind::NginxQuic, MSS);
        assert_eq!(quic.window_rate(window), None, "no RTT sample yet");
        quic.on_rtt_sample(Time::from_millis(40), Time::ZERO, Duration::ZERO);
        let want = budget::window_rate(125_200, Duration::from_millis(40), false);
        assert_eq!(quic.window_rate(window), Some(want));
        let linux = Pacer::new(PacerKind::Linux, MSS);
        assert_eq!(linux.window_rate(|| panic!("Linux never asks")), None);
    }

    /// 100 Mb/s: the first output grants 6 ms (75 000 B), 59 packets; the next needs either
    /// a millisecond more or an app-limited pause.
    #[test]
    fn the_nginx_pacer_hears_each_output_and_each_app_limited_pause() {
        let rate = Some(Rate::from_mbps(100));
        let drained = || {
            let mut p = Pacer::new(PacerKind::NginxQuic, MSS);
            p.on_output(Time::ZERO, rate);
            for _ in 0..59 {
                assert!(p.allows(Time::ZERO, rate));
                p.on_send(Time::ZERO, MSS, rate, false);
            }
            assert!(!p.allows(Time::ZERO, rate));
            p
        };
        let mut later = drained();
        later.on_output(Time::from_millis(1), rate);
        assert!(later.allows(Time::from_millis(1), rate));
        let mut paused = drained();
        paused.on_app_limited(Time::ZERO);
        assert!(paused.allows(Time::ZERO, rate));
    }

    /// 1500 B at 12 Mb/s take 1 ms; the 10th segment sets the first gap.
    #[test]
    fn the_next_departure_is_the_linux_pacers_stamp_and_now_for_nginx() {
        let rate = Some(Rate::from_mbps(12));
        let mut linux = Pacer::new(PacerKind::Linux, 1500);
        for _ in 0..10 {
            linux.on_send(Time::ZERO, 1500, rate, false);
        }
        assert_eq!(linux.next_departure(Time::ZERO), Time::from_millis(1));
        let quic = Pacer::new(PacerKind::NginxQuic, MSS);
        let now = Time::from_millis(5);
        assert_eq!(quic.next_departure(now), now);
    }
}
