//! One hold of an upstream's standing stream (`gateway::watch::hold`), in either era: the
//! GET stream of a 2025-11-25 session (each `notifications/tools/list_changed` counted, a
//! `ping` answered, the session closed at the end), an upstream that offers none (the hold
//! fails saying why), and a 2026-07-28 `subscriptions/listen` asking for
//! `toolsListChanged`.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::*;
use mcp_tasks_edge::gateway::watch::{self, Held};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use serde_json::{Value, json};
use std::cell::Cell;

fn hold(fake: &FakeHost) -> (Held, u32) {
    let heard = Cell::new(0);
    let on_change = || async {
        heard.set(heard.get() + 1);
        Ok(())
    };
    let held = block_on(watch::hold(
        &Host::new(fake.clone()),
        &watched_settings().upstreams[0],
        &watched_settings(),
        60_000,
        on_change,
    ));
    (held, heard.get())
}

#[test]
fn a_2025_session_stream_is_held_each_change_counted_a_ping_answered() {
    let ping = event(json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" }));
    let progress = event(
        json!({ "jsonrpc": "2.0", "method": "notifications/message", "params": { "level": "info", "data": "x" } }),
    );
    let fake = legacy(vec![changed(), progress, ping, changed()]);
    assert_eq!(hold(&fake), (Held::Ended, 2));
    let requests = fake.requests();
    let get = requests.iter().find(|r| r.method == "GET").unwrap();
    let header = |name: &str| {
        get.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("mcp-session-id"), Some("s1"));
    assert_eq!(header("accept"), Some("text/event-stream"));
    assert_eq!(header("authorization"), Some("Bearer gateway-secret"));
    let pong = requests
        .iter()
        .find(|r| String::from_utf8_lossy(&r.body).contains(r#""id":7"#));
    let pong: Value = serde_json::from_slice(&pong.expect("the ping answered").body).unwrap();
    assert_eq!(pong["result"], json!({}));
    assert_eq!(
        requests.last().unwrap().method,
        "DELETE",
        "the session closed"
    );
}

#[test]
fn an_upstream_without_a_stream_fails_the_hold_saying_why() {
    let refused = legacy_session().answer(
        "GET",
        URL,
        answer(405, "text/plain", "Method Not Allowed".into(), None),
    );
    let (held, heard) = hold(&refused);
    assert_eq!(heard, 0);
    assert!(
        matches!(&held, Held::Failed(why) if why.contains("HTTP 405")),
        "{held:?}"
    );
}

#[test]
fn a_2026_upstream_is_held_on_subscriptions_listen_for_tool_changes() {
    let fake = modern(json!({ "toolsListChanged": true }));
    assert_eq!(hold(&fake), (Held::Ended, 1));
    let listen = fake
        .requests()
        .into_iter()
        .find(|r| String::from_utf8_lossy(&r.body).contains("subscriptions/listen"))
        .unwrap();
    let body: Value = serde_json::from_slice(&listen.body).unwrap();
    assert_eq!(
        body["params"]["notifications"],
        json!({ "toolsListChanged": true })
    );
    assert!(
        listen
            .headers
            .contains(&("mcp-method".into(), "subscriptions/listen".into()))
    );
    // One that acknowledges without it offers nothing to hold: a failure, retried later.
    let (held, heard) = hold(&modern(json!({})));
    assert_eq!(heard, 0, "nothing after the acknowledgement is read");
    assert!(
        matches!(&held, Held::Failed(why) if why.contains("toolsListChanged")),
        "{held:?}"
    );
}

/// A 2026-07-28 upstream whose `subscriptions/listen` acknowledges `acknowledged`, then
/// tells of one change and ends gracefully.
fn modern(acknowledged: Value) -> FakeHost {
    let ack = event(
        json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": 2 }, "notifications": acknowledged } }),
    );
    let end = event(json!({ "jsonrpc": "2.0", "id": 2, "result": { "resultType": "complete" } }));
    let discover = json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": { "listChanged": true } } });
    FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(200, "application/json", result(1, discover), None),
        )
        .stream_when(
            "POST",
            URL,
            "subscriptions/listen",
            200,
            "text/event-stream",
            vec![ack, changed(), end],
        )
}
