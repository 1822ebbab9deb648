//! Packets, links and the bottleneck router.
//!
//! ```text
//!  sender ─access link─► [ bottleneck: loss → (netem delay) → qdisc → shaper → line ] ─forward link─► receiver
//!     ▲                                                                                                  │
//!     └──────────────────────────────────────── reverse link ◄───────────────────────────────────────────┘
//! ```
//!
//! A [`link::Link`] serialises (optionally) and delays packets in FIFO order.
//! The [`bottleneck::Bottleneck`] queues packets in a [`qdisc::Qdisc`] and
//! releases them according to its [`service::Service`]: a token-bucket shaper
//! over a physical line, a plain rate-limited line, or a Mahimahi trace (written as such,
//! or converted from a [`throughput_trace`]).

pub mod bottleneck;
pub mod delay_line;
pub mod link;
pub mod mahimahi;
pub mod packet;
pub mod qdisc;
pub mod service;
pub mod throughput_trace;
