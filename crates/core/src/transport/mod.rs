//! TCP as Linux does it, packet-granular, sans-IO.

pub mod rate_sample;
