//! The watcher of one upstream (`gateway::watch`): what it decides (start at the first
//! ask, note asks at most every minute, hold while asked, count each change, retry later
//! after each failure, erase itself once unasked), its runner over storage only, and one
//! hold of a real upstream's stream in either era (the GET stream of a 2025-11-25 session,
//! a 2026-07-28 `subscriptions/listen`), each `notifications/tools/list_changed` counted.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::{URL, answer, result};
use mcp_tasks_edge::gateway::Settings;
use mcp_tasks_edge::gateway::watch::{self, Heard, Held, Record};
use mcp_tasks_edge::host::fake::{FakeHost, Piece};
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::objects::upstream::{self as object, IDLE_MS, Wake, WatchPlatform};
use mcp_tasks_edge::tasks::protocol::ObjectReply;
use serde_json::{Value, json};
use std::cell::{Cell, RefCell};

const NOW: u64 = 1_764_066_600_000;

fn settings() -> Settings {
    let up = format!(r#"[{{"name":"up","url":"{URL}","prefix":"up_","token":"UP_TOKEN"}}]"#);
    Settings::default()
        .with_vars(|n| (n == "UPSTREAMS").then(|| up.clone()))
        .unwrap()
}

/// A watcher's storage: its one row and its alarm, and every write issued.
#[derive(Default)]
struct Store {
    row: RefCell<Option<String>>,
    alarm: Cell<Option<u64>>,
    writes: RefCell<Vec<Write>>,
    now: Cell<u64>,
    /// Changes announced to the sessions.
    announced: Cell<u32>,
}

impl WatchPlatform for Store {
    async fn record(&self) -> Result<Option<String>, String> {
        Ok(self.row.borrow().clone())
    }
    async fn write(&self, write: Write) -> Result<(), String> {
        if write.erase {
            *self.row.borrow_mut() = None;
            self.alarm.set(None);
        }
        for (_, value) in &write.put {
            *self.row.borrow_mut() = Some(value.clone());
        }
        if let Some(alarm) = write.alarm {
            self.alarm.set(alarm);
        }
        self.writes.borrow_mut().push(write);
        Ok(())
    }
    fn now_ms(&self) -> u64 {
        self.now.get()
    }
    async fn announce(&self) {
        self.announced.set(self.announced.get() + 1);
    }
}

fn ask(store: &Store) -> Heard {
    let body = serde_json::to_vec(&json!({ "upstream": "up" })).unwrap();
    match block_on(object::serve(store, Ok(body))) {
        ObjectReply::Result(heard) => serde_json::from_value(heard).unwrap(),
        other => panic!("{other:?}"),
    }
}

fn event(message: Value) -> Piece {
    Piece::Data(format!("event: message\ndata: {message}\n\n"))
}

fn changed() -> Piece {
    event(json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" }))
}

/// A 2025-11-25 upstream (no `server/discover`) whose session's GET stream is `pieces`.
fn legacy(pieces: Vec<Piece>) -> FakeHost {
    let refused =
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"No valid session"}}"#;
    let init = json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": { "listChanged": true } } });
    FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(400, "application/json", refused.into(), None),
        )
        .answer(
            "POST",
            URL,
            answer(200, "application/json", result(1, init), Some("s1")),
        )
        .answer("POST", URL, answer(202, "text/plain", String::new(), None))
        .answer(
            "DELETE",
            URL,
            answer(200, "text/plain", String::new(), None),
        )
        .stream("GET", URL, 200, "text/event-stream", pieces)
}

fn hold(fake: &FakeHost) -> (Held, u32) {
    let heard = Cell::new(0);
    let on_change = || async {
        heard.set(heard.get() + 1);
        Ok(())
    };
    let held = block_on(watch::hold(
        &Host::new(fake.clone()),
        &settings().upstreams[0],
        &settings(),
        60_000,
        on_change,
    ));
    (held, heard.get())
}

#[test]
fn the_first_ask_starts_the_watcher_and_asks_are_noted_at_most_every_minute() {
    let store = Store::default();
    store.now.set(NOW);
    assert_eq!(
        ask(&store),
        Heard {
            since_ms: NOW,
            changes: 0
        }
    );
    assert_eq!(store.alarm.get(), Some(NOW), "the first hold at once");
    store.now.set(NOW + 59_999);
    ask(&store);
    assert_eq!(
        store.writes.borrow().len(),
        1,
        "an ask within the minute writes nothing"
    );
    store.now.set(NOW + 60_000);
    ask(&store);
    let writes = store.writes.borrow();
    assert_eq!(
        (writes.len(), writes[1].alarm),
        (2, None),
        "noted, the alarm left"
    );
}

#[test]
fn the_alarm_holds_while_asked_and_stops_once_unasked() {
    let (heard, write) = object::ask(None, "up", NOW);
    let record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    assert_eq!(heard.changes, 0);
    let woke = NOW + IDLE_MS - 1;
    let Wake::Hold {
        upstream,
        until_ms,
        write,
    } = object::wake(Some(record), woke)
    else {
        panic!("asked: holds")
    };
    assert_eq!(
        (upstream.as_str(), until_ms),
        ("up", woke + object::HOLD_MS)
    );
    let noted: Record = serde_json::from_str(&write.put[0].1).unwrap();
    assert_eq!(
        (noted.due_ms, write.alarm),
        (until_ms, None),
        "the hold's end noted as due"
    );
    let (_, write) = object::ask(None, "up", NOW);
    let record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    let Wake::Stop(erase) = object::wake(Some(record), NOW + IDLE_MS) else {
        panic!("holds unasked")
    };
    assert!(erase.erase);
    assert!(
        matches!(object::wake(None, NOW), Wake::Stop(_)),
        "no record: nothing runs"
    );
}

#[test]
fn an_ask_sets_a_lost_alarm_again() {
    let (_, write) = object::ask(None, "up", NOW);
    let record: Record = serde_json::from_str(&write.unwrap().put[0].1).unwrap();
    let (_, kept) = object::ask(Some(record.clone()), "up", NOW + 60_000);
    assert_eq!(kept.unwrap().alarm, None, "due a minute ago: not lost yet");
    let (_, again) = object::ask(Some(record), "up", NOW + 60_001);
    let again = again.unwrap();
    assert_eq!(
        again.alarm,
        Some(Some(NOW + 60_001)),
        "its retries spent: set again"
    );
    let noted: Record = serde_json::from_str(&again.put[0].1).unwrap();
    assert_eq!(noted.due_ms, NOW + 60_001);
}

#[test]
fn after_a_hold_the_next_is_at_once_soon_or_later_after_each_failure() {
    let record = || {
        let (_, write) = object::ask(None, "up", NOW);
        Some(serde_json::from_str(&write.unwrap().put[0].1).unwrap())
    };
    let next = |held: &Held, began: u64, stored| {
        object::held(stored, held, began, NOW + 100_000)
            .unwrap()
            .alarm
            .unwrap()
            .unwrap()
            - (NOW + 100_000)
    };
    assert_eq!(next(&Held::Deadline, NOW, record()), 0);
    assert_eq!(
        next(&Held::Ended, NOW, record()),
        1_000,
        "a long stream ended: soon"
    );
    assert_eq!(
        next(&Held::Ended, NOW + 99_000, record()),
        2_000,
        "ended at once: a failure"
    );
    let failed = Held::Failed("HTTP 405".into());
    assert_eq!(next(&failed, NOW, record()), 2_000);
    let mut stored: Option<Record> = record();
    let mut waits = Vec::new();
    for _ in 0..12 {
        let write = object::held(stored, &failed, NOW, NOW + 100_000).unwrap();
        waits.push(write.alarm.unwrap().unwrap() - (NOW + 100_000));
        stored = Some(serde_json::from_str(&write.put[0].1).unwrap());
    }
    assert_eq!(waits[..4], [2_000, 4_000, 8_000, 16_000]);
    assert_eq!(waits[11], 300_000, "at most five minutes");
    assert_eq!(
        object::held(None, &Held::Deadline, NOW, NOW),
        None,
        "erased meanwhile: nothing"
    );
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
    let refused = FakeHost::new()
        .secret("UP_TOKEN", "gateway-secret")
        .answer(
            "POST",
            URL,
            answer(400, "application/json", "{}".into(), None),
        )
        .answer(
            "POST",
            URL,
            answer(
                200,
                "application/json",
                result(
                    1,
                    json!({ "protocolVersion": "2025-11-25", "capabilities": {} }),
                ),
                Some("s1"),
            ),
        )
        .answer("POST", URL, answer(202, "text/plain", String::new(), None))
        .answer(
            "GET",
            URL,
            answer(405, "text/plain", "Method Not Allowed".into(), None),
        )
        .answer(
            "DELETE",
            URL,
            answer(200, "text/plain", String::new(), None),
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
    let ack = event(
        json!({ "jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": 2 }, "notifications": { "toolsListChanged": true } } }),
    );
    let end = event(json!({ "jsonrpc": "2.0", "id": 2, "result": { "resultType": "complete" } }));
    let discover = json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": { "listChanged": true } } });
    let fake = FakeHost::new()
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
        );
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
}

#[test]
fn an_alarm_counts_what_it_heard_announces_it_after_the_check_and_sets_the_next_one() {
    let store = Store::default();
    store.now.set(NOW);
    ask(&store);
    let fake = legacy(vec![changed(), changed(), changed()]);
    let ended = block_on(object::alarm(&store, &Host::new(fake.clone()), &settings())).unwrap();
    assert_eq!(ended, Some(("up".into(), Held::Ended)));
    assert_eq!(store.announced.get(), 3, "each change told to the sessions");
    assert_eq!(
        fake.slept_ms(),
        3 * (1_000 + 250),
        "each after UPSTREAM_WATCH_CHECK_MS: every isolate asked since"
    );
    assert_eq!(
        ask(&store),
        Heard {
            since_ms: NOW,
            changes: 3
        }
    );
    assert_eq!(
        store.alarm.get(),
        Some(NOW + 2_000),
        "ended at once: a failure's retry"
    );
    store.now.set(NOW + IDLE_MS);
    let stopped = block_on(object::alarm(
        &store,
        &Host::new(FakeHost::new()),
        &settings(),
    ))
    .unwrap();
    assert_eq!(
        (stopped, store.row.borrow().clone()),
        (None, None),
        "unasked: erased"
    );
    let bad = block_on(object::serve(&store, Ok(b"{}".to_vec())));
    assert!(matches!(bad, ObjectReply::Error(e) if e.message.contains("does not decode")));
}
