//! `tasks/result`'s loop (`legacy::result_loop`) of the 2025-11-25 session object, on a
//! script of task states (each `get` is the task's next state, as the platform's follow
//! gives it): every request, notification and question it makes is
//! recorded in order, so answering a `tasks/result` before its status notification fails a
//! test here. The session object's runner: tests/session_object.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::{BoxFuture, block_on};
use mcp_tasks_edge::legacy::result_loop::{self, Waiting};
use mcp_tasks_edge::server::call::Asker;
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

const TID: &str = "00112233445566778899aabbccddeeff";

/// What `tasks/result` asked of its platform, in order.
#[derive(Debug, Clone, PartialEq)]
enum Turn {
    Get,
    Sent(String),
    Asked(Vec<String>),
    /// The GET streams told to hold the task's questions back (`true`), or not.
    Asking(bool),
    Update(Value),
    Offered,
}

type Log = Rc<RefCell<Vec<Turn>>>;

/// The task's states as its object would answer them in turn; `streams_open`: GET
/// streams to offer questions on.
struct Script {
    states: VecDeque<Value>,
    streams_open: bool,
    turns: Log,
}

/// The client on the response stream: it answers `answers` at once, or never (`None`:
/// the task moves on first).
struct Client {
    answers: Option<Map<String, Value>>,
    turns: Log,
}

impl Asker for Client {
    fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> BoxFuture<'_, Result<Map<String, Value>, McpError>> {
        self.turns
            .borrow_mut()
            .push(Turn::Asked(requests.keys().cloned().collect()));
        match self.answers.clone() {
            Some(answers) => Box::pin(std::future::ready(Ok(answers))),
            None => Box::pin(std::future::pending()),
        }
    }
}

impl Script {
    fn client(&self, answers: Option<Value>) -> Client {
        Client {
            answers: answers.map(|a| a.as_object().unwrap().clone()),
            turns: self.turns.clone(),
        }
    }

    fn turns(&self) -> Vec<Turn> {
        self.turns.borrow().clone()
    }
}

fn task(status: &str, extra: Value) -> Value {
    common::task_state(TID, status, extra)
}

fn script(states: Vec<Value>) -> Script {
    Script {
        states: states.into(),
        streams_open: false,
        turns: Log::default(),
    }
}

impl Waiting for Script {
    fn task_id(&self) -> &str {
        TID
    }

    async fn get(&mut self) -> Result<Value, McpError> {
        self.turns.borrow_mut().push(Turn::Get);
        Ok(self
            .states
            .pop_front()
            .expect("the script has no more states"))
    }

    async fn update(&mut self, answers: Map<String, Value>) -> Result<(), McpError> {
        self.turns
            .borrow_mut()
            .push(Turn::Update(Value::Object(answers)));
        Ok(())
    }

    fn send(&mut self, message: Value) {
        let status = message["params"]["status"].as_str().unwrap_or_default();
        self.turns.borrow_mut().push(Turn::Sent(format!(
            "{} {status}",
            message["method"].as_str().unwrap()
        )));
    }

    fn asking(&mut self, asking: bool) {
        self.turns.borrow_mut().push(Turn::Asking(asking));
    }

    fn offer(&mut self, _: &Value) -> bool {
        self.turns.borrow_mut().push(Turn::Offered);
        self.streams_open
    }
}

fn asking() -> Value {
    task(
        "input_required",
        json!({ "inputRequests": { "name": { "method": "elicitation/create",
            "params": { "mode": "form", "message": "Name?", "requestedSchema": { "type": "object", "properties": {} } } } } }),
    )
}

fn status(s: &str) -> Turn {
    Turn::Sent(format!("notifications/tasks/status {s}"))
}

fn asking_for(key: &str) -> Value {
    task(
        "input_required",
        json!({ "inputRequests": { key: { "method": "elicitation/create",
            "params": { "mode": "form", "message": "?", "requestedSchema": { "type": "object", "properties": {} } } } } }),
    )
}

fn done() -> Value {
    task("completed", json!({ "result": { "content": [] } }))
}

#[test]
fn a_streamed_result_tells_each_status_once_asks_and_then_answers() {
    let working = || task("working", json!({}));
    let mut w = script(vec![working(), working(), asking(), done()]);
    let answer = json!({ "name": { "action": "accept", "content": { "name": "Ada" } } });
    let client = w.client(Some(answer.clone()));
    let result = block_on(result_loop::result(&mut w, Some(&client), None)).unwrap();
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        TID
    );
    assert_eq!(
        w.turns(),
        [
            Turn::Get,
            status("working"),
            Turn::Get,
            Turn::Get,
            status("input_required"),
            Turn::Asking(true),
            Turn::Asked(vec!["name".into()]),
            Turn::Asking(false),
            Turn::Update(answer),
            Turn::Get,
            status("completed"),
        ]
    );
}

#[test]
fn a_result_starts_from_the_task_its_caller_read_without_reading_it_again() {
    let mut w = script(vec![done()]);
    let read = task("working", json!({}));
    let client = w.client(None);
    block_on(result_loop::result(&mut w, Some(&client), Some(read))).unwrap();
    assert_eq!(
        w.turns(),
        [status("working"), Turn::Get, status("completed")]
    );
    // Already ended when read: answered with no request at all.
    let mut w = script(vec![]);
    block_on(result_loop::result(&mut w, None, Some(done()))).unwrap();
    assert_eq!(w.turns(), []);
}

#[test]
fn a_result_whose_task_moved_on_while_asking_stops_asking_and_answers_for_that_state() {
    let mut w = script(vec![asking(), task("cancelled", json!({}))]);
    let client = w.client(None);
    let error = block_on(result_loop::result(&mut w, Some(&client), None)).unwrap_err();
    // A cancelled task's result is -32603 (legacy tasks "Result Retrieval"), told after
    // its status.
    assert_eq!(error.to_wire().code.0, -32603);
    assert_eq!(
        w.turns(),
        [
            Turn::Get,
            status("input_required"),
            Turn::Asking(true),
            Turn::Asked(vec!["name".into()]),
            Turn::Get,
            Turn::Asking(false),
            status("cancelled"),
        ]
    );
}

#[test]
fn while_asking_a_state_with_the_same_questions_waits_on_and_new_questions_are_asked_anew() {
    let mut w = script(vec![asking(), asking(), asking_for("color"), done()]);
    let client = w.client(None);
    block_on(result_loop::result(&mut w, Some(&client), None)).unwrap();
    assert_eq!(
        w.turns(),
        [
            Turn::Get,
            status("input_required"),
            Turn::Asking(true),
            Turn::Asked(vec!["name".into()]),
            Turn::Get,
            Turn::Get,
            Turn::Asking(false),
            Turn::Asking(true),
            Turn::Asked(vec!["color".into()]),
            Turn::Get,
            Turn::Asking(false),
            status("completed"),
        ]
    );
}

#[test]
fn a_failed_task_answers_its_own_error() {
    let failed = task(
        "failed",
        json!({ "error": { "code": -32602, "message": "bad input" } }),
    );
    let mut w = script(vec![failed]);
    let client = w.client(None);
    let error = block_on(result_loop::result(&mut w, Some(&client), None)).unwrap_err();
    let wire = error.to_wire();
    assert_eq!((wire.code.0, wire.message.as_str()), (-32602, "bad input"));
}

#[test]
fn a_json_result_offers_questions_on_get_streams_or_says_what_to_accept() {
    // No GET stream to carry the question: 406, sent nothing, updated nothing.
    let mut w = script(vec![task("working", json!({})), asking()]);
    let error = block_on(result_loop::result(&mut w, None, None)).unwrap_err();
    assert_eq!(error.http_status(), 406);
    assert_eq!(w.turns(), [Turn::Get, Turn::Get, Turn::Offered]);

    // With one open, the question is offered there and the answer waits for the task.
    let mut w = script(vec![asking(), done()]);
    w.streams_open = true;
    block_on(result_loop::result(&mut w, None, None)).unwrap();
    assert_eq!(w.turns(), [Turn::Get, Turn::Offered, Turn::Get]);
}
