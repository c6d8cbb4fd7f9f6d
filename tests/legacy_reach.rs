//! How a 2025-11-25 session reaches a task by its id (`legacy::reach`), on task objects
//! that answer as the real ones do (`auth::anonymous::reaches` decides who sees what) and
//! a session kept in a value. Attacked as the security stance asks: a stranger's session
//! never reaches a keyed caller's task, and a task is never changed by a session that
//! could not list it afterwards.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::reach::{KEYED, MINE, THEIRS, session, task, world};
use mcp_tasks_edge::auth::anonymous::ANY_SESSION;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::legacy::MAX_REACHED;
use mcp_tasks_edge::legacy::reach;
use mcp_tasks_edge::tasks::protocol::ObjectRequest;

fn get(task_id: &str) -> ObjectRequest {
    ObjectRequest::Get {
        task_id: task_id.into(),
    }
}

fn cancel(task_id: &str) -> ObjectRequest {
    ObjectRequest::LegacyCancel {
        task_id: task_id.into(),
    }
}

#[test]
fn its_own_task_is_one_request_as_itself() {
    let mut o = world();
    let b = o.stored.clone();
    let (outcome, principal) = block_on(reach::send(&mut o, &b, get(MINE)));
    assert_eq!(outcome.unwrap()["taskId"], MINE);
    assert_eq!(principal, b.principal);
    assert_eq!(o.sent, ["get as own"]);
}

#[test]
fn another_sessions_task_is_read_recorded_then_reached_as_any_session() {
    let mut o = world();
    let b = o.stored.clone();
    let (outcome, principal) = block_on(reach::send(&mut o, &b, get(THEIRS)));
    assert_eq!(outcome.unwrap()["taskId"], THEIRS);
    assert_eq!(principal, ANY_SESSION);
    assert_eq!(o.sent, ["get as own", "get as any", "store"]);
    assert!(o.stored.reached.contains(THEIRS));
    // From then on: one request, and listed.
    o.sent.clear();
    let b = o.stored.clone();
    block_on(reach::send(&mut o, &b, get(THEIRS))).0.unwrap();
    assert_eq!(o.sent, ["get as any"]);
    o.sent.clear();
    let (principal, read) = block_on(reach::principal(&mut o, &b, THEIRS)).unwrap();
    assert_eq!(principal, ANY_SESSION);
    // Known to be reached as any session: nothing to read to find that out.
    assert_eq!((read, o.sent.len()), (None, 0));
}

#[test]
fn finding_out_whom_a_task_is_reached_as_hands_over_what_it_read() {
    let mut o = world();
    let b = o.stored.clone();
    let (principal, read) = block_on(reach::principal(&mut o, &b, MINE)).unwrap();
    assert_eq!(principal, b.principal);
    assert_eq!(read.unwrap()["taskId"], MINE);
    assert_eq!(o.sent, ["get as own"]);

    o.sent.clear();
    let (principal, read) = block_on(reach::principal(&mut o, &b, THEIRS)).unwrap();
    assert_eq!(principal, ANY_SESSION);
    assert_eq!(read.unwrap()["taskId"], THEIRS);
    assert_eq!(o.sent, ["get as own", "get as any", "store"]);
}

#[test]
fn a_cancel_reaches_another_sessions_task_only_once_it_is_recorded() {
    let mut o = world();
    let b = o.stored.clone();
    let (outcome, _) = block_on(reach::send(&mut o, &b, cancel(THEIRS)));
    assert_eq!(outcome.unwrap()["status"], "cancelled");
    assert_eq!(
        o.sent,
        ["cancel as own", "get as any", "store", "cancel as any"]
    );

    // A session whose bound is full cannot list it, so it neither reaches nor changes it.
    let mut o = world();
    for i in 0..MAX_REACHED {
        assert!(o.stored.record_reached(&format!("{:032x}", 100 + i)));
    }
    let b = o.stored.clone();
    let (outcome, principal) = block_on(reach::send(&mut o, &b, cancel(THEIRS)));
    assert_eq!(
        outcome.unwrap_err().to_wire(),
        McpError::TaskNotFound.to_wire()
    );
    assert_eq!(principal, b.principal);
    assert_eq!(o.tasks[THEIRS].1["status"], "working", "never cancelled");
    assert!(!o.stored.reached.contains(THEIRS));
}

#[test]
fn no_session_reaches_a_keyed_callers_task_and_a_keyed_session_reaches_no_session_task() {
    let mut o = world();
    let b = o.stored.clone();
    let (outcome, _) = block_on(reach::send(&mut o, &b, cancel(KEYED)));
    assert_eq!(
        outcome.unwrap_err().to_wire(),
        McpError::TaskNotFound.to_wire()
    );
    assert_eq!(o.tasks[KEYED].1["status"], "working");
    assert!(o.stored.reached.is_empty(), "nothing recorded");

    let keyed = session("key:mallory", "cccccccccccccccccccccccccccccccc");
    o.sent.clear();
    let (outcome, _) = block_on(reach::send(&mut o, &keyed, get(THEIRS)));
    assert!(outcome.is_err());
    assert_eq!(
        o.sent,
        ["get as own"],
        "a keyed session never asks as any session"
    );
}

#[test]
fn the_first_page_lists_the_reached_tasks_in_their_place_and_forgets_the_gone() {
    let mut o = world();
    let b = o.stored.clone();
    block_on(reach::send(&mut o, &b, get(THEIRS))).0.unwrap();
    // A reached task that has since ended for good.
    o.stored.record_reached("00000000000000000000000000000009");
    let b = o.stored.clone();
    let own_page = vec![
        task(MINE, "2025-11-25T10:30:03Z"),
        task("0a", "2025-11-25T10:30:00Z"),
    ];
    let page = block_on(reach::listed(&mut o, &b, own_page)).unwrap();
    let ids: Vec<&str> = page.iter().map(|t| t["taskId"].as_str().unwrap()).collect();
    assert_eq!(ids, [MINE, THEIRS, "0a"], "newest first");
    assert_eq!(o.stored.reached.len(), 1, "the gone one is forgotten");

    // A reached task that ends is forgotten when it is next reached, too.
    o.tasks.remove(THEIRS);
    let b = o.stored.clone();
    assert!(block_on(reach::send(&mut o, &b, get(THEIRS))).0.is_err());
    assert!(o.stored.reached.is_empty());
}

#[test]
fn a_session_whose_storage_fails_says_so_instead_of_not_found() {
    // Reaching another session's task must record it first: a failed write is the
    // storage's error, not "no such task" (nor a full list).
    let mut o = world();
    o.storage_fails = true;
    let b = o.stored.clone();
    let (outcome, _) = block_on(reach::send(&mut o, &b, get(THEIRS)));
    assert!(matches!(outcome, Err(McpError::Internal(_))), "{outcome:?}");
    // Forgetting a gone task, when reached or listed, surfaces the failure too.
    o.storage_fails = false;
    block_on(reach::send(&mut o, &b, get(THEIRS))).0.unwrap();
    o.tasks.remove(THEIRS);
    o.storage_fails = true;
    let b = o.stored.clone();
    let (outcome, _) = block_on(reach::send(&mut o, &b, get(THEIRS)));
    assert!(matches!(outcome, Err(McpError::Internal(_))), "{outcome:?}");
    let listed = block_on(reach::listed(&mut o, &b, Vec::new()));
    assert!(matches!(listed, Err(McpError::Internal(_))), "{listed:?}");
}
