//! The 2025-11-25 session object's runner (`legacy::object`) on platforms that decide
//! nothing: a session in memory, a quota ledger and a registry that answer as told. Every
//! effect is recorded in order, so reordering the runner's answers (storing a session
//! before its ledger place is granted, erasing it before its subscriptions go) fails a test
//! here. `tasks/result`'s loop on a script of task states: tests/result_loop.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::legacy::object::{self, Next, Serve, SessionPlatform};
use mcp_tasks_edge::legacy::{Session, TaskOp};
use mcp_tasks_edge::objects::Write;
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::server::Server;
use serde_json::{Value, json};

const ALICE: &str = "key:alice";
const IDLE: u64 = 3_600_000;
const TID: &str = "00112233445566778899aabbccddeeff";

/// What the runner asked of its platform, in order.
#[derive(Debug, Clone, PartialEq)]
enum Effect {
    Store,
    Alarm(u64),
    /// The row and the alarm in one write.
    StoreAlarm(u64),
    Erase,
    Acquire,
    Release,
    Subscribe(String, bool),
    Print(&'static str),
    CloseStreams,
}

use Effect::*;

#[derive(Default)]
struct Platform {
    stored: Option<Session>,
    effects: Vec<Effect>,
    /// What the ledger answers (`None`: grants).
    ledger_refuses: Option<McpError>,
    registry_refuses: Option<McpError>,
}

impl SessionPlatform for Platform {
    async fn load(&mut self) -> Result<Option<String>, String> {
        Ok(self.stored.as_ref().map(|s| json!(s).to_string()))
    }

    async fn write(&mut self, write: Write) -> Result<(), String> {
        let mut rows = write.put.iter().map(|(key, row)| {
            assert_eq!(key, object::SESSION_KEY);
            serde_json::from_str(row).unwrap()
        });
        let put: Option<Session> = rows.next();
        let effect = match (write.erase, &put, write.alarm) {
            (true, ..) => Erase,
            (_, Some(_), None) => Store,
            (_, None, Some(Some(at))) => Alarm(at),
            (_, Some(_), Some(Some(at))) => StoreAlarm(at),
            other => panic!("a session writes no {other:?}"),
        };
        self.effects.push(effect);
        if write.erase || put.is_some() {
            self.stored = put;
        }
        Ok(())
    }

    async fn ledger(&mut self, _principal: &str, request: LedgerRequest) -> Result<(), McpError> {
        self.effects.push(match request {
            LedgerRequest::AcquireSession { .. } => Acquire,
            LedgerRequest::ReleaseSession { .. } => Release,
            other => panic!("a session asks its ledger only for its place, not {other:?}"),
        });
        self.ledger_refuses.clone().map_or(Ok(()), Err)
    }

    async fn subscribe(&mut self, uri: &str, _: &str, subscribed: bool) -> Result<(), McpError> {
        self.effects.push(Subscribe(uri.to_owned(), subscribed));
        self.registry_refuses.clone().map_or(Ok(()), Err)
    }

    fn print(&mut self, lines: Vec<Line>) {
        self.effects
            .extend(lines.iter().map(|line| Print(line.event())));
    }

    fn close_streams(&mut self) {
        self.effects.push(CloseStreams);
    }
}

fn body(method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
        .unwrap()
}

/// An HTTP request of `principal` on the session `SID`.
fn send_as(
    p: &mut Platform,
    s: &Server,
    principal: &str,
    (method, body): (&str, &[u8]),
    now: u64,
) -> Next {
    let incoming = incoming(method, principal, body);
    block_on(object::request(p, s, incoming, now, Some("req-1"))).unwrap()
}

/// An HTTP request of the session's owner, alice.
fn send(p: &mut Platform, s: &Server, method: &str, body: &[u8], now: u64) -> Next {
    send_as(p, s, ALICE, (method, body), now)
}

fn reply(next: Next) -> HttpResponse {
    match next {
        Next::Reply(response) => response,
        other => panic!("{other:?}"),
    }
}

fn initialize_body() -> Vec<u8> {
    body(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "c", "version": "1" } }),
    )
}

/// A platform holding alice's session, opened at `NOW`, with nothing recorded yet.
fn opened(s: &Server) -> Platform {
    let mut p = Platform::default();
    let response = reply(send(&mut p, s, "POST", &initialize_body(), NOW));
    assert_eq!(response.status, 200);
    p.effects.clear();
    p
}

#[test]
fn initialize_takes_its_ledger_place_before_anything_is_stored() {
    let s = server();
    let mut p = Platform::default();
    let response = reply(send(&mut p, &s, "POST", &initialize_body(), NOW));
    assert_eq!(response.status, 200);
    assert_eq!(response.header("mcp-session-id"), Some(SID));
    assert_eq!(
        p.effects,
        [Acquire, StoreAlarm(NOW + IDLE), Print("session.opened")]
    );

    // Refused: the refusal is logged and answered (429 with Retry-After); nothing stored.
    let mut p = Platform {
        ledger_refuses: Some(McpError::TooManyRequests {
            limit: "QUOTA_SESSIONS",
            max: 20,
            retry_after_s: 60,
        }),
        ..Platform::default()
    };
    let response = reply(send(&mut p, &s, "POST", &initialize_body(), NOW));
    assert_eq!(
        (response.status, response.header("retry-after")),
        (429, Some("60"))
    );
    assert_eq!(p.effects, [Acquire, Print("quota.refused")]);
    assert_eq!(p.stored, None);
}

#[test]
fn a_subscription_is_stored_only_once_its_registry_took_it() {
    let s = server();
    let uri = "test://static-text";
    let subscribe = body("resources/subscribe", json!({ "uri": uri }));
    let mut p = opened(&s);
    reply(send(&mut p, &s, "POST", &subscribe, NOW));
    assert_eq!(p.effects, [Subscribe(uri.into(), true), Store]);
    assert!(p.stored.as_ref().unwrap().subscriptions.contains(uri));

    let mut p = opened(&s);
    p.registry_refuses = Some(McpError::Internal("registry full".into()));
    let response = reply(send(&mut p, &s, "POST", &subscribe, NOW));
    let answer: Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    assert_eq!(p.effects, [Subscribe(uri.into(), true)]);
    assert!(p.stored.as_ref().unwrap().subscriptions.is_empty());
}

#[test]
fn ending_a_session_lets_go_of_everything_before_erasing_it() {
    let s = server();
    let mut p = opened(&s);
    let uri = "test://static-text";
    let subscribe = body("resources/subscribe", json!({ "uri": uri }));
    reply(send(&mut p, &s, "POST", &subscribe, NOW));
    p.effects.clear();
    let response = reply(send(&mut p, &s, "DELETE", b"", NOW + 1));
    assert_eq!(response.status, 204);
    assert_eq!(
        p.effects,
        [
            Print("session.ended"),
            CloseStreams,
            Subscribe(uri.into(), false),
            Release,
            Erase,
        ]
    );
    // Then every request on it is the 404 of an unknown session.
    let ping = body("ping", json!({}));
    assert_eq!(reply(send(&mut p, &s, "POST", &ping, NOW + 2)).status, 404);
}

#[test]
fn a_used_session_is_kept_alive_in_one_write() {
    let s = server();
    // Soon after the last request: nothing to write for a ping.
    let mut p = opened(&s);
    let ping = body("ping", json!({}));
    reply(send(&mut p, &s, "POST", &ping, NOW + IDLE / 16));
    assert_eq!(p.effects, []);

    // An eighth of the idle time later: the touched session is stored.
    reply(send(&mut p, &s, "POST", &ping, NOW + IDLE / 8));
    assert_eq!(p.effects, [Store]);
    assert_eq!(p.stored.as_ref().unwrap().last_seen_ms, NOW + IDLE / 8);

    // Past half its place: the ledger place is renewed first; a request that stores
    // anyway (setLevel) carries the touch in its own write.
    p.effects.clear();
    let later = NOW + IDLE * 5 / 8;
    let set_level = body("logging/setLevel", json!({ "level": "error" }));
    reply(send(&mut p, &s, "POST", &set_level, later));
    assert_eq!(p.effects, [Acquire, Store]);
    let session = p.stored.as_ref().unwrap();
    assert_eq!(
        (session.last_seen_ms, session.held_until_ms),
        (later, later + IDLE)
    );
    assert!(session.log_level.is_some());
}

#[test]
fn what_needs_streams_or_tasks_is_left_with_the_session_it_was_decided_for() {
    let s = server();
    let mut p = opened(&s);
    let get = body(
        "tasks/get",
        json!({ "taskId": "00112233445566778899aabbccddeeff" }),
    );
    let Next::Serve(serve) = send(&mut p, &s, "POST", &get, NOW + IDLE / 8) else {
        panic!("a task request is the platform's");
    };
    match *serve {
        Serve::Task { op, session, .. } => {
            assert_eq!(op, TaskOp::Get("00112233445566778899aabbccddeeff".into()));
            assert_eq!(session.last_seen_ms, NOW + IDLE / 8, "touched");
        }
        other => panic!("{other:?}"),
    }
    // A stranger's request is never left to the platform with a session.
    let next = send_as(&mut p, &s, "key:mallory", ("POST", &get), NOW);
    assert_eq!(reply(next).status, 404);
}

#[test]
fn the_alarm_ends_an_idle_session_and_rechecks_a_used_one() {
    let s = server();
    let mut p = opened(&s);
    let ping = body("ping", json!({}));
    reply(send(&mut p, &s, "POST", &ping, NOW + IDLE / 4));
    p.effects.clear();
    block_on(object::alarm(&mut p, &s, NOW + IDLE)).unwrap();
    assert_eq!(p.effects, [Alarm(NOW + IDLE / 4 + IDLE)]);
    p.effects.clear();
    block_on(object::alarm(&mut p, &s, NOW + IDLE / 4 + IDLE)).unwrap();
    assert_eq!(
        p.effects,
        [Print("session.ended"), CloseStreams, Release, Erase]
    );
    // An alarm with no session left does nothing.
    p.effects.clear();
    block_on(object::alarm(&mut p, &s, NOW + 3 * IDLE)).unwrap();
    assert_eq!(p.effects, []);
}

#[test]
fn an_anonymous_session_reaches_other_sessions_tasks_by_id_within_its_bound() {
    use mcp_tasks_edge::auth::anonymous::ANY_SESSION;
    use mcp_tasks_edge::legacy::{MAX_REACHED, Reach};
    let s = server();
    let open = |caller: &str| {
        let mut p = Platform::default();
        let init = ("POST", initialize_body());
        reply(send_as(&mut p, &s, caller, (init.0, &init.1), NOW));
        p.stored.unwrap()
    };
    // A keyed session reaches its principal's tasks, never another's.
    let keyed = open(ALICE);
    assert_eq!(keyed.reach(TID), Reach::As(ALICE));
    let mut keyed = keyed;
    keyed.reached.insert(TID.into());
    assert_eq!(
        keyed.principal_for("ffffffffffffffffffffffffffffffff"),
        ALICE
    );

    // An anonymous session: its own first, then any anonymous session's, recorded.
    let mut anonymous = open("anonymous");
    let own = anonymous.principal.clone();
    assert_eq!(anonymous.reach(TID), Reach::OwnThenAny(&own));
    assert!(anonymous.record_reached(TID));
    assert!(!anonymous.record_reached(TID), "once");
    assert_eq!(anonymous.reach(TID), Reach::As(ANY_SESSION));
    assert_eq!(anonymous.principal_for(TID), ANY_SESSION);
    // The record survives the session's storage.
    let stored: Session =
        serde_json::from_value(serde_json::to_value(&anonymous).unwrap()).unwrap();
    assert_eq!(stored, anonymous);

    // Bounded: past MAX_REACHED, another session's task is not reached (so never
    // gettable without being listed).
    for i in 1..MAX_REACHED {
        assert!(anonymous.record_reached(&format!("{i:032x}")));
    }
    assert!(!anonymous.record_reached("ffffffffffffffffffffffffffffffff"));
    assert_eq!(
        anonymous.reach("ffffffffffffffffffffffffffffffff"),
        Reach::As(&own)
    );
    assert_eq!(
        anonymous.reach(TID),
        Reach::As(ANY_SESSION),
        "those reached stay"
    );
}

/// A gateway's session is subscribed to its tool list changes before it is stored, says
/// `tools.listChanged`, keeps the name from clients, and lets it go when it ends; a
/// registry that refuses leaves the session open without it.
#[cfg(feature = "gateway")]
#[test]
fn a_gateway_session_hears_tool_list_changes_from_initialize_to_its_end() {
    use mcp_tasks_edge::legacy::subscribers::TOOLS_LISTED;
    let upstreams = r#"[{"name":"up","url":"https://up.example/mcp"}]"#;
    let config =
        mcp_tasks_edge::server::Config::from_vars(|n| (n == "UPSTREAMS").then(|| upstreams.into()));
    let s = Server::builder("gw").build().configure(config.unwrap());
    let (mut p, told) = (Platform::default(), Subscribe(TOOLS_LISTED.into(), true));
    let response = reply(send(&mut p, &s, "POST", &initialize_body(), NOW));
    let result: Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(
        result["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    let stored = StoreAlarm(NOW + IDLE);
    let opened = [
        Acquire,
        told.clone(),
        stored.clone(),
        Print("session.opened"),
    ];
    assert_eq!(p.effects, opened);
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        let asked = reply(send(
            &mut p,
            &s,
            "POST",
            &body(method, json!({ "uri": TOOLS_LISTED })),
            NOW,
        ));
        let refused: Value = serde_json::from_slice(&asked.body).unwrap();
        assert_eq!(refused["error"]["code"], -32602, "{method}");
    }
    p.effects.clear();
    reply(send(&mut p, &s, "DELETE", b"", NOW + 1));
    assert!(
        p.effects.contains(&Subscribe(TOOLS_LISTED.into(), false)),
        "{:?}",
        p.effects
    );

    let down = Some(McpError::Internal("the registry is down".into()));
    let mut p = Platform {
        registry_refuses: down,
        ..Platform::default()
    };
    assert_eq!(
        reply(send(&mut p, &s, "POST", &initialize_body(), NOW)).status,
        200
    );
    assert_eq!(p.effects[..4], [Acquire, told, Print("warning"), stored]);
    assert!(!p.stored.unwrap().subscriptions.contains(TOOLS_LISTED));
}
