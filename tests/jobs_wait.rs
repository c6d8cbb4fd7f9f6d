//! A job's wait (`src/server/jobs/wait.rs`) on scripted task states and objects that
//! record what they were sent: the call's own request for the task goes first, progress
//! reaches the call, a question travels by MRTR or on a session's stream (whose answers
//! go to the task only when every question is answered validly), and a wait that ends
//! unanswered answers the job's handle.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::jobs::{JOB, call_reader, run, task};
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::{BoxFuture, block_on};
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::server::call::Asker;
use mcp_tasks_edge::server::creation::{Creating, Reply};
use mcp_tasks_edge::server::jobs::JobRun;
use mcp_tasks_edge::server::perform::Via;
use mcp_tasks_edge::server::wait::{Followed, follow_on as follow};
use mcp_tasks_edge::tasks::protocol::{ObjectError, ObjectReply, ObjectRequest, RESULT_STATUS};
use mcp_tasks_edge::tools::Progress;
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// The task's states in turn (`None`: the wait is over), and what its object was sent.
#[derive(Default)]
struct Script {
    states: RefCell<VecDeque<Result<Value, ObjectError>>>,
    sent: RefCell<Vec<Value>>,
    refuse: bool,
}

impl Followed for &Script {
    async fn next(&mut self) -> Option<Result<Value, ObjectError>> {
        self.states.borrow_mut().pop_front()
    }

    fn now_ms(&self) -> u64 {
        NOW
    }
}

impl Creating for Script {
    async fn ledger(&self, _: &str, _: &LedgerRequest) -> Result<(), McpError> {
        unreachable!("a wait counts nothing")
    }

    async fn forward(&self, principal: &str, request: &ObjectRequest) -> Reply {
        assert_eq!(principal, "anonymous", "sent as the caller");
        self.sent
            .borrow_mut()
            .push(serde_json::to_value(request).unwrap());
        match self.refuse {
            true => Ok(ObjectReply::Error(McpError::TaskNotFound.to_wire()).encode()),
            false => Ok((RESULT_STATUS, b"{}".to_vec())),
        }
    }

    fn print(&self, _: Line) {}
}

/// A session client that answers every question with `answers`.
struct Client(Value);

impl Asker for Client {
    fn ask(&self, _: Map<String, Value>) -> BoxFuture<'_, Result<Map<String, Value>, McpError>> {
        let answers = self.0.as_object().unwrap().clone();
        Box::pin(std::future::ready(Ok(answers)))
    }
}

fn script(states: Vec<Value>) -> Script {
    Script {
        states: RefCell::new(states.into_iter().map(Ok).collect()),
        ..Script::default()
    }
}

fn wait(s: &Script, run: &JobRun, via: &Via) -> Value {
    let server = server();
    body(&block_on(follow(&server, s, &mut &*s, &ctx(), run, via)))
}

fn asking() -> Value {
    task(
        "input_required",
        json!({ "inputRequests": { "confirm": { "method": "elicitation/create",
        "params": { "mode": "form", "message": "Go on?", "requestedSchema": { "type": "object",
            "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } } } } }),
    )
}

fn done() -> Value {
    task(
        "completed",
        json!({ "result": { "content": [{ "type": "text", "text": "42" }] } }),
    )
}

#[test]
fn the_calls_own_request_goes_first_and_progress_reaches_the_call() {
    let facts = json!({ "_meta": { "mcp-tasks-edge/task": { "progress": 2, "total": 4 } } });
    let s = script(vec![task("working", facts), done()]);
    let reports = Rc::new(RefCell::new(Vec::new()));
    let seen = reports.clone();
    let progress = Progress::to(move |r| seen.borrow_mut().push(r.progress));
    let via = Via {
        progress: &progress,
        asker: None,
        asks: true,
    };
    let mut run = run(call_reader(), true, json!({}));
    run.first = Some(ObjectRequest::Get {
        task_id: JOB.into(),
    });
    let answered = wait(&s, &run, &via);
    assert_eq!(answered["result"]["content"][0]["text"], "42");
    assert_eq!(
        s.sent.borrow()[0]["op"],
        "get",
        "sent before the first state"
    );
    assert_eq!(*reports.borrow(), [2.0]);
    // Refused (its task gone): the job's refusal, and nothing followed.
    let refused = Script {
        refuse: true,
        ..script(vec![done()])
    };
    let answered = wait(&refused, &run, &via);
    assert_eq!(
        answered["result"]["structuredContent"]["error"],
        "unknown_job"
    );
    assert_eq!(refused.states.borrow().len(), 1);
}

#[test]
fn a_question_travels_by_mrtr_when_there_is_no_session_stream() {
    let s = script(vec![asking()]);
    let progress = Progress::default();
    let via = Via {
        progress: &progress,
        asker: None,
        asks: true,
    };
    let run = run(call_reader(), false, json!({ "elicitation": {} }));
    let asked = wait(&s, &run, &via);
    assert_eq!(asked["result"]["resultType"], "input_required");
    assert!(asked["result"]["requestState"].is_string(), "signed now");
    assert!(s.sent.borrow().is_empty());
}

#[test]
fn a_sessions_answers_go_to_the_task_only_when_every_question_is_answered_validly() {
    let progress = Progress::default();
    let run = run(call_reader(), false, json!({ "elicitation": {} }));
    let accept = json!({ "confirm": { "action": "accept", "content": { "ok": true } } });
    let client = Client(accept.clone());
    let via = Via {
        progress: &progress,
        asker: Some(&client),
        asks: true,
    };
    let s = script(vec![asking(), done()]);
    assert_eq!(wait(&s, &run, &via)["result"]["content"][0]["text"], "42");
    let sent = s.sent.borrow();
    assert_eq!(
        (sent[0]["op"].as_str(), &sent[0]["inputResponses"]),
        (Some("update"), &accept)
    );
    // An answer that does not fit its question: refused, nothing sent to the task.
    let wrong = Client(json!({ "confirm": { "action": "accept", "content": { "ok": "yes" } } }));
    let via = Via {
        progress: &progress,
        asker: Some(&wrong),
        asks: true,
    };
    let s = script(vec![asking(), done()]);
    let refused = wait(&s, &run, &via);
    assert_eq!(refused["result"]["structuredContent"]["error"], "refused");
    let why = refused["result"]["structuredContent"]["message"]
        .as_str()
        .unwrap();
    assert!(
        why.contains("does not match the requested schema: /ok"),
        "{why}"
    );
    assert!(s.sent.borrow().is_empty());
}

#[test]
fn a_wait_that_ends_unanswered_answers_the_jobs_handle() {
    let s = script(vec![task("working", json!({}))]);
    let progress = Progress::default();
    let via = Via {
        progress: &progress,
        asker: None,
        asks: false,
    };
    let run = run(call_reader(), false, json!({}));
    let handle = wait(&s, &run, &via);
    assert_eq!(handle["result"]["structuredContent"]["job"], JOB);
    assert_eq!(handle["result"]["structuredContent"]["status"], "working");
}
