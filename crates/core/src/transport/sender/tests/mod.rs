//! The sender's unit tests, run against a receiver over the harness's path.

mod ack_path;
mod application;
mod harness;
mod send_queue;
mod sending;
mod timers;
