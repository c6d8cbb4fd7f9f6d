//! Golden wire tests: what the server puts on the wire validates against the official
//! JSON schemas (2026-07-28 core, ext-tasks draft), and the spec's own examples round-trip
//! through our types with their exact shape.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::jsonrpc::ErrorObject;
use mcp_tasks_edge::mcp::input::{self, Elicited};
use mcp_tasks_edge::tasks::task::Task;
use serde_json::{Value, json};

const CORE: &str = include_str!("fixtures/schema/mcp-2026-07-28.json");
const TASKS_SCHEMA: &str = include_str!("fixtures/schema/ext-tasks.json");

/// Validates `instance` against `#/$defs/{def}` of `schema`.
fn assert_valid(schema: &str, def: &str, instance: &Value) {
    let mut root: Value = serde_json::from_str(schema).unwrap();
    root["$ref"] = json!(format!("#/$defs/{def}"));
    let validator = jsonschema::validator_for(&root).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{def} invalid: {errors:?}\n{instance}");
}

fn result(method: &str, params: Value) -> Value {
    let response = respond(&server(), &post(method, params));
    assert_eq!(
        response.status,
        200,
        "{}",
        String::from_utf8_lossy(&response.body)
    );
    body(&response)["result"].clone()
}

#[test]
fn discover_and_lists_match_the_core_schema() {
    let discover = result("server/discover", json!({}));
    assert_valid(CORE, "DiscoverResult", &discover);
    assert_eq!(
        discover["capabilities"]["extensions"],
        json!({ "io.modelcontextprotocol/tasks": {} })
    );
    assert!(discover["capabilities"].get("tasks").is_none());
    assert_valid(CORE, "ListToolsResult", &result("tools/list", json!({})));
    assert_valid(
        CORE,
        "ListPromptsResult",
        &result("prompts/list", json!({})),
    );
    assert_valid(
        CORE,
        "ListResourcesResult",
        &result("resources/list", json!({})),
    );
    assert_valid(
        CORE,
        "ReadResourceResult",
        &result(
            "resources/read",
            json!({ "uri": "mcp-tasks://server/about" }),
        ),
    );
}

#[test]
fn tool_results_and_input_required_match_the_core_schema() {
    assert_valid(
        CORE,
        "CallToolResult",
        &result(
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "Ada" } }),
        ),
    );
    assert_valid(
        CORE,
        "CallToolResult",
        &result(
            "tools/call",
            json!({ "name": "test_error_handling", "arguments": {} }),
        ),
    );
    let multiple = result(
        "tools/call",
        json!({ "name": "test_input_required_result_multiple_inputs" }),
    );
    assert_valid(CORE, "InputRequiredResult", &multiple);
    assert_eq!(multiple["inputRequests"].as_object().unwrap().len(), 3);
    let prompt = result(
        "prompts/get",
        json!({ "name": "test_input_required_result_prompt" }),
    );
    assert_valid(CORE, "InputRequiredResult", &prompt);
}

#[test]
fn errors_match_the_core_schema() {
    let s = server();
    let error = |request| body(&respond(&s, &request));
    let missing = error(post(
        "tools/call",
        json!({ "name": "test_missing_capability", "_meta": meta(json!({})) }),
    ));
    assert_valid(CORE, "MissingRequiredClientCapabilityError", &missing);
    let mut request = post("tools/list", json!({}));
    request.headers.push("mcp-method", "x");
    assert_valid(CORE, "HeaderMismatchError", &error(request));
    let unknown = error(post("ping", json!({})));
    assert_valid(CORE, "JSONRPCErrorResponse", &unknown);
}

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
        assert_valid(TASKS_SCHEMA, "DetailedTask", &example);
        assert_valid(TASKS_SCHEMA, "GetTaskResult", &task.to_result("complete"));
        assert_valid(TASKS_SCHEMA, "TaskStatusNotificationParams", &example);
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
    record.task_id = "0123456789abcdef0123456789abcdef".into();
    let created = record.to_task().to_result("task");
    assert_valid(TASKS_SCHEMA, "CreateTaskResult", &created);
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

/// The schema's examples, parsed by the functions that read them.
#[test]
fn spec_examples_parse() {
    let accept: Value = serde_json::from_str(include_str!(
        "fixtures/examples/ElicitResult_input-single-field.json"
    ))
    .unwrap();
    assert!(matches!(
        input::as_elicit_result("k", &accept).unwrap(),
        Elicited::Accept(_)
    ));
    let text: Value = serde_json::from_str(include_str!(
        "fixtures/examples/CreateMessageResult_text-response.json"
    ))
    .unwrap();
    assert!(!input::as_sampled_text("k", &text).unwrap().is_empty());
    let roots: Value = serde_json::from_str(include_str!(
        "fixtures/examples/ListRootsResult_multiple-root-directories.json"
    ))
    .unwrap();
    assert!(input::as_root_uris("k", &roots).unwrap().len() > 1);
    let unsupported: Value = serde_json::from_str(include_str!(
        "fixtures/examples/UnsupportedProtocolVersionError_unsupported-version.json"
    ))
    .unwrap();
    let error: ErrorObject = serde_json::from_value(unsupported["error"].clone()).unwrap();
    assert_eq!(serde_json::to_value(&error).unwrap(), unsupported["error"]);
    for example in [
        include_str!("fixtures/examples/CallToolResult_result-with-structured-content.json"),
        include_str!("fixtures/examples/CallToolResult_invalid-tool-input-error.json"),
    ] {
        assert_valid(
            CORE,
            "CallToolResult",
            &serde_json::from_str(example).unwrap(),
        );
    }
}
