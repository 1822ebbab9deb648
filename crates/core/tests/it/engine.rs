//! The event queue: stale timer events must not pile up.

use super::run;
use serde_json::json;

#[test]
fn a_paced_flow_keeps_the_event_queue_small() {
    // Every paced packet moves the sender's next deadline earlier. With one alarm for all
    // its timers that left a stale retransmission-timeout event behind each time (over a
    // thousand pending at once here); with the pacing deadline on its own alarm only the
    // links' heads, the bottleneck, the timers and the telemetry tick are pending.
    let out = run(&json!({
        "duration": "30s",
        "bottleneck": {"rate": "25Mbps", "rtt": "100ms", "shaper": {"kind": "tbf", "burst": "1MB"},
                       "queue": {"kind": "droptail", "limit": "10MB"}},
        "flow": [{"name": "a", "cc": "bbr", "app": {"kind": "bulk"}}],
    }));
    assert!(
        out.stats.peak_pending_events < 100,
        "{}",
        out.stats.peak_pending_events
    );
}
