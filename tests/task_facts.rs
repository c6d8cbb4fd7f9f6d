//! What this server says of a task beyond the spec's fields, for its owner
//! (`_meta["mcp-tasks-edge/task"]`): the tool that made it, its title, and the progress
//! in numbers its steps reported; and "my tasks" filtered by status and tool
//! (`server::my_tasks`).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::schema::{TASKS_SCHEMA, assert_valid};
use common::*;
use mcp_tasks_edge::server::my_tasks::{TaskFilter, page_result};
use mcp_tasks_edge::server::{Action, Config, Server};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tasks::task::StatusKind;
use mcp_tasks_edge::tools::{Call, Step, TaskSupport, Tool};
use serde_json::{Value, json};
use std::time::Duration;

const ITEMS: u64 = 3;

/// Works through `ITEMS` items, one per step 100 ms apart, reporting each as progress.
fn batch(call: &Call) -> Step {
    let done: u64 = call.checkpoint().ok().flatten().unwrap_or(0);
    call.progress(
        done as f64,
        Some(ITEMS as f64),
        Some(&format!("item {done}")),
    );
    if done == ITEMS {
        return Step::text("all done");
    }
    Step::wait(Duration::from_millis(100)).checkpoint(done + 1)
}

/// Waits once, reporting nothing.
fn quiet(call: &Call) -> Step {
    if call.has_checkpoint() {
        return Step::text("done");
    }
    Step::wait(Duration::from_millis(100)).checkpoint(1)
}

fn tools_server() -> Server {
    Server::builder("t")
        .config(Config {
            request_state_secret: Some(b"native-test-secret-0123456789".to_vec()),
            ..Config::default()
        })
        .tools(vec![
            Tool::new("batch", "Processes items")
                .title("Batch job")
                .task(TaskSupport::Required)
                .sync(batch),
            Tool::new("quiet", "Waits")
                .task(TaskSupport::Required)
                .sync(quiet),
        ])
        .build()
}

/// The task `tool` makes, stored in its object.
fn created(server: &Server, tool: &str) -> Object {
    let request = post("tools/call", json!({ "name": tool, "arguments": {} }));
    let Action::CreateTask { mut record, .. } = run_action(server, server.handle(&request, &ctx()))
    else {
        panic!("{tool} should become a task")
    };
    record.assign_id(ID.into());
    let mut o = Object::new(server.registry.clone(), server.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    o
}

fn facts(task: &Value) -> &Value {
    &task["_meta"]["mcp-tasks-edge/task"]
}

#[test]
fn a_task_names_its_tool_and_shows_its_progress_in_numbers() {
    let server = tools_server();
    let mut o = created(&server, "batch");
    // The first step ran before the task existed: its report is on the created task.
    let task = o.get(NOW + 1);
    assert_eq!(
        facts(&task),
        &json!({ "tool": "batch", "title": "Batch job", "progress": 0.0, "total": 3.0 })
    );
    assert_eq!(task["statusMessage"], "0/3: item 0");
    assert_valid(TASKS_SCHEMA, "GetTaskResult", &task, "GetTaskResult");
    // Each later step's report replaces it, from storage (a new instance reads it back).
    o.tick(NOW + 100);
    o.restart();
    let task = o.get(NOW + 101);
    assert_eq!(facts(&task)["progress"], json!(1.0));
    assert_eq!(task["statusMessage"], "1/3: item 1");
    for at in [200, 300, 400] {
        o.tick(NOW + at);
    }
    let task = o.get(NOW + 401);
    assert_eq!(task["status"], "completed");
    // A completed task's result says the rest, as its statusMessage is dropped: the
    // progress is too (a failed or cancelled one keeps where it stopped).
    assert_eq!(
        facts(&task),
        &json!({ "tool": "batch", "title": "Batch job" })
    );
    // Pushed notifications carry the same facts: the working task's, then the completed's.
    let encoded: Vec<String> = o.pushed.iter().map(|m| m.encode()).collect();
    assert!(
        encoded.iter().any(|m| m.contains(
            r#""mcp-tasks-edge/task":{"progress":2.0,"title":"Batch job","tool":"batch","total":3.0}"#
        )),
        "{encoded:?}"
    );
    assert!(
        encoded
            .last()
            .unwrap()
            .contains(r#""mcp-tasks-edge/task":{"title":"Batch job","tool":"batch"}"#),
        "{encoded:?}"
    );
}

#[test]
fn a_task_that_reports_nothing_names_its_tool_only() {
    let server = tools_server();
    let mut o = created(&server, "quiet");
    assert_eq!(facts(&o.get(NOW + 1)), &json!({ "tool": "quiet" }));
    o.tick(NOW + 100);
    let task = o.get(NOW + 101);
    assert_eq!(task["status"], "completed");
    assert_eq!(facts(&task), &json!({ "tool": "quiet" }));
}

#[test]
fn my_tasks_are_filtered_by_status_and_tool() {
    let task = |status: &str, tool: &str| json!({ "taskId": tool, "status": status, "_meta": { "mcp-tasks-edge/task": { "tool": tool } } });
    let page = vec![
        task("working", "batch"),
        task("completed", "batch"),
        task("working", "quiet"),
        json!({ "taskId": "old", "status": "working" }),
    ];
    let ids = |filter: TaskFilter| {
        let result = page_result(page.clone(), Some("next".into()), &filter);
        assert_eq!(
            result["nextCursor"], "next",
            "the cursor goes on whatever is kept"
        );
        assert_eq!(result["resultType"], "complete");
        result["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["taskId"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(TaskFilter::default()),
        ["batch", "batch", "quiet", "old"]
    );
    let working = TaskFilter {
        status: Some(StatusKind::Working),
        tool: None,
    };
    assert_eq!(ids(working.clone()), ["batch", "quiet", "old"]);
    let batch = TaskFilter {
        status: None,
        tool: Some("batch".into()),
    };
    assert_eq!(ids(batch), ["batch", "batch"]);
    let both = TaskFilter {
        tool: Some("quiet".into()),
        ..working
    };
    assert_eq!(ids(both), ["quiet"]);
    let none = TaskFilter {
        status: Some(StatusKind::Failed),
        tool: None,
    };
    assert_eq!(ids(none), Vec::<String>::new());
}
