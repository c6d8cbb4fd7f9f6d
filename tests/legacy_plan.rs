//! The 2025-11-25 session object's decisions (`legacy::plan`), as a table, attacked as a
//! stranger with a key of their own (or none) who holds someone else's session id would:
//! every request on another principal's session is the 404 of an unknown one.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::legacy::plan::{Decision, Incoming, MAX_SUBSCRIPTIONS, TaskOp, alarm, plan};
use mcp_tasks_edge::legacy::{self, Route, Session};
use mcp_tasks_edge::server::Server;
use serde_json::{Value, json};

const SID: &str = "0123456789abcdef0123456789abcdef";
const ALICE: &str = "key:alice";
const IDLE: u64 = 3_600_000;

fn body(method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
        .unwrap()
}

fn incoming<'a>(method: &'a str, principal: &'a str, body: &'a [u8]) -> Incoming<'a> {
    Incoming {
        method,
        session_id: SID,
        principal,
        last_event_id: None,
        body,
    }
}

/// A session opened by `caller` (through `initialize`, as the object would).
fn opened(s: &Server, caller: &str) -> Session {
    let init = body(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } }),
    );
    match plan(s, None, incoming("POST", caller, &init), NOW) {
        Decision::Initialize { session, .. } => *session,
        other => panic!("{other:?}"),
    }
}

fn error_code(decision: &Decision) -> i64 {
    let Decision::Reply { body, .. } = decision else {
        panic!("{decision:?}")
    };
    let v: Value = serde_json::from_slice(body).unwrap();
    v["error"]["code"].as_i64().unwrap()
}

#[test]
fn another_principal_finds_no_session_whatever_it_sends() {
    let s = server();
    let session = opened(&s, ALICE);
    assert_eq!(session.principal, ALICE);
    let answer =
        serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": "9c1e", "result": {} })).unwrap();
    let note =
        serde_json::to_vec(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .unwrap();
    let requests: Vec<(&str, Vec<u8>)> = vec![
        ("GET", Vec::new()),
        ("DELETE", Vec::new()),
        ("POST", body("tools/list", json!({}))),
        (
            "POST",
            body(
                "tools/call",
                json!({ "name": "greet", "arguments": { "name": "x" } }),
            ),
        ),
        ("POST", body("tasks/list", json!({}))),
        (
            "POST",
            body(
                "resources/subscribe",
                json!({ "uri": "test://static-text" }),
            ),
        ),
        (
            "POST",
            body("logging/setLevel", json!({ "level": "debug" })),
        ),
        ("POST", answer),
        ("POST", note),
    ];
    for caller in ["key:mallory", "anonymous", "oauth:someone"] {
        for (method, body) in &requests {
            let decision = plan(
                &s,
                Some(session.clone()),
                incoming(method, caller, body),
                NOW,
            );
            assert_eq!(
                decision,
                Decision::NotFound,
                "{caller} {method} {}",
                String::from_utf8_lossy(body)
            );
        }
    }
    // Replaying a stream: the owner only.
    let mut get = incoming("GET", "key:mallory", &[]);
    get.last_event_id = Some("s1:0");
    assert_eq!(
        plan(&s, Some(session.clone()), get, NOW),
        Decision::NotFound
    );
    get.principal = ALICE;
    assert_eq!(
        plan(&s, Some(session), get, NOW),
        Decision::OpenStream {
            last_event_id: Some("s1:0".into())
        }
    );
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
    // And an object that already holds a session never initializes over it.
    let session = opened(&s, ALICE);
    for caller in [ALICE, "key:mallory", "anonymous"] {
        let decision = plan(
            &s,
            Some(session.clone()),
            incoming("POST", caller, &init),
            NOW,
        );
        assert_eq!(error_code(&decision), -32600, "{caller}");
    }
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

#[test]
fn the_owner_gets_each_method_decided() {
    let s = server();
    let session = opened(&s, ALICE);
    let decide = |b: Vec<u8>| plan(&s, Some(session.clone()), incoming("POST", ALICE, &b), NOW);
    assert!(matches!(
        decide(body("ping", json!({}))),
        Decision::Reply { status: 200, .. }
    ));
    match decide(body("logging/setLevel", json!({ "level": "warning" }))) {
        Decision::Store { session, .. } => assert!(!session.logs("info") && session.logs("error")),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        error_code(&decide(body(
            "logging/setLevel",
            json!({ "level": "loud" })
        ))),
        -32602
    );
    let tid = "00112233445566778899aabbccddeeff";
    for (method, op) in [
        ("tasks/get", TaskOp::Get(tid.into())),
        ("tasks/cancel", TaskOp::Cancel(tid.into())),
        ("tasks/result", TaskOp::Result(tid.into())),
    ] {
        assert_eq!(
            decide(body(method, json!({ "taskId": tid }))),
            Decision::Task {
                id: mcp_tasks_edge::jsonrpc::RequestId::Number(7),
                op
            }
        );
    }
    assert_eq!(
        error_code(&decide(body("tasks/get", json!({ "taskId": 3 })))),
        -32602
    );
    assert_eq!(
        error_code(&decide(body("tasks/get", json!({ "taskId": "nope" })))),
        -32602
    );
    for removed in ["server/discover", "subscriptions/listen", "tasks/update"] {
        assert_eq!(
            error_code(&decide(body(removed, json!({})))),
            -32601,
            "{removed}"
        );
    }
    match decide(body(
        "tools/call",
        json!({ "name": "confirm_delete", "arguments": { "filename": "a" }, "task": {} }),
    )) {
        Decision::CreateTask { record, .. } => assert_eq!(record.owner(), ALICE),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        error_code(&decide(body(
            "tools/call",
            json!({ "name": "confirm_delete", "arguments": {} , "task": {} })
        ))),
        -32602
    );
    assert!(matches!(
        decide(body(
            "tools/call",
            json!({ "name": "greet", "arguments": { "name": "x" } })
        )),
        Decision::Modern(_)
    ));
    let answer = serde_json::to_vec(
        &json!({ "jsonrpc": "2.0", "id": "9c1e", "error": { "code": -1, "message": "no" } }),
    )
    .unwrap();
    assert!(
        matches!(decide(answer), Decision::Deliver { request_id, answer: Err(_) } if request_id == "9c1e")
    );
    assert_eq!(
        decide(b"{not json".to_vec()).clone(),
        decide(b"{not json".to_vec())
    );
    assert!(matches!(
        decide(b"{not json".to_vec()),
        Decision::Reply { status: 400, .. }
    ));
    assert!(matches!(
        plan(&s, Some(session.clone()), incoming("PUT", ALICE, &[]), NOW),
        Decision::Reply { status: 405, .. }
    ));
    assert!(matches!(
        plan(&s, Some(session), incoming("DELETE", ALICE, &[]), NOW),
        Decision::End(_)
    ));
}

#[test]
fn subscriptions_are_to_known_resources_and_bounded() {
    let s = server();
    let mut session = opened(&s, ALICE);
    let subscribe = |session: &Session, uri: &str| {
        let b = body("resources/subscribe", json!({ "uri": uri }));
        plan(&s, Some(session.clone()), incoming("POST", ALICE, &b), NOW)
    };
    assert!(matches!(
        subscribe(&session, "test://static-text"),
        Decision::Subscribe {
            subscribed: true,
            ..
        }
    ));
    assert!(matches!(
        subscribe(&session, "test://template/42/data"),
        Decision::Subscribe { .. }
    ));
    assert_eq!(
        error_code(&subscribe(&session, "file:///etc/passwd")),
        -32602
    );
    assert_eq!(
        error_code(&subscribe(&session, "test://nothing-here")),
        -32602
    );
    for i in 0..MAX_SUBSCRIPTIONS {
        session
            .subscriptions
            .insert(format!("test://template/{i}/data"));
    }
    assert_eq!(
        error_code(&subscribe(&session, "test://static-text")),
        -32602
    );
    // Unsubscribing is always fine, and re-subscribing to one held is no new place.
    assert!(matches!(
        subscribe(&session, "test://template/3/data"),
        Decision::Subscribe { .. }
    ));
    let b = body("resources/unsubscribe", json!({ "uri": "test://anything" }));
    assert!(matches!(
        plan(&s, Some(session), incoming("POST", ALICE, &b), NOW),
        Decision::Subscribe {
            subscribed: false,
            ..
        }
    ));
}

#[test]
fn idle_sessions_expire_and_used_ones_are_kept_alive_coarsely() {
    let s = server();
    let session = opened(&s, ALICE);
    assert_eq!(session.held_until_ms, NOW + IDLE);
    assert_eq!(alarm(&session, NOW + 10, IDLE), Some(NOW + IDLE));
    assert_eq!(alarm(&session, NOW + IDLE, IDLE), None);
    // A request soon after the last is not worth a write.
    assert_eq!(session.touched(NOW + IDLE / 16, IDLE), None);
    // Later it is; the ledger place is renewed once less than half the idle time is left.
    let (touched, renew) = session.touched(NOW + IDLE / 4, IDLE).unwrap();
    assert_eq!((touched.last_seen_ms, renew), (NOW + IDLE / 4, false));
    let (touched, renew) = session.touched(NOW + IDLE * 3 / 4, IDLE).unwrap();
    assert!(renew);
    assert_eq!(touched.held_until_ms, NOW + IDLE * 7 / 4);
    assert_eq!(alarm(&touched, NOW + IDLE, IDLE), Some(NOW + IDLE * 7 / 4));
}

#[test]
fn tasks_result_steps_follow_the_task() {
    use legacy::ResultStep;
    let tid = "00112233445566778899aabbccddeeff";
    let task = |extra: Value| {
        let mut t = json!({ "taskId": tid, "createdAt": "x", "lastUpdatedAt": "x", "ttlMs": null });
        t.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        t
    };
    assert_eq!(
        legacy::result_step(&task(json!({ "status": "working" })), tid).unwrap(),
        ResultStep::Wait
    );
    assert_eq!(
        legacy::result_step(&task(json!({ "status": "cancelled" })), tid).unwrap(),
        ResultStep::Cancelled
    );
    let asked = json!({ "name#1": { "method": "elicitation/create", "params": {} } });
    assert_eq!(
        legacy::result_step(
            &task(json!({ "status": "input_required", "inputRequests": asked })),
            tid
        )
        .unwrap(),
        ResultStep::Ask(asked.as_object().unwrap().clone())
    );
    let Ok(ResultStep::Complete(result)) = legacy::result_step(
        &task(json!({ "status": "completed", "result": { "content": [] } })),
        tid,
    ) else {
        panic!()
    };
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        tid
    );
    let failed = json!({ "status": "failed", "error": { "code": -32603, "message": "boom" } });
    let Ok(ResultStep::Fail(error)) = legacy::result_step(&task(failed), tid) else {
        panic!()
    };
    assert_eq!((error.code.0, error.message.as_str()), (-32603, "boom"));
}

/// A task reply that does not decode is an internal error naming why, never "wait"
/// (invariant 5): an unknown status, a completed task without its result, a failed one
/// whose error is not an error.
#[test]
fn tasks_result_of_a_task_that_does_not_decode_is_an_error() {
    let tid = "00112233445566778899aabbccddeeff";
    for (task, why) in [
        (json!({ "taskId": tid }), "missing field `status`"),
        (
            json!({ "taskId": tid, "status": "paused" }),
            "unknown variant `paused`",
        ),
        (
            json!({ "taskId": tid, "status": "completed" }),
            "missing field `result`",
        ),
        (
            json!({ "taskId": tid, "status": "failed", "error": "boom" }),
            "invalid type",
        ),
    ] {
        let Err(McpError::Internal(message)) = legacy::result_step(&task, tid) else {
            panic!("{task} must be refused")
        };
        assert!(
            message.contains("does not decode") && message.contains(why),
            "{message}"
        );
    }
}
