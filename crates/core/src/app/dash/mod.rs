//! DASH video over the simulated TCP: the catalogue, HTTP/1.1 and HTTP/2,
//! the player, ABR rules and QoE.
//!
//! A session is a browser player and its web server, talking only through
//! the network: the browser fetches the page and the player's script (if the
//! scenario gives them), the player then the manifest, then init and media
//! segments; the server answers each request from the catalogue over the
//! flow's connection(s). Over HTTP/2 the page's requests share the video's one
//! connection, so they also warm up its congestion control, as on a real testbed
//! that serves the player from the video's server. Over HTTP/1.1 the browser
//! closes the connections the page came on and the player opens new ones, as
//! Chromium did in `tools/realstack` (`ss -ti`: page and script on two
//! connections, then the manifest and every segment on a third).

pub mod abr;
pub mod http;
pub mod player;
pub mod profile;
pub mod qoe;
pub mod video;

use crate::app::Net;
use crate::metrics::tables::{SegmentRow, SegmentTable};
use crate::net::packet::ConnId;
use crate::time::Time;
use abr::AbrConfig;
use http::{Arrival, Http, Version};
use player::{Player, PlayerConfig, Want, VIDEO};
use profile::Profile;
use video::Video;

/// Bytes of the MPD dash.js fetches before anything else.
pub const MANIFEST_BYTES: u64 = 4_000;
/// Default bytes of each level's initialization segment: `ftyp` + `moov` of one
/// H.264 track, 838–841 B in `tools/realstack/make_media.sh`'s encode of the ladder.
pub const INIT_SEGMENT_BYTES: u64 = 840;
/// Browsers fire XHR `progress` events at most this often (XMLHttpRequest spec: every 50 ms).
pub const PROGRESS_INTERVAL: crate::time::Duration = crate::time::Duration::from_millis(50);

/// A DASH flow's configuration, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct DashConfig {
    pub video: Video,
    /// An audio track fetched alongside the video, if any.
    pub audio: Option<Video>,
    pub abr: AbrConfig,
    pub http: Version,
    pub profile: Profile,
    /// HTTP/1.1 connections per host at most.
    pub max_connections: usize,
    /// Bytes of the page and the player's script, fetched one after another
    /// before the manifest (empty: the session starts with the manifest).
    pub page: Vec<u64>,
}

pub struct DashSession {
    http: Http,
    player: Player,
    /// Bytes still to fetch before the player begins: the page, then the manifest.
    preamble: std::collections::VecDeque<u64>,
    /// The exchange carrying the current preamble request.
    loading: Option<u64>,
    started_at: Time,
    arrivals: Vec<Arrival>,
    next_progress: Time,
}

impl DashSession {
    pub fn new(cfg: DashConfig) -> Self {
        let p = &cfg.profile;
        let top = if cfg.video.length() >= p.long_form_threshold {
            p.buffer_time_at_top_quality_long_form
        } else {
            p.buffer_time_at_top_quality
        };
        let player_cfg = PlayerConfig {
            buffer_time_default: p.buffer_time_default,
            buffer_time_at_top_quality: top,
            stall_threshold: p.stall_threshold,
            schedule: p.schedule,
            schedule_poll: p.schedule_poll,
            audio_target_extra: p.audio_target_extra,
            fast_switching: p.fast_switching,
            fast_switch_ahead: p.fast_switch_ahead,
            switch_ends_check: p.switch_ends_check,
            cache_init_segments: p.cache_init_segments,
            playback_low_water: p.playback_low_water,
        };
        let abr = cfg.abr.build(&cfg.video, &cfg.profile);
        debug_assert!(
            cfg.abr.check_video(&cfg.video).is_ok(),
            "scenario validation checks the ABR against the video"
        );
        DashSession {
            http: Http::new(cfg.http, cfg.max_connections),
            player: Player::new(player_cfg, cfg.video, cfg.audio, abr),
            preamble: cfg.page.iter().copied().chain([MANIFEST_BYTES]).collect(),
            loading: None,
            started_at: Time::ZERO,
            arrivals: Vec::new(),
            next_progress: Time::ZERO,
        }
    }

    pub fn on_start(&mut self, net: &mut dyn Net) {
        self.started_at = net.now();
        self.load_next(net);
    }

    /// Requests the next page resource or the manifest; once none is left, the player begins.
    fn load_next(&mut self, net: &mut dyn Net) {
        if self.preamble.len() == 1 && self.loading.is_some() && self.http.version() == Version::H1
        {
            // the page has loaded: the player's requests go on new connections
            self.http.close_idle(net);
        }
        match self.preamble.pop_front() {
            Some(bytes) => self.loading = Some(self.http.request(bytes, net)),
            None => {
                self.loading = None;
                self.player.begin(net.now());
            }
        }
    }

    /// The player stops; nothing more is requested.
    pub fn on_stop(&mut self, net: &mut dyn Net) {
        self.player.advance(net.now());
    }

    pub fn on_connected(&mut self, conn: ConnId, net: &mut dyn Net) {
        self.http.on_connected(conn, net);
    }

    pub fn on_request(&mut self, conn: ConnId, id: u64, net: &mut dyn Net) {
        self.http.on_upstream(conn, id, net);
    }

    pub fn on_writable(&mut self, conn: ConnId, net: &mut dyn Net) {
        self.http.on_writable(conn, net);
    }

    /// Response bytes arrived; the browser reads them all.
    pub fn on_data(&mut self, conn: ConnId, bytes: u64, net: &mut dyn Net) -> u64 {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        self.http.on_data(conn, bytes, net, &mut arrivals);
        for a in arrivals.drain(..) {
            self.on_arrival(a, net);
        }
        self.arrivals = arrivals;
        self.pump(net);
        bytes
    }

    fn on_arrival(&mut self, a: Arrival, net: &mut dyn Net) {
        let now = net.now();
        if Some(a.id) == self.loading {
            if a.complete {
                self.load_next(net);
            }
            return;
        }
        let x = self.http.exchange(a.id).clone();
        let track = (0..2).find(|&t| self.player.fetching(t).is_some_and(|f| f.exchange == a.id));
        let Some(track) = track else { return };
        if a.complete {
            self.player
                .on_fetched(now, track, x.body_bytes, x.first_byte_at, false);
        } else if track == VIDEO && now >= self.next_progress {
            // browsers fire XHR progress events at most every 50 ms
            self.next_progress = now + PROGRESS_INTERVAL;
            if self
                .player
                .on_progress(now, x.body_received(), x.first_byte_at)
                .is_some()
            {
                // abandon; the player re-requests the segment at the level the ABR chose
                self.http.abort(a.id, net);
                let x = self.http.exchange(a.id);
                self.player
                    .on_fetched(now, VIDEO, x.body_received(), x.first_byte_at, true);
            }
        }
    }

    fn issue(&mut self, want: Want, net: &mut dyn Net) {
        let id = self.http.request(want.bytes, net);
        self.player.on_requested(net.now(), want, id);
    }

    /// Issues every request the player wants now and sets the next wake-up.
    fn pump(&mut self, net: &mut dyn Net) {
        while let Some(want) = self.player.want(net.now()) {
            self.issue(want, net);
        }
        if let Some(at) = self.player.next_wakeup() {
            net.set_timer(at);
        }
    }

    pub fn on_timer(&mut self, net: &mut dyn Net) {
        self.player.advance(net.now());
        self.pump(net);
    }

    pub fn is_done(&self) -> bool {
        self.player.ended().is_some()
    }

    /// QoE figures for the summary.
    pub fn summary(&self, now: Time) -> serde_json::Value {
        let mut v = qoe::summarize(&self.player, self.started_at, now);
        if let Some(o) = v.as_object_mut() {
            o.insert("http".into(), serde_json::json!(self.http.version()));
            o.insert("http_connections".into(), self.http.connections().into());
        }
        v
    }

    /// Appends the segment records to `table`; `flow_code` and `conn_code` map to the run's name dictionary.
    pub fn write_segments(
        &self,
        table: &mut SegmentTable,
        flow_code: u16,
        conn_code: impl Fn(ConnId) -> u16,
    ) {
        for r in self.player.records() {
            let d = &r.download;
            let conn = self
                .http
                .exchange(r.exchange)
                .conn
                .map_or(flow_code, &conn_code);
            table.push(SegmentRow {
                flow: flow_code,
                track: r.track as u8,
                index: d.index as u32,
                level: d.level as u8,
                bitrate_bps: r.bitrate_bps,
                bytes: d.bytes,
                request_t: d.requested_at.as_secs_f64(),
                first_byte_t: d.first_byte_at.as_secs_f64(),
                last_byte_t: d.completed_at.as_secs_f64(),
                throughput_bps: d.throughput_bps(),
                abr_estimate_bps: r.estimate_bps.unwrap_or(f64::NAN),
                buffer_s: d.buffer_at_request.as_secs_f64(),
                stall: r.stalled,
                abandoned: d.abandoned,
                replacement: r.replacement,
                conn,
            });
        }
    }
}

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
