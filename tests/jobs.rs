//! Jobs for clients without the Tasks extension (`server::jobs`, docs/hosts.md), through
//! the pure server: when a call detaches, the handle tools and how tools are listed to a
//! client that gets jobs. What each state of the job makes of the waiting call, and the
//! MRTR round that carries a job's question: tests/jobs_follow.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::jobs::{JOB, call_reader, run};
use common::*;
use mcp_tasks_edge::server::jobs::{self, Follow, Reader};
use mcp_tasks_edge::server::{Action, Config, Server};
use mcp_tasks_edge::tasks::protocol::ObjectRequest;
use mcp_tasks_edge::tools::{Call, TaskSupport, Tool, ToolError};
use serde_json::{Map, Value, json};

fn tools_call(params: Value) -> Action {
    let server = server();
    run_action(&server, server.handle(&post("tools/call", params), &ctx()))
}

fn result_of(action: Action) -> Value {
    match action {
        Action::Respond(r) => body(&r)["result"].clone(),
        other => panic!("expected an answer, got {other:?}"),
    }
}

#[test]
fn a_call_that_continues_becomes_a_job_never_a_task_result() {
    let params =
        json!({ "name": "slow_compute", "arguments": { "seconds": 90 }, "_meta": meta(json!({})) });
    let action = tools_call(params);
    let Action::Detach { record, run } = action else {
        panic!("expected a job, got {action:?}")
    };
    assert_eq!(record.tool(), "slow_compute");
    assert_eq!(record.owner(), "anonymous");
    assert_eq!(
        (run.job.as_str(), run.wait_ms, run.first.is_none()),
        ("", Config::default().inline_budget_ms, true)
    );
    assert_eq!(
        run.reader,
        Reader::Call {
            tool: "slow_compute".into(),
        }
    );
    // A required tool is served the same way instead of -32021 ...
    let params = json!({ "name": "confirm_delete", "arguments": { "filename": "a" }, "_meta": meta(json!({})) });
    assert!(matches!(tools_call(params), Action::Detach { .. }));
    // ... unless its author kept it attached.
    let params = json!({ "name": "failing_job", "_meta": meta(json!({})) });
    let Action::Respond(r) = tools_call(params) else {
        panic!("expected -32021")
    };
    assert_eq!(error_of(&r), (400, -32021));
    // With the extension: a task, as before.
    let tasks = meta(json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }));
    let params = json!({ "name": "slow_compute", "arguments": { "seconds": 90 }, "_meta": tasks });
    assert!(matches!(tools_call(params), Action::CreateTask { .. }));
    // A forbidden tool never detaches: it runs inline to the end.
    let params = json!({ "name": "greet", "arguments": { "name": "x" }, "_meta": meta(json!({})) });
    assert_eq!(result_of(tools_call(params))["resultType"], "complete");
}

#[test]
fn the_handle_tools_are_listed_for_clients_without_tasks_only() {
    let names = |server: &Server, caps: Value| -> Vec<String> {
        let r = respond(server, &post("tools/list", json!({ "_meta": meta(caps) })));
        body(&r)["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let handles = ["job_status", "job_answer", "job_cancel"];
    let plain = names(&server(), json!({}));
    assert_eq!(plain[plain.len() - 3..], handles);
    let tasks = json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } });
    assert!(
        !names(&server(), tasks)
            .iter()
            .any(|n| handles.contains(&n.as_str()))
    );
    let off = Server::new(Config {
        detach_jobs: false,
        ..server().config
    });
    assert!(
        !names(&off, json!({}))
            .iter()
            .any(|n| handles.contains(&n.as_str()))
    );
    // The longest wait offered is the inline budget.
    let r = respond(
        &server(),
        &post("tools/list", json!({ "_meta": meta(json!({})) })),
    );
    let tools = body(&r)["result"]["tools"].clone();
    let status = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "job_status")
        .unwrap();
    assert_eq!(
        status["inputSchema"]["properties"]["waitSeconds"]["maximum"],
        30
    );
    assert_eq!(status["inputSchema"]["required"], json!(["job"]));
}

#[test]
fn handle_tools_check_their_input() {
    let call = |name: &str, arguments: Value| {
        tools_call(json!({ "name": name, "arguments": arguments, "_meta": meta(json!({})) }))
    };
    // A malformed handle: a tool error naming the rule, before any object is asked.
    let malformed = result_of(call("job_status", json!({ "job": "../x" })));
    assert_eq!(malformed["isError"], true);
    assert_eq!(malformed["structuredContent"]["error"], "malformed_handle");
    assert!(
        malformed["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("32 lower-case hexadecimal")
    );
    // Arguments against the schema: -32602 naming the member.
    let Action::Respond(r) = call("job_status", json!({})) else {
        panic!()
    };
    assert_eq!(error_of(&r), (400, -32602));
    let Action::Respond(r) = call("job_status", json!({ "job": JOB, "waitSeconds": 31 })) else {
        panic!()
    };
    assert!(
        body(&r)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("waitSeconds")
    );
    // Each tool's request to the job, and its wait.
    let Action::Job(status) = call("job_status", json!({ "job": JOB, "waitSeconds": 12 })) else {
        panic!()
    };
    assert_eq!(
        (status.first.clone(), status.wait_ms, status.reader.clone()),
        (None, 12_000, Reader::Handle)
    );
    let Action::Job(answer) = call(
        "job_answer",
        json!({ "job": JOB, "answers": { "k": { "action": "decline" } } }),
    ) else {
        panic!()
    };
    let expected = ObjectRequest::Update {
        task_id: JOB.into(),
        input_responses: json!({ "k": { "action": "decline" } })
            .as_object()
            .unwrap()
            .clone(),
    };
    assert_eq!((answer.first.clone(), answer.wait_ms), (Some(expected), 0));
    let Action::Job(cancel) = call("job_cancel", json!({ "job": JOB })) else {
        panic!()
    };
    assert_eq!(
        cancel.first,
        Some(ObjectRequest::Cancel {
            task_id: JOB.into()
        })
    );
    // A client with the extension has no such tools: it uses tasks/*.
    let tasks = meta(json!({ "extensions": { "io.modelcontextprotocol/tasks": {} } }));
    let Action::Respond(r) =
        tools_call(json!({ "name": "job_status", "arguments": { "job": JOB }, "_meta": tasks }))
    else {
        panic!()
    };
    assert_eq!(error_of(&r), (400, -32602));
}

#[test]
fn an_authors_tool_may_not_take_a_handle_tools_name() {
    let server = Server::builder("s")
        .tool(
            Tool::new("job_status", "mine")
                .task(TaskSupport::Optional)
                .sync(|_| unreachable!()),
        )
        .build();
    let problems = server.problems().join("\n");
    assert!(
        problems.contains("\"job_status\" is reserved"),
        "{problems}"
    );
}

#[test]
fn a_typed_tool_is_listed_to_job_clients_with_its_output_schema_in_meta() {
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Out {
        n: u32,
    }
    let typed = Tool::new("typed", "A typed tool")
        .task(TaskSupport::Optional)
        .run_sync(|_: &Call<Map<String, Value>>| Ok::<_, ToolError>(Out { n: 1 }));
    let attached = Tool::new("attached", "Kept attached")
        .task(TaskSupport::Optional)
        .never_detached()
        .run_sync(|_: &Call<Map<String, Value>>| Ok::<_, ToolError>(Out { n: 1 }));
    let schema = typed.definition()["outputSchema"].clone();
    assert!(schema.is_object());
    let listed = jobs::listed_for_jobs(&typed);
    assert!(
        listed.get("outputSchema").is_none(),
        "its running answer is the job's handle"
    );
    assert_eq!(listed["_meta"]["mcp-tasks-edge/outputSchema"], schema);
    // A tool that never becomes a job keeps its schema where it was.
    assert!(
        jobs::listed_for_jobs(&attached)
            .get("outputSchema")
            .is_some()
    );
    // So its pending answer is an ordinary result, the handle in structuredContent.
    let run = run(call_reader(), false, json!({}));
    let pending = body(&Follow::new(&run, false).waited());
    assert_eq!(pending["result"]["isError"], false);
    assert_eq!(pending["result"]["structuredContent"]["job"], JOB);
}
