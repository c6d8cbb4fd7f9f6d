//! A held call's stream read as it arrives (`gateway::step`'s relay): the upstream's
//! progress reaches the call as it comes, a question it asks mid-call (2025-11-25
//! `elicitation/create` on the call's stream) is the caller's, asked while the call stays
//! open, and the answer goes back upstream as the JSON-RPC response before the rest is
//! read; in the Worker, where nothing can be asked mid-step, the call is handed over.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::*;
use mcp_tasks_edge::host::fake::{FakeHost, Piece};
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::tools::{Call, Progress, Step, ToolError};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::rc::Rc;

fn event(message: Value) -> String {
    format!("event: message\ndata: {message}\n\n")
}

fn question(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "mode": "form", "message": "Which colour?",
        "requestedSchema": { "type": "object", "properties": { "colour": { "type": "string" } } } } })
}

fn progress(n: u64) -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/progress",
        "params": { "progressToken": "task-1", "progress": n, "total": 2, "message": format!("page {n}") } })
}

const CALLING: &str =
    r#"{ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 }"#;

/// What the step's sinks saw, in order.
type Seen = Rc<RefCell<Vec<String>>>;

/// A call in the task object whose questions are answered with `answer` (as the task
/// object's runner would, once the client answered).
fn asking(seen: &Seen, answer: Result<Value, ToolError>) -> Call {
    let mut call = in_object(
        Call::new(json!({})).declaring(json!({ "elicitation": {} })),
        serde_json::from_str(CALLING).unwrap(),
        1,
    );
    let reports = seen.clone();
    let logs = seen.clone();
    let asks = seen.clone();
    call.progress = Progress::to(move |r| reports.borrow_mut().push(r.summary()))
        .logging_to(move |level, data| logs.borrow_mut().push(format!("{level}: {data}")))
        .asking_to(Rc::new(move |requests: Map<String, Value>| {
            asks.borrow_mut().push(Value::Object(requests).to_string());
            let answer = answer.clone();
            Box::pin(async move {
                answer.map(|a| {
                    let mut answers = Map::new();
                    answers.insert("upstream".into(), a);
                    answers
                })
            })
        }));
    call
}

/// `fake` answering the call (`tools/call`) with an event stream of `pieces`.
fn streaming_call(fake: FakeHost, pieces: Vec<Piece>) -> FakeHost {
    fake.stream_when("POST", URL, "tools/call", 200, "text/event-stream", pieces)
}

/// A session open already whose call streams `pieces`; what else is sent is taken (202).
fn resumed_streaming(pieces: Vec<Piece>) -> FakeHost {
    streaming_call(resumed(), pieces).answer(
        "POST",
        URL,
        answer(202, "text/plain", String::new(), None),
    )
}

/// `data`, sent only once the upstream's request `id` was answered.
fn once_answered(id: u64, data: String) -> Piece {
    Piece::After {
        method: "POST".into(),
        url: URL.into(),
        contains: format!(r#""id":{id},"#),
        data,
    }
}

fn upstream_asking() -> FakeHost {
    resumed_streaming(vec![
        Piece::Data(event(progress(1))),
        Piece::Data(event(
            json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "info", "data": "asking" } }),
        )),
        Piece::Data(event(question(0))),
        // The rest comes only once the answer reached the upstream.
        once_answered(
            0,
            event(progress(2))
                + &event(json!({ "jsonrpc": "2.0", "id": 2, "result": {
                "content": [{ "type": "text", "text": "green it is" }] } })),
        ),
    ])
}

#[test]
fn a_question_asked_mid_call_is_the_callers_and_its_answer_goes_back_before_the_rest() {
    let tool = tool(plain("survey", json!({})), false);
    let fake = upstream_asking();
    let seen = Seen::default();
    let accept = json!({ "action": "accept", "content": { "colour": "green" } });
    let step = block_on(tool.step(asking(&seen, Ok(accept.clone())), Host::new(fake.clone())));
    assert_eq!(
        step,
        Step::Complete(
            json!({ "content": [{ "type": "text", "text": "green it is" }], "isError": false })
        )
    );
    let seen = seen.borrow();
    assert_eq!(
        seen[0], "1/2: page 1",
        "progress as it came, before the question"
    );
    assert_eq!(seen[1], "info: \"asking\"", "its log message is the call's");
    let asked: Value = serde_json::from_str(&seen[2]).unwrap();
    assert_eq!(
        asked,
        json!({ "upstream": { "method": "elicitation/create", "params": question(0)["params"] } })
    );
    assert_eq!(seen[3], "2/2: page 2");
    // The answer: the JSON-RPC response to the upstream's request, on the call's session.
    let reply = fake
        .requests()
        .into_iter()
        .find(|r| String::from_utf8_lossy(&r.body).contains(r#""id":0"#))
        .expect("the answer was sent");
    let body: Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(body, json!({ "jsonrpc": "2.0", "id": 0, "result": accept }));
    assert!(
        reply
            .headers
            .iter()
            .any(|(n, v)| n == "mcp-session-id" && v == "s1")
    );
    assert_eq!(fake.streams_dropped(), 0);
}

#[test]
fn a_question_the_caller_cannot_answer_goes_back_as_an_error_and_the_call_goes_on() {
    let tool = tool(plain("survey", json!({})), false);
    let fake = resumed_streaming(vec![
        Piece::Data(event(question(7))),
        once_answered(
            7,
            event(json!({ "jsonrpc": "2.0", "id": 2, "result": {
                "content": [{ "type": "text", "text": "no colour" }] } })),
        ),
    ]);
    let refusal = mcp_tasks_edge::tools::internal_error("the client declared no elicitation");
    let step = block_on(tool.step(
        asking(&Seen::default(), Err(ToolError::Rpc(refusal.clone()))),
        Host::new(fake.clone()),
    ));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
    let reply = bodies(&fake)
        .into_iter()
        .find(|b| b["id"] == 7)
        .expect("answered");
    assert_eq!(reply["error"]["message"], refusal.message);
}

#[test]
fn in_the_worker_a_question_hands_the_call_over_to_the_task_object() {
    // Repeatable, so the Worker calls it first; it asks: the Worker cannot.
    let tool = tool(plain("lookup", json!({ "readOnlyHint": true })), false);
    let fake = streaming_call(
        upstream(json!({})),
        vec![
            Piece::Data(event(question(0))),
            Piece::Data(event(
                json!({ "jsonrpc": "2.0", "id": 2, "result": { "content": [] } }),
            )),
        ],
    );
    let call = Call::new(json!({})).declaring(json!({ "elicitation": {} }));
    let step = block_on(tool.step(call, Host::new(fake.clone())));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(checkpoint, json!({ "phase": "start" }));
    assert_eq!(fake.streams_dropped(), 1, "the Worker's call was closed");
    let sent = bodies(&fake);
    assert_eq!(
        sent[0]["params"]["capabilities"],
        json!({ "elicitation": { "form": {}, "url": {} } }),
        "what the caller can be asked is declared at initialize (a job's: job_answer's too)"
    );
    let cancelled = sent
        .iter()
        .find(|b| b["method"] == "notifications/cancelled")
        .expect("the Worker's call is cancelled upstream");
    assert_eq!(cancelled["params"]["requestId"], 2);
    assert!(
        !sent.iter().any(|b| b["id"] == 0),
        "the question is not answered by the Worker"
    );
    // A call without a caller of its own keeps no session (tests/gateway_kept.rs).
    assert_eq!(fake.requests().last().unwrap().method, "DELETE");
}
