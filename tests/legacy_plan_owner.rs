//! The 2025-11-25 session object's decisions (`legacy::plan`) for the session's owner: each
//! method decided, subscriptions to known resources and bounded, idle sessions expiring and
//! used ones kept alive, and a GET whose Accept refuses a stream. Strangers holding the
//! session id: tests/legacy_plan.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::plan::{ALICE, body, error_code, opened};
use common::*;
use mcp_tasks_edge::legacy::Session;
use mcp_tasks_edge::legacy::plan::{Decision, MAX_SUBSCRIPTIONS, alarm, plan};
use serde_json::{Value, json};

const IDLE: u64 = 3_600_000;

#[test]
fn the_owner_gets_each_method_decided() {
    let s = server();
    let session = opened(&s, ALICE);
    let decide = |b: Vec<u8>| plan(&s, Some(session.clone()), incoming("POST", ALICE, &b), NOW);
    match decide(body("logging/setLevel", json!({ "level": "warning" }))) {
        Decision::Store { session, .. } => assert!(!session.logs("info") && session.logs("error")),
        other => panic!("{other:?}"),
    }
    match decide(body(
        "tools/call",
        json!({ "name": "confirm_delete", "arguments": { "filename": "a" }, "task": {} }),
    )) {
        Decision::CreateTask { record, .. } => assert_eq!(record.owner(), ALICE),
        other => panic!("{other:?}"),
    }
    let answer = serde_json::to_vec(
        &json!({ "jsonrpc": "2.0", "id": "9c1e", "error": { "code": -1, "message": "no" } }),
    )
    .unwrap();
    assert!(
        matches!(decide(answer), Decision::Deliver { request_id, answer: Err(_) } if request_id == "9c1e")
    );
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
fn a_get_whose_accept_refuses_a_stream_is_a_406_that_says_what_to_accept() {
    let s = server();
    let session = opened(&s, ALICE);
    for (accept, replay) in [
        ("application/json", None),
        ("application/json", Some("s1:0")),
        ("text/event-stream;q=0, */*", None),
        ("text/html", Some("s1:3")),
    ] {
        let mut get = incoming("GET", ALICE, &[]);
        get.accept = Some(accept);
        get.last_event_id = replay;
        let decision = plan(&s, Some(session.clone()), get, NOW);
        let Decision::Reply { status, body } = &decision else {
            panic!("{accept}: {decision:?}")
        };
        assert_eq!(*status, 406, "{accept}");
        let v: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(v["error"]["code"], -32600, "{v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("GET"), "{message}");
        assert!(message.contains("text/event-stream"), "{message}");
        assert_eq!(v["error"]["data"]["httpStatus"], 406);
        // A stranger learns nothing, whatever it accepts.
        get.principal = "key:mallory";
        assert_eq!(
            plan(&s, Some(session.clone()), get, NOW),
            Decision::NotFound
        );
    }
    for accept in [None, Some("text/event-stream"), Some("*/*"), Some("text/*")] {
        let mut get = incoming("GET", ALICE, &[]);
        get.accept = accept;
        assert_eq!(
            plan(&s, Some(session.clone()), get, NOW),
            Decision::OpenStream {
                last_event_id: None
            },
            "{accept:?}"
        );
    }
}
