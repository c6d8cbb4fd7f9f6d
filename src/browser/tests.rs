//! Native tests of the client's plain-Rust core (`cargo test --features browser --lib
//! browser::`); the round trips through the server core are in `server_tests.rs`.

use super::error::ClientError;
use super::flow::{self, AnsweredKeys, CallStep, InputKind, StatusWatch, TaskState};
use super::sse::{ListenEvent, SseParser, bare_task, listen_event};
use super::wire::{Outgoing, Session, check_discovery, read_response};
use serde_json::{Map, Value, json};

fn header<'a>(out: &'a Outgoing, name: &str) -> Option<&'a str> {
    out.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

#[test]
fn request_carries_headers_and_meta() {
    let mut session = Session::new("http://127.0.0.1:8787/mcp");
    session.bearer_token = Some("t0k".into());
    let out = session.request(
        7,
        "tools/call",
        object(json!({ "name": "greet", "arguments": { "name": "Ada" } })),
        None,
    );
    assert_eq!(header(&out, "MCP-Protocol-Version"), Some("2026-07-28"));
    assert_eq!(header(&out, "Mcp-Method"), Some("tools/call"));
    assert_eq!(header(&out, "Mcp-Name"), Some("greet"));
    assert_eq!(
        header(&out, "Accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(header(&out, "Authorization"), Some("Bearer t0k"));
    let body: Value = serde_json::from_str(&out.body).unwrap();
    assert_eq!(body["id"], 7);
    let meta = &body["params"]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        meta["io.modelcontextprotocol/clientInfo"]["name"],
        "mcp-tasks-edge-browser"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object());
}

#[test]
fn names_and_params_use_the_base64_sentinel_when_needed() {
    let session = Session::new("u");
    let out = session.request(
        1,
        "tools/call",
        object(json!({ "name": "Hello, 世界", "arguments": {} })),
        None,
    );
    assert_eq!(
        header(&out, "Mcp-Name"),
        Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
    );
    let schema = json!({ "type": "object", "properties": {
        "region": { "type": "string", "x-mcp-header": "Region" },
        "count": { "type": "integer", "x-mcp-header": "Count" },
        "flag": { "type": "boolean", "x-mcp-header": "Flag" },
        "text": { "type": "string", "x-mcp-header": "Text" },
        "absent": { "type": "string", "x-mcp-header": "Absent" } } });
    let args = json!({ "region": "us-west1", "count": 42, "flag": true, "text": " padded " });
    let out = session.request(
        2,
        "tools/call",
        object(json!({ "name": "t", "arguments": args })),
        Some(&schema),
    );
    assert_eq!(header(&out, "Mcp-Param-Region"), Some("us-west1"));
    assert_eq!(header(&out, "Mcp-Param-Count"), Some("42"));
    assert_eq!(header(&out, "Mcp-Param-Flag"), Some("true"));
    assert_eq!(
        header(&out, "Mcp-Param-Text"),
        Some("=?base64?IHBhZGRlZCA=?=")
    );
    assert_eq!(header(&out, "Mcp-Param-Absent"), None);
    // tasks/*: Mcp-Name is the task id; other methods have none.
    let out = session.request(3, "tasks/get", object(json!({ "taskId": "abc" })), None);
    assert_eq!(header(&out, "Mcp-Name"), Some("abc"));
    let out = session.request(4, "tools/list", Map::new(), None);
    assert_eq!(header(&out, "Mcp-Name"), None);
}

#[test]
fn responses_read_into_results_or_errors() {
    let ok = r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","tools":[]}}"#;
    assert_eq!(
        read_response(200, "application/json", ok, 3).unwrap()["tools"],
        json!([])
    );
    let err = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"nope","data":{"x":1}}}"#;
    assert_eq!(
        read_response(400, "application/json", err, 3),
        Err(ClientError::new(-32602, "nope", Some(json!({ "x": 1 }))))
    );
    let html = read_response(200, "text/html", "<!doctype html><p>hi", 3).unwrap_err();
    assert_eq!(html.code, -32700);
    assert!(html.message.contains("text/html"), "{}", html.message);
    assert_eq!(html.data.unwrap()["httpStatus"], 200);
    assert_eq!(
        read_response(200, "application/json", r#"{"a":1}"#, 3)
            .unwrap_err()
            .code,
        -32600
    );
    assert_eq!(
        read_response(
            200,
            "application/json",
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            3
        )
        .unwrap_err()
        .code,
        -32600
    );
    assert_eq!(
        read_response(502, "text/plain", "", 3).unwrap_err().code,
        -32700
    );
    // An SSE answer: notifications first, then the response with our id.
    let sse = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\n\
               data: \"result\":{\"resultType\":\"complete\",\"ok\":true}}\n\n";
    assert_eq!(
        read_response(200, "text/event-stream", sse, 3).unwrap()["ok"],
        true
    );
    assert_eq!(
        read_response(200, "text/event-stream; charset=utf-8", ":\n\n", 3)
            .unwrap_err()
            .code,
        -32600
    );
}

#[test]
fn discovery_must_offer_2026_07_28() {
    assert!(check_discovery(&object(json!({ "supportedVersions": ["2026-07-28"] }))).is_ok());
    let e = check_discovery(&object(json!({ "supportedVersions": ["2025-11-25"] }))).unwrap_err();
    assert_eq!(e.code, -32022);
    assert_eq!(e.data.unwrap()["supported"], json!(["2025-11-25"]));
    assert_eq!(check_discovery(&Map::new()).unwrap_err().code, -32022);
}

#[test]
fn call_results_classify_by_result_type() {
    let complete = flow::call_step(object(json!({ "content": [] }))).unwrap();
    assert_eq!(complete, CallStep::Complete(json!({ "content": [] })));
    let mrtr = flow::call_step(object(json!({ "resultType": "input_required",
        "inputRequests": { "k": { "method": "roots/list" } }, "requestState": "s" })))
    .unwrap();
    assert!(
        matches!(mrtr, CallStep::InputRequired { ref requests, request_state: Some(ref s) } if requests.contains_key("k") && s == "s")
    );
    let task = flow::call_step(object(
        json!({ "resultType": "task", "taskId": "t", "status": "working" }),
    ))
    .unwrap();
    assert_eq!(
        task,
        CallStep::Task(json!({ "taskId": "t", "status": "working" }))
    );
    assert_eq!(
        flow::call_step(object(json!({ "resultType": "input_required" })))
            .unwrap_err()
            .code,
        -32600
    );
    assert_eq!(
        flow::call_step(object(json!({ "resultType": "later" })))
            .unwrap_err()
            .code,
        -32600
    );
}

#[test]
fn task_states_and_their_outcomes() {
    assert_eq!(
        flow::task_state(&json!({ "status": "working" })).unwrap(),
        TaskState::Working
    );
    let failed = flow::task_state(&json!({ "taskId": "t", "status": "failed", "error": { "code": -32603, "message": "boom" } })).unwrap();
    assert_eq!(
        failed,
        TaskState::Failed(ClientError::new(-32603, "boom", None))
    );
    assert!(failed.is_terminal());
    assert_eq!(
        flow::task_state(&json!({ "status": "completed", "result": { "content": [] } })).unwrap(),
        TaskState::Completed(json!({ "content": [] }))
    );
    assert_eq!(
        flow::task_state(&json!({ "status": "completed" }))
            .unwrap_err()
            .code,
        -32600
    );
    assert_eq!(
        flow::task_state(&json!({ "status": "paused" }))
            .unwrap_err()
            .code,
        -32600
    );
    assert_eq!(flow::cancelled("t").code, -32800);
    assert_eq!(flow::poll_delay(&json!({ "pollIntervalMs": 1500 })), 1500);
    assert_eq!(flow::poll_delay(&json!({})), flow::DEFAULT_POLL_MS);
    assert_eq!(
        flow::poll_delay(&json!({ "pollIntervalMs": 0 })),
        flow::MIN_POLL_MS
    );
}

#[test]
fn input_keys_are_answered_once_per_task() {
    let mut answered = AnsweredKeys::default();
    let requests = object(json!({ "a": {}, "b": {} }));
    assert_eq!(answered.fresh(&requests).len(), 2);
    answered.mark("a");
    let fresh: Vec<String> = answered
        .fresh(&requests)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(fresh, ["b"]);
    answered.mark("b");
    assert!(answered.fresh(&requests).is_empty());
    let (kind, params) = flow::input_kind(
        "k",
        &json!({ "method": "elicitation/create", "params": { "message": "?" } }),
    )
    .unwrap();
    assert_eq!(
        (kind, params),
        (InputKind::Elicitation, json!({ "message": "?" }))
    );
    assert_eq!(
        flow::input_kind("k", &json!({ "method": "roots/list" })).unwrap(),
        (InputKind::Roots, json!({}))
    );
    assert_eq!(
        flow::input_kind("k", &json!({ "method": "ping" }))
            .unwrap_err()
            .code,
        -32600
    );
}

#[test]
fn status_watch_fires_on_status_or_message_changes() {
    let mut watch = StatusWatch::default();
    assert!(watch.changed(&json!({ "status": "working" })));
    assert!(!watch.changed(&json!({ "status": "working", "lastUpdatedAt": "later" })));
    assert!(watch.changed(&json!({ "status": "working", "statusMessage": "1/3" })));
    assert!(watch.changed(&json!({ "status": "completed" })));
}

#[test]
fn sse_parser_handles_chunks_comments_and_split_utf8() {
    let stream = "data: {\"a\":\"é\"}\r\n\r\n: keep-alive\n\ndata: one\ndata: two\n\nevent: x\ndata: skipped\n\nevent: message\ndata: last";
    let bytes = stream.as_bytes();
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    // One byte at a time: "é" is cut in half.
    for b in bytes {
        events.extend(parser.push(std::slice::from_ref(b)));
    }
    events.extend(parser.finish());
    assert_eq!(events, ["{\"a\":\"é\"}", "one\ntwo", "last"]);
}

#[test]
fn listen_events_and_bare_tasks() {
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":["a"]}}}"#;
    assert_eq!(
        listen_event(ack),
        ListenEvent::Acknowledged(vec!["a".into()])
    );
    let note = r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"a","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":3}}}"#;
    let ListenEvent::Task(task) = listen_event(note) else {
        panic!("a task event")
    };
    assert_eq!(
        Value::Object(bare_task(task.as_object().unwrap())),
        json!({ "taskId": "a", "status": "working" })
    );
    assert_eq!(
        listen_event(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
        ListenEvent::Closed
    );
    assert_eq!(
        listen_event(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"x"}}"#),
        ListenEvent::Error(ClientError::new(-32602, "x", None))
    );
    assert_eq!(listen_event("not json"), ListenEvent::Other);
}

#[test]
fn a_401_or_403_names_the_authorization_server_from_the_metadata() {
    use super::challenge::{auth_error, challenge_params};
    let challenge = r#"Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp", error="insufficient_scope", scope="mcp:tools mcp:admin""#;
    let params = challenge_params(challenge);
    assert_eq!(params["scope"], "mcp:tools mcp:admin");
    assert_eq!(params["error"], "insufficient_scope");
    assert!(challenge_params("Basic realm=x").is_empty());
    let prm = json!({ "resource": "https://mcp.example/mcp", "authorization_servers": ["https://id.example"] });
    let e = auth_error(403, challenge, Some(&prm), None);
    assert!(e.message.contains("Forbidden (HTTP 403)"), "{}", e.message);
    assert!(e.message.contains("mcp:tools mcp:admin") && e.message.contains("https://id.example"));
    assert_eq!(
        e.data.as_ref().unwrap()["authorizationServers"],
        json!(["https://id.example"])
    );
    let server = ClientError::new(
        -32600,
        "Unauthorized: Invalid access token: the token has expired",
        None,
    );
    let e = auth_error(
        401,
        r#"Bearer resource_metadata="x", error="invalid_token""#,
        Some(&prm),
        Some(server),
    );
    assert!(
        e.message.contains("refused")
            && e.message.contains("https://id.example")
            && e.message.contains("expired"),
        "{}",
        e.message
    );
    let e = auth_error(401, "", None, None);
    assert!(
        e.message.contains("Unauthorized (HTTP 401)"),
        "{}",
        e.message
    );
    assert_eq!(e.data.as_ref().unwrap()["httpStatus"], 401);
}

#[test]
fn a_failed_fetch_says_blocked_or_unreachable_with_the_url() {
    let blocked = ClientError::unreachable("https://mcp.example/mcp", "Failed to fetch", true);
    assert_eq!(blocked.code, ClientError::INTERNAL_ERROR);
    let data = blocked.data.unwrap();
    assert_eq!(
        (
            data["url"].as_str(),
            data["cause"].as_str(),
            data["reachable"].as_bool()
        ),
        (
            Some("https://mcp.example/mcp"),
            Some("Failed to fetch"),
            Some(true)
        )
    );
    let reason = data["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the browser blocked the response from https://mcp.example/mcp"),
        "{reason}"
    );
    assert!(reason.contains("ALLOWED_ORIGINS"), "{reason}");
    assert_eq!(blocked.message, format!("Network error: {reason}"));
    let unreachable = ClientError::unreachable(
        "https://mcp.example/mcp",
        "NetworkError when attempting to fetch resource.",
        false,
    );
    let reason = unreachable.data.unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reason.starts_with("the browser could not reach https://mcp.example/mcp"),
        "{reason}"
    );
    assert!(reason.contains("connect-src"), "{reason}");
}
