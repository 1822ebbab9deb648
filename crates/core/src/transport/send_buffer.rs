//! The socket's send buffer as Linux sizes it, charges it and wakes its writer — what a
//! server application (the DASH server) may write, and when.
//!
//! * **Size** (`tcp_sndbuf_expand`): `sk_sndbuf` starts at `tcp_wmem[1]` and grows — never
//!   shrinks — to `factor × max(cwnd, 10) × per_mss`, at most `tcp_wmem[2]`. `per_mss` is the
//!   memory one MSS-sized frame may take, `roundup_pow_of_two(mss + MAX_TCP_HEADER +
//!   shinfo) + sizeof(sk_buff)` (4352 B for a 1448-byte MSS); `factor` is 2, or 3 for an
//!   algorithm that asks for more (BBR's `bbr_sndbuf_expand`: "BBR may slow-start even during
//!   recovery"). Linux grows it at connection set-up and when an ACK frees memory while the
//!   writer waits and the window is not full (`tcp_new_space`, `tcp_should_expand_sndbuf`).
//! * **Charge** (`sk_wmem_queued`): every byte written and not yet acknowledged, sent or not,
//!   plus each skb's own memory. A write fills skbs of one GSO frame (`tcp_xmit_size_goal`: 45
//!   segments of 1448 B); as they are sent, `tso_fragment` splits off skbs of the TSO quantum
//!   (`tcp_tso_autosize`: about 1 ms of the pacing rate, at least 2 and at most 45 segments),
//!   each with a head of its own, charged even past the limit. So what is in flight costs more
//!   the smaller its quanta, and what waits unsent costs 2 % (the real kernel's log, session 59:
//!   3.7 % and 9.2 % of the bytes unsent and in flight, at quanta of 7–8 segments).
//! * **Writer** (`sk_stream_memory_free`, `sk_stream_write_space`): a write is taken while the
//!   charge is below the size; a writer that found no room (`SOCK_NOSPACE`) is woken only
//!   when the free part is at least half the charge, i.e. once the charge has fallen to 2/3.
//!
//! With a window near `2/3 × tcp_wmem[2]` the writer therefore wakes only after the socket has
//! sent all it held and the window has room: the sender runs dry between writes, and its rate
//! samples are app-limited (`tcp_rate_check_app_limited`) though the application has data.
//! Behind a deep buffer this keeps BBR in STARTUP: its 2.89 gain puts the window there.
//!
//! | Name | Value | Unit | Meaning | Source |
//! |---|---|---|---|---|
//! | `WMEM_DEFAULT` | 16 384 | B | initial `sk_sndbuf` | `net.ipv4.tcp_wmem[1]` |
//! | `WMEM_MAX` | 4 194 304 | B | largest autotuned `sk_sndbuf` | `net.ipv4.tcp_wmem[2]` |
//! | `MAX_TCP_HEADER` | 320 | B | headroom of a TCP skb (x86-64) | `include/net/tcp.h` |
//! | `SHINFO` | 320 | B | `SKB_DATA_ALIGN(sizeof(struct skb_shared_info))` | `include/linux/skbuff.h` |
//! | `SKB` | 256 | B | `SKB_DATA_ALIGN(sizeof(struct sk_buff))` | `include/linux/skbuff.h` |
//! | `SKB_OVERHEAD` | 1 280 | B | truesize of an skb before its payload (header kmalloc rounded to 1 KiB + `SKB`) | `__alloc_skb`, `SKB_TRUESIZE` |
//! | `INIT_CWND` | 10 | packets | floor of the window it is sized for | `TCP_INIT_CWND` |
//!
//! The TSO quantum and its constants are [`super::tso`]'s.

use super::tso;

/// `net.ipv4.tcp_wmem[1]`: the send buffer before autotuning.
pub const WMEM_DEFAULT: u64 = 16_384;
/// `net.ipv4.tcp_wmem[2]`: the largest autotuned send buffer.
pub const WMEM_MAX: u64 = 4_194_304;
const MAX_TCP_HEADER: u64 = 320;
const SHINFO: u64 = 320;
const SKB: u64 = 256;
/// An skb's truesize before its payload (`SKB_TRUESIZE` of the 1 KiB header allocation).
const SKB_OVERHEAD: u64 = 1_280;
const INIT_CWND: u64 = 10;

/// Memory of `bytes` of payload in skbs of `quantum` bytes.
fn charge(bytes: u64, quantum: u64) -> u64 {
    bytes + bytes.div_ceil(quantum) * SKB_OVERHEAD
}

#[derive(Clone, Debug)]
pub struct SendBuffer {
    /// `sk_sndbuf`, bytes of memory.
    size: u64,
    /// 2, or 3 for BBR (`sndbuf_expand`).
    factor: u64,
    per_mss: u64,
    mss: u64,
    /// Payload of the skbs a write fills (`tcp_xmit_size_goal`).
    size_goal: u64,
    /// The writer found no room and waits to be woken (`SOCK_NOSPACE`).
    waiting: bool,
}

impl SendBuffer {
    pub fn new(mss: u32, factor: u64) -> Self {
        let mss = mss as u64;
        SendBuffer {
            size: WMEM_DEFAULT,
            factor,
            per_mss: (mss + MAX_TCP_HEADER + SHINFO).next_power_of_two() + SKB,
            mss,
            size_goal: tso::size_goal(mss),
            waiting: false,
        }
    }

    /// `tcp_sndbuf_expand` for a window of `cwnd` packets.
    pub fn expand(&mut self, cwnd: u32) {
        let wanted = self.factor * (cwnd as u64).max(INIT_CWND) * self.per_mss;
        self.size = self.size.max(wanted.min(WMEM_MAX));
    }

    /// `sk_wmem_queued` of `sent` bytes unacknowledged, in skbs of the TSO quantum that
    /// `pacing_bps` gives (`tcp_tso_autosize`), and `unsent` bytes in skbs of the size goal.
    pub fn charge(&self, sent: u64, unsent: u64, pacing_bps: u64) -> u64 {
        charge(sent, self.quantum(pacing_bps)) + charge(unsent, self.size_goal)
    }

    fn quantum(&self, pacing_bps: u64) -> u64 {
        tso::autosize(pacing_bps, self.mss) * self.mss
    }

    /// Payload bytes a write may add now to `sent` and `unsent` bytes; none marks the writer
    /// waiting. Linux copies into whole skbs while the charge is below the size, so a write may
    /// overshoot it by less than one skb.
    pub fn room(&mut self, sent: u64, unsent: u64, pacing_bps: u64) -> u64 {
        let charged = self.charge(sent, unsent, pacing_bps);
        if charged >= self.size {
            self.waiting = true;
            return 0;
        }
        (self.size - charged).div_ceil(self.size_goal + SKB_OVERHEAD) * self.size_goal
    }

    /// After an ACK freed memory (`tcp_check_space`): whether to wake the waiting writer.
    /// Grows the buffer first if the window has room (`tcp_new_space`).
    pub fn wake(
        &mut self,
        sent: u64,
        unsent: u64,
        pacing_bps: u64,
        inflight: u32,
        cwnd: u32,
    ) -> bool {
        if !self.waiting {
            return false;
        }
        if inflight < cwnd {
            self.expand(cwnd);
        }
        let charged = self.charge(sent, unsent, pacing_bps);
        self.waiting = self.size.saturating_sub(charged) < charged / 2;
        !self.waiting
    }

    /// The writer found no room and has not been woken since.
    pub fn is_waiting(&self) -> bool {
        self.waiting
    }

    pub fn size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_grows_to_the_window_times_the_factor_times_4352_bytes_and_stops_at_tcp_wmem_max() {
        let mut b = SendBuffer::new(1448, 3);
        assert_eq!(b.size(), 16_384);
        b.expand(4); // the floor is the initial window
        assert_eq!(b.size(), 3 * 10 * 4352);
        b.expand(100);
        assert_eq!(b.size(), 3 * 100 * 4352);
        b.expand(50); // never shrinks
        assert_eq!(b.size(), 3 * 100 * 4352);
        b.expand(2180);
        assert_eq!(b.size(), WMEM_MAX);
        let mut cubic = SendBuffer::new(1448, 2);
        cubic.expand(100);
        assert_eq!(cubic.size(), 2 * 100 * 4352);
    }

    #[test]
    fn each_skb_of_the_tso_quantum_costs_1280_bytes_more_than_its_payload() {
        let b = SendBuffer::new(1448, 3);
        // 243 Mb/s → 29 663 B per 1/1024 s → 20 segments per skb
        assert_eq!(b.quantum(243_000_000), 20 * 1448);
        assert_eq!(b.charge(2 * 28_960, 0, 243_000_000), 2 * 28_960 + 2 * 1280);
        // slow: two segments per skb; fast: 45 segments (64 KiB)
        assert_eq!(b.quantum(1_000_000), 2 * 1448);
        assert_eq!(b.quantum(10_000_000_000), 45 * 1448);
    }

    #[test]
    fn what_is_sent_is_charged_in_tso_quanta_and_what_waits_unsent_in_gso_frames() {
        let b = SendBuffer::new(1448, 3);
        // 100 Mb/s: quanta of 8 segments (11 584 B), 1280 B each, 11 %; unsent data in skbs of
        // 45 segments (65 160 B), 2 %
        let rate = 100_000_000;
        assert_eq!(b.charge(10 * 11_584, 0, rate), 10 * (11_584 + 1280));
        assert_eq!(b.charge(0, 2 * 65_160, rate), 2 * (65_160 + 1280));
        assert_eq!(
            b.charge(11_584, 65_161, rate),
            11_584 + 1280 + 65_161 + 2 * 1280
        );
    }

    #[test]
    fn a_write_fills_skbs_of_the_size_goal_whatever_the_pacing_rate() {
        let mut b = SendBuffer::new(1448, 3);
        b.expand(2180); // 4 MiB
                        // 86 quanta in flight at 100 Mb/s: 1 106 304 B charged, 3 088 000 B free, which 47 skbs
                        // of 65 160 B (66 440 B charged each) fill, the last overshooting
        let sent = 86 * 11_584;
        assert_eq!(b.room(sent, 0, 100_000_000), 47 * 65_160);
        // what is unsent counts at 2 %: 1 MB of it leaves room for 15 skbs fewer
        assert_eq!(b.room(sent, 1_000_000, 100_000_000), 32 * 65_160);
    }

    #[test]
    fn a_writer_that_found_no_room_wakes_once_the_charge_falls_to_two_thirds() {
        let mut b = SendBuffer::new(1448, 3);
        // 4 MiB
        b.expand(2180);
        // 64 KiB skbs: 2 % overhead
        let rate = 10_000_000_000;
        // 1.13 MB free: 18 skbs of 65 160 B (each charged 66 440 B), the last overshooting
        assert_eq!(b.room(3_000_000, 0, rate), 18 * 65_160);
        // 1.10 MB free: 17 skbs (an 18th needs more than 17 × 66 440 B free)
        assert_eq!(b.room(3_033_000, 0, rate), 17 * 65_160);
        assert!(!b.is_waiting());
        assert_eq!(b.room(4_200_000, 0, rate), 0);
        assert!(b.is_waiting());
        assert!(
            !b.wake(3_000_000, 0, rate, 2180, 2180),
            "3.06 MB charged: free < half of it"
        );
        assert!(
            b.wake(2_700_000, 0, rate, 2180, 2180),
            "2.75 MB charged: free ≥ half of it"
        );
        assert!(
            !b.wake(1_000_000, 0, rate, 2180, 2180),
            "woken once: not waiting any more"
        );
        assert!(!b.is_waiting());
    }

    /// `sk_stream_write_space` wakes when `sndbuf − wmem_queued ≥ wmem_queued / 2`.
    #[test]
    fn the_writer_wakes_when_the_free_part_is_exactly_half_the_charge() {
        let mut b = SendBuffer::new(1448, 3);
        b.expand(100); // 1 305 600 B
        let rate = 10_000_000_000;
        assert_eq!(b.room(1_400_000, 0, rate), 0);
        // 852 481 B in 14 skbs: 870 401 B charged, 435 199 B free
        assert!(!b.wake(852_481, 0, rate, 100, 100));
        // 852 480 B: 870 400 B charged, 435 200 B free
        assert!(b.wake(852_480, 0, rate, 100, 100));
    }

    /// `tcp_should_expand_sndbuf`: the buffer grows on an ACK only while the window has room.
    #[test]
    fn a_waiting_writer_grows_the_buffer_only_if_the_window_is_not_full() {
        let rate = 10_000_000_000;
        let mut full = SendBuffer::new(1448, 3);
        assert_eq!(full.room(20_000, 0, rate), 0);
        assert!(!full.wake(12_000, 0, rate, 100, 100));
        assert_eq!(full.size(), WMEM_DEFAULT);
        let mut room = SendBuffer::new(1448, 3);
        assert_eq!(room.room(20_000, 0, rate), 0);
        assert!(room.wake(12_000, 0, rate, 99, 100));
        assert_eq!(room.size(), 3 * 100 * 4352);
    }
}
