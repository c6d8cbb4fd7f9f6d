//! A session object's memory (`src/legacy/memory.rs`), on recording connections: a GET
//! without `Last-Event-ID` is a new notification stream (kept alive by the platform,
//! closed when the session ends, told of resource updates); with the id of a response
//! stream it replays that stream instead; an answer nothing waits for is dropped, and the
//! headers the Worker sets are what the session object reads (`legacy::Heads`).

mod common;
use common::channel::Fake;
use common::reach::world;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::Headers;
use mcp_tasks_edge::legacy::memory::Memory;
use mcp_tasks_edge::legacy::{Heads, SESSION_HEADER};
use mcp_tasks_edge::tasks::protocol::{PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use serde_json::json;

#[test]
fn a_get_is_a_new_notification_stream_unless_it_resumes_a_response_stream() {
    let memory = Memory::default();
    let (get, response, resumed) = (Fake::default(), Fake::default(), Fake::default());
    assert!(
        memory.open_get(&get, None),
        "a notification stream, kept alive"
    );
    let stream = memory.open_response(response.clone());
    stream.send(br#"{"method":"notifications/progress"}"#);
    let last = response.ids()[0].clone();
    assert!(!memory.open_get(&resumed, Some(&last)), "a replay");
    assert_eq!(resumed.messages().len(), 1, "what it missed");
    assert!(
        memory.open_get(&Fake::default(), Some("s9:1")),
        "an unknown id: a new stream"
    );
    memory.resource_updated("file:///a");
    assert_eq!(
        get.messages()[0]["method"],
        "notifications/resources/updated"
    );
    assert!(
        resumed.messages().len() == 1,
        "a response stream is not a GET stream"
    );
    memory.close_streams();
    assert!(get.closed.get(), "the session ended");
}

#[test]
fn an_answer_nothing_waits_for_is_dropped() {
    let memory = Memory::<Fake>::default();
    let mut objects = world();
    let session = objects.stored.clone();
    let answer = Ok(json!({ "action": "accept" }));
    let line = block_on(memory.deliver(&mut objects, "q-1", answer, &session));
    assert!(
        line.is_none() && objects.sent.is_empty(),
        "{:?}",
        objects.sent
    );
}

#[test]
fn the_session_object_reads_the_headers_the_worker_set() {
    let mut headers = Headers::new();
    headers.push(SESSION_HEADER, "3f0c");
    headers.push(PRINCIPAL_HEADER, "key:alice");
    headers.push(REQUEST_ID_HEADER, "r1");
    headers.push("accept", "application/json");
    let heads = Heads::read(&headers);
    let incoming = heads.incoming("POST", b"{}");
    assert_eq!(
        (incoming.session_id, incoming.principal),
        ("3f0c", "key:alice")
    );
    assert_eq!(
        (incoming.accept, incoming.last_event_id),
        (Some("application/json"), None)
    );
    assert_eq!(
        (heads.trace.as_deref(), incoming.body),
        (Some("r1"), &b"{}"[..])
    );
    assert!(!incoming.accepts_event_stream());
    assert_eq!(
        Heads::read(&Headers::new()),
        Heads::default(),
        "none set: empty"
    );
}

/// A client's header the runtime could not send (a line break, a byte past ASCII) is not
/// carried: the session object reads it as absent instead of the Worker failing to send.
#[test]
fn a_clients_header_that_is_no_field_value_is_not_carried() {
    let mut client = Headers::new();
    client.push("accept", "text/\u{e9}vent-stream");
    client.push("last-event-id", "7\n8");
    client.push("content-type", "application/json");
    let forwarded = Heads::forward(&client, "3f0c", "key:alice", "r1");
    let names: Vec<&str> = forwarded.iter().map(|(name, _)| *name).collect();
    assert!(names.contains(&"content-type"), "{names:?}");
    assert!(
        !names.contains(&"accept") && !names.contains(&"last-event-id"),
        "{names:?}"
    );
    let lines = forwarded.iter().map(|(n, v)| (*n, v.as_str()));
    assert!(mcp_tasks_edge::http::lines(lines).is_ok());
}

/// What the Worker forwards is what the object reads back: the client's own `Accept`,
/// `Content-Type` and `Last-Event-ID`, never an internal header a client sent (a stranger
/// naming another principal or session), which the Worker's decisions replace.
#[test]
fn the_worker_forwards_only_the_clients_three_headers_and_its_own_decisions() {
    let mut client = Headers::new();
    client.push("accept", "text/event-stream");
    client.push("last-event-id", "7");
    client.push("content-type", "application/json");
    client.push(PRINCIPAL_HEADER, "key:victim");
    client.push(SESSION_HEADER, "victims-session");
    client.push("authorization", "Bearer secret");
    let forwarded = Heads::forward(&client, "3f0c", "key:alice", "r1");
    let mut sent = Headers::new();
    for (name, value) in &forwarded {
        sent.push(name, value);
    }
    let names: Vec<&str> = forwarded.iter().map(|(name, _)| *name).collect();
    assert_eq!(names.len(), 6, "{names:?}");
    assert!(!names.contains(&"authorization"));
    assert_eq!(
        Heads::read(&sent),
        Heads {
            session_id: "3f0c".into(),
            principal: "key:alice".into(),
            last_event_id: Some("7".into()),
            accept: Some("text/event-stream".into()),
            trace: Some("r1".into()),
        }
    );
}
