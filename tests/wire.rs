//! Golden wire tests: what the server puts on the wire validates against the official
//! JSON schema (2026-07-28 core): discovery, the catalogs, tool results and errors, and
//! the spec's own examples parse. Tasks and their results against the ext-tasks draft:
//! tests/wire_task_shapes.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::schema::{CORE, assert_valid};
use common::*;
use mcp_tasks_edge::jsonrpc::ErrorObject;
use mcp_tasks_edge::mcp::input::{self, Elicited};
use serde_json::{Value, json};

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
    assert_valid(CORE, "DiscoverResult", &discover, "discover");
    assert_eq!(
        discover["capabilities"]["extensions"],
        json!({ "io.modelcontextprotocol/tasks": {} })
    );
    assert!(discover["capabilities"].get("tasks").is_none());
    assert_valid(
        CORE,
        "ListToolsResult",
        &result("tools/list", json!({})),
        "ListToolsResult",
    );
    assert_valid(
        CORE,
        "ListPromptsResult",
        &result("prompts/list", json!({})),
        "ListPromptsResult",
    );
    assert_valid(
        CORE,
        "ListResourcesResult",
        &result("resources/list", json!({})),
        "ListResourcesResult",
    );
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://template/123/data",
    ] {
        let read = result("resources/read", json!({ "uri": uri }));
        assert_valid(CORE, "ReadResourceResult", &read, "read");
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
        "ListResourceTemplatesResult",
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
        assert_valid(CORE, "GetPromptResult", &prompt, "prompt");
    }
    let completion = result(
        "completion/complete",
        json!({ "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                "argument": { "name": "arg1", "value": "pa" } }),
    );
    assert_valid(CORE, "CompleteResult", &completion, "completion");
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
            "CallToolResult",
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
        "CallToolResult",
    );
    assert_valid(
        CORE,
        "CallToolResult",
        &result(
            "tools/call",
            json!({ "name": "test_error_handling", "arguments": {} }),
        ),
        "CallToolResult",
    );
    let multiple = result(
        "tools/call",
        json!({ "name": "test_input_required_result_multiple_inputs" }),
    );
    assert_valid(CORE, "InputRequiredResult", &multiple, "multiple");
    assert_eq!(multiple["inputRequests"].as_object().unwrap().len(), 3);
    let prompt = result(
        "prompts/get",
        json!({ "name": "test_input_required_result_prompt" }),
    );
    assert_valid(CORE, "InputRequiredResult", &prompt, "prompt");
}

#[test]
fn errors_match_the_core_schema() {
    let s = server();
    let error = |request| body(&respond(&s, &request));
    let missing = error(post(
        "tools/call",
        json!({ "name": "test_missing_capability", "_meta": meta(json!({})) }),
    ));
    assert_valid(
        CORE,
        "MissingRequiredClientCapabilityError",
        &missing,
        "missing",
    );
    let mut request = post("tools/list", json!({}));
    request.headers.push("mcp-method", "x");
    assert_valid(
        CORE,
        "HeaderMismatchError",
        &error(request),
        "HeaderMismatchError",
    );
    let unknown = error(post("ping", json!({})));
    assert_valid(CORE, "JSONRPCErrorResponse", &unknown, "unknown");
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
            "CallToolResult",
        );
    }
}
