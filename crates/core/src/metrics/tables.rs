//! Columnar result tables, appended in place (one `Vec` per column), handed
//! to Python as arrays without per-row objects.

/// One column of a result table.
#[derive(Clone, Debug)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    U16(Vec<u16>),
    U8(Vec<u8>),
    Bool(Vec<bool>),
}

macro_rules! column_from {
    ($($ty:ty => $variant:ident),*) => {$(
        impl From<Vec<$ty>> for Column {
            fn from(v: Vec<$ty>) -> Self { Column::$variant(v) }
        }
    )*};
}
column_from!(f64 => F64, u64 => U64, u32 => U32, u16 => U16, u8 => U8, bool => Bool);

/// Declares a table (a struct of column vectors) and its row type.
macro_rules! table {
    ($(#[$m:meta])* $table:ident, $row:ident { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Debug, Default)]
        pub struct $table { $($(#[$fm])* pub $field: Vec<$ty>,)* }

        /// One row of the table of the same name.
        #[derive(Clone, Debug)]
        pub struct $row { $(pub $field: $ty,)* }

        impl $table {
            pub fn push(&mut self, r: $row) {
                $(self.$field.push(r.$field);)*
            }
            pub fn len(&self) -> usize {
                [$(self.$field.len()),*][0]
            }
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            pub fn into_columns(self) -> Vec<(&'static str, Column)> {
                vec![$((stringify!($field), Column::from(self.$field)),)*]
            }
        }
    };
}

table!(
    /// flows.parquet: transport state per flow, at the telemetry interval or per ACK.
    FlowTable, FlowRow {
        /// Seconds since the start of the run.
        t: f64,
        /// Index into the flow-name dictionary.
        flow: u16,
        /// Index into the state-name dictionary.
        cc_state: u8,
        cwnd_pkts: u32,
        inflight_pkts: u32,
        /// Payload bits/s; NaN when unpaced.
        pacing_rate_bps: f64,
        /// The delivery rate `tcp_info` reports, payload bits/s: the last valid sample that was
        /// not app-limited, or an app-limited one at or above it.
        delivery_rate_bps: f64,
        srtt_s: f64,
        min_rtt_s: f64,
        /// The algorithm's bandwidth estimate, payload bits/s (NaN if it has none).
        bw_est_bps: f64,
        /// The algorithm's own min-RTT estimate (BBR's RTprop, which expires after its
        /// window and restarts from the sample then), seconds; NaN if it has none.
        cc_min_rtt_s: f64,
        /// Payload bytes delivered in order to the receiving application.
        delivered_bytes: u64,
        /// Payload bytes acknowledged cumulatively.
        acked_bytes: u64,
        retransmitted_bytes: u64,
        lost_pkts: u64,
        /// NaN while infinite.
        ssthresh_pkts: f64,
        pacing_gain: f64,
        cwnd_gain: f64,
        /// Packet-timed round count (NaN if the algorithm has none).
        round: f64,
    }
);

table!(
    /// queue.parquet: the bottleneck at the telemetry interval.
    QueueTable, QueueRow {
        t: f64,
        backlog_bytes: u64,
        backlog_pkts: u32,
        /// Cumulative drops (queue full and random loss).
        drops: u64,
        /// Cumulative packets that reached the bottleneck.
        arrivals: u64,
        /// Cumulative bytes (on the wire) that left it.
        departed_bytes: u64,
        /// Tokens in the bucket, bytes (0 without a shaper).
        tokens_bytes: f64,
    }
);

table!(
    /// samples.parquet: every delivery-rate sample a sender generated.
    SampleTable, SampleRow {
        t: f64,
        flow: u16,
        /// Payload bits/s; NaN for an invalid sample.
        rate_bps: f64,
        app_limited: bool,
        /// RTT carried by the same ACK (NaN if none).
        rtt_s: f64,
        delivered_pkts: u64,
        interval_s: f64,
        acked_sacked: u32,
        losses: u32,
        prior_in_flight: u32,
    }
);

table!(
    /// segments.parquet: every DASH segment download (and abandoned attempt).
    SegmentTable, SegmentRow {
        /// Index into the flow-name dictionary (the DASH flow).
        flow: u16,
        /// 0 = video, 1 = audio.
        track: u8,
        index: u32,
        level: u8,
        bitrate_bps: f64,
        /// Response body bytes received.
        bytes: u64,
        request_t: f64,
        first_byte_t: f64,
        last_byte_t: f64,
        /// bytes × 8 / (last byte − first byte).
        throughput_bps: f64,
        /// The ABR's throughput estimate when it chose this segment (NaN if it has none).
        abr_estimate_bps: f64,
        /// Buffer level when the request was issued, s.
        buffer_s: f64,
        /// Playback was stalled when the segment arrived.
        stall: bool,
        abandoned: bool,
        /// A fast-switching re-fetch of a segment already loaded.
        replacement: bool,
        /// Index into the connection-name dictionary.
        conn: u16,
    }
);
