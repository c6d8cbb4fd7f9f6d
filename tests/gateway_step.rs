//! An upstream tool's steps (`gateway::step`) against a scripted upstream: where the call
//! is made, what is stored before it, what an interrupted call becomes, and what a
//! misbehaving upstream's answer becomes.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::*;
use mcp_tasks_edge::host::{Host, HostError, Inbound, block_on};
use mcp_tasks_edge::tools::{Call, Step};
use serde_json::{Value, json};

#[test]
fn a_call_that_may_not_repeat_is_stored_before_the_task_object_makes_it() {
    let fake = upstream(json!({}));
    let tool = tool(plain("render", json!({})), false);
    let host = Host::new(fake.clone());
    // In the Worker: a session, then "Calling" with the id the call will carry.
    let step = block_on(tool.step(Call::new(json!({ "pages": 3 })), host.clone()));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        resume_after_ms,
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        checkpoint,
        json!({ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 })
    );
    assert!(
        resume_after_ms > 0,
        "a job's first step must leave the Worker"
    );
    let sent = bodies(&fake);
    assert_eq!(
        sent.iter()
            .map(|b| b["method"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["initialize", "notifications/initialized"]
    );
    assert_eq!(
        sent[0]["params"]["capabilities"],
        json!({ "elicitation": { "form": {}, "url": {} } }),
        "a caller without the extension gets a job: asked what job_answer answers, nothing else"
    );

    // In the task object: the call, on that session, with that id; progress on the way.
    let events = format!(
        "id: 0\ndata: \n\nevent: message\ndata: {}\n\ndata: {}\n\n",
        json!({ "jsonrpc": "2.0", "method": "notifications/progress", "params": { "progressToken": "task-1", "progress": 1, "total": 3, "message": "page 1" } }),
        result(
            2,
            json!({ "content": [{ "type": "text", "text": "done" }] })
        )
    );
    let fake = resumed().answer("POST", URL, answer(200, "text/event-stream", events, None));
    let call = in_object(Call::new(json!({ "pages": 3 })), checkpoint.clone(), 1);
    let progress = call.progress.clone();
    let host = Host::new(fake.clone());
    let step = block_on(tool.step(call, host.clone()));
    assert_eq!(
        step,
        Step::Complete(
            json!({ "content": [{ "type": "text", "text": "done" }], "isError": false })
        )
    );
    assert_eq!(progress.last().unwrap().summary(), "1/3: page 1");
    let requests = fake.requests();
    let call = requests.iter().rev().find(|r| r.method == "POST").unwrap();
    let body: Value = serde_json::from_slice(&call.body).unwrap();
    assert_eq!(body["id"], 2);
    assert_eq!(
        body["params"],
        json!({ "name": "render", "arguments": { "pages": 3 }, "_meta": { "progressToken": "task-1" } })
    );
    let header = |name: &str| {
        call.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("mcp-session-id"), Some("s1"));
    assert_eq!(
        header("authorization"),
        Some("Bearer gateway-secret"),
        "the gateway's own token, from its secret"
    );
    assert_eq!(
        requests.last().unwrap().method,
        "DELETE",
        "the session is ended after the call"
    );

    // The same step again (the instance died mid-call): not called twice.
    let before = fake.requests().len();
    let step = block_on(tool.step(
        in_object(Call::new(json!({ "pages": 3 })), checkpoint, 2),
        host,
    ));
    let Step::Fail(error) = step else {
        panic!("{step:?}")
    };
    assert!(
        error.message.contains("\"render\"")
            && error.message.contains("not made again")
            && error.message.contains("idempotentHint"),
        "{}",
        error.message
    );
    assert_eq!(fake.requests().len(), before, "nothing was sent");
}

#[test]
fn a_repeatable_call_is_made_again_after_an_interruption() {
    let fake = upstream(json!({}));
    let tool = tool(plain("lookup", json!({ "idempotentHint": true })), false);
    let checkpoint =
        json!({ "phase": "calling", "session": "old", "version": "2025-11-25", "request": 2 });
    // Again on a session of its own, stored before the call.
    let step = block_on(tool.step(
        in_object(Call::new(json!({})), checkpoint, 3),
        Host::new(fake.clone()),
    ));
    let Step::Continue {
        checkpoint: Some(again),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(
        again,
        json!({ "phase": "calling", "session": "s1", "version": "2025-11-25", "request": 2 })
    );
    let fake = resumed().answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(2, json!({ "content": [] })),
            None,
        ),
    );
    let step = block_on(tool.step(in_object(Call::new(json!({})), again, 1), Host::new(fake)));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
}

#[test]
fn a_repeatable_call_answers_inline_or_moves_to_the_object_when_slow() {
    let fake = upstream(json!({}));
    let tool = tool(plain("lookup", json!({ "readOnlyHint": true })), false);
    let fake = fake.answer(
        "POST",
        URL,
        answer(
            200,
            "application/json",
            result(2, json!({ "content": [{ "type": "text", "text": "hi" }] })),
            None,
        ),
    );
    let step = block_on(tool.step(Call::new(json!({})), Host::new(fake.clone())));
    assert_eq!(
        step,
        Step::Complete(json!({ "content": [{ "type": "text", "text": "hi" }], "isError": false }))
    );

    let slow = upstream(json!({})).answer(
        "POST",
        URL,
        Err(HostError::Timeout {
            url: URL.into(),
            ms: 5000,
        }),
    );
    // Another isolate's tool (this one kept the session the first call opened).
    let tool = common::upstream::tool(plain("lookup", json!({ "readOnlyHint": true })), false);
    let step = block_on(tool.step(Call::new(json!({})), Host::new(slow.clone())));
    let Step::Continue {
        checkpoint: Some(checkpoint),
        ..
    } = step
    else {
        panic!("{step:?}")
    };
    assert_eq!(checkpoint, json!({ "phase": "start" }));
    let sent = bodies(&slow);
    let cancel = sent
        .iter()
        .find(|b| b["method"] == "notifications/cancelled")
        .expect("the abandoned call is cancelled upstream");
    assert_eq!(cancel["params"]["requestId"], 2);
}

#[test]
fn upstream_errors_keep_their_code_and_message() {
    let fake = upstream(json!({}));
    let tool = tool(plain("lookup", json!({ "idempotentHint": true })), false);
    let error = json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32602, "message": "no such report" } });
    let fake = fake.answer(
        "POST",
        URL,
        answer(200, "application/json", error.to_string(), None),
    );
    let Step::Fail(error) = block_on(tool.step(Call::new(json!({})), Host::new(fake))) else {
        panic!()
    };
    assert_eq!(
        (error.code.0, error.message.as_str()),
        (-32602, "no such report")
    );
}

#[test]
fn a_misbehaving_upstream_is_a_clear_error() {
    let cases: [(Result<Inbound, HostError>, &str); 6] = [
        (
            answer(200, "application/json", "{not json".into(), None),
            "not JSON",
        ),
        (
            answer(200, "text/html", "<html>".into(), None),
            "neither JSON nor an event stream",
        ),
        (answer(302, "text/plain", String::new(), None), "redirect"),
        (
            answer(500, "text/plain", "boom".into(), None),
            "HTTP 500: boom",
        ),
        (
            answer(200, "application/json", result(7, json!({})), None),
            "answered request 7 where 2 was asked",
        ),
        (
            Err(HostError::TooLarge {
                url: URL.into(),
                limit: 10,
            }),
            "more than the 10 bytes",
        ),
    ];
    for (reply, expected) in cases {
        let fake = upstream(json!({}));
        let tool = tool(plain("lookup", json!({ "idempotentHint": true })), false);
        let fake = fake.answer("POST", URL, reply);
        let Step::Fail(error) = block_on(tool.step(Call::new(json!({})), Host::new(fake))) else {
            panic!("{expected}")
        };
        assert_eq!(error.code.0, -32603);
        assert!(
            error.message.contains("\"up\"") && error.message.contains(expected),
            "{expected}: {}",
            error.message
        );
    }
}
