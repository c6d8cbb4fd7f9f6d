//! Golden wire tests of tasks: the spec's task examples round-trip through our types with
//! their exact shape and validate against the official ext-tasks schema (draft), as the
//! server's own task results do; illegal task shapes do not parse; the task list method is
//! dispatched with its filters checked. The core schema's results: tests/wire.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::schema::{TASKS_SCHEMA, assert_valid};
use common::*;
use mcp_tasks_edge::tasks::task::{StatusKind, Task};
use serde_json::{Value, json};

fn tasks_of_every_status() -> Vec<Value> {
    let base = json!({ "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840", "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:50:00Z", "ttlMs": 60000, "pollIntervalMs": 5000 });
    let with = |extra: Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    vec![
        with(json!({ "status": "working", "statusMessage": "The operation is now in progress." })),
        with(
            json!({ "status": "input_required", "inputRequests": { "name": { "method": "elicitation/create", "params": {
            "mode": "form", "message": "Please enter your name.", "requestedSchema": { "type": "object",
            "properties": { "name": { "type": "string" } }, "required": ["name"] } } } } }),
        ),
        with(
            json!({ "status": "completed", "result": { "content": [{ "type": "text", "text": "Hello, Luca!" }], "isError": false } }),
        ),
        with(
            json!({ "status": "failed", "statusMessage": "Tool execution failed: API rate limit exceeded",
            "error": { "code": -32603, "message": "API rate limit exceeded" } }),
        ),
        with(json!({ "status": "cancelled", "ttlMs": null })),
    ]
}

#[test]
fn spec_task_examples_round_trip_exactly() {
    for example in tasks_of_every_status() {
        let task: Task = serde_json::from_value(example.clone()).unwrap();
        assert_eq!(serde_json::to_value(&task).unwrap(), example);
        assert_valid(TASKS_SCHEMA, "DetailedTask", &example, "example");
        assert_valid(
            TASKS_SCHEMA,
            "GetTaskResult",
            &task.to_result("complete"),
            "GetTaskResult",
        );
        assert_valid(
            TASKS_SCHEMA,
            "TaskStatusNotificationParams",
            &example,
            "example",
        );
    }
}

#[test]
fn ttl_null_is_serialized_not_omitted() {
    let example = tasks_of_every_status().pop().unwrap();
    let task: Task = serde_json::from_value(example).unwrap();
    let wire = serde_json::to_string(&task).unwrap();
    assert!(wire.contains(r#""ttlMs":null"#), "{wire}");
    assert!(
        !wire.contains("requestState")
            && !wire.contains("\"ttl\"")
            && !wire.contains("pollInterval\"")
    );
}

#[test]
fn illegal_task_shapes_do_not_parse() {
    for bad in [
        json!({ "taskId": "t", "status": "completed", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1 }),
        json!({ "taskId": "t", "status": "failed", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1 }),
        json!({ "taskId": "t", "status": "input_required", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1 }),
        json!({ "taskId": "t", "status": "paused", "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": 1 }),
    ] {
        assert!(
            serde_json::from_value::<Task>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn server_task_results_match_the_tasks_schema() {
    use mcp_tasks_edge::server::Action;
    let s = server();
    let Action::CreateTask { mut record, .. } = run_action(
        &s,
        s.handle(
            &post(
                "tools/call",
                json!({ "name": "slow_compute", "arguments": { "seconds": 5 } }),
            ),
            &ctx(),
        ),
    ) else {
        panic!("expected a task")
    };
    record.assign_id("0123456789abcdef0123456789abcdef".into());
    let created = record.to_task().to_result("task");
    assert_valid(TASKS_SCHEMA, "CreateTaskResult", &created, "created");
    for key in [
        "task",
        "result",
        "error",
        "inputRequests",
        "requestState",
        "ttl",
        "pollInterval",
    ] {
        assert!(
            created.get(key).is_none(),
            "CreateTaskResult must not carry {key}"
        );
    }
}
#[test]
fn the_task_list_method_is_dispatched_to_the_adapter() {
    use mcp_tasks_edge::server::{Action, LIST_TASKS};
    let s = server();
    let listed = s.handle(&post(LIST_TASKS, json!({ "cursor": "50" })), &ctx());
    assert!(
        matches!(listed, Action::ListTasks { ref params, .. } if params.cursor.as_deref() == Some("50")),
        "{listed:?}"
    );
    // The filters are read and checked too.
    let filtered = s.handle(
        &post(
            LIST_TASKS,
            json!({ "status": "input_required", "tool": "t" }),
        ),
        &ctx(),
    );
    let Action::ListTasks { params, .. } = filtered else {
        panic!("{filtered:?}")
    };
    assert_eq!(
        (params.filter.status, params.filter.tool.as_deref()),
        (Some(StatusKind::InputRequired), Some("t"))
    );
    let refused = body(&respond(&s, &post(LIST_TASKS, json!({ "status": "done" }))));
    assert_eq!(refused["error"]["code"], -32602);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("working, input_required"), "{message}");
    assert_eq!(
        error_of(&respond(&s, &post(LIST_TASKS, json!({ "tool": 7 })))).1,
        -32602
    );
    assert_eq!(
        error_of(&respond(&s, &post(LIST_TASKS, json!({ "cursor": 5 })))).1,
        -32602
    );
    // The Tasks extension's removed tasks/list stays removed (SEP-2663).
    assert_eq!(
        error_of(&respond(&s, &post("tasks/list", json!({})))),
        (404, -32601)
    );
}
