//! BBRv2/v3 behaviour, driven by scripted ACKs with hand-computed expectations:
//! STARTUP, DRAIN, PROBE_RTT, loss hooks, the fast path, and the harness the
//! sibling files share. PROBE_BW and the bounds are in `probe_bw_tests.rs`;
//! parameters, presets and telemetry in `params_tests.rs`.
//!
//! Most tests use one path whose rounded-up bandwidth samples are exact:
//! 16 packets per min_rtt = 8.192 ms, i.e. 1953.125 pkt/s (32768 units of
//! 2^-24 pkt/µs), ACKs of 2 packets every 1.024 ms whose rate sample is 16
//! packets over 8.192 ms. A packet-timed round is 8 ACKs. On it:
//!
//! ```text
//!   bdp(g)  = ceil(16 g):  bdp(1) = 16, bdp(1.25) = 20, bdp(2) = 32, bdp(2.25) = 36,
//!             bdp(0.5) = 8, bdp(739/256) = ceil(46.19) = 47
//!   tso_goal = 2 at pacing gains ≤ 1.25 (≤ 3.5 MB/s >> 10 < 2 MSS), 5 at 739/256 (8.08 MB/s)
//!   extra_acked = 2 (each ACK brings the 2 packets bw predicts, plus the 2 it is made of)
//!   STARTUP target  = max(47 + 2, 3·5) = 49;  PROBE_BW target = 32 + 2 = 34 (UP: 36)
//!   inflight(bw, 1) = max(16, 6) = 16;  inflight(bw, 1.25) in UP = 20 + 2 = 22
//! ```

use super::*;
use crate::cc::{CcMetrics, SentPacket};
use crate::testing::{self, Ack, AckDriver};
use crate::transport::rate_sample::{Reference, TxSnapshot};
use crate::units::Rate;

pub(super) const BW: f64 = 1953.125;
pub(super) const RTT: Duration = Duration::from_micros(8192);

pub(super) fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

/// The v2/v3 rate-sample fields `AckDriver` does not script, for the next ACK only.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Extra {
    /// `rs.lost`: packets marked lost since the reference packet was sent.
    pub lost: u64,
    /// `rs.tx_in_flight`.
    pub tx_in_flight: u32,
    /// `rs.delivered_ce`: CE-marked packets among those this ACK delivered.
    pub delivered_ce: u64,
    /// `rs.is_ece`: the ACK echoes CE.
    pub is_ece: bool,
}

impl Extra {
    pub fn new(lost: u64, tx_in_flight: u32) -> Self {
        Extra {
            lost,
            tx_in_flight,
            delivered_ce: 0,
            is_ece: false,
        }
    }
}

/// [`Bbr2`] behind a shim that adds [`Extra`] to the next rate sample. Derefs to
/// the algorithm so tests read its state directly.
pub(super) struct Shim {
    pub cc: Bbr2,
    pub next: Extra,
}

impl std::ops::Deref for Shim {
    type Target = Bbr2;
    fn deref(&self) -> &Bbr2 {
        &self.cc
    }
}

impl std::ops::DerefMut for Shim {
    fn deref_mut(&mut self) -> &mut Bbr2 {
        &mut self.cc
    }
}

impl CongestionControl for Shim {
    fn on_ack(&mut self, now: Time, conn: &Conn, rs: &RateSample) {
        let x = std::mem::take(&mut self.next);
        let rs = RateSample {
            lost: x.lost,
            delivered_ce: x.delivered_ce,
            is_ece: x.is_ece,
            reference: Reference {
                tx_in_flight: x.tx_in_flight,
                ..rs.reference
            },
            ..*rs
        };
        self.cc.on_ack(now, conn, &rs);
    }
    fn on_recovery_start(&mut self, now: Time, conn: &Conn) {
        self.cc.on_recovery_start(now, conn);
    }
    fn on_rto(&mut self, now: Time, conn: &Conn, timeout: &Timeout) {
        self.cc.on_rto(now, conn, timeout);
    }
    fn on_packet_lost(&mut self, now: Time, conn: &Conn, sent: &TxSnapshot) {
        self.cc.on_packet_lost(now, conn, sent);
    }
    fn on_packet_sent(&mut self, now: Time, conn: &Conn, sent: &SentPacket) {
        self.cc.on_packet_sent(now, conn, sent);
    }
    fn on_tx_start(&mut self, now: Time, conn: &Conn) {
        self.cc.on_tx_start(now, conn);
    }
    fn cwnd(&self) -> u32 {
        self.cc.cwnd()
    }
    fn pacing_rate(&self) -> Option<Rate> {
        self.cc.pacing_rate()
    }
    fn wants_app_limited(&self) -> bool {
        self.cc.wants_app_limited()
    }
    fn valid_samples_only(&self) -> bool {
        self.cc.valid_samples_only()
    }
    fn state_name(&self) -> &'static str {
        self.cc.state_name()
    }
    fn metrics(&self) -> CcMetrics {
        self.cc.metrics()
    }
}

pub(super) type Driver = AckDriver<Shim>;

pub(super) fn driver(p: Params) -> Driver {
    AckDriver::new(Shim {
        cc: Bbr2::new(p, testing::init()),
        next: Extra::default(),
    })
}

/// `acked` packets `after` the previous event, RTT sample `rtt`, rate sample `d` packets over `interval`.
pub(super) fn ack(acked: u32, after: Duration, rtt: Duration, d: u64, interval: Duration) -> Ack {
    Ack {
        sample: Some((d, interval)),
        ..Ack::new(acked, after).rtt(rtt)
    }
}

/// One ACK of the path.
pub(super) fn steady() -> Ack {
    ack(2, us(1024), RTT, 16, RTT)
}

/// One ACK of the path carrying `extra`.
pub(super) fn ack_x(d: &mut Driver, a: Ack, extra: Extra) -> RateSample {
    d.cc.next = extra;
    d.ack(a)
}

/// STARTUP on the path, then DRAIN without refilling the window; stops on entering PROBE_BW DOWN.
pub(super) fn drive_to_probe_bw(p: Params) -> Driver {
    let mut d = driver(p);
    while d.cc.state == State::Startup {
        assert!(d.now < Time::from_secs(1), "STARTUP never ended");
        d.ack(steady());
    }
    d.fill_window = false;
    while d.cc.state == State::Drain {
        d.ack(steady());
    }
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down));
    d.fill_window = true;
    d
}

/// PROBE_BW CRUISE on the path: DOWN ends on the first ACK whose prior inflight is ≤ 16.
pub(super) fn drive_to_cruise(p: Params) -> Driver {
    let mut d = drive_to_probe_bw(p);
    d.fill_window = false;
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    d.fill_window = true;
    d
}

// ---- rate samples and the model ----

#[test]
fn bandwidth_samples_are_rounded_up_to_linux_units() {
    let rs = |d, i| RateSample {
        delivered: Some(d),
        interval: Some(i),
        ..RateSample::default()
    };
    // 16 · 2^24 / 8192 µs = 32768 units exactly = 1953.125 pkt/s
    assert_eq!(bw_sample(&rs(16, RTT)), BW);
    // 10 · 2^24 / 10 000 µs = 16777.2 → 16778 units = 1000.0467 pkt/s, not 1000
    assert_eq!(bw_sample(&rs(10, us(10_000))), 16778.0 * 1e6 / 16_777_216.0);
    // sub-µs intervals are invalid, as Linux's interval_us ≤ 0
    assert_eq!(bw_sample(&rs(1, Duration::from_nanos(999))), 0.0);
    assert_eq!(bw_sample(&RateSample::default()), 0.0);
}

#[test]
fn the_flooring_budget_only_raises_small_bdps_to_three_tso_bursts_plus_two_in_up() {
    let mut d = drive_to_cruise(Params::default());
    assert_eq!(d.cc.tso_segs_goal(), 2);
    assert_eq!(d.cc.inflight(BW, 1.0), 16); // max(16, 6): no +6, no rounding to even as in v1
    assert_eq!(d.cc.inflight(BW / 4.0, 1.0), 6); // max(4, 6)
    d.cc.state = State::ProbeBw(Phase::Up);
    assert_eq!(d.cc.inflight(BW, 1.25), 22);
    // the goal is the burst the transport is told to send: 2 here, 5 at STARTUP's pacing rate
    assert_eq!(d.cc.cc.tso_segs(), Some(2));
    let mut d = driver(Params::default());
    d.ack(steady());
    assert_eq!(d.cc.cc.tso_segs(), Some(5));
}

#[test]
fn the_tso_goal_adds_64_kb_halved_every_512_us_of_min_rtt() {
    let mut cc = Bbr2::new(Params::default(), testing::init());
    cc.pacing_rate_bytes = 1_000_000; // >> 10 = 976 B
    for (min_rtt, goal) in [
        (Some(1000), 23), // 976 + 65 536 >> 1 = 33 744 B
        (Some(511), 45),  // 976 + 65 536 = 66 512 B, capped at 65 215 B
        (Some(8192), 2),  // 976 + 65 536 >> 16 = 977 B: the 2-segment floor (8 Mb/s)
        (None, 2),        // no RTT sample yet: no allowance
    ] {
        cc.min_rtt = min_rtt.map(us);
        assert_eq!(cc.tso_segs_goal(), goal, "min_rtt {min_rtt:?}");
    }
    // tso_rtt_shift = 0 turns the allowance off, even on a 10 µs path where
    // 65 536 >> 10 = 64 B would take 4 334 B (2.99 segments) to 3
    for (shift, goal) in [(0, 2), (9, 45)] {
        let mut cc = Bbr2::new(
            Params {
                tso_rtt_shift: shift,
                ..Params::default()
            },
            testing::init(),
        );
        cc.pacing_rate_bytes = 4334 * 1024;
        cc.min_rtt = Some(us(10));
        assert_eq!(cc.tso_segs_goal(), goal, "tso_rtt_shift {shift}");
    }
}

#[test]
fn the_edt_inflight_counts_one_more_tso_burst_only_when_pacing_above_1() {
    let mut d = drive_to_cruise(Params::default());
    d.conn.next_departure = d.now; // nothing scheduled ahead of now
    for (gain, in_net) in [(1.0, 10), (1.25, 12)] {
        d.cc.pacing_gain = gain;
        assert_eq!(
            d.cc.in_net_at_edt(d.now, &d.conn, 10),
            in_net,
            "gain {gain}"
        );
    }
}

#[test]
fn the_saved_cwnd_is_overwritten_only_outside_recovery_and_probe_rtt() {
    use CaState::*;
    let cruise = State::ProbeBw(Phase::Cruise);
    // prior_cwnd 40, cwnd 30: overwritten in Open/Disorder/CWR, else the max is kept
    for (ca, state, saved) in [
        (Open, cruise, 30),
        (Disorder, cruise, 30),
        (Cwr, cruise, 30),
        (Recovery, cruise, 40),
        (Loss, cruise, 40),
        (Open, State::ProbeRtt, 40),
    ] {
        let mut cc = Bbr2::new(Params::default(), testing::init());
        (cc.prev_ca_state, cc.state, cc.prior_cwnd, cc.cwnd) = (ca, state, 40, 30);
        cc.save_cwnd();
        assert_eq!(cc.prior_cwnd, saved, "{ca:?} {state:?}");
    }
}

#[test]
fn the_aggregation_estimate_needs_a_valid_sample_and_keeps_5_round_buckets_after_startup() {
    let burst = |sample| Ack {
        sample,
        ..Ack::new(20, us(1024)).rtt(RTT)
    };
    // 20 packets where bw predicts 2: all 20 are extra, unless the sample is invalid
    for (sample, extra) in [(None, 2), (Some((16, us(16_384))), 20)] {
        let mut d = drive_to_cruise(Params {
            fast_path: false,
            ..Params::default()
        });
        d.ack(burst(sample));
        assert_eq!(d.cc.ack_aggr.extra_acked(), extra, "sample {sample:?}");
        // an ACK 20.48 ms later starts a new ACK epoch; two more round starts are still
        // within the 5-round buckets (STARTUP's are 1 round: the 20 would be gone)
        d.ack(ack(2, us(20_480), RTT, 16, RTT));
        d.acks(16, steady());
        assert_eq!(d.cc.ack_aggr.extra_acked(), extra);
    }
    // extra_acked_gain = 0 turns the estimator off
    let mut d = drive_to_cruise(Params {
        fast_path: false,
        extra_acked_gain: 0.0,
        ..Params::default()
    });
    d.ack(burst(Some((16, us(16_384)))));
    assert_eq!(d.cc.ack_aggr.extra_acked(), 0);
}

// ---- STARTUP ----

#[test]
fn startup_grows_cwnd_by_acked_to_the_high_gain_bdp_plus_aggregation() {
    let mut d = driver(Params::default());
    for k in 1..=24u32 {
        d.ack(steady());
        let want = if k < 20 { 10 + 2 * k } else { 50 }; // 48 < 49 grows to 50, then stays
        assert_eq!(d.cc.cwnd(), want, "ACK {k}");
        assert_eq!(d.cc.metrics().pacing_gain, Some(739.0 / 256.0));
        assert_eq!(d.cc.metrics().cwnd_gain, Some(739.0 / 256.0));
    }
    // v1 would ignore aggregation in STARTUP; v2 counts it (target 49, not 47)
    assert_eq!(d.cc.ack_aggr.extra_acked(), 2);
    // floor(1953.125 · 1448 · 739/256 · 0.99) = 8 082 361 B/s
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(8_082_361 * 8)));
    // without extra_acked_in_startup the target is 47: 46 < 47 grows to 48, then stays
    let mut d = driver(Params {
        extra_acked_in_startup: false,
        ..Params::default()
    });
    d.acks(24, steady());
    assert_eq!((d.cc.state, d.cc.cwnd()), (State::Startup, 48));
}

#[test]
fn startup_grows_cwnd_to_twice_the_initial_window_even_above_its_target() {
    let mut d = driver(Params::default());
    // 2 packets per 8.192 ms: target = max(ceil(1.95 · 739/256) + 2, 3 · tso 3) = 9 < IW 10
    let slow = ack(2, RTT, RTT, 2, RTT); // every ACK starts a round: stop before the plateau
    d.acks(3, slow);
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(d.cc.cwnd(), 16); // 10 + 3 · 2, above the target, toward 2 · IW
}

#[test]
fn startup_stops_growing_cwnd_once_at_its_target_or_at_twice_the_initial_window() {
    // at 2 · IW = 20, above the target 9: no growth
    let mut d = driver(Params::default());
    let slow = ack(2, RTT, RTT, 2, RTT);
    d.ack(slow.clone());
    d.cc.cwnd = 20;
    d.ack(slow);
    assert_eq!((d.cc.state, d.cc.cwnd()), (State::Startup, 20));
    // exactly at the target 49, above 2 · IW: no growth
    let mut d = driver(Params::default());
    d.acks(19, steady());
    assert_eq!(d.cc.cwnd(), 48);
    d.cc.cwnd = 49;
    d.ack(steady());
    assert_eq!((d.cc.state, d.cc.cwnd()), (State::Startup, 49));
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth_of_max_bw() {
    let mut d = driver(Params::default());
    // round starts at ACKs 1, 9, 17, 25: max_bw flat after the first
    for k in 1..=24 {
        d.ack(steady());
        assert_eq!(d.cc.state, State::Startup, "ACK {k}");
    }
    assert_eq!(d.cc.full_bw.cnt, 2);
    d.ack(steady());
    assert!(d.cc.full_bw.reached);
    assert_eq!(d.cc.state, State::Drain);
    assert_eq!(d.cc.metrics().ssthresh_pkts, Some(16));
}

#[test]
fn app_limited_round_starts_do_not_count_toward_a_full_pipe() {
    for p in [Params::default(), Params::v3()] {
        let mut d = driver(p);
        for _ in 0..16 {
            d.ack(steady());
        }
        for _ in 0..8 {
            d.ack(steady().app_limited()); // the round starting on ACK 17 is app-limited
        }
        assert_eq!(d.cc.full_bw.cnt, 1);
        assert_eq!(d.cc.state, State::Startup);
        for _ in 0..16 {
            d.ack(steady());
        }
        assert_eq!(d.cc.state, State::Drain); // on ACK 33, the third counted round
    }
}

#[test]
fn v3_growth_under_25_percent_a_round_is_a_plateau() {
    let mut d = driver(Params::v3());
    // round r (ACKs 8r + 1 … 8r + 8) samples 16 packets over 8192 − 400·r µs: a rate up
    // 5.1 %, 10.8 %, 17.2 % on the first round's, never the 25 % that restarts the count
    for k in 0..25u64 {
        d.ack(ack(2, us(1024), RTT, 16, us(8192 - 400 * (k / 8))));
    }
    assert_eq!(d.cc.state, State::Drain); // on ACK 25, as on a flat path
}

/// A single sample twice the rest, in the middle of the third round.
fn startup_with_a_spike(p: Params) -> Vec<State> {
    let mut d = driver(p);
    let spike = ack(2, us(1024), RTT, 16, us(4096)); // 3906.25 pkt/s ≥ 1.25 · 1953.125
    let mut states = Vec::new();
    for k in 1..=60 {
        d.ack(if k == 20 { spike.clone() } else { steady() });
        states.push(d.cc.state);
    }
    states
}

#[test]
fn v3_restarts_the_plateau_count_at_the_sample_v2_at_the_next_round_start() {
    let first_drain = |s: Vec<State>| s.iter().position(|s| *s == State::Drain).unwrap() + 1;
    // v2: max_bw holds the spike until the round start on ACK 25 resets the count there;
    // rounds 33, 41, 49 count: DRAIN on ACK 49
    assert_eq!(first_drain(startup_with_a_spike(Params::default())), 49);
    // v3: ACK 20 resets full_bw to the spike at once; 25, 33, 41 count: DRAIN on ACK 41
    assert_eq!(first_drain(startup_with_a_spike(Params::v3())), 41);
}

/// STARTUP in Recovery on the path, `lossy` of the next 9 ACKs marking one loss each.
fn startup_losses(p: Params, lossy: usize, extra: Extra) -> Driver {
    startup_losses_of(p, steady(), 9, lossy, extra)
}

/// STARTUP in Recovery after 4 ACKs `a`, then `acks` more, the first `lossy` of them
/// marking one loss each.
fn startup_losses_of(p: Params, a: Ack, acks: usize, lossy: usize, extra: Extra) -> Driver {
    let mut d = driver(p);
    d.acks(4, a.clone());
    d.enter_recovery();
    for k in 1..=acks {
        let a = if k <= lossy {
            a.clone().lost(1)
        } else {
            a.clone()
        };
        ack_x(&mut d, a, extra);
    }
    d
}

#[test]
fn startup_exits_on_eight_loss_events_in_a_recovery_round_above_2_percent_loss() {
    // 2 > floor(50 · 5/256) = 0
    let high = Extra::new(2, 50);
    // The first lossy ACK restarts the loss round; it ends 16 packets (8 ACKs) later, on ACK 9,
    // having counted the 8 lossy ACKs 1–8.
    let d = startup_losses(Params::default(), 8, high);
    assert!(d.cc.full_bw.reached);
    assert_eq!(d.cc.state, State::Drain);
    // inflight(max_bw, 1) = max(16, 3 · 5)
    assert_eq!(d.cc.b.inflight_hi, Some(16));
    // Seven events are too few, and the count restarts with the next loss round.
    let d = startup_losses(Params::default(), 7, high);
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(d.cc.sig.loss_events_in_round, 0);
    // Nine events at 3/200 = 1.5 % loss are not "too high": 3 ≤ floor(200 · 5/256) = 3.
    let low = Extra::new(3, 200);
    assert_eq!(
        startup_losses(Params::default(), 9, low).cc.state,
        State::Startup
    );
    // Outside Recovery the same losses do not end STARTUP.
    let mut d = driver(Params::default());
    for _ in 0..13 {
        ack_x(&mut d, steady().lost(1), high);
    }
    assert_eq!(d.cc.state, State::Startup);
    // full_loss_cnt = 0 turns the loss exit off
    let off = Params {
        full_loss_cnt: 0,
        ..Params::default()
    };
    assert_eq!(startup_losses(off, 9, high).cc.state, State::Startup);
}

#[test]
fn the_loss_event_count_saturates_at_15_as_linux_4_bit_field_does() {
    let high = Extra::new(2, 50);
    // the path's rate with 40 packets per sample: a loss round lasts 20 ACKs
    let wide = ack(2, us(1024), RTT, 40, us(20_480));
    for (full_loss_cnt, state) in [(15, State::Drain), (16, State::Startup)] {
        let p = Params {
            full_loss_cnt,
            ..Params::default()
        };
        let d = startup_losses_of(p, wide.clone(), 21, 21, high);
        assert_eq!(d.cc.state, state, "full_loss_cnt {full_loss_cnt}");
    }
}

#[test]
fn v3_exits_startup_on_six_loss_events_and_seeds_inflight_hi_with_inflight_latest() {
    let high = Extra::new(2, 50);
    assert_eq!(
        startup_losses(Params::default(), 6, high).cc.state,
        State::Startup
    );
    let d = startup_losses(Params::v3(), 6, high);
    assert_eq!(d.cc.state, State::Drain);
    assert_eq!(d.cc.b.inflight_hi, Some(16));
    // v3 keeps the round's largest delivery volume (24, on ACKs 1–8) until after
    // the ACK that ends the loss round (ACK 9, which delivered 16): inflight_hi = 24
    let wide = ack(2, us(1024), RTT, 24, us(12_288)); // same rate, 24 packets per sample
    for (p, hi) in [(Params::v3(), 24), (Params::default(), 16)] {
        let mut d = driver(p);
        d.ack(wide.clone());
        d.enter_recovery();
        for k in 1..=9 {
            let a = if k < 9 { wide.clone() } else { steady() };
            ack_x(&mut d, a.lost(1), high);
        }
        assert_eq!(d.cc.state, State::Drain);
        assert_eq!(d.cc.b.inflight_hi, Some(hi));
    }
}

#[test]
fn v3_uses_gains_2_77_and_2_in_startup_and_drain() {
    let mut d = driver(Params::v3());
    d.ack(steady());
    assert_eq!(d.cc.metrics().pacing_gain, Some(710.0 / 256.0));
    assert_eq!(d.cc.metrics().cwnd_gain, Some(2.0));
    while d.cc.state == State::Startup {
        d.ack(steady());
    }
    assert_eq!(d.cc.metrics().pacing_gain, Some(88.0 / 256.0));
    assert_eq!(d.cc.metrics().cwnd_gain, Some(2.0));
    // STARTUP cwnd target was max(bdp(2) + 2, 3 · 5) = 34, reached from 10 by 2s
    assert_eq!(d.cc.cwnd(), 34);
}

#[test]
fn v3_counts_a_loss_repaired_by_a_tail_loss_probe_as_a_too_high_probe() {
    for (p, state, hi) in [
        (Params::v3(), State::ProbeBw(Phase::Down), Some(17)),
        (Params::default(), State::ProbeBw(Phase::Up), None),
    ] {
        let mut d = drive_to_cruise(p);
        while d.cc.state != State::ProbeBw(Phase::Up) {
            d.ack(steady());
        }
        d.acks(8, steady());
        // the transport's CWR for a TLP-repaired loss: 1 lost of inflight_latest 16 + 1
        d.conn.ca_state = CaState::Cwr;
        d.cc.on_recovery_start(d.now, &d.conn);
        d.conn.ca_state = CaState::Open;
        assert_eq!(d.cc.state, state);
        assert_eq!(d.cc.b.inflight_hi, hi);
    }
}

#[test]
fn v3_seeds_inflight_lo_on_rto_with_the_larger_of_cwnd_and_prior_cwnd() {
    for (p, lo) in [(Params::v3(), 41), (Params::default(), 34)] {
        let mut d = drive_to_cruise(p);
        d.ack(steady());
        let conn = Conn {
            inflight: 40, // most of the flight not yet marked lost
            ca_state: CaState::Loss,
            ..d.conn.clone()
        };
        let timeout = Timeout {
            new_episode: true,
            ..Timeout::default()
        };
        d.cc.on_rto(d.now, &conn, &timeout);
        assert_eq!(d.cc.cwnd(), 41);
        assert_eq!(d.cc.b.inflight_lo, Some(lo));
    }
}

#[test]
fn v3_needs_strictly_more_than_half_the_deliveries_ce_marked_for_too_high() {
    let half = bounds::LossSample {
        delivered: 10,
        delivered_ce: 5,
        ..Default::default()
    };
    for (p, too_high) in [(Params::default(), true), (Params::v3(), false)] {
        let mut cc = Bbr2::new(p, testing::init());
        assert!(!cc.is_inflight_too_high(&half), "not ECN-eligible");
        cc.ecn.eligible = true;
        assert_eq!(cc.is_inflight_too_high(&half), too_high);
        // no CE mark, or no delivery, is never too high: with 1 delivered the v2 threshold
        // floor(1/2) = 0 would otherwise be met
        for (delivered, delivered_ce) in [(1, 0), (0, 1)] {
            let s = bounds::LossSample {
                delivered,
                delivered_ce,
                ..Default::default()
            };
            assert!(
                !cc.is_inflight_too_high(&s),
                "{delivered} delivered, {delivered_ce} CE"
            );
        }
        // below half never, above half always
        for (delivered_ce, too_high) in [(4, false), (6, true)] {
            let s = bounds::LossSample {
                delivered_ce,
                ..half
            };
            assert_eq!(
                cc.is_inflight_too_high(&s),
                too_high,
                "{delivered_ce} of 10"
            );
        }
        // ecn_thresh = 0 turns the test off
        cc.p.ecn_thresh = 0.0;
        assert!(!cc.is_inflight_too_high(&half));
    }
}

// ---- DRAIN ----

#[test]
fn drain_paces_at_88_over_256_then_enters_probe_bw_down_once_inflight_fits_one_bdp() {
    let mut d = driver(Params::default());
    while d.cc.state == State::Startup {
        d.ack(steady());
    }
    // floor(1953.125 · 1448 · 88/256 · 0.99) = 962 446 B/s, lowered now that the pipe is full
    assert_eq!(d.cc.pacing_rate(), Some(Rate::from_bps(962_446 * 8)));
    assert_eq!(d.cc.cwnd(), 49); // min(50 + 2, STARTUP's target 49)
    d.fill_window = false;
    for _ in 0..16 {
        d.ack(steady()); // inflight 47, 45, ..., 17 > 16
        assert_eq!(d.cc.state, State::Drain, "inflight {}", d.conn.inflight);
    }
    d.ack(steady()); // 15 ≤ inflight(max_bw, 1) = 16
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Down)); // not a random phase as in v1
    assert_eq!(d.cc.probe.ack_phase, probe_bw::AckPhase::ProbeStopping);
    assert_eq!(d.cc.metrics().pacing_gain, Some(0.75));
}

#[test]
fn the_quic_port_leaves_drain_on_the_flight_as_it_is_without_edt_credit() {
    for (raw, state) in [(false, State::ProbeBw(Phase::Down)), (true, State::Drain)] {
        let mut d = driver(Params {
            prior_inflight_raw: raw,
            ..Params::default()
        });
        while d.cc.state == State::Startup {
            d.ack(steady());
        }
        d.fill_window = false;
        // 18 in flight after the ACK against one BDP of 16; Linux credits the 3 that leave
        // by the next departure (1953 pkt/s · 2 ms), the port counts all 18.
        d.conn.inflight = 20;
        d.conn.next_departure = d.now + us(1024) + us(2000);
        d.ack(steady());
        assert_eq!(d.cc.state, state, "prior_inflight_raw {raw}");
    }
}

// ---- PROBE_RTT ----

/// ACKs of the path whose RTT sample grows 1 µs each, so none refreshes probe_rtt_min.
fn rising_rtt(k: u64) -> Ack {
    ack(2, us(1024), us(9000 + k), 16, RTT)
}

#[test]
fn probe_rtt_runs_every_5_s_at_half_a_bdp_for_200_ms_and_a_round() {
    let mut d = drive_to_cruise(Params::default());
    let last_refresh = d.cc.probe_rtt_min_stamp;
    let mut k = 0;
    while d.cc.state != State::ProbeRtt {
        k += 1;
        d.ack(rising_rtt(k));
        assert!(d.now <= last_refresh + Duration::from_secs(5) + us(1024));
    }
    let entered = d.now;
    assert!(entered > last_refresh + Duration::from_secs(5));
    assert_eq!(d.cc.prior_cwnd, 34);
    assert_eq!(d.cc.cwnd(), 8); // max(4, bdp(bw, 0.5))
    assert!(d.cc.wants_app_limited());
    // inflight 32 at entry falls 2 per ACK to 8 on the 12th; 200 ms from then is
    // 195.3 ACKs; the round (8 ACKs) is long over: exit on the 208th ACK
    for n in 1..=207 {
        k += 1;
        d.ack(rising_rtt(k));
        assert_eq!(d.cc.state, State::ProbeRtt, "ACK {n}");
        assert_eq!(d.cc.cwnd(), 8);
    }
    k += 1;
    d.ack(rising_rtt(k));
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    assert_eq!(d.now - entered, us(208 * 1024));
    // prior_cwnd restored (and ≤ the PROBE_BW target 34)
    assert_eq!(d.cc.cwnd(), 34);
    // marked on the exit ACK too
    assert!(d.cc.wants_app_limited());
    // the next one comes 5 s after the exit
    let exited = d.now;
    while d.cc.state != State::ProbeRtt {
        k += 1;
        d.ack(rising_rtt(k));
    }
    assert!(d.now > exited + Duration::from_secs(5));
    assert!(d.now <= exited + Duration::from_secs(5) + us(1024));
}

#[test]
fn the_min_rtt_and_probe_rtt_windows_start_at_the_first_hook_not_at_time_zero() {
    // A flow that starts 15 s into the run: Linux stamps both at bbr_init, when the
    // connection starts, so its first ACK finds neither window expired.
    let mut d = driver(Params::default());
    d.now = Time::from_secs(15);
    d.ack(steady());
    assert_eq!(d.cc.state, State::Startup);
    assert_eq!(
        (d.cc.min_rtt_stamp, d.cc.probe_rtt_min_stamp),
        (d.now, d.now)
    );
    // A first send starts them too: an ACK more than 5 s later finds probe_rtt_min expired.
    let mut d = driver(Params::default());
    d.first_send(Time::from_secs(15));
    d.now = Time::from_secs(21);
    d.ack(steady());
    assert_eq!(d.cc.state, State::ProbeRtt);
}

#[test]
fn the_probe_rtt_and_min_rtt_windows_expire_only_past_5_s_and_10_s() {
    let mut d = driver(Params::default());
    d.first_send(Time::from_secs(15));
    // `ack_at(d, at, rtt)`: an ACK of the path arriving `at` after the first one (t0, at
    // 15 s + 1.024 ms), with an RTT sample `rtt`
    let t0 = Time::from_secs(15) + us(1024);
    let ack_at = |d: &mut Driver, at: Duration, rtt: Duration| {
        d.now = t0 + at - us(1024);
        d.ack(ack(2, us(1024), rtt, 16, RTT));
    };
    ack_at(&mut d, Duration::ZERO, RTT);
    assert_eq!((d.cc.probe_rtt_min_stamp, d.cc.min_rtt_stamp), (t0, t0));
    let higher = us(12_000);
    // exactly 5 s on, the PROBE_RTT window has not expired: the higher RTT is not taken
    ack_at(&mut d, Duration::from_secs(5), higher);
    assert_eq!(
        (d.cc.state, d.cc.probe_rtt_min),
        (State::Startup, Some(RTT))
    );
    // past it: taken, and PROBE_RTT begins
    ack_at(&mut d, Duration::from_secs(6), higher);
    assert_eq!(
        (d.cc.state, d.cc.probe_rtt_min),
        (State::ProbeRtt, Some(higher))
    );
    assert_eq!(d.cc.min_rtt, Some(RTT));
    // exactly 10 s on, min_rtt is still the first; 1.024 ms later it expires
    ack_at(&mut d, Duration::from_secs(10), higher);
    assert_eq!(d.cc.min_rtt, Some(RTT));
    ack_at(&mut d, Duration::from_secs(10) + us(1024), higher);
    assert_eq!(d.cc.min_rtt, Some(higher));
}

/// PROBE_RTT entered from CRUISE, then drained to 8 in flight: the 200 ms hold and the
/// round have started.
fn probe_rtt_hold_started() -> Driver {
    probe_rtt_hold_started_with(Params::default())
}

/// As [`probe_rtt_hold_started`], for BBR with parameters `p`.
fn probe_rtt_hold_started_with(p: Params) -> Driver {
    let mut d = drive_to_cruise(p);
    let mut k = 0;
    while d.cc.state != State::ProbeRtt {
        k += 1;
        d.ack(rising_rtt(k));
    }
    d.acks(12, rising_rtt(0));
    d
}

#[test]
fn probe_rtt_also_waits_for_a_packet_timed_round_at_its_cwnd() {
    let mut d = probe_rtt_hold_started();
    assert!(d.cc.probe_rtt.done_stamp.is_some());
    // 300 ms of ACKs without a rate sample: no round ends
    d.acks(293, Ack::new(2, us(1024)).rtt(us(9000)));
    assert_eq!(d.cc.state, State::ProbeRtt);
    d.ack(rising_rtt(0)); // 16 packets sent after the round began are delivered
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
}

#[test]
fn on_the_quic_ports_millisecond_clock_probe_rtt_ends_at_its_stamp() {
    for millisecond_clock in [false, true] {
        let mut d = probe_rtt_hold_started_with(Params {
            millisecond_clock,
            ..Params::default()
        });
        let done = d.cc.probe_rtt.done_stamp.expect("hold started");
        if millisecond_clock {
            assert_eq!(done, done.floor_millis());
        }
        while d.now + us(1024) < done {
            d.ack(rising_rtt(0)); // the round ends long before the 200 ms
        }
        assert_eq!(d.cc.state, State::ProbeRtt);
        // An ACK at the stamp itself: the port's `sampler->now < stamp` no longer holds;
        // Linux's `after(now, stamp)` does not yet.
        d.ack(Ack {
            after: done - d.now,
            ..rising_rtt(0)
        });
        let left = d.cc.state != State::ProbeRtt;
        assert_eq!(
            left, millisecond_clock,
            "millisecond_clock {millisecond_clock}"
        );
    }
}

#[test]
fn on_the_quic_ports_millisecond_clock_the_probe_wait_is_whole_milliseconds() {
    let waits = |millisecond_clock| {
        let mut cc = Bbr2::new(
            Params {
                millisecond_clock,
                ..Params::default()
            },
            testing::init(),
        );
        (0..50)
            .map(|_| {
                cc.pick_probe_wait();
                cc.probe.wait
            })
            .collect::<Vec<_>>()
    };
    let (linux, port) = (waits(false), waits(true));
    let in_range = |w: &Duration| (us(2_000_000)..us(3_000_000)).contains(w);
    assert!(linux.iter().chain(&port).all(in_range));
    // `2000 + ngx_random() % 1000` ms, spread over the second; Linux draws microseconds
    assert!(port.iter().all(|w| *w == w.floor_millis()));
    assert!(port.iter().any(|w| *w > us(2_500_000)));
    assert!(linux.iter().any(|w| *w != w.floor_millis()));
}

#[test]
fn entering_probe_rtt_starts_a_round_on_linux_but_not_in_the_quic_port() {
    for (p, restarts) in [(Params::default(), true), (Params::quic(), false)] {
        let mut d = drive_to_cruise(p);
        let mut k = 0;
        while d.cc.state != State::ProbeRtt {
            k += 1;
            d.ack(rising_rtt(k));
        }
        let delivered = d.conn.delivered;
        assert_eq!(d.cc.next_rtt_delivered == delivered, restarts);
        assert!(d.cc.next_rtt_delivered <= delivered);
    }
}

#[test]
fn probe_rtt_cwnd_is_at_least_4_packets() {
    let mut d = drive_to_cruise(Params::default());
    d.cc.b.bw_lo = Some(BW / 8.0); // bdp(bw, 0.5) = ceil(1) = 1
    assert_eq!(d.cc.probe_rtt_cwnd(), 4);
    d.cc.b.bw_lo = None;
    assert_eq!(d.cc.probe_rtt_cwnd(), 8);
}

#[test]
fn an_equal_rtt_sample_defers_probe_rtt_in_v2_but_not_in_v3() {
    for (p, enters) in [(Params::default(), false), (Params::v3(), true)] {
        let mut d = drive_to_cruise(p);
        let start = d.now;
        while d.now < start + Duration::from_secs(6) && d.cc.state != State::ProbeRtt {
            d.ack(steady()); // RTT = min_rtt exactly
        }
        assert_eq!(d.cc.state == State::ProbeRtt, enters);
    }
}

#[test]
fn a_lower_rtt_sample_becomes_the_minimum_at_once_and_a_higher_one_does_not() {
    for p in [Params::default(), Params::v3()] {
        let mut d = drive_to_cruise(p);
        let stamp = d.cc.probe_rtt_min_stamp;
        assert_eq!((d.cc.probe_rtt_min, d.cc.min_rtt), (Some(RTT), Some(RTT)));
        d.ack(rising_rtt(100)); // 9.1 ms
        assert_eq!((d.cc.probe_rtt_min, d.cc.min_rtt), (Some(RTT), Some(RTT)));
        assert_eq!(d.cc.probe_rtt_min_stamp, stamp);
        d.ack(ack(2, us(1024), us(8000), 16, RTT));
        assert_eq!(
            (d.cc.probe_rtt_min, d.cc.min_rtt),
            (Some(us(8000)), Some(us(8000)))
        );
        assert_eq!(
            (d.cc.probe_rtt_min_stamp, d.cc.min_rtt_stamp),
            (d.now, d.now)
        );
    }
}

#[test]
fn an_expired_probe_rtt_window_skips_a_delayed_acks_rtt_on_linux_but_not_in_the_quic_port() {
    for (p, takes) in [(Params::default(), false), (Params::quic(), true)] {
        let mut d = drive_to_cruise(p);
        let stamp = d.cc.probe_rtt_min_stamp;
        let window = Duration::from_millis(d.cc.p.probe_rtt_window_ms);
        let mut k = 0;
        // (the QUIC port's window expires on its millisecond clock)
        while d.cc.clock().time(d.now + us(1024)) <= stamp + window {
            k += 1;
            d.ack(rising_rtt(k));
        }
        let before = d.cc.probe_rtt_min;
        let late = ack(2, us(1024), us(30_000), 16, RTT);
        d.ack(Ack {
            delayed: true,
            ..late
        }); // the window has expired now
        let expected = if takes { Some(us(30_000)) } else { before };
        assert_eq!(d.cc.probe_rtt_min, expected);
    }
}

#[test]
fn probe_rtt_returns_to_startup_if_the_pipe_was_never_full() {
    let mut d = driver(Params::default());
    // No valid rate sample, so no round and no plateau; RTT samples never lower.
    let mut k = 0;
    while d.cc.state != State::ProbeRtt {
        k += 1;
        d.ack(Ack::new(2, us(1024)).rtt(us(9000 + k)));
        assert!(d.now < Time::from_secs(6));
    }
    assert!(!d.cc.full_bw.reached);
    // PROBE_RTT marks the connection app-limited, so its samples do not count toward a plateau.
    d.fill_window = false;
    while d.cc.state == State::ProbeRtt {
        k += 1;
        d.ack(ack(2, us(1024), us(9000 + k), 16, RTT).app_limited());
    }
    assert_eq!(d.cc.state, State::Startup);
}

// ---- loss hooks ----

/// `floor(bw · 1448 · gain · 0.99)` in bits/s: the pacing rate at `bw` packets/s.
fn paced(bw: f64, gain: f64) -> Option<Rate> {
    Some(Rate::from_bps(
        (bw * 1448.0 * gain * 0.99).floor() as u64 * 8,
    ))
}

#[test]
fn initial_pacing_uses_a_nominal_1_ms_rtt_and_is_redone_once_srtt_exists() {
    let gain = Params::default().startup_pacing_gain;
    let mut d = driver(Params::default());
    assert_eq!(d.cc.pacing_rate(), paced(10_000.0, gain)); // 10 packets per 1 ms
    let slow = ack(2, us(1024), RTT, 4, RTT); // a sample of 4 packets per RTT: less
    d.ack(slow.clone());
    assert_eq!(d.cc.pacing_rate(), paced(10.0 / RTT.as_secs_f64(), gain));
    d.ack(slow); // cwnd is 12 now, but the init formula is not run again
    assert_eq!(d.cc.pacing_rate(), paced(10.0 / RTT.as_secs_f64(), gain));
}

#[test]
fn idle_restart_in_probe_bw_paces_at_the_estimate_and_defers_probe_rtt() {
    let mut d = drive_to_probe_bw(Params::default());
    assert_eq!(
        d.cc.pacing_rate(),
        paced(BW, Params::default().probe_down_gain)
    );
    d.send_from_idle();
    assert_eq!(d.cc.pacing_rate(), paced(BW, 1.0));
    // probe_rtt_min has expired, but the flow is restarting from idle: no PROBE_RTT. An ACK
    // that delivers nothing does not end the restart; one that delivers does.
    d.ack(ack(0, Duration::from_secs(6), us(9000), 0, RTT));
    assert!(d.cc.idle_restart);
    d.ack(ack(2, us(1024), us(9000), 16, RTT));
    assert!(matches!(d.cc.state, State::ProbeBw(_)), "{:?}", d.cc.state);
    assert!(!d.cc.idle_restart);
}

#[test]
fn a_probe_rtt_duration_of_zero_turns_probe_rtt_off() {
    let mut d = driver(Params {
        probe_rtt_duration_ms: 0,
        ..Params::default()
    });
    d.first_send(Time::from_secs(15));
    d.now = Time::from_secs(21);
    d.ack(steady()); // probe_rtt_min has expired (see the test above with the default)
    assert_eq!(d.cc.state, State::Startup);
}

#[test]
fn a_send_from_empty_that_is_not_app_limited_is_no_idle_restart() {
    let mut d = drive_to_probe_bw(Params::default()); // DOWN: an idle restart would pace at 1
    testing::assert_busy_send_is_no_idle_restart(&mut d);
    assert!(!d.cc.idle_restart);
}

#[test]
fn a_send_from_idle_after_the_probe_rtt_hold_ends_it_without_waiting_for_a_round() {
    let mut d = probe_rtt_hold_started();
    let done = d.cc.probe_rtt.done_stamp.expect("hold started");
    // (No send at the stamp itself: one inside PROBE_RTT would hide a mark left behind.)
    d.now = done + us(1);
    d.send_from_idle();
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    assert_eq!(d.cc.cwnd(), 34); // prior_cwnd restored
    assert!(!d.cc.wants_app_limited());
}

#[test]
fn rto_sets_cwnd_to_inflight_plus_one_seeds_inflight_lo_and_leaving_loss_restores_cwnd() {
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 34);
    let lost = d.conn.lost;
    d.rto(Duration::from_millis(200));
    assert_eq!(d.conn.lost, lost + 34); // the driver counts each packet it tells of
    assert_eq!(d.cc.cwnd(), 1); // everything in flight was marked lost: 0 + 1
    assert_eq!(d.cc.prior_cwnd, 34);
    assert_eq!(d.cc.b.inflight_lo, Some(34)); // v2: prior_cwnd
    assert!(d.cc.sig.loss_in_round);
    assert_eq!(d.cc.full_bw.bw, 0.0);
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 4); // min(1 + 2, 34), floored at 4
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 6);
    d.exit_recovery(); // Loss → Open
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 34); // max(cwnd, prior_cwnd), capped by inflight_lo
}

#[test]
fn an_rto_seeds_inflight_lo_only_outside_probing_and_only_if_unset() {
    // STARTUP probes: no seed
    let mut d = driver(Params::default());
    d.acks(4, steady());
    d.rto(Duration::from_millis(200));
    assert_eq!(d.cc.b.inflight_lo, None);
    // CRUISE with inflight_lo already cut to 20 by a loss round: kept
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    d.cc.b.inflight_lo = Some(20);
    d.rto(Duration::from_millis(200));
    assert_eq!(d.cc.b.inflight_lo, Some(20));
}

#[test]
fn recovery_does_not_conserve_packets_losses_act_only_through_the_bounds() {
    let mut d = drive_to_cruise(Params::default());
    d.enter_recovery();
    ack_x(&mut d, steady().lost(3), Extra::default());
    assert_eq!(d.cc.cwnd(), 34); // v1 would cut to inflight + acked
    assert_eq!(d.cc.prior_cwnd, 34);
}

// ---- the app-limited fast path ----

#[test]
fn app_limited_acks_below_max_bw_skip_the_model_once_cwnd_is_at_target() {
    // 20 packets acked 1.024 ms after the previous ACK, a sample of 16 packets over
    // `interval`. The previous epoch held exactly the 2 packets bw predicts, so a new one
    // starts: all 20 are extra.
    let burst = |interval| ack(20, us(1024), RTT, 16, interval).app_limited();
    // Without the fast path the aggregation raises the target to 32 + 20; a loss in the
    // round also takes the slow path, and so does a sample at max_bw itself (16 packets
    // over one min_rtt: the fast path needs one strictly below).
    for (fast_path, loss, interval, extra, cwnd) in [
        (true, false, us(16_384), 2, 34),
        (false, false, us(16_384), 20, 52),
        (true, true, us(16_384), 20, 23), // the loss round also ends: inflight_lo = floor(34 · 0.703)
        (true, false, RTT, 20, 52),
    ] {
        let mut d = drive_to_cruise(Params {
            fast_path,
            ..Params::default()
        });
        d.ack(steady());
        assert!(d.cc.try_fast_path);
        d.cc.sig.loss_in_round = loss;
        d.ack(burst(interval));
        assert_eq!(
            d.cc.ack_aggr.extra_acked(),
            extra,
            "fast_path {fast_path}, loss {loss}, {interval:?}"
        );
        assert_eq!(d.cc.cwnd(), cwnd);
    }
}

#[test]
fn an_ack_that_acks_nothing_leaves_cwnd_to_the_caps() {
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    d.cc.cwnd = 40; // stands for a cwnd above the target 34, as after PROBE_RTT restores it
    d.ack(Ack::new(0, us(1024)).rtt(RTT));
    assert_eq!(d.cc.cwnd(), 40);
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 34);
}

#[test]
fn a_cwnd_that_lands_exactly_on_its_target_tries_the_fast_path() {
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    d.cc.cwnd = 32; // stands for a cwnd 2 below the target 34
    d.cc.try_fast_path = false;
    d.ack(steady());
    assert_eq!(d.cc.cwnd(), 34);
    assert!(d.cc.try_fast_path);
}

#[test]
fn a_fast_path_ack_that_lowers_min_rtt_or_enters_probe_rtt_still_sets_pacing_and_cwnd() {
    let half_bw = |rtt| ack(20, us(1024), rtt, 16, us(16_384)).app_limited();
    // min_rtt halves to 4.096 ms: target = bdp(2) + extra_acked = 16 + 2
    let mut d = drive_to_cruise(Params::default());
    d.ack(steady());
    d.ack(half_bw(us(4096)));
    assert_eq!(d.cc.min_rtt, Some(us(4096)));
    assert_eq!(d.cc.ack_aggr.extra_acked(), 2, "the fast path was taken");
    assert_eq!(d.cc.cwnd(), 18);
    // With a 50 ms PROBE_RTT window, higher RTTs until the window expires on the
    // app-limited ACK: PROBE_RTT is entered on the fast path, min_rtt stays, cwnd → bdp(0.5)
    let mut d = drive_to_cruise(Params {
        probe_rtt_window_ms: 50,
        ..Params::default()
    });
    let expiry = d.cc.probe_rtt_min_stamp + Duration::from_millis(50);
    let mut k = 0;
    while d.now + us(1024) <= expiry {
        k += 1;
        d.ack(rising_rtt(k));
    }
    assert_eq!(d.cc.state, State::ProbeBw(Phase::Cruise));
    assert!(d.cc.try_fast_path);
    d.ack(half_bw(us(9000)));
    assert_eq!(d.cc.state, State::ProbeRtt);
    assert_eq!((d.cc.min_rtt, d.cc.ack_aggr.extra_acked()), (Some(RTT), 2));
    assert_eq!(d.cc.cwnd(), 8);
    assert_eq!(d.cc.metrics().pacing_gain, Some(1.0));
}
