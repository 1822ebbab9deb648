use super::*;
use crate::app::fake_net::FakeNet;

/// Delivers all bytes written on `conn` to the client, in one batch.
fn deliver(http: &mut Http, net: &mut FakeNet, conn: ConnId) -> Vec<Arrival> {
    let bytes = net.send_all(conn);
    let mut out = Vec::new();
    http.on_data(conn, bytes, net, &mut out);
    out
}

/// An HTTP/2 client over sockets that each hold `room` unsent bytes, with one request for
/// `body` bytes whose response the server has begun on connection 0.
fn h2_serving(room: u64, body: u64) -> (FakeNet, Http, u64) {
    let mut net = FakeNet::with_room(room);
    let mut http = Http::new(Version::H2, 6);
    let id = http.request(body, &mut net);
    http.on_connected(0, &mut net);
    http.on_upstream(0, id, &mut net);
    (net, http, id)
}

/// An HTTP/1.1 client over roomy sockets that has asked for 10 kB and then 20 kB.
fn h1_two_requests() -> (FakeNet, Http, u64, u64) {
    let mut net = FakeNet::with_room(u64::MAX / 2);
    let mut http = Http::new(Version::H1, 6);
    let a = http.request(10_000, &mut net);
    let b = http.request(20_000, &mut net);
    (net, http, a, b)
}

#[test]
fn http1_opens_a_connection_per_concurrent_request_and_reuses_idle_ones() {
    let (mut net, mut http, a, b) = h1_two_requests();
    assert_eq!(net.opened, vec![0], "one connection at a time is opened");
    http.on_connected(0, &mut net);
    assert_eq!(net.upstream, vec![(0, a)]);
    assert_eq!(net.opened, vec![0, 1], "b waits for a second connection");
    http.on_connected(1, &mut net);
    assert_eq!(net.upstream, vec![(0, a), (1, b)]);
    http.on_upstream(0, a, &mut net);
    http.on_upstream(1, b, &mut net);
    assert_eq!(net.written[&0], 10_300);
    let got = deliver(&mut http, &mut net, 0);
    assert_eq!(
        got,
        vec![Arrival {
            id: a,
            first: true,
            complete: true
        }]
    );
    let c = http.request(5_000, &mut net);
    assert_eq!(
        net.upstream.last(),
        Some(&(0, c)),
        "the idle connection is reused"
    );
    assert_eq!(net.opened.len(), 2);
}

/// Chromium takes the newest used idle socket: with two idle connections, the one whose
/// exchange finished last carries the next request.
#[test]
fn http1_reuses_the_connection_that_became_idle_last() {
    let (mut net, mut http, a, b) = h1_two_requests();
    http.on_connected(0, &mut net);
    http.on_connected(1, &mut net);
    http.on_upstream(0, a, &mut net);
    http.on_upstream(1, b, &mut net);
    deliver(&mut http, &mut net, 0);
    deliver(&mut http, &mut net, 1);
    let c = http.request(5_000, &mut net);
    assert_eq!(net.upstream.last(), Some(&(1, c)));
    http.on_upstream(1, c, &mut net);
    deliver(&mut http, &mut net, 1);
    // connection 1 again, now idle after 0 as well
    let d = http.request(5_000, &mut net);
    assert_eq!(net.upstream.last(), Some(&(1, d)));
}

#[test]
fn http2_interleaves_streams_in_8kib_chunks_when_the_socket_is_short_of_room() {
    let (mut net, mut http, video) = h2_serving(20_000, 100_000);
    let audio = http.request(3_000, &mut net);
    assert_eq!(
        net.opened,
        vec![0],
        "one HTTP/2 connection carries every stream"
    );
    http.on_upstream(0, audio, &mut net);
    let mut finished = Vec::new();
    for _ in 0..20 {
        for a in deliver(&mut http, &mut net, 0) {
            if a.complete {
                finished.push(a.id);
            }
        }
        http.on_writable(0, &mut net);
    }
    assert_eq!(
        finished,
        vec![audio, video],
        "the short audio response overtakes the long video one"
    );
    assert_eq!(http.exchange(video).received, 100_050);
    // 50 B HEADERS + 13 DATA frames (100 000 B / 8 KiB) with 9 B each
    let video_frames = 100_000u64.div_ceil(H2_CHUNK);
    assert_eq!(net.written[&0], 100_050 + 3_050 + 9 * (video_frames + 1));
}

#[test]
fn an_aborted_http2_stream_gets_no_more_frames() {
    let (mut net, mut http, id) = h2_serving(10_000, 1_000_000);
    let before = net.written[&0];
    http.abort(id, &mut net);
    assert_eq!(net.upstream.last(), Some(&(0, id | ABORT)));
    http.on_upstream(0, id | ABORT, &mut net);
    let received = http.exchange(id).received;
    assert!(
        deliver(&mut http, &mut net, 0).is_empty(),
        "what was on its way is read and dropped"
    );
    assert_eq!(http.exchange(id).received, received);
    http.on_writable(0, &mut net);
    assert_eq!(net.written[&0], before);
    assert!(http.exchange(id).aborted);
    // the connection stays open for the next stream
    let next = http.request(1_000, &mut net);
    assert_eq!(
        (net.opened.len(), net.upstream.last()),
        (1, Some(&(0, next)))
    );
}

#[test]
fn aborting_a_queued_request_withdraws_it_and_a_finished_one_is_left_alone() {
    let mut net = FakeNet::with_room(100_000);
    let mut http = Http::new(Version::H2, 6);
    let a = http.request(1_000, &mut net);
    let b = http.request(1_000, &mut net);
    http.abort(a, &mut net);
    http.on_connected(0, &mut net);
    assert_eq!(net.upstream, [(0, b)], "a never goes out");
    http.on_upstream(0, b, &mut net);
    deliver(&mut http, &mut net, 0);
    http.abort(b, &mut net);
    assert_eq!(net.upstream, [(0, b)], "no abort for a complete response");
    assert!(!http.exchange(b).aborted);
}

#[test]
fn an_aborted_http1_exchange_closes_its_connection() {
    let mut net = FakeNet::with_room(1_000);
    let mut http = Http::new(Version::H1, 6);
    let id = http.request(50_000, &mut net);
    http.on_connected(0, &mut net);
    http.on_upstream(0, id, &mut net);
    http.abort(id, &mut net);
    http.on_upstream(0, id | ABORT, &mut net);
    assert_eq!(net.reset, vec![0], "the server's connection is reset");
    let next = http.request(1_000, &mut net);
    assert_eq!(
        net.opened,
        vec![0, 1],
        "a new connection replaces the closed one"
    );
    http.on_connected(1, &mut net);
    assert_eq!(net.upstream.last(), Some(&(1, next)));
}

#[test]
fn closing_idle_connections_spares_busy_ones_and_new_requests_open_a_new_one() {
    let mut net = FakeNet::with_room(100_000);
    let mut http = Http::new(Version::H1, 6);
    let done = http.request(1_000, &mut net);
    http.on_connected(0, &mut net);
    let busy = http.request(50_000, &mut net);
    http.on_connected(1, &mut net);
    http.on_upstream(0, done, &mut net);
    deliver(&mut http, &mut net, 0);
    assert!(http.exchange(done).is_complete());
    http.close_idle(&mut net);
    assert_eq!(
        net.upstream.last(),
        Some(&(0, CLOSE)),
        "only the idle one closes"
    );
    http.on_upstream(0, CLOSE, &mut net);
    assert_eq!(http.exchange(busy).conn, Some(1));
    // connection 1 is busy, 0 closed: the next request opens connection 2
    let next = http.request(1_000, &mut net);
    assert_eq!(net.opened, vec![0, 1, 2]);
    http.on_connected(2, &mut net);
    assert_eq!(net.upstream.last(), Some(&(2, next)));
}

#[test]
fn the_pool_limit_counts_open_connections_only() {
    let mut net = FakeNet::with_room(1_000);
    let mut http = Http::new(Version::H1, 1);
    let a = http.request(50_000, &mut net);
    http.on_connected(0, &mut net);
    let b = http.request(1_000, &mut net);
    assert_eq!(
        net.opened,
        [0],
        "b waits: the one connection allowed is busy"
    );
    // aborting a closes connection 0, which leaves room for b's
    http.abort(a, &mut net);
    assert_eq!(net.opened, [0, 1]);
    http.on_connected(1, &mut net);
    assert_eq!(net.upstream.last(), Some(&(1, b)));
}

#[test]
fn a_request_is_400_bytes_over_http1_and_100_over_http2() {
    for (version, bytes) in [(Version::H1, 400), (Version::H2, 100)] {
        let mut net = FakeNet::with_room(1_000);
        let mut http = Http::new(version, 6);
        http.request(1_000, &mut net);
        http.on_connected(0, &mut net);
        assert_eq!(net.upstream_bytes, bytes, "{version:?}");
    }
}

#[test]
fn the_body_is_what_arrives_after_the_response_header() {
    // HTTP/2: 50 B of HEADERS, then 9 B of frame header before each DATA chunk
    let (mut net, mut http, id) = h2_serving(1_000_000, 10_000);
    let mut out = Vec::new();
    http.on_data(0, 30, &mut net, &mut out);
    assert_eq!(http.exchange(id).body_received(), 0);
    http.on_data(0, 970, &mut net, &mut out);
    assert_eq!(http.exchange(id).received, 991);
    assert_eq!(http.exchange(id).body_received(), 941);
}

#[test]
fn an_http2_response_opens_with_its_headers_and_an_empty_body_sends_no_data_frame() {
    // with room for only one round, a stream's first write is its 50 B HEADERS and one full
    // DATA frame (9 B + 8 KiB of body)
    let (net, _, _) = h2_serving(1, 100_000);
    assert_eq!(net.written[&0], 50 + 9 + H2_CHUNK);
    // a response without a body is its HEADERS alone
    let (mut net, mut http, _) = h2_serving(1_000, 0);
    assert_eq!(net.written[&0], 50);
    assert!(deliver(&mut http, &mut net, 0)[0].complete);
}
