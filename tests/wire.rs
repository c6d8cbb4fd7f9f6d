//! Golden wire tests: what the server puts on the wire validates against the official
//! JSON schemas (2026-07-28 core, ext-tasks draft), and the spec's own examples round-trip
//! through our types with their exact shape.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::jsonrpc::ErrorObject;
use mcp_tasks_edge::mcp::input::{self, Elicited};
use mcp_tasks_edge::tasks::task::{StatusKind, Task};
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
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://template/123/data",
    ] {
        let read = result("resources/read", json!({ "uri": uri }));
        assert_valid(CORE, "ReadResourceResult", &read);
        assert_eq!(read["contents"][0]["uri"], uri);
    }
    assert!(
        result(
            "resources/read",
            json!({ "uri": "test://template/123/data" })
        )["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("123")
    );
    assert_valid(
        CORE,
        "ListResourceTemplatesResult",
        &result("resources/templates/list", json!({})),
    );
    for (name, arguments) in [
        ("test_simple_prompt", json!({})),
        (
            "test_prompt_with_arguments",
            json!({ "arg1": "hello", "arg2": "world" }),
        ),
        (
            "test_prompt_with_embedded_resource",
            json!({ "resourceUri": "test://x" }),
        ),
        ("test_prompt_with_image", json!({})),
    ] {
        let prompt = result(
            "prompts/get",
            json!({ "name": name, "arguments": arguments }),
        );
        assert_valid(CORE, "GetPromptResult", &prompt);
    }
    let completion = result(
        "completion/complete",
        json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                "argument": { "name": "arg1", "value": "pa" } }),
    );
    assert_valid(CORE, "CompleteResult", &completion);
    assert_eq!(
        completion["completion"]["values"],
        json!(["paris", "park", "party"])
    );
    for tool in [
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
    ] {
        assert_valid(
            CORE,
            "CallToolResult",
            &result("tools/call", json!({ "name": tool })),
        );
    }
}

#[test]
fn catalog_errors_are_clear() {
    let s = server();
    let error = |method: &str, params: Value| body(&respond(&s, &post(method, params)));
    // SEP-2164: an unknown URI is -32602 with the URI, never empty contents.
    let missing = error("resources/read", json!({ "uri": "test://nope" }));
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(missing["error"]["data"]["uri"], "test://nope");
    assert_eq!(
        error("resources/read", json!({ "uri": "test://template//data" }))["error"]["code"],
        -32602
    );
    let no_arg = error(
        "prompts/get",
        json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "x" } }),
    );
    assert!(
        no_arg["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"arg2\""),
        "{no_arg}"
    );
    let not_string = error(
        "prompts/get",
        json!({ "name": "test_prompt_with_arguments", "arguments": { "arg1": "x", "arg2": 2 } }),
    );
    assert_eq!(not_string["error"]["code"], -32602);
    assert_eq!(
        error("prompts/get", json!({ "name": "nope" }))["error"]["code"],
        -32602
    );
    for params in [
        json!({ "ref": { "type": "ref/prompt", "name": "nope" }, "argument": { "name": "a", "value": "" } }),
        json!({ "ref": { "type": "ref/other" }, "argument": { "name": "a", "value": "" } }),
        json!({ "ref": { "type": "ref/prompt", "name": "test_simple_prompt" } }),
    ] {
        assert_eq!(
            error("completion/complete", params.clone())["error"]["code"],
            -32602,
            "{params}"
        );
    }
    // A template variable with nothing to suggest is an empty answer, not an error.
    let empty = result(
        "completion/complete",
        json!({ "ref": { "type": "ref/resource", "uri": "test://template/{id}/data" }, "argument": { "name": "other", "value": "" } }),
    );
    assert_eq!(
        empty["completion"],
        json!({ "values": [], "total": 0, "hasMore": false })
    );
}

#[test]
fn capabilities_follow_what_is_registered() {
    use mcp_tasks_edge::server::{Config, Server};
    let bare = Server::new(Config::default());
    let discover = body(&respond(&bare, &post("server/discover", json!({}))));
    let capabilities = &discover["result"]["capabilities"];
    for absent in ["prompts", "resources", "completions"] {
        assert!(capabilities.get(absent).is_none(), "{capabilities}");
    }
    for method in [
        "prompts/list",
        "resources/list",
        "resources/read",
        "completion/complete",
    ] {
        let (status, code) = error_of(&respond(
            &bare,
            &post(method, json!({ "uri": "x", "name": "x" })),
        ));
        assert_eq!((status, code), (404, -32601), "{method}");
    }
    let full = body(&respond(&server(), &post("server/discover", json!({}))));
    for present in ["prompts", "resources", "completions"] {
        assert!(
            full["result"]["capabilities"].get(present).is_some(),
            "{present}"
        );
    }
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
    record.assign_id("0123456789abcdef0123456789abcdef".into());
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
