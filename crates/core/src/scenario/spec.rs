//! The scenario file as the user writes it (TOML, handed over as JSON).
//!
//! Every table denies unknown fields, so a typo is an error that names it;
//! unit strings are parsed by [`super::units`]. Range checks that need more
//! than one field (a buffer smaller than a packet, a duration for unlimited
//! flows, ...) happen when the spec is resolved (`super::resolve`).

use super::units::{DurationField, LimitField, RateField, SizeField};
use crate::app::dash::abr::AbrConfig;
use crate::app::dash::http::Version;
use crate::app::dash::profile::Profile;
use crate::cc::CcConfig;
use crate::transport::flow_control::FlowControlKind;
use crate::transport::pacer::PacerKind;
use crate::transport::rate_sample::SamplerKind;
use crate::transport::receiver::AckPolicy;
use crate::transport::send_queue::SendQueueKind;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time; default: until every application is done.
    pub duration: Option<DurationField>,
    pub bottleneck: BottleneckSpec,
    #[serde(default)]
    pub flow: Vec<FlowSpec>,
    #[serde(default)]
    pub telemetry: TelemetrySpec,
}

fn default_name() -> String {
    "scenario".into()
}
fn default_seed() -> u64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BottleneckSpec {
    /// Bottleneck rate; required unless a trace drives the link.
    pub rate: Option<RateField>,
    /// Base round-trip propagation delay, split evenly between the two directions.
    pub rtt: DurationField,
    /// Physical line under the shaper.
    pub line_rate: Option<RateField>,
    /// The link-layer header the router's qdisc counts in each packet (Linux's `skb->len` on
    /// an Ethernet device: 14 B; 0 on a trace-driven link).
    pub link_header: Option<SizeField>,
    /// A `ShaperSpec` table, parsed by `kind::parse`.
    pub shaper: Option<serde_json::Value>,
    /// A `QueueSpec` table, parsed by `kind::parse`.
    pub queue: Option<serde_json::Value>,
    /// Bernoulli loss probability for packets entering the bottleneck.
    #[serde(default)]
    pub loss: f64,
    /// Extra delay per packet leaving the bottleneck, uniform in [0, jitter], order kept.
    pub jitter: Option<DurationField>,
    /// A netem delay in front of the queue (root netem, the shaper as its child).
    pub netem: Option<NetemSpec>,
    /// Which packets share the bottleneck: the data direction only, or both directions.
    #[serde(default)]
    pub topology: Topology,
    /// Piecewise-constant rate changes.
    #[serde(default)]
    pub schedule: Vec<RateStepSpec>,
    /// Mahimahi trace file (absolute, or relative to the scenario file as resolved by the front end).
    pub trace: Option<String>,
}

/// How the two directions of every connection cross the bottleneck.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Topology {
    /// A router between two hosts: data crosses the bottleneck; ACKs and requests return
    /// over an uncongested path.
    #[default]
    Dumbbell,
    /// `tc` on one host's loopback device: both directions pass the same delay and then the
    /// same qdisc and shaper, so ACKs queue behind data (and share its random loss).
    Loopback,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetemSpec {
    /// Part of `rtt`, spent on the data direction inside the router.
    pub delay: DurationField,
    /// Packets netem's time queue holds; default netem's own (1000).
    pub limit: Option<u64>,
}

/// `{ kind = "none" | "tbf", ... }` (see `kind::parse` for how the kind is read).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ShaperSpec {
    /// The line runs at the bottleneck rate.
    None {},
    /// Linux `tc tbf`: token bucket at `rate` holding at most `burst`.
    Tbf { burst: SizeField },
}

impl Default for ShaperSpec {
    fn default() -> Self {
        ShaperSpec::None {}
    }
}

/// `{ kind = "droptail", limit = ... }`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum QueueSpec {
    Droptail {
        #[serde(default = "txqueuelen")]
        limit: LimitField,
    },
}

/// Linux's default `txqueuelen` of 1000 packets.
fn txqueuelen() -> LimitField {
    LimitField(super::units::LimitSpec::Packets(1000))
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail {
            limit: txqueuelen(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateStepSpec {
    pub at: DurationField,
    pub rate: RateField,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: Option<String>,
    pub cc: CcConfig,
    /// An `AppTable`, parsed by `kind::parse`.
    pub app: serde_json::Value,
    pub start: Option<DurationField>,
    pub stop: Option<DurationField>,
    /// Expand into this many identical flows named `name-0` … `name-(count−1)`.
    #[serde(default = "one")]
    pub count: u32,
    /// Extra round-trip delay for this flow only, split evenly between directions.
    pub extra_rtt: Option<DurationField>,
    /// Payload bytes per full segment.
    #[serde(default = "default_mss")]
    pub mss: u32,
    #[serde(default = "default_iw")]
    pub initial_cwnd: u32,
    /// Receiver's buffer for payload; the advertised window is what is free of it.
    pub rcvbuf: Option<SizeField>,
    #[serde(default = "yes")]
    pub slow_start_after_idle: bool,
    /// `"linux"` (per-packet departure times) or `"nginx-quic"` (the ATC'23 testbed's burst budget).
    #[serde(default)]
    pub pacer: PacerKind,
    /// TSO/GSO: the pacer spaces skbs of about 1 ms of data, each sent as one burst.
    #[serde(default)]
    pub tso: bool,
    /// `"linux"` (delayed ACKs, quick-ACK mode) or `"quiche"` (the Chromium QUIC client's ACK decimation).
    #[serde(default)]
    pub ack_policy: AckPolicy,
    /// `"linux"` (`tcp_rate.c`) or `"nginx-quic"` (the ATC'23 testbed's `ngx_sample.c`,
    /// whose reference packet persists across ACKs).
    #[serde(default)]
    pub rate_sampler: SamplerKind,
    /// `"linux"` (retransmissions first) or `"nginx-quic"` (the ATC'23 testbed's stream
    /// buffer and send queue, retransmissions behind the data already queued).
    #[serde(default)]
    pub send_queue: SendQueueKind,
    /// `"linux"` (the free part of `rcvbuf`) or `"quiche"` (QUIC stream flow control of
    /// `rcvbuf` bytes, as the Chromium QUIC client).
    #[serde(default)]
    pub flow_control: FlowControlKind,
    /// Flows naming the same host share host-wide algorithm state (BBR-S's history).
    pub host: Option<String>,
}

fn one() -> u32 {
    1
}
fn default_mss() -> u32 {
    1448
}
fn default_iw() -> u32 {
    10
}
fn yes() -> bool {
    true
}

/// `{ kind = "bulk" | "dash", ... }`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum AppTable {
    /// A bulk source: `bytes` to send, or unlimited.
    Bulk { bytes: Option<SizeField> },
    /// A DASH player and its web server.
    Dash(Box<DashTable>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashTable {
    /// "www21", "bbb", a Sabre movie JSON path, or `{ bitrates = [...], segment_duration, segments }`.
    pub video: serde_json::Value,
    #[serde(default, deserialize_with = "crate::app::dash::abr::config::setting")]
    pub abr: Option<AbrConfig>,
    pub http: Option<Version>,
    /// Bitrate of an audio track fetched alongside the video.
    pub audio: Option<RateField>,
    #[serde(default, deserialize_with = "crate::app::dash::profile::setting")]
    pub profile: Option<Profile>,
    pub max_connections: Option<u32>,
    /// Bytes of each level's initialization segment (0: none are fetched).
    pub init_segment: Option<SizeField>,
    /// Bytes of the page and the player's script, fetched in order before the manifest.
    pub page: Option<Vec<SizeField>>,
}

/// An inline constant-bitrate ladder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LadderSpec {
    pub bitrates: Vec<RateField>,
    pub segment_duration: DurationField,
    pub segments: usize,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySpec {
    /// Sampling interval of flows.parquet and queue.parquet, or "ack" for a row per ACK.
    pub interval: Option<String>,
    /// Record every rate sample (samples.parquet).
    pub rate_samples: Option<bool>,
    /// Summaries cover [summary_start, summary_end).
    pub summary_start: Option<DurationField>,
    pub summary_end: Option<DurationField>,
}
