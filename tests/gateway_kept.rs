//! The 2025-11-25 sessions an isolate keeps between inline calls (`gateway::client::Sessions`):
//! one handshake for many calls of one caller, each with request ids of its own; never
//! another caller's session; a session that ended upstream replaced without running the call
//! twice; an idle one closed; and no more than `MAX_KEPT` kept, however many capability sets
//! callers declare.
#![cfg(all(not(target_arch = "wasm32"), feature = "gateway"))]

mod common;

use common::upstream::*;
use mcp_tasks_edge::gateway::client::{IDLE_MS, MAX_KEPT};
use mcp_tasks_edge::host::fake::FakeHost;
use mcp_tasks_edge::host::{Host, block_on};
use mcp_tasks_edge::tools::{Call, Step, Tool};
use serde_json::{Value, json};

fn methods(fake: &FakeHost) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| match r.method.as_str() {
            "POST" => {
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                body["method"].as_str().unwrap().to_owned()
            }
            other => other.to_owned(),
        })
        .collect()
}

/// An upstream with nothing scripted yet but the DELETE of a session.
fn bare() -> FakeHost {
    FakeHost::new().secret("UP_TOKEN", "gateway-secret").answer(
        "DELETE",
        URL,
        answer(200, "text/plain", String::new(), None),
    )
}

/// Scripts the next handshake: `initialize` opening `session`, then `initialized`.
fn handshake(fake: FakeHost, session: &str) -> FakeHost {
    let init = result(
        1,
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": { "name": "up", "version": "1" } }),
    );
    fake.answer(
        "POST",
        URL,
        answer(200, "application/json", init, Some(session)),
    )
    .answer("POST", URL, answer(202, "text/plain", String::new(), None))
}

/// Scripts the next call's answer, to request `id`.
fn answers(fake: FakeHost, id: u64) -> FakeHost {
    let hi = json!({ "content": [{ "type": "text", "text": "hi" }] });
    fake.answer(
        "POST",
        URL,
        answer(200, "application/json", result(id, hi), None),
    )
}

fn session_ids(fake: &FakeHost) -> Vec<Option<String>> {
    fake.requests()
        .iter()
        .map(|r| {
            r.headers
                .iter()
                .find(|(n, _)| n == "mcp-session-id")
                .map(|(_, v)| v.clone())
        })
        .collect()
}

fn lookup() -> Tool {
    tool(plain("lookup", json!({ "readOnlyHint": true })), false)
}

/// Runs `call` of `tool` on `fake`, which must complete it.
fn completes(tool: &Tool, fake: &FakeHost, call: Call) {
    let step = block_on(tool.step(call, Host::new(fake.clone())));
    assert!(matches!(step, Step::Complete(_)), "{step:?}");
}

/// A call by `principal`.
fn by(principal: &str) -> Call {
    Call::new(json!({})).by(principal)
}

#[test]
fn calls_share_one_session_each_with_ids_of_its_own() {
    // Request ids: 1 initialize, 2 the first call; each later call takes a block of its own.
    let fake = answers(answers(answers(handshake(bare(), "s1"), 2), 3), 1003);
    let tool = lookup();
    for _ in 0..3 {
        completes(&tool, &fake, by("alice"));
    }
    assert_eq!(
        methods(&fake),
        [
            "initialize",
            "notifications/initialized",
            "tools/call",
            "tools/call",
            "tools/call"
        ],
        "one handshake, no DELETE: the session is kept"
    );
    assert!(
        session_ids(&fake)[1..]
            .iter()
            .all(|s| s.as_deref() == Some("s1"))
    );
}

#[test]
fn a_session_that_ended_upstream_is_replaced_and_the_call_made_once_on_the_new_one() {
    let tool = lookup();
    let fake = answers(handshake(bare(), "s1"), 2);
    completes(&tool, &fake, by("alice"));
    // The upstream restarted: it knows no session s1 (404), and opens s2.
    let gone = bare().answer(
        "POST",
        URL,
        answer(404, "text/plain", "no such session".into(), None),
    );
    let gone = answers(handshake(gone, "s2"), 2);
    completes(&tool, &gone, by("alice"));
    assert_eq!(
        methods(&gone),
        [
            "tools/call",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ],
        "the call the upstream never ran (404) is made once, on a new session"
    );
    let next = answers(bare(), 3);
    completes(&tool, &next, by("alice"));
    assert_eq!(methods(&next), ["tools/call"]);
    assert_eq!(session_ids(&next), [Some("s2".to_owned())]);
}

#[test]
fn a_session_idle_too_long_is_closed_and_a_new_one_opened() {
    let tool = lookup();
    let fake = answers(handshake(bare(), "s1"), 2).at(1_000);
    completes(&tool, &fake, by("alice"));
    let later = answers(handshake(bare(), "s2"), 2).at(1_000 + IDLE_MS + 1);
    completes(&tool, &later, by("alice"));
    assert_eq!(
        methods(&later),
        [
            "DELETE",
            "initialize",
            "notifications/initialized",
            "tools/call"
        ],
        "the idle session is closed, not reused"
    );
    assert_eq!(session_ids(&later)[0].as_deref(), Some("s1"));
}

#[test]
fn callers_declaring_other_capabilities_get_sessions_of_their_own_and_at_most_max_kept_are_kept() {
    let tool = lookup();
    let mut fake = bare();
    for i in 0..=MAX_KEPT {
        fake = answers(handshake(fake, &format!("s{i}")), 2);
    }
    // Each caller declares a different `sampling` (a stranger may send any): a session each,
    // up to MAX_KEPT kept; past it the least recently used is closed.
    let declaring = |i: usize| by("alice").declaring(json!({ "sampling": { "n": i } }));
    for i in 0..=MAX_KEPT {
        completes(&tool, &fake, declaring(i));
    }
    let sent = methods(&fake);
    assert_eq!(
        sent.iter().filter(|m| *m == "initialize").count(),
        MAX_KEPT + 1
    );
    let deletes: Vec<_> = fake
        .requests()
        .iter()
        .filter(|r| r.method == "DELETE")
        .cloned()
        .collect();
    assert_eq!(deletes.len(), 1, "{sent:?}");
    let closed = deletes[0]
        .headers
        .iter()
        .find(|(n, _)| n == "mcp-session-id")
        .map(|(_, v)| v.clone());
    assert_eq!(
        closed.as_deref(),
        Some("s0"),
        "the least recently used is closed"
    );
    // The last caller's is still kept; the first caller's opens a new one.
    let kept = answers(bare(), 3);
    completes(&tool, &kept, declaring(MAX_KEPT));
    assert_eq!(methods(&kept), ["tools/call"]);
    let again = answers(handshake(bare(), "s-new"), 2);
    completes(&tool, &again, declaring(0));
    assert_eq!(methods(&again)[0], "initialize");
}

#[test]
fn a_session_is_never_shared_with_another_caller() {
    // Alice's calls keep a session; Bob (another key, the same capabilities) gets his own:
    // what a tool set in Alice's session upstream never reaches his calls.
    let tool = lookup();
    let alice = answers(handshake(bare(), "alice-session"), 2);
    completes(&tool, &alice, by("alice"));
    let bob = answers(handshake(bare(), "bob-session"), 2);
    completes(&tool, &bob, by("bob"));
    assert_eq!(
        methods(&bob)[0],
        "initialize",
        "Bob's call opens a session of his own"
    );
    assert!(!session_ids(&bob).contains(&Some("alice-session".to_owned())));
    // Each is kept for its own caller.
    for (who, session) in [("alice", "alice-session"), ("bob", "bob-session")] {
        let next = answers(bare(), 3);
        completes(&tool, &next, by(who));
        assert_eq!(session_ids(&next), [Some(session.to_owned())], "{who}");
    }
}

#[test]
fn anonymous_callers_get_no_kept_session() {
    // Anonymous callers share one principal but are strangers to each other: each call
    // opens a session of its own and closes it.
    let tool = lookup();
    for session in ["first", "second"] {
        let fake = answers(handshake(bare(), session), 2);
        completes(&tool, &fake, by(mcp_tasks_edge::auth::ANONYMOUS));
        assert_eq!(
            methods(&fake),
            [
                "initialize",
                "notifications/initialized",
                "tools/call",
                "DELETE"
            ],
            "{session}"
        );
    }
}
