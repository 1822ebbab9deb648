//! DASH video over the simulated TCP: catalogue, HTTP/1.1 and HTTP/2, the
//! player, ABR rules and QoE.

pub mod abr;
pub mod profile;
pub mod video;
