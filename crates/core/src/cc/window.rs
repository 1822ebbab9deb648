//! (placeholder until the loss-based window lands)
