//! TCP as Linux does it, packet-granular, sans-IO.

pub mod flow_control;
pub mod pacer;
pub mod rack;
pub mod rate_sample;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod send_buffer;
pub mod send_queue;
pub mod sender;
pub mod tso;

use crate::net::packet::Packet;
use rate_sample::RateSample;

/// What a sender produced while handling one event: packets to put on the
/// wire and the rate samples its ACKs generated. The owner drains it.
#[derive(Debug, Default)]
pub struct Outbox {
    pub packets: Vec<Packet>,
    pub samples: Vec<RateSample>,
}
