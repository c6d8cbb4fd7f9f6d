//! Every result object the server emits on the 2026-07-28 path, checked against the
//! official schemas (tests/fixtures/schema): every tool called (and, when it asks, answered
//! by MRTR retries until it ends), every task driven through every status it reaches with
//! its tasks/get, tasks/update and tasks/cancel results, and every error the server can
//! answer with, in the shape the schema gives its code. Prompts, resources, templates and a
//! listen stream: tests/wire_results_catalog.rs.
//! Each result is also checked as a `Result`: `resultType` is required on all of them.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::results::{Outcome, answers, outcome, sample};
use common::schema::*;
use common::*;
use mcp_tasks_edge::server::Server;
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use serde_json::{Value, json};

/// Drives a task to its end in an object, checking every tasks/get and tasks/update
/// result on the way; returns the statuses it went through.
fn drive_task(s: &Server, record: mcp_tasks_edge::tasks::record::TaskRecord) -> Vec<String> {
    let context = format!("task {}", record.tool());
    let created = record.to_task().to_result("task");
    assert_valid(TASKS_SCHEMA, "CreateTaskResult", &created, &context);
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(
        ObjectRequest::Create {
            record: Box::new(record),
        },
        "anonymous",
        NOW,
    );
    let mut statuses = Vec::new();
    let mut now = NOW;
    for _ in 0..20 {
        let task = o.get(now);
        assert_valid(TASKS_SCHEMA, "GetTaskResult", &task, &context);
        assert_valid(TASKS_SCHEMA, "Result", &task, &context);
        let status = task["status"].as_str().unwrap().to_owned();
        if statuses.last() != Some(&status) {
            statuses.push(status.clone());
        }
        match status.as_str() {
            "completed" => {
                check_result(&task["result"], "CallToolResult", &context);
                break;
            }
            "failed" | "cancelled" => break,
            "input_required" => {
                let reply = o.update(answers(&task["inputRequests"]), now);
                let ObjectReply::Result(updated) = reply else {
                    panic!("{context}: update refused: {reply:?}")
                };
                assert_valid(TASKS_SCHEMA, "UpdateTaskResult", &updated, &context);
            }
            _ => {}
        }
        now = o.alarm.unwrap_or(now + 1000).max(now + 1);
        o.tick(now);
    }
    statuses
}

#[test]
fn every_tool_call_result_matches_the_schema() {
    let s = server();
    let (mut results, mut tasks, mut errors) = (0, 0, 0);
    let mut seen = std::collections::BTreeSet::new();
    for tool in s.registry.tools() {
        let definition = tool.definition();
        let name = definition["name"].as_str().unwrap().to_owned();
        if name.starts_with("panic_") {
            continue; // crash tests: the platform answers for them (tests/e2e/execution.test.mjs)
        }
        let mut params = json!({ "name": name, "arguments": sample(&definition["inputSchema"]) });
        for round in 0..5 {
            let context = format!("tools/call {name} round {round}");
            match outcome(&s, &post("tools/call", params.clone())) {
                Outcome::Task(record) => {
                    tasks += 1;
                    seen.extend(drive_task(&s, *record));
                    break;
                }
                Outcome::Body(_, body) if body.get("error").is_some() => {
                    errors += 1;
                    check_error(&body, &context);
                    break;
                }
                Outcome::Body(status, body) => {
                    assert_eq!(status, 200, "{context}");
                    let result = &body["result"];
                    results += 1;
                    if result["resultType"] == "input_required" {
                        check_result(result, "InputRequiredResult", &context);
                        params["inputResponses"] = answers(&result["inputRequests"]);
                        params["requestState"] = result["requestState"].clone();
                        continue;
                    }
                    check_result(result, "CallToolResult", &context);
                    break;
                }
            }
        }
    }
    // The fixtures exercise every shape: plain results, MRTR rounds, tasks, refusals.
    assert!(
        results >= 20 && tasks >= 3 && errors >= 1,
        "{results} {tasks} {errors}"
    );
    for status in ["working", "input_required", "completed"] {
        assert!(seen.contains(status), "no task reached {status}: {seen:?}");
    }
}

#[test]
fn cancel_and_failure_results_match_the_schema() {
    let s = server();
    let Outcome::Task(record) = outcome(
        &s,
        &post(
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 9 } }),
        ),
    ) else {
        panic!("expected a task")
    };
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    let ObjectReply::Result(cancelled) = o.request(
        ObjectRequest::Cancel { task_id: ID.into() },
        "anonymous",
        NOW + 1,
    ) else {
        panic!()
    };
    assert_valid(TASKS_SCHEMA, "CancelTaskResult", &cancelled, "cancel");
    let task = o.get(NOW + 2);
    assert_eq!(task["status"], "cancelled");
    assert_valid(TASKS_SCHEMA, "GetTaskResult", &task, "cancelled");
    // A failed task: a step that fails with a JSON-RPC error.
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
    let error = mcp_tasks_edge::tools::internal_error("it broke");
    mcp_tasks_edge::tasks::execution::advance(
        &mut record,
        mcp_tasks_edge::tools::Step::Fail(error),
        NOW,
        s.limits(),
    )
    .unwrap();
    let failed = record.to_task().to_result("complete");
    assert_eq!(failed["status"], "failed");
    assert_valid(TASKS_SCHEMA, "GetTaskResult", &failed, "failed");
    // An unknown task is the -32602 the extension prescribes.
    let ObjectReply::Error(missing) = o.request(
        ObjectRequest::Get {
            task_id: "f".repeat(32),
        },
        "anonymous",
        NOW,
    ) else {
        panic!()
    };
    assert_valid(
        CORE,
        "InvalidParamsError",
        &serde_json::to_value(missing).unwrap(),
        "missing",
    );
}
