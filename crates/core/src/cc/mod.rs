//! Congestion control: one trait, one file (or folder) per algorithm, and a
//! config enum that is the factory.
//!
//! The transport owns the connection state — inflight, RTT estimator,
//! delivery-rate sampling, the CA state machine — and lends a read-only
//! [`Conn`] snapshot plus the ACK's [`RateSample`] to the algorithm. The
//! algorithm's only outputs are `cwnd()` and `pacing_rate()` (plus, for BBR's
//! PROBE_RTT, a request to mark the connection application-limited).
//!
//! Units follow Linux: windows and inflight are counted in packets (segments
//! of up to one MSS), not bytes, because every reference implementation the
//! specs cite (tcp_cubic.c, tcp_bbr.c, tcp_bbr2.c) works in packets and the
//! rounding matters (BBR's `ceil(bdp)`, quantisation budget, cwnd ≥ 4).
//!
//! The hooks mirror Linux's `tcp_congestion_ops` call sites:
//!
//! | hook                 | Linux call site                                       |
//! |----------------------|-------------------------------------------------------|
//! | `on_ack`             | `tcp_cong_control` (after `tcp_rate_gen`), every ACK; with `valid_samples_only`, as the QUIC stacks call them, only ACKs with a valid rate sample |
//! | `on_recovery_start`  | `tcp_enter_recovery` → `ssthresh()`                   |
//! | `on_rto`             | `tcp_enter_loss` → `ssthresh()`, cwnd = inflight + 1, `set_state(Loss)` |
//! | `on_packet_lost`     | `tcp_sum_lost` → `skb_marked_lost()`, per packet RACK or an RTO marks lost, before the ACK's or timeout's other hooks |
//! | `on_loss_detected`   | RACK marks packets lost (QUIC stacks' per-loss `on_lost`) |
//! | `on_packet_sent`     | per transmitted segment (PRR's `prr_out`)             |
//! | `on_tx_start`        | `cwnd_event(CA_EVENT_TX_START)` (restart after idle)  |
//! | `on_window_validation` | `tcp_cwnd_restart`, `tcp_cwnd_application_limited` (RFC 2861; classic algorithms only) |

use crate::engine::Rng;
use crate::scenario::kind::name_or_table;
use crate::time::{Duration, Time};
use crate::transport::rate_sample::{RateSample, TxSnapshot};
use crate::units::Rate;
use serde::{Deserialize, Deserializer};
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;

pub mod b3r;
pub mod bbr;
pub mod bbr2;
pub mod bbr2_s;
mod bbr_outputs;
pub mod bbr_s;
pub mod bbr_shallow;
pub mod cubic;
pub mod cubic_quic;
pub mod obbr;
pub mod reno;
mod window;

pub use b3r::{B3r, Params as B3rParams};
pub use bbr::{Bbr, Params as BbrParams};
pub use bbr2::{Bbr2, Params as Bbr2Params};
pub use bbr2_s::Params as Bbr2SParams;
pub use bbr_s::Params as BbrSParams;
pub use bbr_shallow::Params as BbrShallowParams;
pub use cubic::{Cubic, Params as CubicParams};
pub use cubic_quic::{CubicQuic, Params as CubicQuicParams};
pub use obbr::{Obbr, Params as ObbrParams};
pub use reno::{Params as RenoParams, Reno};

/// Linux's congestion-avoidance state (`icsk_ca_state`), ordered as in Linux.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum CaState {
    #[default]
    Open,
    Disorder,
    Cwr,
    Recovery,
    Loss,
}

/// Read-only view of the connection, lent to the algorithm on every call.
#[derive(Clone, Debug, Default)]
pub struct Conn {
    /// Payload bytes of a full segment.
    pub mss: u32,
    /// Packets delivered (acked or sacked) so far, each counted once.
    pub delivered: u64,
    /// Packets ever marked lost.
    pub lost: u64,
    pub delivered_ce: u64,
    /// Packets in flight now (`packets_out − sacked_out − lost_out + retrans_out`).
    pub inflight: u32,
    pub ca_state: CaState,
    pub srtt: Option<Duration>,
    /// The transport's windowed minimum RTT (`tcp_min_rtt`, 300 s window).
    pub min_rtt: Option<Duration>,
    /// Time of the most recent ACK that delivered data (`delivered_mstamp`).
    pub delivered_time: Time,
    /// First unacknowledged byte and next byte to send (HyStart's round markers).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// This ACK moved `snd_una` forward (PRR's `FLAG_SND_UNA_ADVANCED`).
    pub snd_una_advanced: bool,
    /// Linux `tcp_is_cwnd_limited`: the window was fully used (or, in slow
    /// start, cwnd < 2 × the most packets recently outstanding).
    pub is_cwnd_limited: bool,
    /// Linux's `tp->is_cwnd_limited` flag alone, without the slow-start allowance: the
    /// window was fully used (BBRv2/v3 read the flag).
    pub cwnd_fully_used: bool,
    /// Earliest time the pacer lets the next packet leave (`tcp_wstamp_ns`).
    pub next_departure: Time,
    /// When the last data packet was sent (`lsndtime`).
    pub last_send: Time,
    /// An app-limited bubble is open (`tp->app_limited` ≠ 0, `tcp_rate.c`).
    pub app_limited: bool,
}

/// A retransmission timeout and the packets it marked lost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timeout {
    /// False when the RTO repeats within a loss episode already being handled (no new
    /// ssthresh).
    pub new_episode: bool,
    /// Send time of the newest packet marked lost (`None`: none was newly marked).
    pub newest_lost_sent: Option<Time>,
    /// Send times of the oldest and newest of two or more packets marked lost with no
    /// packet between them acknowledged (a span QUIC may call persistent congestion).
    pub unbroken_loss_span: Option<(Time, Time)>,
    /// Four times the RTT's mean deviation (Linux `mdev_us`; QUIC's 4·rttvar).
    pub rtt_deviation4: Duration,
}

/// What the transport tells the algorithm about each transmitted segment.
#[derive(Clone, Copy, Debug)]
pub struct SentPacket {
    pub payload_bytes: u32,
    pub is_retrans: bool,
    /// Packets in flight including this one.
    pub inflight: u32,
}

/// Why the Linux core shrinks a classic algorithm's window (RFC 2861).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowValidation {
    /// `tcp_cwnd_restart`: sending resumes after `idle` > RTO with nothing in flight:
    /// ssthresh = max(ssthresh, ¾ cwnd); cwnd halves once per elapsed `rto`, down to min(IW, cwnd).
    RestartAfterIdle { idle: Duration, rto: Duration },
    /// `tcp_cwnd_application_limited`: not cwnd-limited for an RTO in Open state:
    /// if `used` (≥ IW) < cwnd, ssthresh = max(ssthresh, ¾ cwnd) and cwnd = (cwnd + used) / 2.
    ApplicationLimited { used: u32 },
}

/// Telemetry snapshot; fields an algorithm does not have are `None`.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CcMetrics {
    /// Slow-start threshold, packets (loss-based algorithms; `None` = infinite).
    pub ssthresh_pkts: Option<u32>,
    /// Bandwidth the algorithm acts on (BBR's `bw()`), payload bits/s.
    pub bw_est_bps: Option<f64>,
    /// The algorithm's own min-RTT estimate.
    pub min_rtt: Option<Duration>,
    pub pacing_gain: Option<f64>,
    pub cwnd_gain: Option<f64>,
    /// Packet-timed round count.
    pub round: Option<u64>,
    pub full_bw_reached: Option<bool>,
}

/// State the algorithms of one sending host share — what Linux keeps in
/// module-level statics (BBR-S's sample history is one). Each algorithm keeps
/// its own entry under a key; flows on the same host get the same handle.
#[derive(Clone, Default)]
#[allow(clippy::type_complexity)]
pub struct HostShared(Rc<RefCell<Vec<(&'static str, Rc<dyn Any>)>>>);

impl HostShared {
    /// The host's value under `key`, created by `make` on first use.
    pub fn entry<T: 'static>(&self, key: &'static str, make: impl FnOnce() -> T) -> Rc<T> {
        let mut entries = self.0.borrow_mut();
        if let Some((_, v)) = entries.iter().find(|(k, _)| *k == key) {
            return v
                .clone()
                .downcast::<T>()
                .expect("one type per host-shared key");
        }
        let v = Rc::new(make());
        entries.push((key, v.clone()));
        v
    }

    /// Mutable state under `key`: the host's if `shared` (a module's globals), else a
    /// connection's own.
    pub fn cell<T: 'static>(
        &self,
        key: &'static str,
        shared: bool,
        make: impl FnOnce() -> T,
    ) -> Rc<RefCell<T>> {
        if shared {
            self.entry(key, || RefCell::new(make()))
        } else {
            Rc::new(RefCell::new(make()))
        }
    }
}

impl std::fmt::Debug for HostShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let keys: Vec<_> = self.0.borrow().iter().map(|(k, _)| *k).collect();
        f.debug_tuple("HostShared").field(&keys).finish()
    }
}

/// What an algorithm is built from.
pub struct CcInit {
    pub mss: u32,
    /// Initial window, packets (IW10).
    pub initial_cwnd: u32,
    /// Smoothed RTT when the algorithm is created (from the handshake), if any.
    pub srtt: Option<Duration>,
    /// This flow's own random stream (BBR's random PROBE_BW phase).
    pub rng: Rng,
    /// State shared with the other connections of the same sending host.
    pub host: HostShared,
}

/// A congestion-control algorithm. See the module header for when each hook runs.
pub trait CongestionControl {
    /// Every ACK that acknowledged, sacked, or marked packets lost (Linux `cong_control`),
    /// unless [`valid_samples_only`](Self::valid_samples_only) and its sample is invalid.
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample);

    /// The oBBR artifact's QUIC stack calls its algorithms only for ACK frames with a valid
    /// rate sample (`ngx_quic_handle_ack_frame`: `if (ngx_generate_sample(c))`, false without
    /// a reference packet or when the interval is shorter than the minimum RTT); Linux calls
    /// `cong_control` on every ACK. True: the sender skips `on_ack`, and the app-limited mark
    /// read after it, for an ACK whose sample has no interval. Loss hooks still run.
    fn valid_samples_only(&self) -> bool {
        false
    }

    /// Fast recovery starts (Linux `tcp_enter_recovery` calling `ssthresh()`).
    fn on_recovery_start(&mut self, now: Time, conn: &Conn);

    /// Retransmission timeout (Linux `tcp_enter_loss`), with what it marked lost.
    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout);

    /// The TCP core marked one packet lost (Linux `skb_marked_lost`, BBRv2/v3's per-loss
    /// hook): RACK on an ACK or its reorder timer, or an RTO, before that event's other
    /// hooks. `conn.lost` counts this packet and those marked before it; `sent` is its
    /// send-time snapshot.
    fn on_packet_lost(&mut self, _now: Time, _conn: &Conn, _sent: &TxSnapshot) {}

    /// Loss detection marked packets lost (on an ACK, before `on_ack`, or on the reorder
    /// timer): the QUIC stacks' per-loss `on_lost` (`ngx_bbr_on_lost`, `CubicOnLost`).
    /// `newest_sent`: when the most recently sent of them was sent.
    fn on_loss_detected(&mut self, _now: Time, _conn: &Conn, _newest_sent: Time) {}

    fn on_packet_sent(&mut self, _now: Time, _conn: &Conn, _sent: &SentPacket) {}

    /// Sending resumes with nothing in flight (`CA_EVENT_TX_START`).
    fn on_tx_start(&mut self, _now: Time, _conn: &Conn) {}

    /// RFC 2861 window validation that the Linux core applies to algorithms
    /// without `cong_control`; model-based algorithms never receive it.
    fn on_window_validation(&mut self, _now: Time, _conn: &Conn, _event: WindowValidation) {}

    /// Congestion window, packets.
    fn cwnd(&self) -> u32;

    /// Pacing rate in payload bits/s; `None` = unpaced.
    fn pacing_rate(&self) -> Option<Rate>;

    /// Segments per TSO skb when the algorithm sizes them itself (BBR's
    /// `bbr_tso_segs_goal`); `None` = the TCP core's `tcp_tso_autosize`.
    fn tso_segs(&self) -> Option<u32> {
        None
    }

    /// BBR in PROBE_RTT asks the transport to keep the connection marked
    /// application-limited so its samples do not lower the bandwidth filter.
    fn wants_app_limited(&self) -> bool {
        false
    }

    /// State name for traces ("STARTUP", "CONG_AVOID", ...).
    fn state_name(&self) -> &'static str;

    fn metrics(&self) -> CcMetrics;
}

/// Whether `cc` hears this ACK's `on_ack`: every ACK, unless it asks for
/// [`valid_samples_only`](CongestionControl::valid_samples_only) and `rs` has no interval.
pub fn hears_ack(cc: &(impl CongestionControl + ?Sized), rs: &RateSample) -> bool {
    rs.interval.is_some() || !cc.valid_samples_only()
}

/// Which algorithm a flow runs, with its parameters. `"bbr"` or `{ kind = "bbr", ... }`.
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfig {
    Reno(RenoParams),
    Cubic(CubicParams),
    /// The oBBR artifact's QUIC CUBIC (`cubic.c`).
    CubicQuic(CubicQuicParams),
    Bbr(BbrParams),
    /// BBRv2 (google/bbr v2alpha).
    Bbr2(Bbr2Params),
    /// BBRv3: the BBRv2 code with `Bbr2Params::v3()` defaults.
    Bbr3(Bbr2Params),
    /// The oBBR artifact's nginx-quic BBRv2 constants on the BBRv2 code.
    Bbr2Quic(Bbr2Params),
    BbrS(BbrSParams),
    Bbr2S(Bbr2SParams),
    BbrShallow(BbrShallowParams),
    Obbr(ObbrParams),
    B3r(B3rParams),
}

/// Names accepted for `cc`, for error messages and `bloatlab validate`.
pub const CC_NAMES: &[&str] = &[
    "reno",
    "cubic",
    "cubic-quic",
    "bbr",
    "bbr2",
    "bbr3",
    "bbr2-quic",
    "bbr-s",
    "bbr2-s",
    "bbr-shallow",
    "obbr",
    "b3r",
];

impl CcConfig {
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Reno(_) => "reno",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::CubicQuic(_) => "cubic-quic",
            CcConfig::Bbr(_) => "bbr",
            CcConfig::Bbr2(_) => "bbr2",
            CcConfig::Bbr3(_) => "bbr3",
            CcConfig::Bbr2Quic(_) => "bbr2-quic",
            CcConfig::BbrS(_) => "bbr-s",
            CcConfig::Bbr2S(_) => "bbr2-s",
            CcConfig::BbrShallow(_) => "bbr-shallow",
            CcConfig::Obbr(_) => "obbr",
            CcConfig::B3r(_) => "b3r",
        }
    }

    /// The configuration as JSON (kind and every parameter), for the resolved scenario.
    pub fn to_json(&self) -> serde_json::Value {
        let params = match self {
            CcConfig::Reno(p) => serde_json::to_value(p),
            CcConfig::Cubic(p) => serde_json::to_value(p),
            CcConfig::CubicQuic(p) => serde_json::to_value(p),
            CcConfig::Bbr(p) => serde_json::to_value(p),
            CcConfig::Bbr2(p) | CcConfig::Bbr3(p) | CcConfig::Bbr2Quic(p) => {
                serde_json::to_value(p)
            }
            CcConfig::BbrS(p) => serde_json::to_value(p),
            CcConfig::Bbr2S(p) => serde_json::to_value(p),
            CcConfig::BbrShallow(p) => serde_json::to_value(p),
            CcConfig::Obbr(p) => serde_json::to_value(p),
            CcConfig::B3r(p) => serde_json::to_value(p),
        };
        let mut v = params.expect("parameters serialise");
        v.as_object_mut()
            .expect("parameters are a table")
            .insert("kind".into(), self.name().into());
        v
    }

    /// Range checks on the parameters, with a message naming the parameter.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            CcConfig::Reno(_) => Ok(()),
            CcConfig::Cubic(p) => p.validate(),
            CcConfig::CubicQuic(p) => p.validate(),
            CcConfig::Bbr(p) => p.validate(),
            CcConfig::Bbr2(p) | CcConfig::Bbr3(p) | CcConfig::Bbr2Quic(p) => p.validate(),
            CcConfig::BbrS(p) => p.validate(BbrParams::validate),
            CcConfig::Bbr2S(p) => p.validate(Bbr2Params::validate),
            CcConfig::BbrShallow(p) => p.validate(),
            CcConfig::Obbr(p) => p.validate(),
            CcConfig::B3r(p) => p.validate(),
        }
    }

    /// Whether the algorithm implements Linux's `cong_control` (owns cwnd in
    /// recovery, does its own idle restart) rather than the classic hooks; the QUIC
    /// stacks' algorithms (`cubic-quic` too) own their window this way.
    pub fn is_model_based(&self) -> bool {
        matches!(
            self,
            CcConfig::CubicQuic(_)
                | CcConfig::Bbr(_)
                | CcConfig::Bbr2(_)
                | CcConfig::Bbr3(_)
                | CcConfig::Bbr2Quic(_)
                | CcConfig::BbrS(_)
                | CcConfig::Bbr2S(_)
                | CcConfig::BbrShallow(_)
                | CcConfig::Obbr(_)
                | CcConfig::B3r(_)
        )
    }

    pub fn build(&self, init: CcInit) -> Box<dyn CongestionControl> {
        match self {
            CcConfig::Reno(p) => Box::new(Reno::new(p.clone(), init)),
            CcConfig::Cubic(p) => Box::new(Cubic::new(p.clone(), init)),
            CcConfig::CubicQuic(p) => Box::new(CubicQuic::new(p.clone(), init)),
            CcConfig::Bbr(p) => Box::new(Bbr::new(p.clone(), init)),
            CcConfig::Bbr2(p) | CcConfig::Bbr3(p) | CcConfig::Bbr2Quic(p) => {
                Box::new(Bbr2::new(p.clone(), init))
            }
            CcConfig::BbrS(p) => Box::new(bbr_s::new(p, init)),
            CcConfig::Bbr2S(p) => Box::new(bbr2_s::new(p, init)),
            CcConfig::BbrShallow(p) => Box::new(bbr_shallow::new(p, init)),
            CcConfig::Obbr(p) => Box::new(Obbr::new(p.clone(), init)),
            CcConfig::B3r(p) => Box::new(B3r::new(p.clone(), init)),
        }
    }
}

/// A parameter check: the first of `counts` that is 0, named with its allowed range.
pub(crate) fn at_least_one(counts: &[(&str, u64)]) -> Result<(), String> {
    match counts.iter().find(|(_, n)| *n == 0) {
        Some((name, _)) => Err(format!("{name} = 0: allowed ≥ 1")),
        None => Ok(()),
    }
}

/// A parameter check: the first of `factors` that is not a finite number ≥ 0, named with
/// its allowed range.
pub(crate) fn non_negative(factors: &[(impl AsRef<str>, f64)]) -> Result<(), String> {
    first_outside(factors, |g| g >= 0.0, |name| format!("finite {name} ≥ 0"))
}

/// A parameter check: the first of `factors` that is not a finite number > 0, named with its
/// allowed range.
pub(crate) fn positive(factors: &[(impl AsRef<str>, f64)]) -> Result<(), String> {
    first_outside(factors, |g| g > 0.0, |name| format!("finite {name} > 0"))
}

/// A parameter check: the first of `(name, value, low, high)` outside low ≤ value ≤ high,
/// named with its allowed range.
pub(crate) fn within(values: &[(&str, f64, f64, f64)]) -> Result<(), String> {
    match values.iter().find(|(_, v, lo, hi)| !(lo..=hi).contains(&v)) {
        Some((name, v, lo, hi)) => Err(format!(
            "{name} = {v} is out of range: allowed {lo} ≤ {name} ≤ {hi}"
        )),
        None => Ok(()),
    }
}

/// The first of `values` that is not finite or not `inside`, with the range `allowed` words.
fn first_outside(
    values: &[(impl AsRef<str>, f64)],
    inside: impl Fn(f64) -> bool,
    allowed: impl Fn(&str) -> String,
) -> Result<(), String> {
    match values.iter().find(|(_, v)| !(v.is_finite() && inside(*v))) {
        Some((name, v)) => Err(format!(
            "{} = {v} is out of range: allowed {}",
            name.as_ref(),
            allowed(name.as_ref())
        )),
        None => Ok(()),
    }
}

/// A parameter check: the first of `(name, value, limit)` not below its limit, named with
/// its allowed range.
pub(crate) fn below(values: &[(&str, u64, u64)]) -> Result<(), String> {
    match values.iter().find(|(_, value, limit)| value >= limit) {
        Some((name, value, limit)) => Err(format!(
            "{name} = {value} is out of range: allowed 0 ≤ {name} ≤ {}",
            limit - 1
        )),
        None => Ok(()),
    }
}

/// A parameter table with a preset under it: the preset's fields, each replaced by the
/// table's own where it writes one (`bbr3`, `bbr2-quic`, BBR v1's `artifact_base`).
pub(crate) fn over_preset<T: serde::Serialize>(
    preset: &T,
    table: serde_json::Map<String, serde_json::Value>,
) -> serde_json::Value {
    let serde_json::Value::Object(mut fields) =
        serde_json::to_value(preset).expect("parameters serialise")
    else {
        unreachable!("parameters are a table");
    };
    fields.extend(table);
    serde_json::Value::Object(fields)
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum CcTable {
    Reno(RenoParams),
    Cubic(CubicParams),
    #[serde(rename = "cubic-quic")]
    CubicQuic(CubicQuicParams),
    Bbr(BbrParams),
    Bbr2(Bbr2Params),
    Bbr3(bbr2::Bbr3Table),
    #[serde(rename = "bbr2-quic")]
    Bbr2Quic(bbr2::Bbr2QuicTable),
    #[serde(rename = "bbr-s")]
    BbrS(BbrSParams),
    #[serde(rename = "bbr2-s")]
    Bbr2S(Bbr2SParams),
    #[serde(rename = "bbr-shallow")]
    BbrShallow(BbrShallowParams),
    Obbr(ObbrParams),
    B3r(B3rParams),
}

impl<'de> Deserialize<'de> for CcConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match name_or_table::<D, CcTable>(d, CC_NAMES)? {
            CcTable::Reno(p) => CcConfig::Reno(p),
            CcTable::Cubic(p) => CcConfig::Cubic(p),
            CcTable::CubicQuic(p) => CcConfig::CubicQuic(p),
            CcTable::Bbr(p) => CcConfig::Bbr(p),
            CcTable::Bbr2(p) => CcConfig::Bbr2(p),
            CcTable::Bbr3(p) => CcConfig::Bbr3(p.0),
            CcTable::Bbr2Quic(p) => CcConfig::Bbr2Quic(p.0),
            CcTable::BbrS(p) => CcConfig::BbrS(p),
            CcTable::Bbr2S(p) => CcConfig::Bbr2S(p),
            CcTable::BbrShallow(p) => CcConfig::BbrShallow(p),
            CcTable::Obbr(p) => CcConfig::Obbr(p),
            CcTable::B3r(p) => CcConfig::B3r(p),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_shared_entries_are_created_once_and_shared() {
        let host = HostShared::default();
        let a = host.entry("hist", || RefCell::new(vec![1]));
        host.entry("hist", || RefCell::new(vec![2]))
            .borrow_mut()
            .push(3);
        assert_eq!(*a.borrow(), vec![1, 3]);
        assert_eq!(
            *HostShared::default()
                .entry("hist", || RefCell::new(vec![2]))
                .borrow(),
            vec![2]
        );
    }

    #[test]
    fn host_shared_shows_its_keys() {
        let host = HostShared::default();
        host.entry("bbr_s", || 1u8);
        assert_eq!(format!("{host:?}"), r#"HostShared(["bbr_s"])"#);
    }

    #[test]
    fn only_linux_reno_and_cubic_take_the_classic_hooks() {
        for &name in CC_NAMES {
            let cc: CcConfig = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            let classic = matches!(name, "reno" | "cubic");
            assert_eq!(cc.is_model_based(), !classic, "{name}");
            if classic {
                // only BBR's PROBE_RTT holds the connection app-limited
                assert!(
                    !cc.build(crate::testing::init()).wants_app_limited(),
                    "{name}"
                );
            }
        }
    }

    /// The algorithms of the oBBR artifact's QUIC stack hear only ACKs with a valid rate
    /// sample; Linux's, and the variants on Linux's BBR, every ACK.
    #[test]
    fn only_the_quic_stacks_algorithms_ask_for_valid_samples_only() {
        let asks = |cc: &str| {
            let cc: CcConfig = serde_json::from_str(cc).unwrap();
            cc.build(crate::testing::init()).valid_samples_only()
        };
        for &name in CC_NAMES {
            let quic = matches!(name, "cubic-quic" | "bbr2-quic");
            assert_eq!(asks(&format!("\"{name}\"")), quic, "{name}");
        }
        for on_artifact_base in [
            r#"{"kind": "bbr", "artifact_base": true}"#,
            r#"{"kind": "obbr", "bbr": {"artifact_base": true}}"#,
            r#"{"kind": "b3r", "bbr": {"artifact_base": true}}"#,
            r#"{"kind": "bbr-s", "base": {"artifact_base": true}}"#,
        ] {
            assert!(asks(on_artifact_base), "{on_artifact_base}");
        }
    }

    #[test]
    fn range_checks_name_the_first_value_outside_with_its_range() {
        assert_eq!(non_negative(&[("a", 0.0), ("b", 2.0)]), Ok(()));
        assert_eq!(
            non_negative(&[("a", 0.0), ("b", -0.5), ("c", -1.0)]),
            Err("b = -0.5 is out of range: allowed finite b ≥ 0".into())
        );
        assert_eq!(positive(&[("a", 1e-9)]), Ok(()));
        assert_eq!(
            positive(&[("a", 1.0), ("g", 0.0)]),
            Err("g = 0 is out of range: allowed finite g > 0".into())
        );
        for not_a_factor in [f64::INFINITY, f64::NAN] {
            assert!(non_negative(&[("a", not_a_factor)]).is_err());
            assert!(positive(&[("a".to_string(), not_a_factor)]).is_err());
        }
        assert_eq!(
            within(&[("m", 0.0, 0.0, 1.0), ("n", 1.0, 0.0, 1.0)]),
            Ok(())
        );
        assert_eq!(
            within(&[("m", 0.5, 0.0, 1.0), ("n", 16.5, 1.0, 16.0)]),
            Err("n = 16.5 is out of range: allowed 1 ≤ n ≤ 16".into())
        );
        assert!(within(&[("m", f64::NAN, 0.0, 1.0)]).is_err());
    }

    #[test]
    fn a_name_or_a_table_selects_the_algorithm() {
        let c: CcConfig = serde_json::from_str("\"cubic\"").unwrap();
        assert_eq!(c, CcConfig::Cubic(CubicParams::default()));
        let c: CcConfig = serde_json::from_str(r#"{"kind":"bbr"}"#).unwrap();
        assert_eq!(c, CcConfig::Bbr(BbrParams::default()));
        let e = serde_json::from_str::<CcConfig>("\"vegas\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("vegas") && e.contains("`reno`, `cubic`, `cubic-quic`, `bbr`"),
            "{e}"
        );
        let c: CcConfig = serde_json::from_str(r#"{"kind":"cubic-quic","beta":0.5}"#).unwrap();
        assert_eq!(
            c,
            CcConfig::CubicQuic(CubicQuicParams {
                beta: 0.5,
                ..CubicQuicParams::default()
            })
        );
    }
}
