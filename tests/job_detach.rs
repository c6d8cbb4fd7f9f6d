//! A job's creation and wait for a client without the Tasks extension
//! (`server::wait::detach`), on objects and a platform that record what they were asked:
//! the task is stored under the caller's quotas before it is followed, a refusal keeps its
//! status and `Retry-After`, and a caller who leaves before the handle cancels the job it
//! left (as that caller), whatever the cancel's fate.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::jobs::task;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::jsonrpc::{self, ErrorCode};
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::server::creation::{Creating, Reply};
use mcp_tasks_edge::server::follower::{Follower, Step};
use mcp_tasks_edge::server::perform::Via;
use mcp_tasks_edge::server::wait::{self, Followed, Jobs};
use mcp_tasks_edge::server::{Action, Server};
use mcp_tasks_edge::tasks::protocol::{ObjectError, ObjectRequest, RESULT_STATUS};
use mcp_tasks_edge::tools::Progress;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;

/// The objects and the platform: the live-task quota refuses when `full`, the task
/// object answers `stored`, the job's states come from `states`, the caller leaves
/// at once when `leaves`.
struct Recorded {
    full: bool,
    stored: Reply,
    states: RefCell<VecDeque<Value>>,
    leaves: bool,
    ids: Result<String, String>,
    calls: RefCell<Vec<String>>,
}

impl Recorded {
    fn new(states: Vec<Value>) -> Recorded {
        Recorded {
            full: false,
            stored: Ok((RESULT_STATUS, b"{}".to_vec())),
            states: RefCell::new(states.into()),
            leaves: false,
            ids: Ok(SID.into()),
            calls: RefCell::default(),
        }
    }

    fn note(&self, call: String) {
        self.calls.borrow_mut().push(call);
    }
}

impl Creating for Recorded {
    async fn ledger(&self, principal: &str, request: &LedgerRequest) -> Result<(), McpError> {
        let op = jsonrpc::payload(request)["op"].clone();
        self.note(format!("ledger {principal} {op}"));
        match (self.full, op.as_str()) {
            (true, Some("acquireTask")) => Err(McpError::TooManyRequests {
                limit: "QUOTA_LIVE_TASKS",
                max: 1,
                retry_after_s: 5,
            }),
            _ => Ok(()),
        }
    }

    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply {
        let op = jsonrpc::payload(request)["op"].clone();
        self.note(format!("object {principal} {op} {}", request.task_id()));
        self.stored.clone()
    }

    fn print(&self, _: Line) {}
}

/// The job's states, in turn.
struct States(VecDeque<Value>);

impl Followed for States {
    async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        yield_once().await;
        self.0.pop_front().map(Ok)
    }

    fn now_ms(&self) -> u64 {
        NOW
    }
}

impl Jobs for Recorded {
    type Watch = States;

    fn watch(&self, job: &str, principal: &str, _: (Follower, Step)) -> States {
        self.note(format!("watch {principal} {job}"));
        States(std::mem::take(&mut *self.states.borrow_mut()))
    }

    fn now_ms(&self) -> u64 {
        NOW
    }

    fn new_task_id(&self) -> Result<String, String> {
        self.ids.clone()
    }

    async fn left(&self) {
        if !self.leaves {
            std::future::pending::<()>().await
        }
    }

    async fn abandon(&self, principal: &str, cancel: ObjectRequest) {
        let op = jsonrpc::payload(&cancel)["op"].clone();
        self.note(format!("abandon {principal} {op} {}", cancel.task_id()));
    }
}

/// A 90-second `slow_compute` called without the extension: the job the server detaches.
fn detached(server: &Server, fx: &Recorded) -> HttpResponse {
    let params =
        json!({ "name": "slow_compute", "arguments": { "seconds": 90 }, "_meta": meta(json!({})) });
    let action = run_action(server, server.handle(&post("tools/call", params), &ctx()));
    let Action::Detach { record, run } = action else {
        panic!("expected a job, got {action:?}")
    };
    let progress = Progress::default();
    let via = Via {
        progress: &progress,
        asker: None,
        asks: true,
    };
    block_on(wait::detach(server, fx, fx, &ctx(), record, *run, &via))
}

fn done() -> Value {
    let result = json!({ "result": { "content": [{ "type": "text", "text": "42" }] } });
    task("completed", result)
}

#[test]
fn a_job_is_stored_then_followed_to_its_result() {
    let fx = Recorded::new(vec![task("working", json!({})), done()]);
    let answered = body(&detached(&server(), &fx));
    assert_eq!(answered["result"]["content"][0]["text"], "42", "{answered}");
    assert_eq!(
        *fx.calls.borrow(),
        [
            // An anonymous caller's task is its own principal (`auth::anonymous`).
            format!("ledger anonymous-task:{SID} \"acquireTask\""),
            format!("object anonymous-task:{SID} \"create\" {SID}"),
            format!("watch anonymous {SID}"),
        ]
    );
}

#[test]
fn a_job_refused_by_the_live_task_quota_keeps_its_429_and_retry_after() {
    let mut server = server();
    server.config.quotas.live_tasks = Some(1);
    let mut fx = Recorded::new(vec![done()]);
    fx.full = true;
    let refused = detached(&server, &fx);
    assert_eq!(refused.status, 429);
    let retry = refused.headers.iter().find(|(n, _)| *n == "retry-after");
    assert_eq!(retry.map(|(_, v)| v.as_str()), Some("5"));
    let error = &body(&refused)["error"];
    assert_eq!(error["data"]["limit"], "QUOTA_LIVE_TASKS", "{error}");
    // Neither stored nor followed.
    let calls = fx.calls.borrow();
    assert!(
        calls
            .iter()
            .all(|c| !c.starts_with("object") && !c.starts_with("watch")),
        "{calls:?}"
    );
}

#[test]
fn an_object_that_refuses_or_cannot_be_reached_is_answered_and_not_followed() {
    let mut fx = Recorded::new(vec![done()]);
    fx.stored = Ok((404, br#"{"code":-32602,"message":"no"}"#.to_vec()));
    let refused = detached(&server(), &fx);
    assert_ne!(refused.status, 200);
    let mut fx = Recorded::new(vec![done()]);
    fx.stored = Err("the object is gone".into());
    let unreachable = detached(&server(), &fx);
    assert!(body(&unreachable)["error"].is_object());
    let mut fx = Recorded::new(vec![done()]);
    fx.ids = Err("no randomness".into());
    let no_id = detached(&server(), &fx);
    assert!(body(&no_id)["error"].is_object());
    assert!(fx.calls.borrow().is_empty(), "stored without an id");
}

#[test]
fn a_caller_who_leaves_before_the_handle_cancels_its_job_as_itself() {
    let mut fx = Recorded::new(vec![task("working", json!({}))]);
    fx.leaves = true;
    let left = body(&detached(&server(), &fx));
    assert_eq!(
        left["error"]["code"],
        ErrorCode::REQUEST_CANCELLED.0,
        "{left}"
    );
    let calls = fx.calls.borrow();
    assert_eq!(
        calls.last().unwrap(),
        &format!("abandon anonymous \"cancel\" {SID}")
    );
    // The log line of a cancel that failed names the job's caller (pseudonymized).
    let line = wait::abandon_failed("ended meanwhile", "key:alice");
    let line: Value = serde_json::from_str(&line.render(&Default::default()).unwrap()).unwrap();
    assert_eq!(line["level"], "warn");
    assert!(line["principal"].is_string(), "{line}");
    assert!(
        line["error"].as_str().unwrap().ends_with("ended meanwhile"),
        "{line}"
    );
}
