//! How a 2025-11-25 session reaches a task by its id (`legacy::reach`), on task objects
//! that answer as the real ones do (`auth::anonymous::reaches` decides who sees what) and
//! a session kept in a value. Attacked as the security stance asks: a stranger's session
//! never reaches a keyed caller's task, and a task is never changed by a session that
//! could not list it afterwards.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::auth::anonymous::{ANY_SESSION, reaches};
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::legacy::reach::{self, Reaching};
use mcp_tasks_edge::legacy::{MAX_REACHED, Session, initialize};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const MINE: &str = "00000000000000000000000000000001";
const THEIRS: &str = "00000000000000000000000000000002";
const KEYED: &str = "00000000000000000000000000000003";

/// Task objects by id (owner, task) and the session as stored; what was sent, in order.
struct Objects {
    tasks: BTreeMap<String, (String, Value)>,
    stored: Session,
    sent: Vec<String>,
}

fn not_found() -> McpError {
    McpError::Wire(McpError::TaskNotFound.to_wire())
}

impl Reaching for Objects {
    async fn send(&mut self, request: ObjectRequest, principal: &str) -> Result<Value, McpError> {
        let (name, id) = match &request {
            ObjectRequest::Get { task_id } => ("get", task_id),
            ObjectRequest::LegacyCancel { task_id } => ("cancel", task_id),
            other => panic!("a session sends no {other:?}"),
        };
        let who = if principal == ANY_SESSION {
            "any"
        } else {
            "own"
        };
        self.sent.push(format!("{name} as {who}"));
        let Some((owner, task)) = self.tasks.get_mut(id.as_str()) else {
            return Err(not_found());
        };
        if !reaches(principal, owner) {
            return Err(not_found());
        }
        if name == "cancel" {
            task["status"] = json!("cancelled");
        }
        Ok(task.clone())
    }

    async fn read_all(&mut self, ids: Vec<String>) -> Vec<(String, Option<Value>)> {
        self.sent.push(format!("read {} as any", ids.len()));
        ids.into_iter()
            .map(|id| {
                let task = self
                    .tasks
                    .get(&id)
                    .filter(|(owner, _)| reaches(ANY_SESSION, owner))
                    .map(|(_, task)| task.clone());
                (id, task)
            })
            .collect()
    }

    async fn update(&mut self, change: &mut dyn FnMut(&mut Session) -> bool) -> Option<Session> {
        let mut session = self.stored.clone();
        if change(&mut session) {
            self.sent.push("store".into());
            self.stored = session.clone();
        }
        Some(session)
    }
}

fn session(caller: &str, id: &str) -> Session {
    let params = json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } });
    let (_, session) = initialize(&server(), params.as_object().unwrap(), id, caller, NOW).unwrap();
    session
}

fn task(id: &str, created: &str) -> Value {
    json!({ "taskId": id, "status": "working", "createdAt": created })
}

/// Session B (anonymous) beside: its own task, session A's (anonymous) and a keyed caller's.
fn world() -> Objects {
    let a = session("anonymous", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    let b = session("anonymous", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    let mut tasks = BTreeMap::new();
    tasks.insert(
        MINE.into(),
        (b.principal.clone(), task(MINE, "2025-11-25T10:30:03Z")),
    );
    tasks.insert(
        THEIRS.into(),
        (a.principal.clone(), task(THEIRS, "2025-11-25T10:30:02Z")),
    );
    tasks.insert(
        KEYED.into(),
        ("key:alice".into(), task(KEYED, "2025-11-25T10:30:01Z")),
    );
    Objects {
        tasks,
        stored: b,
        sent: Vec::new(),
    }
}

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
    let page = block_on(reach::listed(&mut o, &b, own_page));
    let ids: Vec<&str> = page.iter().map(|t| t["taskId"].as_str().unwrap()).collect();
    assert_eq!(ids, [MINE, THEIRS, "0a"], "newest first");
    assert_eq!(o.stored.reached.len(), 1, "the gone one is forgotten");

    // A reached task that ends is forgotten when it is next reached, too.
    o.tasks.remove(THEIRS);
    let b = o.stored.clone();
    assert!(block_on(reach::send(&mut o, &b, get(THEIRS))).0.is_err());
    assert!(o.stored.reached.is_empty());
}
