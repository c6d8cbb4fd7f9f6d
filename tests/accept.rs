//! `Accept` on the 2026-07-28 path (streamable-http "Sending Messages"): a client that
//! refuses `text/event-stream` never gets one. A call that asked for progress is answered
//! with plain JSON (the progress is dropped); `subscriptions/listen`, which can only be a
//! stream, is a 406 saying what to accept.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::schema::check_error;
use common::*;
use mcp_tasks_edge::http::{EVENT_STREAM, Headers, HttpRequest, accepts, names};
use mcp_tasks_edge::server::Action;
use serde_json::json;

#[test]
fn accept_follows_rfc_9110() {
    let cases: &[(Option<&str>, bool)] = &[
        (None, true),
        (Some(""), true),
        (Some("application/json, text/event-stream"), true),
        (Some("text/event-stream"), true),
        (Some("TEXT/Event-Stream"), true),
        (Some("*/*"), true),
        (Some("text/*"), true),
        (Some("application/json"), false),
        (Some("application/json;q=1.0"), false),
        (Some("text/html, application/*"), false),
        (Some("application/json, text/event-stream;q=0"), false),
        (Some("application/json, text/event-stream; q=0.0"), false),
        (Some("*/*;q=0.5, text/event-stream;q=0"), false),
        (Some("text/event-stream;q=0, */*"), false),
        (Some("text/*;q=0, text/event-stream;q=0.2"), true),
        (Some("text/event-stream;q=0.001"), true),
    ];
    for (header, expected) in cases {
        let mut headers = Headers::new();
        if let Some(value) = header {
            headers.push("Accept", value);
        }
        assert_eq!(
            accepts(&headers, EVENT_STREAM),
            *expected,
            "Accept: {header:?}"
        );
    }
    let mut repeated = Headers::new();
    repeated.push("accept", "application/json");
    repeated.push("accept", "text/event-stream");
    assert!(accepts(&repeated, EVENT_STREAM), "repeated headers join");
}

/// A job's wait is streamed only to a client that names the type: one that takes
/// anything (`*/*`, no `Accept`) keeps its JSON answer.
#[test]
fn a_stream_only_for_a_client_that_names_it() {
    let cases: &[(Option<&str>, bool)] = &[
        (None, false),
        (Some("*/*"), false),
        (Some("text/*"), false),
        (Some("application/json"), false),
        (Some("application/json, text/event-stream"), true),
        (Some("application/json, TEXT/Event-Stream ; q=0.5"), true),
        (Some("application/json, text/event-stream;q=0"), false),
        (Some("text/event-stream-not"), false),
    ];
    for (header, expected) in cases {
        let mut headers = Headers::new();
        if let Some(value) = header {
            headers.push("Accept", value);
        }
        let named = names(&headers, EVENT_STREAM);
        assert_eq!(named, *expected, "Accept: {header:?}");
    }
}

fn with_accept(mut request: HttpRequest, accept: &str) -> HttpRequest {
    request.headers.push("accept", accept);
    request
}

fn progress_call() -> HttpRequest {
    let mut params = json!({ "name": "greet", "arguments": { "name": "Ada" } });
    let mut meta = meta(json!({ "extensions": { TASKS: {} } }));
    meta["progressToken"] = json!("p-1");
    params["_meta"] = meta;
    post("tools/call", params)
}

#[test]
fn a_progress_call_without_event_stream_runs_for_json() {
    let s = server();
    let token = |request: &HttpRequest| match s.handle(request, &ctx()) {
        Action::Run(run) => run.progress_token,
        other => panic!("expected a run, got {other:?}"),
    };
    assert_eq!(token(&progress_call()), Some(json!("p-1")));
    assert_eq!(
        token(&with_accept(
            progress_call(),
            "application/json, text/event-stream"
        )),
        Some(json!("p-1"))
    );
    let json_only = with_accept(progress_call(), "application/json");
    assert_eq!(token(&json_only), None);
    // Run as the adapter runs it: one JSON response, the result itself.
    let response = respond(&s, &json_only);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("application/json"));
    let result = &body(&response)["result"];
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
    assert_eq!(result["resultType"], "complete");
}

fn listen() -> HttpRequest {
    post(
        "subscriptions/listen",
        json!({ "notifications": { "taskIds": ["0123456789abcdef0123456789abcdef"] } }),
    )
}

#[test]
fn listen_without_event_stream_is_a_clear_406() {
    let s = server();
    assert!(matches!(s.handle(&listen(), &ctx()), Action::Listen(_)));
    assert!(matches!(
        s.handle(&with_accept(listen(), "text/event-stream"), &ctx()),
        Action::Listen(_)
    ));
    let Action::Respond(response) = s.handle(&with_accept(listen(), "application/json"), &ctx())
    else {
        panic!("expected a refusal")
    };
    assert_eq!(response.status, 406);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        String::from_utf8(response.body.clone()).unwrap(),
        r#"{"error":{"code":-32600,"data":{"accept":["application/json","text/event-stream"],"httpStatus":406},"message":"Not Acceptable: subscriptions/listen (a long-lived notification stream) can only be answered with a text/event-stream, which this request's Accept refuses; send Accept: application/json, text/event-stream"},"id":1,"jsonrpc":"2.0"}"#
    );
    check_error(&body(&response), "json-only listen");
    // A malformed listen is still told what is wrong with it first.
    let bad = with_accept(
        post("subscriptions/listen", json!({ "notifications": 3 })),
        "application/json",
    );
    assert_eq!(error_of(&respond(&s, &bad)), (400, -32602));
}

#[test]
fn json_only_clients_get_json_everywhere_else() {
    let s = server();
    for (method, params) in [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "Ada" } }),
        ),
        (
            "tools/call",
            json!({ "name": "test_streaming_elicitation" }),
        ),
        (
            "tasks/get",
            json!({ "taskId": "0123456789abcdef0123456789abcdef" }),
        ),
    ] {
        let request = with_accept(post(method, params.clone()), "application/json");
        match run_action(&s, s.handle(&request, &ctx())) {
            Action::Respond(response) => {
                assert_eq!(
                    response.header("content-type"),
                    Some("application/json"),
                    "{method}"
                );
            }
            Action::Forward { .. } if method == "tasks/get" => {}
            other => panic!("{method} {params}: {other:?}"),
        }
    }
}
