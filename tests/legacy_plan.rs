//! The 2025-11-25 session object's decisions (`legacy::plan`), as a table, attacked as a
//! stranger with a key of their own (or none) who holds someone else's session id would:
//! every request on another principal's session is the 404 of an unknown one. What the
//! owner's requests decide, subscriptions, idle expiry and GET's Accept:
//! tests/legacy_plan_owner.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::plan::{ALICE, body, error_code, opened};
use common::*;
use mcp_tasks_edge::legacy::plan::{Decision, Incoming, TaskOp, plan};
use mcp_tasks_edge::legacy::{self, Route, Session};
use serde_json::{Value, json};

const TID: &str = "00112233445566778899aabbccddeeff";

/// What a decision is, in a word (its status and JSON-RPC error code for a reply).
fn kind(decision: &Decision) -> String {
    match decision {
        Decision::NotFound => "404".into(),
        Decision::Reply { status, body } => {
            let v: Value = serde_json::from_slice(body).unwrap();
            match v["error"]["code"].as_i64() {
                Some(code) => format!("{status} {code}"),
                None => format!("{status} result"),
            }
        }
        Decision::Accepted => "202".into(),
        Decision::Cancel { request_id } => format!("cancel {}", serde_json::json!(request_id)),
        Decision::Initialize { .. } => "initialize".into(),
        Decision::End(_) => "end".into(),
        Decision::OpenStream { last_event_id } => format!("stream {last_event_id:?}"),
        Decision::Deliver { request_id, .. } => format!("deliver {request_id}"),
        Decision::Store { .. } => "store".into(),
        Decision::Subscribe { uri, .. } => format!("subscribe {uri}"),
        Decision::Task { op, .. } => format!("task {op:?}").replace(TID, "tid"),
        Decision::CreateTask { .. } => "create task".into(),
        Decision::Modern(rpc) => format!("modern {}", rpc.method),
    }
}

/// (HTTP method, `Last-Event-ID`, body, [the owner's decision, a stranger's, no session's]).
type Row<'a> = (&'a str, Option<&'a str>, &'a [u8], [&'a str; 3]);

const STRANGERS: [&str; 3] = ["key:mallory", "anonymous", "oauth:someone"];

/// The planner as a table: each request as the session's owner, as a stranger holding the
/// id (another key, an anonymous caller, an OAuth subject), and on an object without a
/// session. Only a bad HTTP method and an unparsable body are answered before the
/// session is looked at; everything else a stranger sends, `initialize` included, is the
/// 404 of an unknown session.
#[test]
fn decisions_by_caller_and_request() {
    let s = server();
    let session = opened(&s, ALICE);
    let raw = |v: Value| serde_json::to_vec(&v).unwrap();
    let answer = raw(json!({ "jsonrpc": "2.0", "id": "9c1e", "result": {} }));
    let note = raw(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let cancelled = |id: Value| {
        raw(
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } }),
        )
    };
    let (cancel_7, cancel_s, cancel_bad) = (
        cancelled(json!(7)),
        cancelled(json!("7")),
        cancelled(json!({})),
    );
    let init = body("initialize", json!({ "protocolVersion": "2025-11-25" }));
    let decide = |stored: Option<&Session>, request: Incoming| {
        kind(&plan(&s, stored.cloned(), request, NOW))
    };
    // (HTTP method, Last-Event-ID, body): the owner's decision, a stranger's, no session's.
    let http: [Row; 11] = [
        ("GET", None, b"", ["stream None", "404", "404"]),
        (
            "GET",
            Some("s1:0"),
            b"",
            [r#"stream Some("s1:0")"#, "404", "404"],
        ),
        ("DELETE", None, b"", ["end", "404", "404"]),
        ("PUT", None, b"", ["405 -32600"; 3]),
        ("POST", None, b"{not json", ["400 -32700"; 3]),
        ("POST", None, &init, ["200 -32600", "404", "initialize"]),
        ("POST", None, &answer, ["deliver 9c1e", "404", "404"]),
        ("POST", None, &note, ["202", "404", "404"]),
        // Only the owner's own session reaches its calls in flight; `7` and `"7"` are two
        // requests; a requestId that is no id is ignored, as an unknown one is.
        ("POST", None, &cancel_7, ["cancel 7", "404", "404"]),
        ("POST", None, &cancel_s, [r#"cancel "7""#, "404", "404"]),
        ("POST", None, &cancel_bad, ["202", "404", "404"]),
    ];
    for (method, last_event_id, body, [owner, stranger, none]) in http {
        let request = |principal| Incoming {
            last_event_id,
            ..incoming(method, principal, body)
        };
        let context = format!(
            "{method} {last_event_id:?} {}",
            String::from_utf8_lossy(body)
        );
        assert_eq!(decide(Some(&session), request(ALICE)), owner, "{context}");
        for caller in STRANGERS {
            assert_eq!(
                decide(Some(&session), request(caller)),
                stranger,
                "{caller}: {context}"
            );
        }
        assert_eq!(decide(None, request(ALICE)), none, "no session: {context}");
    }
    // Requests in a session: the owner's decision; anyone else, or no session: 404.
    let confirm =
        |arguments: Value| json!({ "name": "confirm_delete", "arguments": arguments, "task": {} });
    let rpc = [
        ("ping", json!({}), "200 result"),
        ("logging/setLevel", json!({ "level": "debug" }), "store"),
        ("logging/setLevel", json!({ "level": "loud" }), "200 -32602"),
        (
            "resources/subscribe",
            json!({ "uri": "test://static-text" }),
            "subscribe test://static-text",
        ),
        (
            "resources/unsubscribe",
            json!({ "uri": "test://nope" }),
            "subscribe test://nope",
        ),
        (
            "resources/subscribe",
            json!({ "uri": "test://nope" }),
            "200 -32602",
        ),
        ("tools/list", json!({}), "200 result"),
        ("server/discover", json!({}), "200 -32601"),
        ("subscriptions/listen", json!({}), "200 -32601"),
        ("tasks/update", json!({ "taskId": TID }), "200 -32601"),
        ("tasks/get", json!({ "taskId": TID }), r#"task Get("tid")"#),
        ("tasks/get", json!({ "taskId": 3 }), "200 -32602"),
        ("tasks/get", json!({ "taskId": "nope" }), "200 -32602"),
        (
            "tasks/cancel",
            json!({ "taskId": TID }),
            r#"task Cancel("tid")"#,
        ),
        (
            "tasks/result",
            json!({ "taskId": TID }),
            r#"task Result("tid")"#,
        ),
        ("tasks/list", json!({}), "task List(None)"),
        (
            "tasks/list",
            json!({ "cursor": "50" }),
            r#"task List(Some("50"))"#,
        ),
        (
            "tools/call",
            confirm(json!({ "filename": "a" })),
            "create task",
        ),
        ("tools/call", confirm(json!({})), "200 -32602"),
        (
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "x" } }),
            "modern tools/call",
        ),
        ("prompts/list", json!({}), "modern prompts/list"),
    ];
    for (method, params, owner) in rpc {
        let body = body(method, params.clone());
        let context = format!("{method} {params}");
        let request = |principal| incoming("POST", principal, &body);
        assert_eq!(decide(Some(&session), request(ALICE)), owner, "{context}");
        for caller in STRANGERS {
            assert_eq!(
                decide(Some(&session), request(caller)),
                "404",
                "{caller}: {context}"
            );
        }
        assert_eq!(decide(None, request(ALICE)), "404", "no session: {context}");
    }
}

#[test]
fn initialize_never_adopts_a_session_id_or_overwrites_one() {
    let s = server();
    // The Worker draws a new id for every initialize, whatever Mcp-Session-Id says.
    let init = body("initialize", json!({ "protocolVersion": "2025-11-25" }));
    let request = mcp_tasks_edge::http::HttpRequest {
        method: "POST".into(),
        path: "/mcp".into(),
        headers: mcp_tasks_edge::http::Headers::from([
            ("content-type", "application/json"),
            ("mcp-session-id", SID),
        ]),
        body: init.clone(),
    };
    assert!(matches!(legacy::route(&s, &request), Some(Route::New(_))));
    // And an object that already holds a session never initializes over it: its owner is
    // told, anyone else gets the 404 of an unknown session.
    let session = opened(&s, ALICE);
    let decision = plan(
        &s,
        Some(session.clone()),
        incoming("POST", ALICE, &init),
        NOW,
    );
    assert_eq!(error_code(&decision), -32600);
    for caller in ["key:mallory", "anonymous"] {
        let decision = plan(
            &s,
            Some(session.clone()),
            incoming("POST", caller, &init),
            NOW,
        );
        assert_eq!(decision, Decision::NotFound, "{caller}");
    }
    // An `initialize` with modern `_meta` is routed by the client's own session id: it
    // neither opens a session at that id nor tells whether one exists there.
    let modern = body(
        "initialize",
        json!({ "protocolVersion": "2025-11-25",
            "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
    );
    let mut routed = request.clone();
    routed.body = modern.clone();
    assert!(matches!(
        legacy::route(&s, &routed),
        Some(Route::Existing(..))
    ));
    assert_eq!(
        plan(&s, None, incoming("POST", "key:mallory", &modern), NOW),
        Decision::NotFound
    );
    let theirs = plan(
        &s,
        Some(session),
        incoming("POST", "key:mallory", &modern),
        NOW,
    );
    assert_eq!(theirs, Decision::NotFound);
}

#[test]
fn anonymous_sessions_are_their_own_principals() {
    let s = server();
    let session = opened(&s, "anonymous");
    assert_eq!(session.principal, format!("anonymous-session:{SID}"));
    assert_eq!(session.opened_by, "anonymous");
    // Holding the id is the key for an anonymous session; a keyed caller is someone else.
    let list = body("tasks/list", json!({}));
    assert!(matches!(
        plan(
            &s,
            Some(session.clone()),
            incoming("POST", "anonymous", &list),
            NOW
        ),
        Decision::Task {
            op: TaskOp::List(None),
            ..
        }
    ));
    assert_eq!(
        plan(&s, Some(session), incoming("POST", ALICE, &list), NOW),
        Decision::NotFound
    );
}
