//! Pushed notifications: what a TaskObject sends its watchers (`tasks::watch`) and what a
//! listen stream makes of it (`server::fanin`): acknowledgement, per-task order, the
//! clean close only when every task ended, reconnects with backoff, and errors that end
//! the stream without the graceful result.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::server::Action;
use mcp_tasks_edge::server::fanin::{Command, Fanin, Opened, Reconnects, backoff_ms};
use mcp_tasks_edge::server::listen::StreamLimits;
use mcp_tasks_edge::server::listen::{KEEPALIVE_MS, Listen};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::watch::{self, MAX_PUSH_BYTES, WatchMessage};
use serde_json::{Value, json};

const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn listen(ids: &[&str]) -> Listen {
    listen_of(&server(), json!({ "taskIds": ids }))
}

fn limits() -> StreamLimits {
    StreamLimits {
        reconnects: 2,
        max_stream_ms: 60_000,
    }
}

fn task(id: &str, status: &str, message: &str) -> Value {
    json!({ "taskId": id, "status": status, "statusMessage": message })
}

fn pushed(id: &str, version: u64, status: &str, message: &str) -> WatchMessage {
    WatchMessage::Task {
        version,
        task: task(id, status, message),
    }
}

/// The SSE messages among `commands`, parsed (keep-alive comments as "keepalive").
fn sent(commands: &[Command]) -> Vec<Value> {
    commands
        .iter()
        .filter_map(|c| match c {
            Command::Send(bytes) => {
                let text = String::from_utf8(bytes.clone()).unwrap();
                Some(match text.strip_prefix("data: ") {
                    Some(json) => serde_json::from_str(json.trim()).unwrap(),
                    None => json!("keepalive"),
                })
            }
            _ => None,
        })
        .collect()
}

fn ends(commands: &[Command]) -> Option<bool> {
    commands.iter().find_map(|c| match c {
        Command::End { graceful } => Some(*graceful),
        _ => None,
    })
}

fn open_both() -> Fanin {
    let (mut fanin, first) = Fanin::start(listen(&[A, B]), limits(), NOW);
    assert_eq!(
        first,
        vec![
            Command::Open {
                task_id: A.into(),
                after_ms: 0
            },
            Command::Open {
                task_id: B.into(),
                after_ms: 0
            },
        ]
    );
    assert!(
        fanin.opened(A, Opened::Watching, NOW).is_empty(),
        "no ack before every open settled"
    );
    let acked = fanin.opened(B, Opened::Watching, NOW);
    let messages = sent(&acked);
    assert_eq!(
        messages[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(
        messages[0]["params"]["notifications"]["taskIds"],
        json!([A, B])
    );
    fanin
}

#[test]
fn states_are_forwarded_in_version_order_and_the_close_is_clean_only_at_the_end() {
    let mut fanin = open_both();
    let first = sent(&fanin.message(A, pushed(A, 1, "working", "1/3"), NOW));
    assert_eq!(first[0]["method"], "notifications/tasks");
    assert_eq!(first[0]["params"]["statusMessage"], "1/3");
    assert_eq!(
        first[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        1
    );
    // Newer, then an older one arriving late: the older is dropped.
    assert_eq!(
        sent(&fanin.message(A, pushed(A, 3, "working", "3/3"), NOW)).len(),
        1
    );
    assert!(
        fanin
            .message(A, pushed(A, 2, "working", "2/3"), NOW)
            .is_empty()
    );
    // A write that changed nothing visible (a lease) is not a notification.
    assert!(
        fanin
            .message(A, pushed(A, 4, "working", "3/3"), NOW)
            .is_empty()
    );
    let done = fanin.message(A, pushed(A, 5, "completed", "done"), NOW);
    assert!(done.contains(&Command::Close { task_id: A.into() }));
    assert_eq!(ends(&done), None, "B is still working");
    assert!(
        fanin
            .message(A, pushed(A, 6, "working", "late"), NOW)
            .is_empty()
    );
    let end = fanin.message(B, pushed(B, 9, "cancelled", "stop"), NOW);
    let messages = sent(&end);
    assert_eq!(messages[0]["params"]["status"], "cancelled");
    assert_eq!(messages[1]["result"]["resultType"], "complete");
    assert_eq!(messages[1]["id"], 1);
    assert_eq!(ends(&end), Some(true));
    assert!(fanin.ended());
}

#[test]
fn states_before_the_ack_follow_it() {
    let (mut fanin, _) = Fanin::start(listen(&[A, B]), limits(), NOW);
    assert!(fanin.opened(A, Opened::Watching, NOW).is_empty());
    assert!(
        fanin
            .message(A, pushed(A, 1, "working", "first"), NOW)
            .is_empty()
    );
    let messages = sent(&fanin.opened(B, Opened::NotFound, NOW));
    assert_eq!(
        messages[0]["params"]["notifications"]["taskIds"],
        json!([A])
    );
    assert_eq!(messages[1]["params"]["statusMessage"], "first");
    assert_eq!(messages.len(), 2);
}

#[test]
fn nothing_visible_is_acknowledged_empty_then_closed_cleanly() {
    let (mut fanin, _) = Fanin::start(listen(&[A]), limits(), NOW);
    let out = fanin.opened(A, Opened::NotFound, NOW);
    let messages = sent(&out);
    assert_eq!(messages[0]["params"]["notifications"]["taskIds"], json!([]));
    assert_eq!(messages[1]["result"]["resultType"], "complete");
    assert_eq!(ends(&out), Some(true));
}

#[test]
fn a_lost_socket_is_reopened_with_backoff_then_the_stream_fails_without_the_result() {
    let mut fanin = open_both();
    assert_eq!(
        sent(&fanin.message(A, pushed(A, 1, "working", "x"), NOW)).len(),
        1
    );
    assert_eq!(
        fanin.lost(A, NOW),
        vec![Command::Open {
            task_id: A.into(),
            after_ms: backoff_ms(1)
        }]
    );
    assert!(fanin.opened(A, Opened::Watching, NOW).is_empty());
    // The reopened socket's first message is the state already forwarded: nothing new.
    assert!(
        fanin
            .message(A, pushed(A, 1, "working", "x"), NOW)
            .is_empty()
    );
    assert_eq!(
        fanin.opened(A, Opened::Failed("unreachable".into()), NOW),
        vec![Command::Open {
            task_id: A.into(),
            after_ms: backoff_ms(2)
        }]
    );
    // Budget (2) spent: the stream ends as an error, never with the graceful result.
    let out = fanin.lost(A, NOW);
    assert_eq!(ends(&out), Some(false));
    assert!(sent(&out).is_empty(), "{out:?}");
    assert!(out.contains(&Command::Close { task_id: B.into() }));
    assert!(fanin.ended());
    assert!(fanin.lost(B, NOW).is_empty());
    assert_eq!(
        (backoff_ms(1), backoff_ms(2), backoff_ms(3), backoff_ms(9)),
        (250, 1_000, 4_000, 4_000)
    );
}

#[test]
fn every_watcher_reopens_a_lost_socket_by_one_budget_and_backoff() {
    // A listen stream's tasks and a job's wait share this policy (server::follower).
    let mut reconnects = Reconnects::new(3);
    let delays: Vec<_> = (0..5).map(|_| reconnects.lost()).collect();
    assert_eq!(delays, [Some(250), Some(1_000), Some(4_000), None, None]);
    assert_eq!(Reconnects::new(0).lost(), None);
}

/// A watch the object did not upgrade: "not found" (unknown, expired, someone else's) is
/// the task's refusal; anything else a failure to retry, saying what came.
#[test]
fn a_watch_not_upgraded_is_not_found_only_when_the_object_says_so() {
    let (status, body) = ObjectReply::Error(McpError::TaskNotFound.to_wire()).encode();
    assert_eq!(Opened::refused(status, &body), Opened::NotFound);
    let Opened::Failed(why) = Opened::refused(500, b"Internal Server Error") else {
        panic!("a crash is not a refusal");
    };
    assert!(
        why.contains("HTTP 500") && why.contains("Internal Server Error"),
        "{why}"
    );
    let (status, body) = ObjectReply::Error(McpError::Internal("disk".into()).to_wire()).encode();
    assert!(matches!(Opened::refused(status, &body), Opened::Failed(_)));
}

#[test]
fn a_socket_lost_after_its_task_ended_is_not_an_error() {
    let mut fanin = open_both();
    fanin.message(A, pushed(A, 2, "failed", "boom"), NOW);
    assert!(fanin.lost(A, NOW).is_empty());
}

#[test]
fn keepalives_when_quiet_and_a_renewal_before_the_limit() {
    let mut fanin = open_both();
    assert!(fanin.tick(NOW + 1_000).is_empty());
    assert_eq!(fanin.next_tick_ms(), NOW + KEEPALIVE_MS);
    assert_eq!(
        sent(&fanin.tick(NOW + KEEPALIVE_MS)),
        vec![json!("keepalive")]
    );
    let out = fanin.tick(NOW + 60_000);
    assert_eq!(ends(&out), Some(false));
    assert!(sent(&out).is_empty());
}

#[test]
fn a_state_too_large_to_push_is_read_and_a_gone_task_ends_cleanly() {
    let mut fanin = open_both();
    assert_eq!(
        fanin.message(A, WatchMessage::Changed { version: 4 }, NOW),
        vec![Command::Get {
            task_id: A.into(),
            version: 4
        }]
    );
    let out = fanin.fetched(A, 4, Ok(Some(task(A, "completed", "big"))), NOW);
    assert_eq!(sent(&out)[0]["params"]["status"], "completed");
    let out = fanin.message(B, WatchMessage::Gone, NOW);
    assert_eq!(ends(&out), Some(true));
}

#[test]
fn a_stream_without_tasks_is_acknowledged_and_stays_open() {
    let (mut fanin, first) = Fanin::start(listen(&[]), limits(), NOW);
    assert_eq!(sent(&first).len(), 1);
    assert_eq!(ends(&first), None);
    assert!(!fanin.ended());
    assert!(fanin.tick(NOW + 1).is_empty());
}

// ── the object side ──

fn started(tool: &str, arguments: Value) -> Object {
    let server = server();
    let request = post(
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    );
    let Action::CreateTask { mut record, .. } =
        run_action(&server, server.handle(&request, &ctx()))
    else {
        panic!("expected a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(server.registry.clone(), server.limits());
    let reply = o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    assert!(matches!(reply, ObjectReply::Result(_)));
    o
}

fn version(m: &WatchMessage) -> u64 {
    match m {
        WatchMessage::Task { version, .. } | WatchMessage::Changed { version } => *version,
        WatchMessage::Gone => u64::MAX,
    }
}

#[test]
fn every_write_is_pushed_with_a_higher_version_and_the_completed_result() {
    let mut o = started("slow_compute", json!({ "seconds": 1, "label": "v" }));
    for t in 0..5 {
        o.tick(NOW + t * 1_000);
    }
    assert!(o.pushed.len() >= 3, "{:?}", o.pushed);
    let versions: Vec<u64> = o.pushed.iter().map(version).collect();
    assert!(
        versions.windows(2).all(|w| w[1] == w[0] + 1),
        "{versions:?}"
    );
    assert_eq!(versions[0], 1);
    let WatchMessage::Task { task, .. } = o.pushed.last().unwrap() else {
        panic!("a small result is pushed whole")
    };
    assert_eq!(task["status"], "completed");
    assert_eq!(
        task["result"]["content"][0]["text"],
        "v: computed after 1 s"
    );
    assert!(task.get("resultType").is_none());
    // What a new watcher gets first: the same state, from storage.
    let stored = o.load(mcp_tasks_edge::tasks::layout::Need::Result).unwrap();
    let first = watch::open(Some(&stored.record), ID, "anonymous", NOW + 5_000, 1).unwrap();
    assert_eq!(&first, o.pushed.last().unwrap());
}

#[test]
fn a_watch_is_refused_like_a_get_for_others_and_unknown_ids() {
    let mut o = started("slow_compute", json!({ "seconds": 1, "label": "v" }));
    let stored = o.load(mcp_tasks_edge::tasks::layout::Need::Result).unwrap();
    for (id, principal) in [(ID, "bearer:someone-else"), (A, "anonymous")] {
        let Err(ObjectReply::Error(e)) = watch::open(Some(&stored.record), id, principal, NOW, 0)
        else {
            panic!("expected a refusal")
        };
        assert_eq!(e.code.0, -32602);
    }
    assert!(watch::open(None, ID, "anonymous", NOW, 0).is_err());
}

#[test]
fn big_or_unloaded_results_are_announced_not_pushed() {
    let mut o = started("big_result", json!({ "bytes": MAX_PUSH_BYTES + 1 }));
    for t in 0..3 {
        o.tick(NOW + t * 1_000);
    }
    assert!(
        matches!(o.pushed.last(), Some(WatchMessage::Changed { .. })),
        "{:?}",
        o.pushed.last()
    );
    // A completed record read without its result (hot only) is never pushed as is.
    let hot = o.load(mcp_tasks_edge::tasks::layout::Need::Hot).unwrap();
    assert!(matches!(
        watch::message(&hot.record),
        WatchMessage::Changed { .. }
    ));
}

#[test]
fn expiry_tells_watchers_the_task_is_gone() {
    let mut o = started("slow_compute", json!({ "seconds": 1, "label": "v" }));
    o.tick(NOW + 100_000_000);
    assert_eq!(o.pushed.last(), Some(&WatchMessage::Gone));
}

#[test]
fn watch_messages_round_trip() {
    for m in [
        WatchMessage::Gone,
        WatchMessage::Changed { version: 3 },
        pushed(A, 2, "working", "x"),
    ] {
        assert_eq!(WatchMessage::decode(&m.encode()).unwrap(), m);
    }
    assert_eq!(WatchMessage::Gone.encode(), r#"{"kind":"gone"}"#);
    assert!(WatchMessage::decode("{}").is_err());
}
