use super::abr::config::FixedParams;
use super::*;
use crate::app::fake_net::FakeNet;
use crate::time::Duration;

/// Four 5 s segments of a 1, 2, 4 Mb/s ladder, fetched at level 1 (1.25 MB each) under
/// dash.js v3 (requests while less than 12 s is buffered, checked every 500 ms).
fn session(http: Version, page: Vec<u64>) -> DashSession {
    DashSession::new(DashConfig {
        video: Video::constant("v", vec![1e6, 2e6, 4e6], Duration::from_secs(5), 4),
        audio: None,
        abr: AbrConfig::Fixed(FixedParams { level: 1 }),
        http,
        profile: Profile::v3(),
        max_connections: 6,
        page,
    })
}

/// Connections come up and requests (and closes) reach the server.
fn carry_requests(s: &mut DashSession, net: &mut FakeNet, seen: &mut (usize, usize)) {
    while seen.0 < net.opened.len() || seen.1 < net.upstream.len() {
        if seen.0 < net.opened.len() {
            seen.0 += 1;
            s.on_connected(net.opened[seen.0 - 1], net);
        } else {
            let (conn, msg) = net.upstream[seen.1];
            seen.1 += 1;
            s.on_request(conn, msg, net);
        }
    }
}

/// A network without delay: at `net.now`, everything written arrives, and each socket,
/// emptied, offers the server room again, until nothing moves.
fn settle(s: &mut DashSession, net: &mut FakeNet, seen: &mut (usize, usize)) {
    loop {
        carry_requests(s, net, seen);
        let mut moved = false;
        for conn in net.opened.clone() {
            let bytes = net.send_all(conn);
            if bytes > 0 {
                assert_eq!(s.on_data(conn, bytes, net), bytes, "the browser reads all");
                s.on_writable(conn, net);
                moved = true;
            }
        }
        if !moved {
            return;
        }
    }
}

/// Wakes the session at each timer it sets until `until`, settling after each.
fn run_until(s: &mut DashSession, net: &mut FakeNet, seen: &mut (usize, usize), until: Time) {
    while let Some(at) = net.timer.filter(|&at| at <= until) {
        net.timer = None;
        net.now = at;
        s.on_timer(net);
        settle(s, net, seen);
    }
}

fn secs(s: f64) -> Time {
    Time::ZERO + Duration::from_secs_f64(s)
}

#[test]
fn an_http1_session_loads_the_page_then_plays_the_video_on_a_new_connection() {
    // sockets take 20 kB at a time, so every response needs the server's writable callback
    let mut net = FakeNet::with_room(20_000);
    let mut seen = (0, 0);
    let mut s = session(Version::H1, vec![1_000, 2_000]);
    net.now = secs(0.5);
    s.on_start(&mut net);
    settle(&mut s, &mut net, &mut seen);
    // the page's two resources share connection 0, which is closed before the manifest;
    // the manifest and the segments go on connection 1
    assert_eq!(net.opened, [0, 1]);
    assert!(net.upstream.contains(&(0, http::CLOSE)));
    assert_eq!(s.player.began(), Some(secs(0.5)));
    // 0, 5 and 10 s buffered are under 12 s: three segments at once, the fourth at the check
    // at 3.5 s; playback ends at 20.5 s
    assert_eq!(s.player.records().len(), 3);
    assert!(!s.is_done());
    run_until(&mut s, &mut net, &mut seen, secs(100.0));
    assert!(s.is_done());
    assert_eq!(s.player.ended(), Some(secs(20.5)));
    let q = s.summary(secs(20.5));
    assert_eq!(
        (&q["http"], &q["http_connections"], &q["startup_delay_s"]),
        (
            &serde_json::json!("h1"),
            &serde_json::json!(2),
            &serde_json::json!(0.0)
        )
    );
    let mut table = SegmentTable::default();
    s.write_segments(&mut table, 7, |conn| conn as u16 + 10);
    assert_eq!(table.flow, [7; 4]);
    assert_eq!(table.conn, [11; 4]);
    assert_eq!(table.index, [0, 1, 2, 3]);
    assert_eq!(table.bytes, [1_250_000; 4]);
    assert_eq!(table.request_t, [0.5, 0.5, 0.5, 3.5]);
}

#[test]
fn an_http2_session_is_one_connection_and_stopping_brings_playback_up_to_date() {
    let mut net = FakeNet::with_room(u64::MAX / 2);
    let mut seen = (0, 0);
    let mut s = session(Version::H2, vec![1_000]);
    s.on_start(&mut net);
    settle(&mut s, &mut net, &mut seen);
    assert_eq!(net.opened, [0]);
    assert_eq!(s.player.records().len(), 3);
    net.now = secs(12.0);
    s.on_stop(&mut net);
    let q = s.summary(secs(12.0));
    assert_eq!(
        (&q["http"], &q["played_s"]),
        (&serde_json::json!("h2"), &serde_json::json!(12.0))
    );
}

#[test]
fn the_player_hears_of_a_download_at_most_every_50_ms() {
    let mut net = FakeNet::with_room(u64::MAX / 2);
    let mut seen = (0, 0);
    let mut s = session(Version::H2, vec![]);
    s.on_start(&mut net);
    settle(&mut s, &mut net, &mut seen);
    // segment 3 is asked for at the check at 3 s; its response then arrives in pieces
    while net.upstream.len() == seen.1 {
        net.now = net.timer.take().expect("a wake-up");
        s.on_timer(&mut net);
    }
    carry_requests(&mut s, &mut net, &mut seen);
    assert_eq!(net.now, secs(3.0));
    let events = |s: &DashSession| s.player.fetching(VIDEO).map(|f| f.events);
    for (at, want) in [(3.0, 1), (3.02, 1), (3.05, 2), (3.07, 2), (3.1, 3)] {
        net.now = secs(at);
        *net.unsent.get_mut(&0).unwrap() -= 1_000;
        assert_eq!(s.on_data(0, 1_000, &mut net), 1_000);
        assert_eq!(events(&s), Some(want), "at {at} s");
    }
}
