//! The 2025-11-25 session object's runner (`legacy::object`) and `tasks/result`'s loop
//! (`legacy::result_loop`) on platforms that decide nothing: a session in memory, a quota
//! ledger and a registry that answer as told, and a script of task states. Every effect is
//! recorded in order, so reordering the runner's answers (storing a session before its
//! ledger place is granted, erasing it before its subscriptions go, answering a
//! `tasks/result` before its status notification) fails a test here.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::*;
use mcp_tasks_edge::error::McpError;
use mcp_tasks_edge::host::block_on;
use mcp_tasks_edge::http::HttpResponse;
use mcp_tasks_edge::legacy::object::{self, Next, Serve, SessionPlatform};
use mcp_tasks_edge::legacy::plan::Decision;
use mcp_tasks_edge::legacy::result_loop::{self, Waiting};
use mcp_tasks_edge::legacy::{Session, TaskOp};
use mcp_tasks_edge::ops::log::Line;
use mcp_tasks_edge::quota::LedgerRequest;
use mcp_tasks_edge::server::Server;
use serde_json::{Map, Value, json};
use std::collections::VecDeque;

const ALICE: &str = "key:alice";
const IDLE: u64 = 3_600_000;

/// What the runner asked of its platform, in order.
#[derive(Debug, Clone, PartialEq)]
enum Effect {
    Store,
    Alarm(u64),
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
    async fn load(&mut self) -> Result<Option<Session>, String> {
        Ok(self.stored.clone())
    }

    async fn store(&mut self, session: &Session) -> Result<(), String> {
        self.effects.push(Store);
        self.stored = Some(session.clone());
        Ok(())
    }

    async fn set_alarm(&mut self, at_ms: u64) -> Result<(), String> {
        self.effects.push(Alarm(at_ms));
        Ok(())
    }

    async fn erase(&mut self) -> Result<(), String> {
        self.effects.push(Erase);
        self.stored = None;
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
        [Acquire, Store, Alarm(NOW + IDLE), Print("session.opened")]
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
    let subscribe = body(
        "resources/subscribe",
        json!({ "uri": "test://static-text" }),
    );
    reply(send(&mut p, &s, "POST", &subscribe, NOW));
    p.effects.clear();
    let response = reply(send(&mut p, &s, "DELETE", b"", NOW + 1));
    assert_eq!(response.status, 204);
    assert_eq!(
        p.effects,
        [
            Print("session.ended"),
            CloseStreams,
            Subscribe("test://static-text".into(), false),
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
        Serve {
            decision: Decision::Task { op, .. },
            session: Some(session),
        } => {
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

const TID: &str = "00112233445566778899aabbccddeeff";

/// What `tasks/result` asked of its platform, in order.
#[derive(Debug, Clone, PartialEq)]
enum Turn {
    Get,
    Sent(String),
    Asked(Vec<String>),
    Update(Value),
    Offered,
    Slept,
}

/// The task's states as its object would answer them in turn; `answers` is what the
/// client answers (`None`: the task moved on first); `streams_open`: GET streams to offer
/// questions on.
struct Script {
    states: VecDeque<Value>,
    answers: Option<Map<String, Value>>,
    streams_open: bool,
    turns: Vec<Turn>,
}

fn task(status: &str, extra: Value) -> Value {
    let mut task = json!({ "taskId": TID, "status": status, "createdAt": "2025-11-25T10:30:00Z",
        "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttlMs": 60000 });
    task.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    task
}

fn script(states: Vec<Value>) -> Script {
    Script {
        states: states.into(),
        answers: None,
        streams_open: false,
        turns: Vec::new(),
    }
}

impl Waiting for Script {
    async fn get(&mut self) -> Result<Value, McpError> {
        self.turns.push(Turn::Get);
        Ok(self
            .states
            .pop_front()
            .expect("the script has no more states"))
    }

    async fn update(&mut self, answers: Map<String, Value>) -> Result<(), McpError> {
        self.turns.push(Turn::Update(Value::Object(answers)));
        Ok(())
    }

    fn send(&mut self, message: Value) {
        let status = message["params"]["status"].as_str().unwrap_or_default();
        self.turns.push(Turn::Sent(format!(
            "{} {status}",
            message["method"].as_str().unwrap()
        )));
    }

    async fn ask(
        &mut self,
        requests: Map<String, Value>,
    ) -> Option<Result<Map<String, Value>, McpError>> {
        self.turns
            .push(Turn::Asked(requests.keys().cloned().collect()));
        self.answers.take().map(Ok)
    }

    fn offer(&mut self, _: &Value) -> bool {
        self.turns.push(Turn::Offered);
        self.streams_open
    }

    async fn sleep(&mut self) {
        self.turns.push(Turn::Slept);
    }
}

fn asking() -> Value {
    task(
        "input_required",
        json!({ "inputRequests": { "name": { "method": "elicitation/create",
            "params": { "mode": "form", "message": "Name?", "requestedSchema": { "type": "object", "properties": {} } } } } }),
    )
}

fn status(s: &str) -> Turn {
    Turn::Sent(format!("notifications/tasks/status {s}"))
}

#[test]
fn a_streamed_result_tells_each_status_once_asks_and_then_answers() {
    let done = task("completed", json!({ "result": { "content": [] } }));
    let mut w = script(vec![
        task("working", json!({})),
        task("working", json!({})),
        asking(),
        done,
    ]);
    w.answers = Some(
        json!({ "name": { "action": "accept", "content": { "name": "Ada" } } })
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = block_on(result_loop::result(&mut w, TID, true, None)).unwrap();
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        TID
    );
    assert_eq!(
        w.turns,
        [
            Turn::Get,
            status("working"),
            Turn::Slept,
            Turn::Get,
            Turn::Slept,
            Turn::Get,
            status("input_required"),
            Turn::Asked(vec!["name".into()]),
            Turn::Update(json!({ "name": { "action": "accept", "content": { "name": "Ada" } } })),
            Turn::Get,
            status("completed"),
        ]
    );
}

#[test]
fn a_result_starts_from_the_task_its_caller_read_without_reading_it_again() {
    let done = task("completed", json!({ "result": { "content": [] } }));
    let mut w = script(vec![done.clone()]);
    let read = task("working", json!({}));
    block_on(result_loop::result(&mut w, TID, true, Some(read))).unwrap();
    assert_eq!(
        w.turns,
        [
            status("working"),
            Turn::Slept,
            Turn::Get,
            status("completed")
        ]
    );
    // Already ended when read: answered with no request at all.
    let mut w = script(vec![]);
    block_on(result_loop::result(&mut w, TID, false, Some(done))).unwrap();
    assert_eq!(w.turns, []);
}

#[test]
fn a_result_whose_task_moved_on_reads_it_again_instead_of_answering_for_it() {
    let mut w = script(vec![asking(), task("cancelled", json!({}))]);
    let error = block_on(result_loop::result(&mut w, TID, true, None)).unwrap_err();
    // A cancelled task's result is -32603 (legacy tasks "Result Retrieval"), told after
    // its status.
    assert_eq!(error.to_wire().code.0, -32603);
    assert_eq!(
        w.turns,
        [
            Turn::Get,
            status("input_required"),
            Turn::Asked(vec!["name".into()]),
            Turn::Get,
            status("cancelled"),
        ]
    );
}

#[test]
fn a_failed_task_answers_its_own_error() {
    let failed = task(
        "failed",
        json!({ "error": { "code": -32602, "message": "bad input" } }),
    );
    let mut w = script(vec![failed]);
    let error = block_on(result_loop::result(&mut w, TID, true, None)).unwrap_err();
    let wire = error.to_wire();
    assert_eq!((wire.code.0, wire.message.as_str()), (-32602, "bad input"));
}

#[test]
fn a_json_result_offers_questions_on_get_streams_or_says_what_to_accept() {
    // No GET stream to carry the question: 406, sent nothing, updated nothing.
    let mut w = script(vec![task("working", json!({})), asking()]);
    let error = block_on(result_loop::result(&mut w, TID, false, None)).unwrap_err();
    assert_eq!(error.http_status(), 406);
    assert_eq!(w.turns, [Turn::Get, Turn::Slept, Turn::Get, Turn::Offered]);

    // With one open, the question is offered there and the answer waits for the task.
    let done = task("completed", json!({ "result": { "content": [] } }));
    let mut w = script(vec![asking(), done]);
    w.streams_open = true;
    block_on(result_loop::result(&mut w, TID, false, None)).unwrap();
    assert_eq!(w.turns, [Turn::Get, Turn::Offered, Turn::Slept, Turn::Get]);
}

#[test]
fn an_anonymous_session_reaches_other_sessions_tasks_by_id_within_its_bound() {
    use mcp_tasks_edge::auth::anonymous::ANY_SESSION;
    use mcp_tasks_edge::legacy::{MAX_REACHED, Reach};
    let s = server();
    let open = |caller: &str| {
        let mut p = Platform::default();
        reply(send_as(
            &mut p,
            &s,
            caller,
            ("POST", &initialize_body()),
            NOW,
        ));
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
