//! Every error the server answers on the 2026-07-28 path, in the shape the official
//! schema gives its code (tests/fixtures/schema): the JSON-RPC envelope, the standard
//! codes' `Error` shapes, and the MCP codes' whole responses.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::object::ID;
use common::schema::*;
use common::*;
use mcp_tasks_edge::http::HttpRequest;
use mcp_tasks_edge::server::{Action, Config, Server};
use serde_json::{Value, json};

fn outcome(s: &Server, request: &HttpRequest) -> (u16, Value) {
    match run_action(s, s.handle(request, &ctx())) {
        Action::Respond(r) => (r.status, body(&r)),
        other => panic!("unexpected action {other:?}"),
    }
}

#[test]
fn every_error_matches_the_schema() {
    let s = server();
    let mut cases: Vec<(&str, HttpRequest)> = vec![
        ("parse", raw("{")),
        ("invalid request", raw(r#"{"jsonrpc":"2.0","id":1}"#)),
        ("unknown method", post("ping", json!({}))),
        ("removed method", post("tasks/list", json!({}))),
        ("bad params", post("tools/call", json!({ "name": 3 }))),
        (
            "unknown tool",
            post("tools/call", json!({ "name": "nope" })),
        ),
        (
            "bad arguments",
            post(
                "tools/call",
                json!({ "name": "greet", "arguments": { "name": 1 } }),
            ),
        ),
        (
            "unknown resource",
            post("resources/read", json!({ "uri": "test://nope" })),
        ),
        (
            "bad requestState",
            post(
                "tools/call",
                json!({ "name": "greet", "arguments": { "name": "a" }, "requestState": "forged" }),
            ),
        ),
        (
            "no tasks capability",
            post(
                "tasks/get",
                json!({ "taskId": ID, "_meta": meta(json!({})) }),
            ),
        ),
        (
            "missing capability",
            post(
                "tools/call",
                json!({ "name": "test_missing_capability", "_meta": meta(json!({})) }),
            ),
        ),
        (
            "bad listen",
            post("subscriptions/listen", json!({ "notifications": [] })),
        ),
        ("unsupported version", {
            let mut r = post(
                "tools/list",
                json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }),
            );
            r.headers = mcp_tasks_edge::http::Headers::from([
                ("content-type", "application/json"),
                ("mcp-protocol-version", "2099-01-01"),
                ("mcp-method", "tools/list"),
            ]);
            r
        }),
        ("header mismatch", {
            let mut r = post("tools/list", json!({}));
            r.headers.push("mcp-method", "x");
            r
        }),
        ("json only listen", {
            let mut r = post(
                "subscriptions/listen",
                json!({ "notifications": { "taskIds": [] } }),
            );
            r.headers.push("accept", "application/json");
            r
        }),
        ("media type", {
            let mut r = post("tools/list", json!({}));
            r.headers = mcp_tasks_edge::http::Headers::from([("content-type", "text/plain")]);
            r
        }),
        (
            "method",
            HttpRequest {
                method: "GET".into(),
                ..post("tools/list", json!({}))
            },
        ),
        ("origin", {
            let mut r = post("tools/list", json!({}));
            r.headers.push("origin", "https://evil.example");
            r
        }),
    ];
    let small = Server::new(Config {
        max_body_bytes: 10,
        ..Config::default()
    });
    for (context, request) in cases.drain(..) {
        let (status, body) = outcome(&s, &request);
        assert!(status >= 400, "{context}: {status} {body}");
        assert!(body.get("error").is_some(), "{context}: {body}");
        check_error(&body, context);
    }
    let (status, too_large) = outcome(&small, &post("tools/list", json!({})));
    assert_eq!(status, 413);
    check_error(&too_large, "too large");
}

/// Every method's params go through one typed decoder (`mcp::params::parse`): a param
/// that does not fit is -32602 whose message names the field, for each method that used
/// to read its params by hand.
#[test]
fn typed_params_name_the_field() {
    let s = server();
    let prompt = json!({ "type": "ref/prompt", "name": "test_prompt_with_arguments" });
    let cases = [
        (
            "prompts/get",
            json!({ "name": "test_simple_prompt", "arguments": [] }),
            "params.arguments: invalid type: sequence, expected a map",
        ),
        (
            "completion/complete",
            json!({ "ref": "x", "argument": { "name": "arg1", "value": "" } }),
            "params.ref: invalid type: string \"x\", expected a map",
        ),
        (
            "completion/complete",
            json!({ "ref": prompt, "argument": { "name": 1, "value": "" } }),
            "params.argument.name: invalid type: integer `1`, expected a string",
        ),
        (
            "completion/complete",
            json!({ "ref": prompt, "argument": ["arg1", ""] }),
            "params.argument: invalid type: sequence, expected a map",
        ),
        (
            "completion/complete",
            json!({ "ref": prompt }),
            "params: missing field `argument`",
        ),
        (
            "tasks/update",
            json!({ "taskId": ID }),
            "params: missing field `inputResponses`",
        ),
        (
            "tasks/update",
            json!({ "taskId": ID, "inputResponses": [] }),
            "params.inputResponses: invalid type: sequence, expected a map",
        ),
        (
            "tasks/update",
            json!({ "taskId": ID, "inputResponses": { "k#1": "yes" } }),
            "params.inputResponses.k#1: an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not a string",
        ),
        (
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "a" }, "inputResponses": { "k": 1 } }),
            "params.inputResponses.k: an answer must be an object (an ElicitResult, CreateMessageResult or ListRootsResult), not a number",
        ),
        (
            "tools/list",
            json!({ "cursor": 3 }),
            "params.cursor: invalid type: integer `3`, expected a string",
        ),
        (
            "tools/list",
            json!({ "cursor": "abc" }),
            "Invalid cursor: this server returns every item in one page",
        ),
    ];
    for (method, params, message) in cases {
        let (_, body) = outcome(&s, &post(method, params.clone()));
        assert_eq!(
            (&body["error"]["code"], body["error"]["message"].as_str()),
            (&json!(-32602), Some(message)),
            "{method} {params}: {body}"
        );
    }
}

#[test]
fn a_misconfiguration_names_the_variable_never_its_value() {
    use mcp_tasks_edge::error::McpError;
    let why =
        Config::from_vars(|name| (name == "OAUTH_ISSUER").then(|| "http://id.example/".into()))
            .unwrap_err();
    assert!(
        why.reason.contains("id.example"),
        "the log has the value: {why}"
    );
    let refusal = why.refusal();
    let wire = refusal.to_wire();
    assert_eq!((refusal.http_status(), wire.code.0), (500, -32603));
    assert_eq!(wire.data, Some(json!({ "misconfigured": "OAUTH_ISSUER" })));
    assert!(!format!("{wire:?}").contains("id.example"), "{wire:?}");
    // Deployed with that variable, the server is refused the same way, the value logged only.
    let definition = mcp_tasks_edge::server::Server::builder("s").build();
    let var = |name: &str| (name == "OAUTH_ISSUER").then(|| "http://id.example/".to_owned());
    let Err((refusal, log)) = definition.deployed(var) else {
        panic!("deployed with a plain-http issuer");
    };
    assert_eq!(
        refusal.to_wire().data,
        Some(json!({ "misconfigured": "OAUTH_ISSUER" }))
    );
    assert!(log.contains("id.example"), "{log}");
    assert!(definition.deployed(|_| None).is_ok());
    // A server whose definition is invalid is refused as such.
    let definition = McpError::misdefined();
    assert_eq!(
        definition.to_wire().data,
        Some(json!({ "misconfigured": "the server's definition" }))
    );
}
