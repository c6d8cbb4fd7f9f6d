//! Golden wire bytes of a completed task's result, per era: 2026-07-28 readers (`tasks/get`,
//! pushed `notifications/tasks` on a listen stream) get a `CallToolResult` carrying
//! `resultType: "complete"` (schema `Result`: servers MUST include it; the official Tasks
//! client rejects a result without it); 2025-11-25 readers (`tasks/result`, legacy
//! `tasks/get`, `notifications/tasks/status`) get the result without it. Storage keeps
//! it era-neutral: the stored parts never hold `resultType`.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::schema::{CORE, TASKS_SCHEMA, assert_valid};
use common::*;
use mcp_tasks_edge::jsonrpc::RequestId;
use mcp_tasks_edge::legacy;
use mcp_tasks_edge::server::fanin::{Fanin, Opened};
use mcp_tasks_edge::server::listen::StreamLimits;
use mcp_tasks_edge::server::{Action, Envelope};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::watch::{self, WatchMessage};
use serde_json::{Value, json};

/// A `slow_compute` task created at NOW and completed by its alarm at NOW + 1 s.
fn completed() -> Object {
    let s = server();
    let request = post(
        "tools/call",
        json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
    );
    let Action::CreateTask { mut record, .. } = run_action(&s, s.handle(&request, &ctx())) else {
        panic!("expected a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    o.tick(NOW + 1000);
    o
}

/// The completed `DetailedTask`'s members (keys sorted: the task goes through a `Value`).
/// With this server's facts about it (the tool that made it) in `_meta`.
const DONE: &str = r#""_meta":{"mcp-tasks-edge/task":{"tool":"slow_compute"}},"createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:01.000Z","pollIntervalMs":1000,"result":{"content":[{"text":"slow_compute: computed after 1 s","type":"text"}],"isError":false,"resultType":"complete"}"#;
const DONE_TAIL: &str =
    r#""status":"completed","taskId":"0123456789abcdef0123456789abcdef","ttlMs":3600000"#;

#[test]
fn modern_tasks_get_carries_result_type_inside_the_result() {
    let mut o = completed();
    let reply = o.request(
        ObjectRequest::Get { task_id: ID.into() },
        "anonymous",
        NOW + 1001,
    );
    let (status, bytes) = reply.encode();
    let response =
        server().object_response(&RequestId::Number(7), status, &bytes, &Envelope::default());
    assert_eq!(
        String::from_utf8(response.body.clone()).unwrap(),
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{{DONE},"resultType":"complete",{DONE_TAIL}}}}}"#
        )
    );
    let ObjectReply::Result(task) = reply else {
        panic!()
    };
    assert_valid(TASKS_SCHEMA, "GetTaskResult", &task, "GetTaskResult");
    // What the official client checks: the inner result is a 2026-07-28 CallToolResult.
    assert_valid(CORE, "CallToolResult", &task["result"], "CallToolResult");
}

#[test]
fn storage_stays_era_neutral() {
    let o = completed();
    // The result is small: inline in the hot record (tasks::layout), as the tool gave it.
    assert!(o.storage["task"].contains(
        r#""result":{"content":[{"text":"slow_compute: computed after 1 s","type":"text"}],"isError":false}"#
    ), "{}", o.storage["task"]);
    assert!(!o.storage["task"].contains("resultType"));
}

#[test]
fn pushed_notifications_carry_it_too() {
    let mut o = completed();
    let last = o.pushed.last().cloned().unwrap();
    let WatchMessage::Task { version, .. } = &last else {
        panic!("{last:?}")
    };
    assert_eq!(
        last.encode(),
        format!(r#"{{"kind":"task","version":{version},"task":{{{DONE},{DONE_TAIL}}}}}"#)
    );
    // A watcher opening now gets the same first message.
    let record = o.record().unwrap();
    assert_eq!(
        watch::open(Some(&record), ID, "anonymous", NOW + 2, 0),
        Ok(last.clone())
    );
    // Through a listen stream: the notification's params, validated as the schema has them.
    let s = server();
    let request = post(
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": [ID] } }),
    );
    let Action::Listen(listen) = s.handle(&request, &ctx()) else {
        panic!()
    };
    let (mut fanin, _) = Fanin::start(*listen, StreamLimits::default(), NOW);
    let mut commands = fanin.opened(ID, Opened::Watching, NOW);
    commands.extend(fanin.message(ID, last, NOW));
    let frames = sse_messages(&commands);
    assert_eq!(
        frames[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    let notification = &frames[1];
    assert_eq!(notification["method"], "notifications/tasks");
    assert_eq!(notification["params"]["result"]["resultType"], "complete");
    // Its `_meta`: the task's facts and the subscription's id, side by side.
    assert_eq!(
        notification["params"]["_meta"],
        json!({
            "mcp-tasks-edge/task": { "tool": "slow_compute" },
            "io.modelcontextprotocol/subscriptionId": frames[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone()
        })
    );
    assert_valid(
        TASKS_SCHEMA,
        "TaskStatusNotification",
        notification,
        "TaskStatusNotification",
    );
    assert_valid(
        CORE,
        "CallToolResult",
        &notification["params"]["result"],
        "CallToolResult",
    );
}

/// The JSON-RPC messages among a stream's commands.
fn sse_messages(commands: &[mcp_tasks_edge::server::fanin::Command]) -> Vec<Value> {
    use mcp_tasks_edge::server::fanin::Command;
    commands
        .iter()
        .filter_map(|c| match c {
            Command::Send(bytes) => {
                let text = std::str::from_utf8(bytes).unwrap();
                text.strip_prefix("data: ")
                    .map(|json| serde_json::from_str(json.trim()).unwrap())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn legacy_readers_get_it_without_result_type() {
    let mut o = completed();
    let detailed = o.get(NOW + 1001);
    // tasks/result: exactly what tools/call would have returned, tagged with the task.
    assert_eq!(
        serde_json::to_string(&legacy::task_result(&detailed)).unwrap(),
        r#"{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"0123456789abcdef0123456789abcdef"}},"content":[{"text":"slow_compute: computed after 1 s","type":"text"}],"isError":false}"#
    );
    // tasks/get and notifications/tasks/status: the legacy Task has no result at all.
    assert_eq!(
        serde_json::to_string(&legacy::legacy_task(&detailed)).unwrap(),
        r#"{"createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:01.000Z","pollInterval":1000,"status":"completed","taskId":"0123456789abcdef0123456789abcdef","ttl":3600000}"#
    );
}

#[test]
fn a_tool_error_result_carries_it_in_both_shapes() {
    // isError results complete a task too; the tool's own `resultType`, if it set one,
    // never reaches storage and the served one is always "complete".
    let s = server();
    let mut record =
        mcp_tasks_edge::tasks::record::TaskRecord::new(mcp_tasks_edge::tasks::record::NewTask {
            tool: "slow_compute".into(),
            title: None,
            owner: "anonymous".into(),
            arguments: Default::default(),
            capabilities: Default::default(),
            checkpoint: Value::Null,
            answers: Default::default(),
            status_message: None,
            amount: None,
            now_ms: NOW,
            ttl_ms: Some(60_000),
            poll_interval_ms: 1000,
            next_step_at_ms: NOW,
        });
    record.assign_id(ID.into());
    let step = mcp_tasks_edge::tools::Step::Complete(json!({
        "resultType": "input_required", "isError": true,
        "content": [{ "type": "text", "text": "boom" }] }));
    mcp_tasks_edge::tasks::execution::advance(&mut record, step, NOW, s.limits()).unwrap();
    let task = record.to_task().to_result("complete");
    assert_eq!(task["result"]["resultType"], "complete");
    assert_valid(CORE, "CallToolResult", &task["result"], "CallToolResult");
    assert!(legacy::task_result(&task).get("resultType").is_none());
    assert_eq!(legacy::legacy_task(&task)["status"], "failed");
}

#[test]
fn an_object_call_comes_to_its_result_its_refusal_or_why_it_was_unreachable() {
    use mcp_tasks_edge::error::McpError;
    use mcp_tasks_edge::tasks::protocol::ObjectError;
    let result = ObjectReply::Result(json!({ "resultType": "complete" }));
    assert_eq!(
        ObjectReply::outcome(Ok(result.encode())),
        Ok(json!({ "resultType": "complete" }))
    );
    // A refusal reaches the client as the object said it.
    let not_found = McpError::TaskNotFound.to_wire();
    let refused = ObjectReply::outcome(Ok(ObjectReply::Error(not_found.clone()).encode()));
    assert_eq!(refused, Err(ObjectError::Refused(not_found.clone())));
    assert!(refused.as_ref().unwrap_err().is_not_found());
    assert_eq!(McpError::from(refused.unwrap_err()).to_wire(), not_found);
    // Unreachable, or a reply that is not the object protocol's: an internal error.
    for reply in [
        Err("connection reset".to_owned()),
        Ok((500, b"Internal Server Error".to_vec())),
        Ok((200, b"{not json".to_vec())),
    ] {
        let error = ObjectReply::outcome(reply).unwrap_err();
        assert!(matches!(error, ObjectError::Unreachable(_)) && !error.is_not_found());
        let wire = McpError::from(error).to_wire();
        assert_eq!(wire.code.0, -32603);
        assert!(
            wire.message.contains("task storage unavailable"),
            "{}",
            wire.message
        );
    }
}
