//! The TaskObject's pure behaviour: creation, ownership, polling, partial updates,
//! cancellation, expiry and steps driven by alarms, through the real storage layout.
//! (Leases, lost attempts and illegal steps: tests/execution.rs.)
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object, create_from};
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::{Value, json};

/// A task of `tool` created through the server's tools/call, in a new object.
fn start(tool: &str, arguments: Value) -> (Object, Value) {
    let request = post(
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
    );
    create_from(&server(), &request)
}

#[test]
fn create_poll_complete() {
    let (mut o, created) = start("slow_compute", json!({ "seconds": 2 }));
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert_eq!(created["createdAt"], "2025-11-25T10:30:00.000Z");
    assert_eq!(o.alarm, Some(NOW + 2000));
    assert_eq!(o.get(NOW + 10)["status"], "working");
    o.tick(NOW + 2000);
    let done = o.get(NOW + 2001);
    assert_eq!(done["status"], "completed");
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["type"], "text");
    // 2026-07-28: the inner CallToolResult is a Result too (tests/wire_tasks.rs pins the bytes).
    assert_eq!(done["result"]["resultType"], "complete");
    // Next alarm: the expiry.
    assert_eq!(o.alarm, Some(NOW + 3_600_000));
}

#[test]
fn other_principals_and_unknown_ids_see_nothing() {
    let (mut o, _) = start("slow_compute", json!({ "seconds": 60 }));
    let foreign = o.request(
        ObjectRequest::Get { task_id: ID.into() },
        "bearer:someone-else",
        NOW,
    );
    let unknown = Object::new(server().registry, server().limits()).request(
        ObjectRequest::Get { task_id: ID.into() },
        "anonymous",
        NOW,
    );
    assert_eq!(foreign, unknown);
    let ObjectReply::Error(e) = foreign else {
        panic!()
    };
    assert_eq!(e.code.0, -32602);
    // Another principal cannot cancel either, and nothing is written.
    let before = o.storage.clone();
    assert!(matches!(
        o.request(
            ObjectRequest::Cancel { task_id: ID.into() },
            "bearer:x",
            NOW
        ),
        ObjectReply::Error(_)
    ));
    assert_eq!(o.storage, before);
}

#[test]
fn input_required_partial_update_then_complete() {
    let (mut o, _) = start("multi_input", json!({}));
    o.tick(NOW);
    let waiting = o.get(NOW + 1);
    assert_eq!(waiting["status"], "input_required");
    let keys: Vec<String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys, ["first#1", "second#1"]);
    let answer = json!({ "action": "accept", "content": { "name": "x", "confirm": true } });
    // An unknown key is ignored; a partial answer keeps the task waiting.
    let ack = o.request(
        ObjectRequest::Update {
            task_id: ID.into(),
            input_responses: json!({ "nope": {}, "first#1": answer })
                .as_object()
                .unwrap()
                .clone(),
        },
        "anonymous",
        NOW + 2,
    );
    assert_eq!(
        ack,
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    let still = o.get(NOW + 3);
    assert_eq!(still["status"], "input_required");
    assert_eq!(
        still["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["second#1"]
    );
    // Answering an already answered key changes nothing.
    o.request(
        ObjectRequest::Update {
            task_id: ID.into(),
            input_responses: json!({ "first#1": answer }).as_object().unwrap().clone(),
        },
        "anonymous",
        NOW + 4,
    );
    assert_eq!(o.get(NOW + 5)["status"], "input_required");
    o.request(
        ObjectRequest::Update {
            task_id: ID.into(),
            input_responses: json!({ "second#1": answer }).as_object().unwrap().clone(),
        },
        "anonymous",
        NOW + 6,
    );
    assert_eq!(o.get(NOW + 7)["status"], "working");
    o.tick(NOW + 8);
    let done = o.get(NOW + 9);
    assert_eq!(done["status"], "completed", "{done}");
    assert!(done.get("inputRequests").is_none());
}

#[test]
fn a_legacy_cancel_answers_the_task_it_left_or_refuses_an_ended_one() {
    // One turn of the object decides both, so a task that ends between a client's read
    // and its cancel is never answered as the cancel's success.
    let (mut o, _) = start("slow_compute", json!({ "seconds": 60 }));
    let legacy_cancel = || ObjectRequest::LegacyCancel { task_id: ID.into() };
    let ObjectReply::Result(cancelled) = o.request(legacy_cancel(), "anonymous", NOW + 1) else {
        panic!("expected the cancelled task")
    };
    assert_eq!(
        (cancelled["status"].as_str(), cancelled["taskId"].as_str()),
        (Some("cancelled"), Some(ID))
    );
    assert_eq!(o.get(NOW + 2)["status"], "cancelled");
    // Already ended (here: cancelled; completed alike): -32602 naming the status, no write.
    let before = o.storage.clone();
    let ObjectReply::Error(refused) = o.request(legacy_cancel(), "anonymous", NOW + 3) else {
        panic!("expected a refusal")
    };
    assert_eq!(refused.code.0, -32602);
    assert!(
        refused.message.ends_with("it already ended (cancelled)"),
        "{}",
        refused.message
    );
    assert_eq!(o.storage, before);
    let (mut done, _) = start("slow_compute", json!({ "seconds": 1 }));
    done.tick(NOW + 2_000);
    assert_eq!(done.get(NOW + 2_001)["status"], "completed");
    let ObjectReply::Error(refused) = done.request(legacy_cancel(), "anonymous", NOW + 2_002)
    else {
        panic!("expected a refusal")
    };
    assert!(
        refused.message.ends_with("it already ended (completed)"),
        "{}",
        refused.message
    );
    // Another principal: not found, as for any request.
    let ObjectReply::Error(stranger) = o.request(legacy_cancel(), "key:mallory", NOW + 4) else {
        panic!("expected not found")
    };
    assert_eq!(stranger.message, McpError::TaskNotFound.to_wire().message);
}

#[test]
fn cancel_while_working_waiting_and_after_the_end() {
    let (mut o, _) = start("slow_compute", json!({ "seconds": 60 }));
    assert_eq!(
        o.request(
            ObjectRequest::Cancel { task_id: ID.into() },
            "anonymous",
            NOW + 1
        ),
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    assert_eq!(o.get(NOW + 2)["status"], "cancelled");
    // The pending step never runs: the alarm now only expires the task.
    assert_eq!(o.alarm, Some(NOW + 3_600_000));
    o.tick(NOW + 60_000);
    assert_eq!(o.get(NOW + 60_001)["status"], "cancelled");
    // Cancelling a terminal task: the same ack, no change.
    let before = o.storage.clone();
    assert_eq!(
        o.request(
            ObjectRequest::Cancel { task_id: ID.into() },
            "anonymous",
            NOW + 3
        ),
        ObjectReply::Result(json!({ "resultType": "complete" }))
    );
    assert_eq!(o.storage, before);

    let (mut o, _) = start("confirm_delete", json!({ "filename": "a.txt" }));
    o.tick(NOW);
    assert_eq!(o.get(NOW + 1)["status"], "input_required");
    o.request(
        ObjectRequest::Cancel { task_id: ID.into() },
        "anonymous",
        NOW + 2,
    );
    let cancelled = o.get(NOW + 3);
    assert_eq!(cancelled["status"], "cancelled");
    assert!(cancelled.get("inputRequests").is_none());
}

#[test]
fn tool_errors_complete_and_protocol_errors_fail() {
    let (mut o, _) = start("failing_job", json!({}));
    o.tick(NOW + 1000);
    let done = o.get(NOW + 1001);
    assert_eq!(
        (done["status"].as_str(), done["result"]["isError"].as_bool()),
        (Some("completed"), Some(true))
    );

    let (mut o, _) = start("protocol_error_job", json!({}));
    o.tick(NOW + 200);
    let failed = o.get(NOW + 201);
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed.get("result").is_none());
}

#[test]
fn expiry_deletes_the_task() {
    let (mut o, _) = start("slow_compute", json!({ "seconds": 60 }));
    o.request(
        ObjectRequest::Cancel { task_id: ID.into() },
        "anonymous",
        NOW,
    );
    // Past the TTL the task reads as not found even before the alarm runs…
    assert_eq!(o.get(NOW + 3_600_000)["error"], -32602);
    // …and the alarm erases it.
    o.tick(NOW + 3_600_000);
    assert!(o.storage.is_empty());
    assert_eq!(o.alarm, None);
}

#[test]
fn mrtr_answers_carry_into_the_task() {
    // test_tool_with_task: MRTR round first, then a task that sees the answer.
    let s = server();
    let round1 = respond(
        &s,
        &post("tools/call", json!({ "name": "test_tool_with_task" })),
    );
    let r1 = body(&round1)["result"].clone();
    assert_eq!(r1["resultType"], "input_required");
    assert!(r1.get("taskId").is_none());
    let retry = post(
        "tools/call",
        json!({ "name": "test_tool_with_task", "requestState": r1["requestState"],
        "inputResponses": { "user_name": { "action": "accept", "content": { "name": "Alice" } } } }),
    );
    let (mut o, created) = create_from(&s, &retry);
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none());
    o.tick(NOW + 300);
    assert_eq!(
        o.get(NOW + 301)["result"]["content"][0]["text"],
        "Task finished for Alice."
    );
}

#[test]
fn object_replies_reach_the_wire_unchanged() {
    use mcp_tasks_edge::jsonrpc::RequestId;
    use mcp_tasks_edge::server::Envelope;
    let (mut o, _) = start("slow_compute", json!({ "seconds": 5 }));
    let s = server();
    let id = RequestId::String("r-1".into());
    let reply = o.request(ObjectRequest::Get { task_id: ID.into() }, "anonymous", NOW);
    let (status, bytes) = reply.encode();
    let response = s.object_response(&id, status, &bytes, &Envelope::default());
    let ObjectReply::Result(task) = reply else {
        panic!()
    };
    assert_eq!(
        body(&response),
        json!({ "jsonrpc": "2.0", "id": "r-1", "result": task })
    );
    let missing = o.request(
        ObjectRequest::Get {
            task_id: "f".repeat(32),
        },
        "anonymous",
        NOW,
    );
    let (status, bytes) = missing.encode();
    let response = s.object_response(&id, status, &bytes, &Envelope::default());
    assert_eq!(error_of(&response), (400, -32602));
    assert_eq!(body(&response)["id"], "r-1");
    // A broken object reply is our fault: 500, never a garbled body.
    assert_eq!(
        s.object_response(&id, 503, b"oops", &Envelope::default())
            .status,
        500
    );
}

#[test]
fn effects_happen_after_the_write_in_the_order_the_runner_gives() {
    use common::object::Effect::{Print, Push, TaskEnded, Write};
    // The runner the Cloudflare object runs (`objects::task`), on the in-memory platform:
    // a watcher never hears of, and the log never shows, a state storage could still lose,
    // and the owner's ledger is told after the task's end is stored.
    let (mut o, _) = start("slow_compute", json!({ "seconds": 1 }));
    assert_eq!(o.effects, [Write, Print, Push], "creation");
    o.effects.clear();
    o.get(NOW + 1);
    assert!(
        o.effects.is_empty(),
        "a poll writes nothing and tells nobody"
    );
    o.effects.clear();
    o.counts_live_tasks = true;
    o.tick(NOW + 1000);
    assert_eq!(
        o.effects,
        [
            Write, Print, Push,  // the lease: written, its line, the watchers told
            Print, // step.finished (the step ran; its outcome is not stored yet)
            Write, Print, Push, TaskEnded // the result, then the ledger
        ],
        "a step that completes the task"
    );
    assert_eq!(o.ended, [("anonymous".to_owned(), ID.to_owned())]);
    o.effects.clear();
    o.tick(NOW + 1000 + 3_600_000);
    // Expiry: erased, logged, watchers told it is gone, and the ledger told again (it
    // forgets a task idempotently).
    assert_eq!(o.effects, [Write, Print, Push, TaskEnded]);
}

#[test]
fn an_anonymous_sessions_task_is_reached_by_its_id_from_any_anonymous_session_only() {
    use mcp_tasks_edge::auth::anonymous::{ANY_SESSION, session_principal};
    use mcp_tasks_edge::server::Action;
    use mcp_tasks_edge::tasks::object::visible_record;
    let s = server();
    let request = post(
        "tools/call",
        json!({ "name": "slow_compute", "arguments": { "seconds": 60 } }),
    );
    let Action::CreateTask { mut record, .. } = run_action(&s, s.handle(&request, &ctx())) else {
        panic!("expected a task");
    };
    record.assign_id(ID.into());
    let session_a = session_principal("anonymous", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").into_owned();
    let session_b = session_principal("anonymous", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb").into_owned();
    let sees = |owner: &str, principal: &str| {
        let mut r = (*record).clone();
        r.assign_owner(owner.into());
        visible_record(Some(&r), ID, principal, NOW).is_some()
    };
    // Its own session, and any anonymous session as ANY_SESSION; a session as itself
    // reaches only its own.
    assert!(sees(&session_a, &session_a));
    assert!(sees(&session_a, ANY_SESSION));
    assert!(!sees(&session_a, &session_b));
    // ANY_SESSION reaches nobody else's: not a keyed caller's, not a stateless anonymous
    // caller's (whose id is already its key), not the shared anonymous ledger's.
    for owner in ["key:alice", "anonymous", "anonymous-task:0123"] {
        assert!(!sees(owner, ANY_SESSION), "{owner}");
    }
    // And the other way: a keyed caller or a stateless anonymous one never reaches a
    // session's task.
    for principal in [
        "key:alice",
        "anonymous",
        "anonymous-task:0123456789abcdef0123456789abcdef",
    ] {
        assert!(!sees(&session_a, principal), "{principal}");
    }
}
