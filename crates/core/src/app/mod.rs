//! Applications on top of connections.

pub mod bulk;
pub mod dash;
