//! Scenarios: parse (serde, unknown fields rejected), resolve units and
//! defaults, check ranges. Every error names the field path, the value and
//! what is allowed — `bottleneck.queue.limit: "1KB" is smaller than one
//! packet (1500 bytes) …` — and nothing runs until the whole file is valid.

pub(crate) mod kind;
pub mod spec;
pub mod units;

use crate::app::dash::http;
use crate::app::dash::video::Video;
use crate::app::dash::{DashConfig, INIT_SEGMENT_BYTES};
use crate::cc::CcConfig;
use crate::net::delay_line::DEFAULT_LIMIT as DEFAULT_NETEM_LIMIT;
use crate::net::mahimahi::Trace;
use crate::net::packet::HEADER_BYTES;
use crate::net::qdisc::Limit;
use crate::net::throughput_trace;
use crate::time::Duration;
use crate::transport::flow_control::FlowControlKind;
use crate::transport::pacer::PacerKind;
use crate::transport::rate_sample::SamplerKind;
use crate::transport::receiver::AckPolicy;
use crate::transport::send_queue::SendQueueKind;
use crate::units::Rate;
use serde_json::{json, Value};
pub use spec::Topology;
use spec::{AppTable, LadderSpec, QueueSpec, ScenarioSpec, ShaperSpec};
use std::fmt;
use units::LimitSpec;

/// Bytes on the wire of a full-sized packet (1448 B payload + 52 B headers).
pub const FULL_PACKET_BYTES: u64 = 1500;

/// A bad scenario: where, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

fn err<T>(path: impl Into<String>, message: impl Into<String>) -> Result<T, ScenarioError> {
    Err(ScenarioError::new(path, message))
}

/// For `map_err` on a check that words its own message: the message becomes the error at `path`.
fn at(path: impl Into<String>) -> impl FnOnce(String) -> ScenarioError {
    let path = path.into();
    move |message| ScenarioError::new(path, message)
}

/// "`n` bytes is smaller than `what`: allowed ≥ `min` bytes`why`", with "1 byte" for one.
fn smaller_than(n: u64, what: &str, min: u64, why: &str) -> String {
    let unit = if n == 1 { "byte" } else { "bytes" };
    format!("{n} {unit} is smaller than {what}: allowed ≥ {min} bytes{why}")
}

#[derive(Clone, Debug)]
pub enum Shaper {
    None,
    Tbf { burst_bytes: u64 },
}

/// A netem delay in front of the router's queue (`net::delay_line`).
#[derive(Clone, Copy, Debug)]
pub struct Netem {
    pub delay: Duration,
    pub limit: u32,
}

/// A trace file driving the link, and the schedule read from it.
#[derive(Clone, Debug)]
pub struct TraceFile {
    pub path: String,
    pub format: TraceFormat,
    pub trace: Trace,
}

/// The formats `bottleneck.trace` reads, told apart by the file: `.json` is Sabre's; a first
/// line of two numbers is Pensieve's; one number, Mahimahi's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    Mahimahi,
    Pensieve,
    Sabre,
}

impl TraceFormat {
    fn of(path: &str, text: &str) -> TraceFormat {
        if path.ends_with(".json") {
            TraceFormat::Sabre
        } else if text
            .lines()
            .next()
            .is_some_and(|l| l.split_whitespace().count() == 2)
        {
            TraceFormat::Pensieve
        } else {
            TraceFormat::Mahimahi
        }
    }

    fn read(self, text: &str) -> Result<Trace, String> {
        match self {
            TraceFormat::Mahimahi => Trace::parse(text),
            TraceFormat::Pensieve => throughput_trace::from_pensieve(text),
            TraceFormat::Sabre => throughput_trace::from_sabre(text),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            TraceFormat::Mahimahi => "Mahimahi trace (one millisecond timestamp per line)",
            TraceFormat::Pensieve => "Pensieve trace (`time_s throughput_Mbps` per line)",
            TraceFormat::Sabre => "Sabre network trace (JSON periods)",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Bottleneck {
    /// `None` only when a trace drives the link.
    pub rate: Option<Rate>,
    pub rtt: Duration,
    pub line_rate: Rate,
    /// Bytes the qdisc, the shaper and the line count on top of each IP packet.
    pub link_header: u32,
    pub shaper: Shaper,
    pub limit: Limit,
    pub loss: f64,
    /// Largest extra forward delay drawn per packet (0 = none).
    pub jitter: Duration,
    /// Part of `rtt` spent in netem at the router, on the data direction.
    pub netem: Option<Netem>,
    pub topology: Topology,
    pub schedule: Vec<(Duration, Rate)>,
    pub trace: Option<TraceFile>,
    /// rate × rtt in bytes on the wire (trace: its mean rate), 0 if undefined.
    pub bdp_bytes: u64,
}

impl Bottleneck {
    /// The round trip's propagation on the links: `rtt` less what netem spends of it.
    pub fn link_rtt(&self) -> Duration {
        self.rtt - self.netem.map_or(Duration::ZERO, |n| n.delay)
    }
}

#[derive(Clone, Debug)]
pub enum AppSpec {
    /// `None` = unlimited.
    Bulk {
        bytes: Option<u64>,
    },
    Dash(Box<DashConfig>),
}

#[derive(Clone, Debug)]
pub struct Flow {
    pub name: String,
    pub cc: CcConfig,
    pub app: AppSpec,
    pub start: Duration,
    pub stop: Option<Duration>,
    pub extra_rtt: Duration,
    pub mss: u32,
    pub initial_cwnd: u32,
    pub rcvbuf: u64,
    pub slow_start_after_idle: bool,
    pub pacer: PacerKind,
    pub tso: bool,
    pub ack_policy: AckPolicy,
    pub rate_sampler: SamplerKind,
    pub send_queue: SendQueueKind,
    pub flow_control: FlowControlKind,
    /// Flows on the same host share host-wide algorithm state.
    pub host: String,
}

#[derive(Clone, Debug)]
pub struct Telemetry {
    /// `None` = a row per ACK.
    pub interval: Option<Duration>,
    pub rate_samples: bool,
    pub summary_start: Duration,
    pub summary_end: Option<Duration>,
}

/// A validated scenario with every unit resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration: Option<Duration>,
    pub bottleneck: Bottleneck,
    pub flows: Vec<Flow>,
    pub telemetry: Telemetry,
}

/// Default receive buffer: Linux's `tcp_rmem` maximum (6 MiB) with half of it for payload.
pub const DEFAULT_RCVBUF: u64 = 3 * 1024 * 1024;
const DEFAULT_LINE_RATE: Rate = Rate::from_mbps(1000);
/// The Ethernet header, which Linux's qdiscs count in a packet's length (`qdisc_pkt_len` is
/// `skb->len`, the frame without its FCS): tbf's tokens and bfifo's limit are spent on it.
const ETHERNET_HEADER: u64 = 14;
/// The largest `link_header` accepted: Ethernet with two VLAN tags is 22 B, and tc's
/// `overhead` for an encapsulating link rarely exceeds a few tens of bytes.
const MAX_LINK_HEADER: u64 = 64;
const DEFAULT_INTERVAL: Duration = Duration::from_millis(10);
/// The finest telemetry interval. The tables grow as 1/interval (a 600 s run at 1 ns would
/// hold 6·10^11 rows per flow); at 100 µs they are as large as a row per ACK at 120 Mb/s,
/// and `"ack"` already records every change.
const MIN_INTERVAL: Duration = Duration::from_micros(100);

/// serde names a number's Rust type ("expected u32"); the user is told its range instead,
/// and "a table" for a Rust struct ("expected struct FlowSpec").
pub(crate) fn in_words(message: &str) -> String {
    // the number types of the scenario's fields, its cc and abr tables and Sabre's files
    const TYPES: [(&str, &str); 4] = [
        ("expected u32", "expected an integer from 0 to 4294967295"),
        (
            "expected u64",
            "expected an integer from 0 to 18446744073709551615",
        ),
        (
            "expected usize",
            "expected an integer from 0 to 18446744073709551615",
        ),
        ("expected f64", "expected a number"),
    ];
    let message = TYPES.iter().fold(message.to_string(), |m, (rust, words)| {
        m.replace(rust, words)
    });
    match message.split_once("expected struct ") {
        Some((before, after)) => {
            let name = after
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(after.len());
            format!("{before}expected a table{}", &after[name..])
        }
        None => message,
    }
}

impl Scenario {
    /// Parses and validates a scenario given as JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: ScenarioSpec = serde_path_to_error::deserialize(de).map_err(|e| {
            // serde_json locates errors in the JSON text the front end made, which the user never saw
            let message = e.inner().to_string();
            let message = match message.rfind(" at line ") {
                Some(i) if message[i..].contains(" column ") => message[..i].to_string(),
                _ => message,
            };
            let names = serde_json::from_str::<Value>(text)
                .ok()
                .and_then(|document| {
                    kind::expected_names::<ScenarioSpec>(
                        &document,
                        |v| kind::at_path(v, e.path()),
                        &message,
                    )
                });
            ScenarioError::new(
                e.path().to_string().trim_start_matches('.'),
                names.unwrap_or_else(|| in_words(&message)),
            )
        })?;
        resolve(spec)
    }

    /// Time at which the run ends: the duration, or `None` (until every app is done).
    pub fn end(&self) -> Option<Duration> {
        self.duration
    }

    /// The resolved scenario with canonical units (ns, bytes, bits/s), for echoing and hashing.
    pub fn to_json(&self) -> Value {
        let b = &self.bottleneck;
        let shaper = match b.shaper {
            Shaper::None => json!({"kind": "none"}),
            Shaper::Tbf { burst_bytes } => json!({"kind": "tbf", "burst_bytes": burst_bytes}),
        };
        let limit = match b.limit {
            Limit::Bytes(n) => json!({"kind": "droptail", "limit_bytes": n}),
            Limit::Packets(n) => json!({"kind": "droptail", "limit_pkts": n}),
        };
        let flows: Vec<Value> = self
            .flows
            .iter()
            .map(|f| {
                let app = match &f.app {
                    AppSpec::Bulk { bytes } => json!({"kind": "bulk", "bytes": bytes}),
                    AppSpec::Dash(d) => json!({
                        "kind": "dash", "video": d.video.name, "video_levels_bps": d.video.bitrates_bps,
                        "segment_duration_ns": d.video.segment_duration.as_nanos(), "segments": d.video.segments,
                        "audio_bps": d.audio.as_ref().map(|a| a.bitrates_bps[0]), "abr": d.abr, "http": d.http,
                        "profile": d.profile, "max_connections": d.max_connections,
                        "init_segment_bytes": d.video.init_bytes, "page_bytes": d.page,
                    }),
                };
                json!({
                    "name": f.name, "cc": f.cc.to_json(), "app": app,
                    "start_ns": f.start.as_nanos(), "stop_ns": f.stop.map(|d| d.as_nanos()),
                    "extra_rtt_ns": f.extra_rtt.as_nanos(), "mss": f.mss, "initial_cwnd": f.initial_cwnd,
                    "rcvbuf_bytes": f.rcvbuf, "slow_start_after_idle": f.slow_start_after_idle, "pacer": f.pacer, "tso": f.tso, "ack_policy": f.ack_policy, "rate_sampler": f.rate_sampler, "send_queue": f.send_queue, "flow_control": f.flow_control, "host": f.host,
                })
            })
            .collect();
        json!({
            "name": self.name,
            "seed": self.seed,
            "duration_ns": self.duration.map(|d| d.as_nanos()),
            "bottleneck": {
                "rate_bps": b.rate.map(|r| r.bps()),
                "rtt_ns": b.rtt.as_nanos(),
                "line_rate_bps": b.line_rate.bps(),
                "link_header_bytes": b.link_header,
                "shaper": shaper,
                "queue": limit,
                "loss": b.loss,
                "jitter_ns": b.jitter.as_nanos(),
                "netem": b.netem.map(|n| json!({"delay_ns": n.delay.as_nanos(), "limit_pkts": n.limit})),
                "topology": b.topology,
                "schedule": b.schedule.iter().map(|(at, r)| json!({"at_ns": at.as_nanos(), "rate_bps": r.bps()})).collect::<Vec<_>>(),
                "trace": b.trace.as_ref().map(|t| json!({
                    "path": t.path, "format": t.format, "period_ns": t.trace.period().as_nanos(),
                    "mean_rate_bps": t.trace.mean_rate_bps(),
                })),
                "bdp_bytes": b.bdp_bytes,
            },
            "flows": flows,
            "telemetry": {
                "interval_ns": self.telemetry.interval.map(|d| d.as_nanos()),
                "rate_samples": self.telemetry.rate_samples,
                "summary_start_ns": self.telemetry.summary_start.as_nanos(),
                "summary_end_ns": self.telemetry.summary_end.map(|d| d.as_nanos()),
            },
        })
    }
}

fn resolve(spec: ScenarioSpec) -> Result<Scenario, ScenarioError> {
    let bottleneck = resolve_bottleneck(&spec.bottleneck)?;
    if spec.flow.is_empty() {
        return err(
            "flow",
            "the scenario has no flows: add at least one [[flow]] table",
        );
    }
    let mut flows = Vec::new();
    for (i, f) in spec.flow.iter().enumerate() {
        let path = format!("flow[{i}]");
        let base = f.name.clone().unwrap_or_else(|| format!("flow{i}"));
        if !(1..=10_000).contains(&f.count) {
            return err(
                format!("{path}.count"),
                format!("{} is out of range: allowed 1 to 10000", f.count),
            );
        }
        if !(88..=65_483).contains(&f.mss) {
            return err(
                format!("{path}.mss"),
                format!("{} is out of range: allowed 88 to 65483 bytes", f.mss),
            );
        }
        if !(1..=100_000).contains(&f.initial_cwnd) {
            return err(
                format!("{path}.initial_cwnd"),
                format!(
                    "{} is out of range: allowed 1 to 100000 packets",
                    f.initial_cwnd
                ),
            );
        }
        let start = f.start.map_or(Duration::ZERO, |d| d.0);
        let stop = f.stop.map(|d| d.0);
        if let Some(stop) = stop {
            if stop <= start {
                return err(
                    format!("{path}.stop"),
                    format!("{stop} is not after start ({start}): stop must be later than start"),
                );
            }
        }
        f.cc.validate().map_err(at(format!("{path}.cc")))?;
        let rcvbuf = f.rcvbuf.map_or(DEFAULT_RCVBUF, |s| s.0);
        if rcvbuf < f.mss as u64 {
            return err(
                format!("{path}.rcvbuf"),
                smaller_than(rcvbuf, "one segment", f.mss as u64, " (the flow's mss)"),
            );
        }
        let app = resolve_app(&kind::parse(&f.app, &format!("{path}.app"))?, &path)?;
        if matches!(app, AppSpec::Dash(_)) && bottleneck.topology == Topology::Loopback {
            return err(
                format!("{path}.app"),
                "kind = \"dash\" is not available with topology = \"loopback\": its HTTP \
                 requests would cross the shared queue and its loss, and bloatlab does not \
                 resend them (they travel outside TCP); use the dumbbell topology",
            );
        }
        if f.tso && f.pacer == PacerKind::NginxQuic {
            return err(
                format!("{path}.tso"),
                "true with pacer = \"nginx-quic\": TSO is a TCP offload; the nginx-quic pacer \
                 is QUIC's, which sends its own bursts (use tso = false, or pacer = \"linux\")",
            );
        }
        for k in 0..f.count {
            let name = if f.count == 1 {
                base.clone()
            } else {
                format!("{base}-{k}")
            };
            if flows.iter().any(|g: &Flow| g.name == name) {
                return err(
                    format!("{path}.name"),
                    format!("{name:?} is used by another flow: flow names must be unique"),
                );
            }
            flows.push(Flow {
                name: name.clone(),
                cc: f.cc.clone(),
                app: app.clone(),
                start,
                stop,
                extra_rtt: f.extra_rtt.map_or(Duration::ZERO, |d| d.0),
                mss: f.mss,
                initial_cwnd: f.initial_cwnd,
                rcvbuf,
                slow_start_after_idle: f.slow_start_after_idle,
                pacer: f.pacer,
                tso: f.tso,
                ack_policy: f.ack_policy,
                rate_sampler: f.rate_sampler,
                send_queue: f.send_queue,
                flow_control: f.flow_control,
                host: f.host.clone().unwrap_or_else(|| name.clone()),
            });
        }
    }
    check_one_packet_fits(&spec, &bottleneck)?;
    let duration = spec.duration.map(|d| d.0);
    if duration.is_some_and(|d| d.is_zero()) {
        return err("duration", "\"0s\": the duration must be positive");
    }
    if duration.is_none() {
        if let Some(f) = flows
            .iter()
            .find(|f| f.stop.is_none() && matches!(f.app, AppSpec::Bulk { bytes: None }))
        {
            return err("duration", format!("missing, but flow {:?} is unlimited and has no `stop`: set `duration` (e.g. \"60s\"), or give the flow a `stop` or `app.bytes`", f.name));
        }
    }
    let telemetry = resolve_telemetry(&spec.telemetry, duration)?;
    Ok(Scenario {
        name: spec.name,
        seed: spec.seed,
        duration,
        bottleneck,
        flows,
        telemetry,
    })
}

fn resolve_app(app: &AppTable, path: &str) -> Result<AppSpec, ScenarioError> {
    match app {
        AppTable::Bulk { bytes } => {
            if bytes.is_some_and(|b| b.0 == 0) {
                return err(
                    format!("{path}.app.bytes"),
                    "0 bytes: a bulk transfer needs at least 1 byte (omit `bytes` for unlimited)",
                );
            }
            Ok(AppSpec::Bulk {
                bytes: bytes.map(|b| b.0),
            })
        }
        AppTable::Dash(d) => {
            let spec::DashTable {
                video,
                abr,
                http,
                audio,
                profile,
                max_connections,
                init_segment,
                page,
            } = d.as_ref();
            let mut video = resolve_video(video).map_err(at(format!("{path}.app.video")))?;
            let init_bytes = init_segment.map_or(INIT_SEGMENT_BYTES, |b| b.0);
            video.init_bytes = init_bytes;
            let page: Vec<u64> = page.iter().flatten().map(|b| b.0).collect();
            if let Some(i) = page.iter().position(|&b| b == 0) {
                return err(
                    format!("{path}.app.page[{i}]"),
                    "0 bytes: each resource of the page needs at least 1 byte (leave it out instead)",
                );
            }
            let abr = abr.clone().unwrap_or_default();
            abr.validate()
                .and_then(|()| abr.check_video(&video))
                .map_err(at(format!("{path}.app.abr")))?;
            let profile = profile.clone().unwrap_or_default();
            profile
                .validate()
                .map_err(at(format!("{path}.app.profile")))?;
            let max_connections = max_connections.unwrap_or(http::H1_MAX_CONNECTIONS as u32);
            if !(1..=http::H1_MAX_CONNECTIONS as u32).contains(&max_connections) {
                return err(
                    format!("{path}.app.max_connections"),
                    format!(
                        "{max_connections} is out of range: allowed 1 to {}",
                        http::H1_MAX_CONNECTIONS
                    ),
                );
            }
            let audio = match audio {
                Some(r) if r.0.is_zero() => {
                    return err(
                        format!("{path}.app.audio"),
                        "\"0bps\": an audio track needs a positive bitrate",
                    )
                }
                Some(r) => {
                    let mut audio =
                        Video::audio(r.0.bps_f64(), video.segment_duration, video.segments);
                    audio
                        .check_segment_bytes()
                        .map_err(at(format!("{path}.app.audio")))?;
                    audio.init_bytes = init_bytes;
                    Some(audio)
                }
                None => None,
            };
            Ok(AppSpec::Dash(Box::new(DashConfig {
                video,
                audio,
                abr,
                http: http.unwrap_or_default(),
                profile,
                max_connections: max_connections as usize,
                page,
            })))
        }
    }
}

const VIDEO_HELP: &str = "expected \"www21\", \"bbb\", the path of a Sabre movie JSON file, or a table { bitrates = [\"1Mbps\", ...], segment_duration = \"4s\", segments = 100 }";

fn resolve_video(v: &Value) -> Result<Video, String> {
    match v {
        Value::String(s) if s == "www21" => Ok(Video::www21()),
        Value::String(s) if s == "bbb" => Ok(Video::bbb()),
        Value::String(path) if path.ends_with(".json") => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
            Video::from_sabre_json(path, &text).map_err(|m| format!("{path:?}: {m}"))
        }
        Value::Object(_) => {
            let l: LadderSpec = serde_path_to_error::deserialize(v.clone()).map_err(|e| {
                let field = match e.path().to_string() {
                    at if at == "." => String::new(),
                    at => format!("{at}: "),
                };
                format!("{field}{}: {VIDEO_HELP}", in_words(&e.inner().to_string()))
            })?;
            let bitrates: Vec<f64> = l.bitrates.iter().map(|r| r.0.bps_f64()).collect();
            if bitrates.is_empty()
                || bitrates[0] <= 0.0
                || bitrates.windows(2).any(|w| w[1] <= w[0])
            {
                return Err(
                    "bitrates must be a non-empty, strictly increasing list of positive rates"
                        .into(),
                );
            }
            if l.segment_duration.0.is_zero() {
                return Err("segment_duration must be positive".into());
            }
            if l.segments == 0 {
                return Err("segments = 0: allowed ≥ 1".into());
            }
            let video = Video::constant("ladder", bitrates, l.segment_duration.0, l.segments);
            video
                .check_segment_bytes()
                .map_err(|m| format!("bitrates: {m}"))?;
            Ok(video)
        }
        other => Err(format!("{other} is not a video: {VIDEO_HELP}")),
    }
}

/// A queue or token bucket smaller than a full-sized packet drops every one of them (as Linux's
/// bfifo and tbf do), so no full segment could pass: both must hold 1500 B, or the largest
/// flow's packet if that is larger (naming the flow whose `mss` makes it).
fn check_one_packet_fits(spec: &ScenarioSpec, b: &Bottleneck) -> Result<(), ScenarioError> {
    let Some((i, mss)) = spec
        .flow
        .iter()
        .map(|f| f.mss)
        .enumerate()
        .reduce(|best, next| if next.1 > best.1 { next } else { best })
    else {
        return Ok(());
    };
    let largest = mss as u64 + HEADER_BYTES as u64;
    let (ip, mut why) = if largest > FULL_PACKET_BYTES {
        let why = format!("flow[{i}].mss = {mss} plus {HEADER_BYTES} B of headers");
        (largest, why)
    } else {
        (FULL_PACKET_BYTES, format!("a {FULL_PACKET_BYTES} B packet"))
    };
    let header = b.link_header as u64;
    if header > 0 {
        why = format!("{why}, and bottleneck.link_header = {header} B");
    }
    let (packet, why) = (ip + header, format!(" ({why})"));
    if let Shaper::Tbf { burst_bytes } = b.shaper {
        if burst_bytes < packet {
            return err(
                "bottleneck.shaper.burst",
                smaller_than(burst_bytes, "one packet", packet, &why),
            );
        }
    }
    match b.limit {
        Limit::Bytes(n) if n < packet => err(
            "bottleneck.queue.limit",
            smaller_than(n, "one packet", packet, &why),
        ),
        _ => Ok(()),
    }
}

fn resolve_bottleneck(b: &spec::BottleneckSpec) -> Result<Bottleneck, ScenarioError> {
    let trace = match &b.trace {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                ScenarioError::new("bottleneck.trace", format!("cannot read {path:?}: {e}"))
            })?;
            let format = TraceFormat::of(path, &text);
            let trace = format.read(&text).map_err(|m| {
                ScenarioError::new(
                    "bottleneck.trace",
                    format!("{path:?} is not a valid {}: {m}", format.describe()),
                )
            })?;
            Some(TraceFile {
                path: path.clone(),
                format,
                trace,
            })
        }
        None => None,
    };
    let rate = b.rate.map(|r| r.0);
    match (&trace, rate) {
        (None, None) => {
            return err(
                "bottleneck.rate",
                "missing: give a rate such as \"25Mbps\" (or a `trace`)",
            )
        }
        (None, Some(r)) if r.is_zero() => {
            return err(
                "bottleneck.rate",
                "\"0bps\": the rate must be greater than 0",
            )
        }
        (Some(_), Some(_)) => {
            return err(
                "bottleneck.rate",
                "a trace drives the link: give either `rate` or `trace`, not both",
            )
        }
        _ => {}
    }
    let line_rate = b.line_rate.map_or(DEFAULT_LINE_RATE, |r| r.0);
    if line_rate.is_zero() {
        return err(
            "bottleneck.line_rate",
            "\"0bps\": the line rate must be greater than 0",
        );
    }
    let link_header = match (&trace, &b.link_header) {
        (_, None) if trace.is_some() => 0,
        (_, None) => ETHERNET_HEADER,
        (Some(_), Some(h)) if h.0 > 0 => {
            return err(
                "bottleneck.link_header",
                format!("{} B: a trace-driven link (Mahimahi's, on a TUN device) carries bare IP packets; allowed 0 B only", h.0),
            )
        }
        (_, Some(h)) if h.0 > MAX_LINK_HEADER => {
            return err(
                "bottleneck.link_header",
                format!("{} B is out of range: allowed 0 ≤ link_header ≤ {MAX_LINK_HEADER} B (Ethernet's is 14 B)", h.0),
            )
        }
        (_, Some(h)) => h.0,
    };
    if !(0.0..1.0).contains(&b.loss) {
        return err(
            "bottleneck.loss",
            format!(
                "{} is out of range: allowed 0 ≤ loss < 1 (a probability)",
                b.loss
            ),
        );
    }
    let rtt = b.rtt.0;
    let jitter = b.jitter.as_ref().map_or(Duration::ZERO, |j| j.0);
    if jitter > rtt.div(2) {
        return err(
            "bottleneck.jitter",
            format!(
                "{jitter} is out of range: allowed 0 ≤ jitter ≤ rtt/2 = {}",
                rtt.div(2)
            ),
        );
    }
    let netem = match &b.netem {
        None => None,
        Some(_) if b.topology == Topology::Loopback => {
            return err(
                "bottleneck.netem",
                "not available with topology = \"loopback\", whose delay is already netem's in front of the queue: use the dumbbell topology",
            )
        }
        Some(n) => {
            if n.delay.0.is_zero() || n.delay.0 > rtt {
                return err(
                    "bottleneck.netem.delay",
                    format!(
                        "{} is out of range: allowed 0 < delay ≤ rtt = {rtt} (netem's delay is part of the RTT)",
                        n.delay.0
                    ),
                );
            }
            let limit = n.limit.unwrap_or(DEFAULT_NETEM_LIMIT as u64);
            if !(1..=u32::MAX as u64).contains(&limit) {
                return err(
                    "bottleneck.netem.limit",
                    format!("{limit} is out of range: allowed 1 ≤ limit ≤ {} packets", u32::MAX),
                );
            }
            Some(Netem {
                delay: n.delay.0,
                limit: limit as u32,
            })
        }
    };
    let bdp_bytes = match (&trace, rate) {
        (Some(t), _) => (t.trace.mean_rate_bps() * rtt.as_secs_f64() / 8.0) as u64,
        (None, Some(r)) => r.bdp_bytes(rtt),
        (None, None) => 0,
    };
    let shaper = match &b.shaper {
        Some(table) => kind::parse(table, "bottleneck.shaper")?,
        None => ShaperSpec::default(),
    };
    let shaper = match &shaper {
        ShaperSpec::None {} => Shaper::None,
        ShaperSpec::Tbf { burst } => {
            if trace.is_some() {
                return err(
                    "bottleneck.shaper",
                    "a token-bucket shaper needs a `rate`; it cannot shape a trace-driven link",
                );
            }
            Shaper::Tbf {
                burst_bytes: burst.0,
            }
        }
    };
    let queue = match &b.queue {
        Some(table) => kind::parse(table, "bottleneck.queue")?,
        None => QueueSpec::default(),
    };
    let QueueSpec::Droptail { limit } = &queue;
    let limit = match limit.0 {
        LimitSpec::Packets(0) => {
            return err(
                "bottleneck.queue.limit",
                "\"0pkts\": the queue must hold at least one packet",
            )
        }
        LimitSpec::Packets(n) => Limit::Packets(n.min(u32::MAX as u64) as u32),
        LimitSpec::Bytes(n) => Limit::Bytes(n),
        LimitSpec::Bdp(k) => {
            if bdp_bytes == 0 {
                return err("bottleneck.queue.limit", format!("\"{k}BDP\" needs a bandwidth-delay product, but rate × rtt is 0: give the limit in bytes or packets"));
            }
            Limit::Bytes((k * bdp_bytes as f64).round() as u64)
        }
    };
    let mut schedule = Vec::new();
    for (i, step) in b.schedule.iter().enumerate() {
        if trace.is_some() {
            return err(
                "bottleneck.schedule",
                "a trace drives the link: a rate schedule cannot be combined with it",
            );
        }
        if schedule.last().is_some_and(|&(at, _)| step.at.0 <= at) {
            return err(
                format!("bottleneck.schedule[{i}].at"),
                format!(
                    "{} is not after the previous step: steps must be in increasing time order",
                    step.at.0
                ),
            );
        }
        schedule.push((step.at.0, step.rate.0));
    }
    Ok(Bottleneck {
        rate,
        rtt,
        line_rate,
        link_header: link_header as u32,
        shaper,
        limit,
        loss: b.loss,
        jitter,
        netem,
        topology: b.topology,
        schedule,
        trace,
        bdp_bytes,
    })
}

fn resolve_telemetry(
    t: &spec::TelemetrySpec,
    duration: Option<Duration>,
) -> Result<Telemetry, ScenarioError> {
    let interval = match t.interval.as_deref() {
        None => Some(DEFAULT_INTERVAL),
        Some("ack") => None,
        Some(s) => {
            let d = units::parse_duration(s).map_err(|m| {
                ScenarioError::new("telemetry.interval", format!("{m}, or \"ack\""))
            })?;
            if d < MIN_INTERVAL {
                return err(
                    "telemetry.interval",
                    format!("{s:?} is out of range: allowed ≥ {MIN_INTERVAL} (or \"ack\", a row per ACK)"),
                );
            }
            Some(d)
        }
    };
    let summary_start = t.summary_start.map_or(Duration::ZERO, |d| d.0);
    let summary_end = t.summary_end.map(|d| d.0);
    if let Some(end) = duration.filter(|&end| summary_start >= end) {
        return err(
            "telemetry.summary_start",
            format!("{summary_start} is not before the run ends (duration = {end}): the summary would be empty"),
        );
    }
    if summary_end.is_some_and(|e| e <= summary_start) {
        return err(
            "telemetry.summary_end",
            "must be later than telemetry.summary_start",
        );
    }
    Ok(Telemetry {
        interval,
        rate_samples: t.rate_samples.unwrap_or(true),
        summary_start,
        summary_end,
    })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
