//! The envelope and header error table: every malformed or hostile request gets the
//! JSON-RPC code and HTTP status the spec gives, never a 5xx.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::http::Headers;
use serde_json::json;

fn with_header(
    mut request: mcp_tasks_edge::http::HttpRequest,
    name: &str,
    value: Option<&str>,
) -> mcp_tasks_edge::http::HttpRequest {
    let mut headers = Headers::new();
    for key in [
        "content-type",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "origin",
        "content-length",
    ] {
        if key == name {
            continue;
        }
        if let Some(v) = request.headers.get(key) {
            headers.push(key, &v);
        }
    }
    if let Some(v) = value {
        headers.push(name, v);
    }
    request.headers = headers;
    request
}

#[test]
fn envelope_errors() {
    let s = server();
    let table: &[(&str, u16, i64)] = &[
        ("{not json", 400, -32700),
        ("", 400, -32700),
        ("[]", 400, -32600),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            400,
            -32600,
        ),
        ("42", 400, -32600),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
            400,
            -32600,
        ),
        (r#"{"id":1,"method":"tools/list"}"#, 400, -32600),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            400,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            400,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{},"method":"tools/list"}"#,
            400,
            -32600,
        ),
        (r#"{"jsonrpc":"2.0","id":1}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, 400, -32600),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[1]}"#,
            400,
            -32600,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, 400, -32600),
        // Well-formed envelopes with bad _meta: -32602.
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            400,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{}}}"#,
            400,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            400,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            400,
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":"x"}}"#,
            400,
            -32602,
        ),
    ];
    for (body_text, status, code) in table {
        let response = respond(&s, &raw(body_text));
        assert_eq!(error_of(&response), (*status, *code), "body {body_text}");
        assert!(
            !body(&response)["error"]["message"]
                .as_str()
                .unwrap()
                .is_empty()
        );
    }
}

#[test]
fn error_ids_are_echoed_when_readable() {
    let response = respond(
        &server(),
        &raw(r#"{"jsonrpc":"1.0","id":"abc","method":"x"}"#),
    );
    assert_eq!(body(&response)["id"], "abc");
    let response = respond(&server(), &raw("{oops"));
    assert!(body(&response).get("id").is_none());
}

#[test]
fn notifications_are_accepted_with_202() {
    let response = respond(
        &server(),
        &raw(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#),
    );
    assert_eq!(response.status, 202);
    assert!(response.body.is_empty());
}

#[test]
fn header_errors() {
    let s = server();
    let greet = || {
        post(
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "Ada" } }),
        )
    };
    let cases = [
        (with_header(greet(), "mcp-protocol-version", None), -32020),
        (
            with_header(greet(), "mcp-protocol-version", Some("2025-11-25")),
            -32020,
        ),
        (with_header(greet(), "mcp-method", None), -32020),
        (
            with_header(greet(), "mcp-method", Some("TOOLS/CALL")),
            -32020,
        ),
        (
            with_header(greet(), "mcp-method", Some("tasks/get")),
            -32020,
        ),
        (with_header(greet(), "mcp-name", None), -32020),
        (with_header(greet(), "mcp-name", Some("other")), -32020),
        (
            with_header(greet(), "mcp-name", Some("=?base64?Z3JlZXQ?=")),
            -32020,
        ), // bad padding
        (
            with_header(greet(), "mcp-name", Some("=?base64?!!!!?=")),
            -32020,
        ),
        (
            with_header(
                post(
                    "tasks/get",
                    json!({ "taskId": "0123456789abcdef0123456789abcdef" }),
                ),
                "mcp-name",
                Some("ffffffffffffffffffffffffffffffff"),
            ),
            -32020,
        ),
    ];
    for (request, code) in cases {
        assert_eq!(
            error_of(&respond(&s, &request)),
            (400, code),
            "{:?}",
            request.headers
        );
    }
    // Base64-sentinel and OWS forms of a matching name are accepted.
    for value in ["=?base64?Z3JlZXQ=?=", "  greet\t"] {
        let response = respond(&s, &with_header(greet(), "mcp-name", Some(value)));
        assert_eq!(response.status, 200, "{value}");
    }
}

#[test]
fn version_errors() {
    let s = server();
    let mut request = raw(
        r#"{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    request.headers = Headers::from([
        ("content-type", "application/json"),
        ("mcp-protocol-version", "1900-01-01"),
        ("mcp-method", "server/discover"),
    ]);
    let response = respond(&s, &request);
    assert_eq!(error_of(&response), (400, -32022));
    assert_eq!(
        body(&response)["error"]["data"],
        json!({ "supported": ["2026-07-28"], "requested": "1900-01-01" })
    );
}

#[test]
fn removed_and_unknown_methods_are_404() {
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "tasks/result",
        "tasks/list",
        "nope/nope",
    ] {
        assert_eq!(
            error_of(&respond(&server(), &post(method, json!({})))),
            (404, -32601),
            "{method}"
        );
    }
}

#[test]
fn http_level_refusals() {
    let s = server();
    let mut r = post("tools/list", json!({}));
    r.headers.push("origin", "http://evil.example.com");
    assert_eq!(respond(&s, &r).status, 403);

    let mut r = post("tools/list", json!({}));
    r.headers.push("origin", "http://localhost:5173");
    let response = respond(&s, &r);
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("access-control-allow-origin"),
        Some("http://localhost:5173")
    );

    let mut r = post("tools/list", json!({}));
    r.method = "GET".into();
    let response = respond(&s, &r);
    assert_eq!(
        (response.status, response.header("allow")),
        (405, Some("POST, OPTIONS"))
    );

    let r = with_header(
        post("tools/list", json!({})),
        "content-type",
        Some("text/plain"),
    );
    assert_eq!(respond(&s, &r).status, 415);

    let mut r = post("tools/list", json!({}));
    r.body = vec![b' '; 1024 * 1024 + 1];
    assert_eq!(respond(&s, &r).status, 413);

    let r = with_header(
        post("tools/list", json!({})),
        "content-length",
        Some("99999999"),
    );
    assert_eq!(respond(&s, &r).status, 413);

    let mut r = post("tools/list", json!({}));
    r.path = "/other".into();
    assert_eq!(respond(&s, &r).status, 404);
}

#[test]
fn capability_and_params_errors() {
    let s = server();
    // tasks/* without the extension: -32021 before the id is even looked at.
    let response = respond(
        &s,
        &post(
            "tasks/get",
            json!({ "taskId": "gate-test", "_meta": meta(json!({})) }),
        ),
    );
    assert_eq!(error_of(&response), (400, -32021));
    assert_eq!(
        body(&response)["error"]["data"]["requiredCapabilities"],
        json!({ "extensions": { TASKS: {} } })
    );
    // A required-task tool without the extension.
    let response = respond(
        &s,
        &post(
            "tools/call",
            json!({ "name": "failing_job", "_meta": meta(json!({})) }),
        ),
    );
    assert_eq!(error_of(&response), (400, -32021));
    // Sampling needed but not declared.
    let response = respond(
        &s,
        &post(
            "tools/call",
            json!({ "name": "test_missing_capability", "_meta": meta(json!({})) }),
        ),
    );
    assert_eq!(error_of(&response), (400, -32021));
    assert_eq!(
        body(&response)["error"]["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );
    // Unknown tool, bad arguments, bad schema values.
    for params in [
        json!({ "name": "no_such_tool" }),
        json!({ "name": "greet", "arguments": {} }),
        json!({ "name": "greet", "arguments": { "name": 5 } }),
        json!({ "name": "greet", "arguments": [1] }),
        json!({ "name": "slow_compute", "arguments": { "seconds": -1 } }),
        json!({ "name": "json_schema_2020_12_tool", "arguments": { "email": "a@b", "extra": 1 } }),
    ] {
        let code = error_of(&respond(&s, &post("tools/call", params.clone())));
        assert_eq!(code.1, -32602, "{params}");
    }
    // A non-string name: the header cannot match it, and the params are invalid.
    let mut r = post("tools/call", json!({ "name": 7 }));
    r.headers.push("mcp-name", "7");
    assert_eq!(error_of(&respond(&s, &r)), (400, -32602));
    // Unknown or malformed task ids are "not found" (-32602).
    let response = respond(
        &s,
        &post(
            "tasks/get",
            json!({ "taskId": "tasks-conformance-nonexistent-12345" }),
        ),
    );
    assert_eq!(error_of(&response), (400, -32602));
}
