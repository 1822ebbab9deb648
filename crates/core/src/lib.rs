//! # bloatlab-core
//!
//! A packet-level simulator of senders, a bottleneck router and receivers,
//! faithful enough that Linux CUBIC's and BBR's known behaviours reappear, and
//! fast enough that a ten-minute experiment takes well under a second.
//!
//! The crate is layered; each layer only uses the ones listed before it.
//!
//! * [`time`], [`units`] — integer nanoseconds and bits per second.
//! * [`engine`] — the event scheduler (ties broken in insertion order),
//!   restartable alarms, seeded random streams. Knows nothing of packets.
//! * `net` — packets, links (serialisation + propagation), and the bottleneck:
//!   a token-bucket shaper or a plain rate on top of a physical line, a queue
//!   discipline, random loss, rate schedules and Mahimahi traces.
//! * [`transport`] — TCP as Linux does it: SACK scoreboard, RACK-TLP loss
//!   detection, RTO, PRR, delayed ACKs, pacing, receive window, and
//!   delivery-rate sampling ([`transport::rate_sample`]).
//! * [`cc`] — congestion control behind one trait; the transport lends it a
//!   read-only view of the connection and reads back cwnd and pacing rate.
//! * `app` — applications on top of a connection (bulk transfer, ...).
//! * `metrics` — columnar recorders and summaries.
//! * `scenario` — the serde schema with field-named validation errors, and
//!   the builder that turns a scenario into a running `simulation`.
//!
//! Every component is a state machine that takes an explicit `now`; nothing
//! reads a wall clock or a global, and every random draw comes from a stream
//! derived from the scenario seed. Same scenario + seed = same bytes out.

pub mod app;
pub mod cc;
pub mod engine;
pub mod metrics;
pub mod net;
pub mod scenario;
pub mod simulation;
pub mod time;
pub mod transport;
pub mod units;

#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// Version of the simulation core, recorded in every summary: the crate version
/// and a hash of the core's sources (`build.rs`), so it changes with the code.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("BLOATLAB_CORE_SOURCE_HASH")
);
