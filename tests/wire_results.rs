//! Every result object the server emits on the 2026-07-28 path, checked against the
//! official schemas (tests/fixtures/schema): every tool called (and, when it asks, answered
//! by MRTR retries until it ends), every task driven through every status it reaches with
//! its tasks/get, tasks/update and tasks/cancel results, every prompt, resource and
//! template, a listen stream's acknowledgement, notifications and closing result, and
//! every error the server can answer with, in the shape the schema gives its code.
//! Each result is also checked as a `Result`: `resultType` is required on all of them.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::{ID, Object};
use common::schema::*;
use common::*;
use mcp_tasks_edge::http::HttpRequest;
use mcp_tasks_edge::server::fanin::{Command, Fanin, Opened};
use mcp_tasks_edge::server::listen::StreamLimits;
use mcp_tasks_edge::server::{Action, Server};
use mcp_tasks_edge::tasks::protocol::{ObjectReply, ObjectRequest};
use mcp_tasks_edge::tasks::watch::WatchMessage;
use serde_json::{Map, Value, json};

/// A value of `schema`'s type (its `const`, the first enum value or `oneOf`/`anyOf`
/// alternative, a property-complete object).
fn sample(schema: &Value) -> Value {
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(choice).and_then(|e| e.get(0)) {
            return sample(first);
        }
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string") => json!("x"),
        Some("number") | Some("integer") => json!(1),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") | None => {
            let mut object = Map::new();
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (name, property) in properties {
                    object.insert(name.clone(), sample(property));
                }
            }
            Value::Object(object)
        }
        Some(_) => Value::Null,
    }
}

/// A well-formed answer to an input request, as a client would give it.
fn answer(request: &Value) -> Value {
    match request["method"].as_str() {
        Some("elicitation/create") if request["params"]["mode"] == "url" => {
            json!({ "action": "accept" })
        }
        Some("elicitation/create") => {
            json!({ "action": "accept", "content": sample(&request["params"]["requestedSchema"]) })
        }
        Some("sampling/createMessage") => json!({ "role": "assistant", "model": "test-model",
            "content": { "type": "text", "text": "an answer" } }),
        Some("roots/list") => json!({ "roots": [{ "uri": "file:///tmp/project", "name": "p" }] }),
        other => panic!("unknown input request method {other:?}"),
    }
}

fn answers(requests: &Value) -> Value {
    let mut out = Map::new();
    for (key, request) in requests.as_object().unwrap() {
        out.insert(key.clone(), answer(request));
    }
    Value::Object(out)
}

/// The result (or error) of one request, with tasks created as the adapter would.
enum Outcome {
    Body(u16, Value),
    Task(Box<mcp_tasks_edge::tasks::record::TaskRecord>),
}

fn outcome(s: &Server, request: &HttpRequest) -> Outcome {
    match run_action(s, s.handle(request, &ctx())) {
        Action::Respond(r) => Outcome::Body(r.status, body(&r)),
        Action::CreateTask { mut record, .. } => {
            record.assign_id(ID.into());
            Outcome::Task(record)
        }
        other => panic!("unexpected action {other:?}"),
    }
}

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

#[test]
fn every_prompt_resource_and_template_result_matches_the_schema() {
    let s = server();
    let result = |method: &str, params: Value| match outcome(&s, &post(method, params)) {
        Outcome::Body(200, body) => body["result"].clone(),
        Outcome::Body(status, body) => panic!("{method}: {status} {body}"),
        Outcome::Task(_) => panic!("{method} made a task"),
    };
    for prompt in &s.catalog.prompts {
        let definition = prompt.definition();
        let name = definition["name"].as_str().unwrap();
        let mut arguments = Map::new();
        for argument in definition["arguments"].as_array().into_iter().flatten() {
            arguments.insert(argument["name"].as_str().unwrap().into(), json!("x"));
        }
        let mut params = json!({ "name": name, "arguments": arguments });
        for round in 0..3 {
            let got = result("prompts/get", params.clone());
            let context = format!("prompts/get {name} round {round}");
            if got["resultType"] == "input_required" {
                check_result(&got, "InputRequiredResult", &context);
                params["inputResponses"] = answers(&got["inputRequests"]);
                params["requestState"] = got["requestState"].clone();
                continue;
            }
            check_result(&got, "GetPromptResult", &context);
            break;
        }
    }
    let listed = result("resources/list", json!({}));
    check_result(&listed, "ListResourcesResult", "resources/list");
    for resource in listed["resources"].as_array().unwrap() {
        let uri = resource["uri"].as_str().unwrap();
        check_result(
            &result("resources/read", json!({ "uri": uri })),
            "ReadResourceResult",
            uri,
        );
    }
    let templates = result("resources/templates/list", json!({}));
    check_result(&templates, "ListResourceTemplatesResult", "templates");
    for template in templates["resourceTemplates"].as_array().unwrap() {
        let uri = template["uriTemplate"]
            .as_str()
            .unwrap()
            .replace(['{', '}'], "");
        check_result(
            &result("resources/read", json!({ "uri": uri })),
            "ReadResourceResult",
            &uri,
        );
    }
    check_result(
        &result("server/discover", json!({})),
        "DiscoverResult",
        "discover",
    );
    check_result(
        &result("tools/list", json!({})),
        "ListToolsResult",
        "tools/list",
    );
    check_result(
        &result("prompts/list", json!({})),
        "ListPromptsResult",
        "prompts/list",
    );
}

#[test]
fn a_listen_stream_matches_the_schema() {
    let s = server();
    let Outcome::Task(record) = outcome(
        &s,
        &post(
            "tools/call",
            json!({ "name": "slow_compute", "arguments": { "seconds": 1 } }),
        ),
    ) else {
        panic!("expected a task")
    };
    let mut o = Object::new(s.registry.clone(), s.limits());
    o.request(ObjectRequest::Create { record }, "anonymous", NOW);
    let request = post(
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": [ID, "f".repeat(32)] } }),
    );
    let Action::Listen(listen) = s.handle(&request, &ctx()) else {
        panic!()
    };
    let (mut fanin, _) = Fanin::start(*listen, StreamLimits::default(), NOW);
    let mut commands = fanin.opened(&"f".repeat(32), Opened::NotFound, NOW);
    commands.extend(fanin.opened(ID, Opened::Watching, NOW));
    commands.extend(fanin.message(ID, o.pushed[0].clone(), NOW));
    o.tick(NOW + 1000);
    let last: WatchMessage = o.pushed.last().cloned().unwrap();
    commands.extend(fanin.message(ID, last, NOW + 1000));
    let messages: Vec<Value> = commands
        .iter()
        .filter_map(|c| match c {
            Command::Send(bytes) => std::str::from_utf8(bytes)
                .unwrap()
                .strip_prefix("data: ")
                .map(|j| serde_json::from_str(j.trim()).unwrap()),
            _ => None,
        })
        .collect();
    assert_valid(
        CORE,
        "SubscriptionsAcknowledgedNotification",
        &messages[0],
        "ack",
    );
    assert_eq!(
        messages[0]["params"]["notifications"]["taskIds"],
        json!([ID])
    );
    let statuses: Vec<&str> = messages[1..messages.len() - 1]
        .iter()
        .map(|n| {
            assert_valid(
                TASKS_SCHEMA,
                "TaskStatusNotification",
                n,
                "notifications/tasks",
            );
            n["params"]["status"].as_str().unwrap()
        })
        .collect();
    assert_eq!(statuses, ["working", "completed"]);
    let closing = messages.last().unwrap();
    assert_valid(
        CORE,
        "SubscriptionsListenResultResponse",
        closing,
        "closing",
    );
    check_result(&closing["result"], "SubscriptionsListenResult", "closing");
}
