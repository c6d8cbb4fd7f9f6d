//! Opening a task's watch socket (`objects::task::watch`, what listen streams, job waits
//! and `tasks/result` follow a task on): the first message is the current state; a caller
//! who may not see the task gets `tasks/get`'s not-found; the object holds at most
//! `watch::MAX_WATCHERS` sockets, and says so only to whom may see the task.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::create_from;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, is_task_not_found};
use mcp_tasks_edge::tasks::watch::{MAX_WATCHERS, WatchMessage};
use serde_json::json;

#[test]
fn a_watch_opens_on_the_current_state_up_to_the_bound_and_a_stranger_learns_nothing() {
    let call = post(
        "tools/call",
        json!({ "name": "slow_compute", "arguments": { "seconds": 2 } }),
    );
    let (mut o, _) = create_from(&server(), &call);
    let Ok(WatchMessage::Task { task, .. }) = o.watch("anonymous", NOW + 1) else {
        panic!("the first message is the task's state")
    };
    assert_eq!(task["status"], "working");
    o.watchers = MAX_WATCHERS - 1;
    assert!(o.watch("anonymous", NOW + 1).is_ok(), "one more fits");
    o.watchers = MAX_WATCHERS;
    let Err(ObjectReply::Error(full)) = o.watch("anonymous", NOW + 1) else {
        panic!("past the bound, refused")
    };
    assert_eq!(full.code, McpError::Internal(String::new()).to_wire().code);
    assert!(full.message.contains("256 watchers"), "{}", full.message);
    // A keyed stranger gets the not-found of an unknown id, at the bound as below it.
    for watchers in [0, MAX_WATCHERS] {
        o.watchers = watchers;
        let Err(ObjectReply::Error(e)) = o.watch("key:mallory", NOW + 1) else {
            panic!("a stranger is refused")
        };
        assert!(is_task_not_found(&e), "{e:?}");
    }
}

/// Not-found is the whole error, not its code: another refusal sharing -32602 (invalid
/// params) is not taken for a task that is gone.
#[test]
fn only_the_not_found_error_itself_says_a_task_is_gone() {
    let not_found = McpError::TaskNotFound.to_wire();
    assert!(is_task_not_found(&not_found));
    let other = McpError::InvalidParams("inputResponses: not an object".into()).to_wire();
    assert_eq!(other.code, not_found.code);
    assert!(!is_task_not_found(&other), "{other:?}");
}
