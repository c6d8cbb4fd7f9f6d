//! A 2025-11-25 session's resumable response streams (`src/legacy/resumable.rs`): events
//! numbered `s{stream}:{n}` after a priming event, a replay after `Last-Event-ID` then the
//! rest live, the connection replaced on a reconnection, and the ended streams beyond
//! `KEEP_ENDED` forgotten, oldest first.

mod common;
use common::channel::Fake;
use mcp_tasks_edge::legacy::replay::KEEP_ENDED;
use mcp_tasks_edge::legacy::resumable::{RETRY_MS, Streams};

#[test]
fn a_stream_primes_then_numbers_each_event_and_ends_with_the_response() {
    let streams = Streams::default();
    let client = Fake::default();
    let stream = streams.open(client.clone());
    stream.send(br#"{"method":"notifications/progress"}"#);
    stream.finish(br#"{"result":{}}"#);
    let frames = client.frames.borrow().clone();
    assert_eq!(
        frames[0],
        format!("id: s1:0\nretry: {RETRY_MS}\ndata: \n\n"),
        "priming event"
    );
    assert_eq!(
        frames[1],
        "id: s1:1\nevent: message\ndata: {\"method\":\"notifications/progress\"}\n\n"
    );
    assert_eq!(client.ids(), ["s1:0", "s1:1", "s1:2"]);
    assert!(client.closed.get(), "the response ends the stream");
    let second = Fake::default();
    streams.open(second.clone());
    assert_eq!(
        second.ids(),
        ["s2:0"],
        "the next stream has the next number"
    );
}

#[test]
fn a_client_that_reconnects_gets_what_it_missed_then_the_rest_live() {
    let streams = Streams::default();
    let first = Fake::default();
    let stream = streams.open(first.clone());
    stream.send(b"{\"n\":1}");
    stream.disconnect();
    assert!(first.closed.get(), "disconnected on purpose");
    stream.send(b"{\"n\":2}");
    stream.send(b"{\"n\":3}");
    let again = Fake::default();
    assert!(streams.resume("s1:1", &again));
    assert_eq!(
        again.ids(),
        ["s1:2", "s1:3"],
        "the events after the one it saw"
    );
    assert!(!again.closed.get(), "the stream goes on");
    stream.finish(b"{\"result\":{}}");
    assert_eq!(again.ids(), ["s1:2", "s1:3", "s1:4"]);
    assert!(again.closed.get());
}

#[test]
fn a_reconnection_replaces_the_live_connection_and_an_ended_stream_replays_and_closes() {
    let streams = Streams::default();
    let first = Fake::default();
    let stream = streams.open(first.clone());
    stream.send(b"{}");
    let second = Fake::default();
    assert!(streams.resume("s1:0", &second));
    assert!(first.closed.get(), "the connection it replaces is closed");
    stream.finish(b"{}");
    assert_eq!(second.ids(), ["s1:1", "s1:2"]);
    let late = Fake::default();
    assert!(
        streams.resume(" s1:1 ", &late),
        "surrounding spaces are ignored"
    );
    assert_eq!(late.ids(), ["s1:2"]);
    assert!(late.closed.get(), "an ended stream closes after its replay");
}

#[test]
fn unknown_or_malformed_event_ids_resume_nothing() {
    let streams = Streams::<Fake>::default();
    streams.open(Fake::default());
    for id in ["s2:0", "1:0", "s1", "s1:x", "sx:1", ""] {
        let client = Fake::default();
        assert!(!streams.resume(id, &client), "{id:?}");
        assert!(client.frames.borrow().is_empty() && !client.closed.get());
    }
}

#[test]
fn ended_streams_beyond_keep_ended_are_forgotten_oldest_first_live_ones_never() {
    let streams = Streams::default();
    let live = streams.open(Fake::default());
    for _ in 0..KEEP_ENDED + 2 {
        streams.open(Fake::default()).finish(b"{}");
    }
    // Forgetting happens as a stream opens.
    streams.open(Fake::default());
    let resumes = |id: &str| streams.resume(id, &Fake::default());
    assert!(resumes("s1:0"), "a stream still sending is kept");
    assert!(
        !resumes("s2:0") && !resumes("s3:0"),
        "the two oldest ended ones are gone"
    );
    assert!(resumes("s4:0") && resumes(&format!("s{}:0", KEEP_ENDED + 3)));
    live.finish(b"{}");
}
