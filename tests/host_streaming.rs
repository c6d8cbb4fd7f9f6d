//! An answer read as it arrives (`Host::open`, `src/host/streaming.rs`), natively over
//! `FakeHost`'s streamed routes: pieces in order, a piece held back until a given request
//! was sent, the size bound over the whole body, the outbound policy's allow-list, no
//! redirect followed, the rest read whole, and a stream dropped before its end.
#![cfg(not(target_arch = "wasm32"))]

use mcp_tasks_edge::host::fake::{FakeHost, Piece};
use mcp_tasks_edge::host::{
    BoxFuture, Chunks, Host, HostError, Inbound, Limits, Outbound, Platform, Streaming, block_on,
    get, post,
};

const EVENTS: &str = "https://up.test/mcp";

fn data(text: &str) -> Piece {
    Piece::Data(text.to_owned())
}

fn after(method: &str, url: &str, contains: &str, text: &str) -> Piece {
    Piece::After {
        method: method.to_owned(),
        url: url.to_owned(),
        contains: contains.to_owned(),
        data: text.to_owned(),
    }
}

fn events(pieces: Vec<Piece>) -> FakeHost {
    FakeHost::new()
        .allow("up.test")
        .stream("POST", EVENTS, 200, "text/event-stream", pieces)
}

/// Every remaining piece as text, in order.
fn read_all(answer: &mut Streaming) -> Result<Vec<String>, HostError> {
    let mut pieces = Vec::new();
    while let Some(piece) = block_on(answer.next_chunk())? {
        pieces.push(String::from_utf8(piece).unwrap());
    }
    Ok(pieces)
}

#[test]
fn pieces_arrive_in_order_after_status_and_headers() {
    let fake = events(vec![data("event: a\n\n"), data("event: b\n\n")]);
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open(post(EVENTS).body("{}"))).unwrap();
    assert_eq!(answer.status, 200);
    assert_eq!(answer.url, EVENTS);
    assert_eq!(answer.header("Content-Type"), Some("text/event-stream"));
    assert_eq!(
        read_all(&mut answer).unwrap(),
        ["event: a\n\n", "event: b\n\n"]
    );
    // The end stays the end.
    assert_eq!(block_on(answer.next_chunk()), Ok(None));
    assert_eq!(fake.requests().len(), 1, "open records its request");
    assert_eq!(fake.requests()[0].body, b"{}");
    drop(answer);
    assert_eq!(
        fake.streams_dropped(),
        0,
        "a stream read to its end is not dropped early"
    );
}

#[test]
fn a_gated_piece_waits_for_its_request_then_comes() {
    let answer_url = "https://up.test/answer";
    let fake = events(vec![
        data("question"),
        after("POST", answer_url, r#""id":7"#, "result"),
    ])
    .route("POST", answer_url, 202, "");
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open(post(EVENTS))).unwrap();
    assert_eq!(
        block_on(answer.next_chunk()),
        Ok(Some(b"question".to_vec()))
    );

    // Without the request (or with another one), the piece is refused, not waited for.
    block_on(host.fetch(post(answer_url).body(r#"{"id":8}"#))).unwrap();
    let held = block_on(answer.next_chunk()).unwrap_err();
    match &held {
        HostError::Network(why) => assert!(why.starts_with("the fake stream waits for"), "{why}"),
        other => panic!("expected the fake's wait, got {other:?}"),
    }
    // `fetch` on the streamed route joins the pieces only when every one may come.
    assert_eq!(block_on(host.fetch(post(EVENTS))), Err(held));

    block_on(host.fetch(post(answer_url).body(r#"{"id":7,"result":{}}"#))).unwrap();
    assert_eq!(block_on(answer.next_chunk()), Ok(Some(b"result".to_vec())));
    assert_eq!(block_on(answer.next_chunk()), Ok(None));
    let whole = block_on(host.fetch(post(EVENTS))).unwrap();
    assert_eq!(whole.text().unwrap(), "questionresult");
    assert_eq!(whole.header("content-type"), Some("text/event-stream"));
}

#[test]
fn too_large_as_soon_as_the_total_passes_max_bytes() {
    let fake = events(vec![data("12345"), data("67890"), data("abc")]);
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open(post(EVENTS).max_bytes(8))).unwrap();
    assert_eq!(block_on(answer.next_chunk()), Ok(Some(b"12345".to_vec())));
    let too_large = HostError::TooLarge {
        url: EVENTS.into(),
        limit: 8,
    };
    assert_eq!(block_on(answer.next_chunk()), Err(too_large.clone()));
    // The request is stopped there, and stays refused.
    assert_eq!(fake.streams_dropped(), 1);
    assert_eq!(block_on(answer.next_chunk()), Err(too_large.clone()));

    // Exactly max_bytes is fine; the policy's FETCH_MAX_BYTES is the default bound.
    let answer = block_on(host.open(post(EVENTS).max_bytes(13))).unwrap();
    assert_eq!(
        block_on(answer.into_inbound()).unwrap().body,
        b"1234567890abc"
    );
    let host = Host::new(fake.var("FETCH_MAX_BYTES", "12"));
    let answer = block_on(host.open(post(EVENTS))).unwrap();
    let limited = HostError::TooLarge {
        url: EVENTS.into(),
        limit: 12,
    };
    assert_eq!(block_on(answer.into_inbound()), Err(limited));
}

#[test]
fn open_refuses_a_host_the_policy_does_not_allow() {
    let fake = events(vec![data("x")]).stream(
        "GET",
        "https://evil.test/",
        200,
        "text/plain",
        vec![data("x")],
    );
    let host = Host::new(fake.clone());
    let refused = block_on(host.open(get("https://evil.test/"))).unwrap_err();
    assert!(matches!(refused, HostError::Refused(_)), "{refused:?}");
    assert!(fake.requests().is_empty(), "refused before any request");

    let broken = Host::new(fake.clone().var("FETCH_MAX_BYTES", "lots"));
    let misconfigured = block_on(broken.open(post(EVENTS))).unwrap_err();
    assert!(
        matches!(misconfigured, HostError::Misconfigured(_)),
        "{misconfigured:?}"
    );
}

#[test]
fn open_never_follows_a_redirect() {
    let fake = FakeHost::new()
        .allow("up.test")
        .redirect("GET", "https://up.test/old", 307, "https://up.test/new")
        .route("GET", "https://up.test/new", 200, "moved here");
    let host = Host::new(fake.clone());
    let answer = block_on(host.open(get("https://up.test/old"))).unwrap();
    assert_eq!(answer.status, 307);
    assert_eq!(answer.header("location"), Some("https://up.test/new"));
    assert_eq!(block_on(answer.into_inbound()).unwrap().body, b"");
    let urls: Vec<_> = fake.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(urls, ["https://up.test/old"]);
}

#[test]
fn an_ordinary_route_opens_as_one_piece() {
    let fake = FakeHost::new()
        .allow("up.test")
        .route("GET", "https://up.test/page", 200, "whole");
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open(get("https://up.test/page"))).unwrap();
    assert_eq!(read_all(&mut answer).unwrap(), ["whole"]);
    let missing = block_on(host.open(get("https://up.test/none"))).unwrap_err();
    assert!(matches!(missing, HostError::Network(_)), "{missing:?}");
}

#[test]
fn into_inbound_joins_the_rest() {
    let fake = events(vec![data("a"), data("b"), data("c")]);
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open(post(EVENTS))).unwrap();
    assert_eq!(block_on(answer.next_chunk()), Ok(Some(b"a".to_vec())));
    let rest = block_on(answer.into_inbound()).unwrap();
    assert_eq!(
        rest,
        Inbound {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body: b"bc".to_vec(),
            url: EVENTS.into(),
        }
    );
    assert_eq!(fake.streams_dropped(), 0);
}

#[test]
fn dropping_a_stream_before_its_end_closes_it() {
    let fake = events(vec![data("a"), data("b")]);
    let host = Host::new(fake.clone());
    let answer = block_on(host.open(post(EVENTS))).unwrap();
    drop(answer);
    assert_eq!(fake.streams_dropped(), 1);

    let mut answer = block_on(host.open(post(EVENTS))).unwrap();
    block_on(answer.next_chunk()).unwrap();
    drop(answer);
    assert_eq!(fake.streams_dropped(), 2);

    // Read to its last piece (the end not yet asked for): nothing was cut off.
    let mut answer = block_on(host.open(post(EVENTS))).unwrap();
    block_on(answer.next_chunk()).unwrap();
    block_on(answer.next_chunk()).unwrap();
    drop(answer);
    assert_eq!(fake.streams_dropped(), 2);
}

#[test]
fn open_service_needs_the_binding_and_skips_the_allow_list() {
    let fake = FakeHost::new().service("UP").stream(
        "POST",
        "https://up.internal/mcp",
        200,
        "text/event-stream",
        vec![data("x")],
    );
    let host = Host::new(fake.clone());
    let mut answer = block_on(host.open_service("UP", post("https://up.internal/mcp"))).unwrap();
    assert_eq!(read_all(&mut answer).unwrap(), ["x"]);
    let missing = block_on(host.open_service("DOWN", post("https://up.internal/mcp")));
    assert!(
        matches!(missing, Err(HostError::Missing { .. })),
        "{missing:?}"
    );
    assert_eq!(fake.requests().len(), 1);
}

/// A platform without its own `open`: the default answers with `fetch`'s whole body.
struct WholeOnly(FakeHost);

impl Platform for WholeOnly {
    fn fetch(
        &self,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'_, Result<Inbound, HostError>> {
        self.0.fetch(request, limits)
    }
    fn fetch_service<'a>(
        &'a self,
        binding: &'a str,
        request: Outbound,
        limits: Limits,
    ) -> BoxFuture<'a, Result<Inbound, HostError>> {
        self.0.fetch_service(binding, request, limits)
    }
    fn var(&self, name: &str) -> Option<String> {
        Platform::var(&self.0, name)
    }
    fn secret(&self, name: &str) -> Option<String> {
        Platform::secret(&self.0, name)
    }
    fn sleep(&self, ms: u64) -> BoxFuture<'_, ()> {
        self.0.sleep(ms)
    }
    fn now_ms(&self) -> u64 {
        self.0.now_ms()
    }
    fn resource_updated<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Result<(), HostError>> {
        self.0.resource_updated(uri)
    }
    fn kv_get<'a>(
        &'a self,
        b: &'a str,
        k: &'a str,
    ) -> BoxFuture<'a, Result<Option<String>, HostError>> {
        self.0.kv_get(b, k)
    }
    fn kv_put<'a>(
        &'a self,
        b: &'a str,
        k: &'a str,
        v: String,
        ttl: Option<u64>,
    ) -> BoxFuture<'a, Result<(), HostError>> {
        self.0.kv_put(b, k, v, ttl)
    }
    fn kv_delete<'a>(&'a self, b: &'a str, k: &'a str) -> BoxFuture<'a, Result<(), HostError>> {
        self.0.kv_delete(b, k)
    }
    fn d1_query<'a>(
        &'a self,
        b: &'a str,
        sql: &'a str,
        params: Vec<serde_json::Value>,
    ) -> BoxFuture<'a, Result<Vec<serde_json::Map<String, serde_json::Value>>, HostError>> {
        self.0.d1_query(b, sql, params)
    }
    fn d1_execute<'a>(
        &'a self,
        b: &'a str,
        sql: &'a str,
        params: Vec<serde_json::Value>,
    ) -> BoxFuture<'a, Result<u64, HostError>> {
        self.0.d1_execute(b, sql, params)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn the_default_open_is_fetch_in_one_piece() {
    let fake = events(vec![data("a"), data("b")]);
    let host = Host::new(WholeOnly(fake.clone()));
    let mut answer = block_on(host.open(post(EVENTS))).unwrap();
    assert_eq!(read_all(&mut answer).unwrap(), ["ab"]);
    let answer = block_on(host.open(post(EVENTS).max_bytes(1)));
    assert!(
        matches!(answer, Err(HostError::TooLarge { limit: 1, .. })),
        "{answer:?}"
    );
}

/// A reader of the adapter's kind: `Streaming` counts its bytes whatever it yields.
struct Counting(Vec<Vec<u8>>);

impl Chunks for Counting {
    fn next(&mut self) -> BoxFuture<'_, Result<Option<Vec<u8>>, HostError>> {
        let piece = (!self.0.is_empty()).then(|| self.0.remove(0));
        Box::pin(async move { Ok(piece) })
    }
}

#[test]
fn an_adapters_reader_is_bounded_by_streaming() {
    let body = Counting(vec![b"abc".to_vec(), b"def".to_vec()]);
    let answer = Streaming::new(200, Vec::new(), "https://x.test/".into(), Box::new(body));
    let mut answer = answer.max_bytes(5);
    assert_eq!(block_on(answer.next_chunk()), Ok(Some(b"abc".to_vec())));
    assert!(matches!(
        block_on(answer.next_chunk()),
        Err(HostError::TooLarge { limit: 5, .. })
    ));
}
