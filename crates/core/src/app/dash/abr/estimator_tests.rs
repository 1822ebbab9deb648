use super::*;
use crate::app::dash::profile::WindowScan;

fn v3() -> ThroughputHistory {
    ThroughputHistory::new(&Profile::v3(), false)
}

/// Pushes one sample per rate in `mbps`, each over a 1 s download with 50 ms latency.
fn push_mbps(h: &mut ThroughputHistory, mbps: &[f64]) {
    for m in mbps {
        let bytes = (m * 1e6 / 8.0).round() as u64;
        h.push_sample(bytes, Duration::from_millis(50), Duration::from_secs(1));
    }
}

#[test]
fn defaults_match_spec() {
    assert_eq!(MIN_SAMPLE_TIME, Duration::from_millis(1));
}

#[test]
fn no_sample_means_no_estimate() {
    let h = v3();
    assert_eq!(h.average_throughput_bps(), None);
    assert_eq!(h.safe_throughput_bps(), None);
    assert_eq!(h.average_latency_s(), None);
    let h = ThroughputHistory::new(&Profile::v5(), false);
    assert_eq!(h.average_throughput_bps(), None);
}

#[test]
fn three_stable_samples_average_to_their_mean_times_the_safety_factor() {
    // 10, 12, 11 Mb/s: consecutive ratios 1.2 and 0.917 are inside (1/1.3, 1.3); window 4 > 3
    // stored, so all three count: mean 11 Mb/s, safe 9.9 Mb/s.
    let mut h = v3();
    push_mbps(&mut h, &[10.0, 12.0, 11.0]);
    assert_eq!(h.throughput_window(), 3);
    assert!((h.average_throughput_bps().unwrap() - 11e6).abs() < 1.0);
    assert!((h.safe_throughput_bps().unwrap() - 9.9e6).abs() < 1.0);
    assert!((h.average_latency_s().unwrap() - 0.05).abs() < 1e-12);
}

#[test]
fn a_jump_between_newest_samples_widens_the_window_when_scanning_newest() {
    // Samples 10, 10, 10, 10, 10, 20, 10 (Mb/s). Newest-first ratios: 10/20 = 0.5 (grow to 5),
    // 20/10 = 2 (grow to 6), 10/10, 10/10 … loop ends at i = 6: window 6 →
    // mean(10, 10, 10, 10, 20, 10) = 11.667 Mb/s.
    let p = Profile {
        window_scan: WindowScan::Newest,
        ..Profile::v3()
    };
    let mut h = ThroughputHistory::new(&p, false);
    push_mbps(&mut h, &[10.0, 10.0, 10.0, 10.0, 10.0, 20.0, 10.0]);
    assert_eq!(h.throughput_window(), 6);
    assert!((h.average_throughput_bps().unwrap() - 70e6 / 6.0).abs() < 1.0);
}

#[test]
fn v3_scans_the_oldest_samples_so_a_recent_jump_does_not_widen_the_window() {
    // Same series under dash.js v3: ratios arr[1]/arr[0] … arr[3]/arr[2] are all 1 → window 4 →
    // mean(10, 10, 20, 10) = 12.5 Mb/s.
    let mut h = v3();
    push_mbps(&mut h, &[10.0, 10.0, 10.0, 10.0, 10.0, 20.0, 10.0]);
    assert_eq!(h.throughput_window(), 4);
    assert!((h.average_throughput_bps().unwrap() - 12.5e6).abs() < 1.0);
}

#[test]
fn v3_widens_the_window_for_a_jump_among_the_oldest_samples() {
    // Samples 10, 20, 10, 10, 10, 10, 10 (Mb/s) under dash.js v3: arr[1]/arr[0] = 2 (grow to 5),
    // arr[2]/arr[1] = 0.5 (grow to 6), then 1 … loop ends at i = 6: window 6 →
    // mean(20, 10, 10, 10, 10, 10) = 11.667 Mb/s (window 4 would give 10).
    let mut h = v3();
    push_mbps(&mut h, &[10.0, 20.0, 10.0, 10.0, 10.0, 10.0, 10.0]);
    assert_eq!(h.throughput_window(), 6);
    assert!((h.average_throughput_bps().unwrap() - (20e6 + 50e6) / 6.0).abs() < 1.0);
}

#[test]
fn the_window_never_grows_beyond_the_stored_samples() {
    // 5 samples alternating 10/20: every ratio is extreme; window 4 → 5 = stored → stop.
    let p = Profile {
        window_scan: WindowScan::Newest,
        ..Profile::v3()
    };
    let mut h = ThroughputHistory::new(&p, false);
    push_mbps(&mut h, &[10.0, 20.0, 10.0, 20.0, 10.0]);
    assert_eq!(h.throughput_window(), 5);
    assert!((h.average_throughput_bps().unwrap() - 14e6).abs() < 1.0);
}

#[test]
fn only_twenty_samples_are_kept() {
    let mut h = v3();
    push_mbps(&mut h, &[10.0; 25]);
    assert_eq!(h.len(), 20);
}

#[test]
fn ewma_corrects_start_up_bias_so_one_sample_reads_back_exactly() {
    // One 8 Mb/s sample over 2 s, v5 weight 1.5 × 2 = 3: fast estimate = (1 − 0.5^(3/3))·8 = 4,
    // corrected by 1 − 0.5^(3/3) = 0.5 → 8; slow likewise → 8 Mb/s.
    let mut h = ThroughputHistory::new(&Profile::v5(), false);
    h.push_sample(2_000_000, Duration::from_millis(40), Duration::from_secs(2));
    assert!((h.average_throughput_bps().unwrap() - 8e6).abs() < 1e-6);
    assert!((h.average_latency_s().unwrap() - 0.04).abs() < 1e-12);
}

#[test]
fn ewma_takes_the_smaller_of_fast_and_slow_after_a_drop() {
    // 10 Mb/s for 2 s then 2 Mb/s for 2 s (v5 weights 3 and 3, total 6).
    // fast (hl 3): after 1st 5, after 2nd 0.5·2 + 0.5·5 = 3.5 → /(1 − 0.5²) = 4.667
    // slow (hl 8): a = 0.5^(3/8) = 0.7711; after 1st 2.289, after 2nd 0.2289·2 + 0.7711·2.289
    //              = 2.2231 → /(1 − 0.5^(6/8)) = 2.2231/0.4054 = 5.484
    // min = 4.667 Mb/s.
    let mut h = ThroughputHistory::new(&Profile::v5(), false);
    h.push_sample(2_500_000, Duration::from_millis(40), Duration::from_secs(2));
    h.push_sample(500_000, Duration::from_millis(40), Duration::from_secs(2));
    let t = h.average_throughput_bps().unwrap();
    assert!((t - 14e6 / 3.0).abs() < 1e3, "{t}");
}

#[test]
fn latency_ewma_takes_the_larger_estimate() {
    // Latencies 100 ms then 20 ms, weight 1 each. fast (hl 1): 0.05, then 0.5·0.02 + 0.025 = 0.035
    // → /(1 − 0.25) = 0.04667; slow (hl 2): a = 0.7071: 0.02929, then 0.2929·0.02 + 0.7071·0.02929
    // = 0.02657 → /0.5 = 0.05314. max = 53.1 ms.
    let mut h = ThroughputHistory::new(&Profile::v5(), false);
    h.push_sample(
        1_000_000,
        Duration::from_millis(100),
        Duration::from_secs(1),
    );
    h.push_sample(1_000_000, Duration::from_millis(20), Duration::from_secs(1));
    let l = h.average_latency_s().unwrap();
    assert!((l - 0.05314).abs() < 1e-4, "{l}");
}

#[test]
fn cache_hits_are_dropped_once_real_samples_exist_and_replaced_by_the_first_real_one() {
    let mut h = v3();
    // A 30 ms download (< 50 ms) with no history is kept and marks the history as cached.
    h.push_sample(
        1_000_000,
        Duration::from_millis(5),
        Duration::from_millis(30),
    );
    assert_eq!(h.len(), 1);
    assert!(!h.is_empty());
    // The first real sample clears it: only 8 Mb/s remains.
    h.push_sample(1_000_000, Duration::from_millis(5), Duration::from_secs(1));
    assert_eq!(h.len(), 1);
    assert!((h.average_throughput_bps().unwrap() - 8e6).abs() < 1.0);
    // Later cache hits are ignored.
    h.push_sample(
        1_000_000,
        Duration::from_millis(5),
        Duration::from_millis(20),
    );
    assert_eq!(h.len(), 1);
    // A download of exactly 50 ms is not below the threshold: a real sample.
    h.push_sample(
        1_000_000,
        Duration::from_millis(5),
        Duration::from_millis(50),
    );
    assert_eq!(h.len(), 2);
}

#[test]
fn v5_keeps_a_fast_download_as_a_network_sample() {
    // Resource Timing reports a transfer size for every network fetch: no cache hits in v5.
    for audio in [false, true] {
        let mut h = ThroughputHistory::new(&Profile::v5(), audio);
        h.push_sample(1_000_000, Duration::from_millis(5), Duration::from_secs(1));
        h.push_sample(10_000, Duration::from_millis(5), Duration::from_millis(2));
        assert_eq!(h.len(), 2);
    }
}

#[test]
fn abandoned_downloads_are_not_sampled() {
    let mut h = v3();
    let d = Download {
        index: 0,
        level: 0,
        bytes: 100_000,
        requested_at: crate::time::Time::ZERO,
        first_byte_at: crate::time::Time::from_millis(50),
        completed_at: crate::time::Time::from_millis(1050),
        buffer_at_request: Duration::ZERO,
        abandoned: true,
    };
    h.push(&d);
    assert!(h.is_empty());
    h.push(&Download {
        abandoned: false,
        ..d
    });
    assert!((h.average_throughput_bps().unwrap() - 800e3).abs() < 1e-6);
}
