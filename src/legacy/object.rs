//! The 2025-11-25 session object's runner, once for every platform: one object per
//! `Mcp-Session-Id`.
//!
//! Per request: load the session, let [`plan`] decide, keep a used session
//! alive ([`Session::touched`]), then perform what needs only the session's storage, the
//! quota ledger and the subscription registry, in the one order written here:
//!
//! ```text
//! initialize   ledger place (QUOTA_SESSIONS) → a gateway's tool changes' registry
//!              → store with its idle alarm (one write) → log → 200 + Mcp-Session-Id
//!              (a refused place: log → the refusal; nothing stored; a refused registry:
//!              a warning, the session opens without the changes told)
//! subscribe    registry → store → {}          (a refused registry: the refusal; nothing stored)
//! setLevel …   store → {}
//! DELETE/idle  log → close streams → unsubscribe each → release the place → erase → 204
//! ```
//!
//! What needs response streams or the task objects (answers to our requests, GET streams,
//! legacy tasks, the modern handlers) goes back to the platform as [`Next::Serve`], with
//! the session it was decided for, already touched, so the platform need not read it
//! again. `tasks/result`'s loop is [`super::result_loop`]. Generic over
//! [`SessionPlatform`]: the Cloudflare object implements it on its storage
//! (`cloudflare::session_object`), the native tests on a value (`tests/session_object.rs`),
//! so the tests exercise the very sequence the deployed object runs.

use super::plan::{self, Decision, Incoming, TaskOp};
use super::session::Session;
use super::subscribers::TOOLS_LISTED;
use crate::error::{McpError, legacy_status};
use crate::http::HttpResponse;
use crate::jsonrpc::{self, ErrorObject, Request, RequestId};
use crate::objects::Write;
use crate::ops::log::{self as logs, Line, event, fingerprint};
use crate::quota::LedgerRequest;
use crate::server::Server;
use crate::tasks::record::TaskRecord;
use serde_json::{Map, Value};

/// What a session object needs of its platform: its one row, its alarm, the quota
/// ledger, the subscription registry and where effects go. No decisions.
// Futures here are never sent between threads (wasm and the tests' executor are single
// threaded), so the `Send` bound `async fn` in a public trait cannot state is not needed.
#[allow(async_fn_in_trait)]
pub trait SessionPlatform {
    /// The session's row ([`SESSION_KEY`]) as stored, if there is one.
    async fn load(&mut self) -> Result<Option<String>, String>;
    /// Issues `write` (the session's row, its alarm, or the erasure of both) as one
    /// transaction.
    async fn write(&mut self, write: Write) -> Result<(), String>;
    /// Asks `principal`'s quota ledger.
    async fn ledger(&mut self, principal: &str, request: LedgerRequest) -> Result<(), McpError>;
    /// Tells `uri`'s subscription registry that this session is (or is no longer)
    /// subscribed.
    async fn subscribe(
        &mut self,
        uri: &str,
        session_id: &str,
        subscribed: bool,
    ) -> Result<(), McpError>;
    /// Prints `lines` (the platform's settings decide which).
    fn print(&mut self, lines: Vec<Line>);
    /// Closes the session's open streams.
    fn close_streams(&mut self);
}

/// The one row a session object keeps: its [`Session`], as JSON.
pub const SESSION_KEY: &str = "session";

/// The stored session, if there is one.
pub async fn load<P: SessionPlatform>(p: &mut P) -> Result<Option<Session>, String> {
    match p.load().await? {
        None => Ok(None),
        Some(text) => jsonrpc::read(text.as_bytes())
            .map(Some)
            .map_err(|e| format!("corrupt session: {e}")),
    }
}

/// Stores `session`, and its idle alarm at `alarm_ms` when given, in one write.
pub async fn store<P: SessionPlatform>(
    p: &mut P,
    session: &Session,
    alarm_ms: Option<u64>,
) -> Result<(), String> {
    let text = serde_json::to_string(session).map_err(|e| e.to_string())?;
    let write = Write {
        put: vec![(SESSION_KEY.to_owned(), text)],
        alarm: alarm_ms.map(Some),
        ..Write::default()
    };
    p.write(write).await
}

/// What a request comes to.
#[derive(Debug)]
pub enum Next {
    /// The answer, complete.
    Reply(HttpResponse),
    /// For the platform's streams and task objects.
    Serve(Box<Serve>),
}

/// What the platform serves itself, on its streams and the task objects; `session` is
/// the caller's (loaded, checked against the caller, and touched).
#[derive(Debug)]
pub enum Serve {
    /// A GET: a notification stream, or the replay of a response stream after
    /// `Last-Event-ID`.
    OpenStream { last_event_id: Option<String> },
    /// The client's answer to the server→client request `request_id`: to the step
    /// waiting for it, else to the task whose question it answers (202 either way).
    Deliver {
        request_id: String,
        answer: Result<Value, ErrorObject>,
        session: Session,
    },
    /// `notifications/cancelled` for the call `request_id`, if still in flight (202).
    Cancel { request_id: RequestId },
    /// A legacy `tasks/*` request (`legacy::task_ops`).
    Task {
        id: RequestId,
        op: TaskOp,
        session: Session,
    },
    /// A task-augmented `tools/call`: create the task, answer `CreateTaskResult`.
    CreateTask {
        id: RequestId,
        record: Box<TaskRecord>,
    },
    /// Everything else: the modern handlers, with the session's capabilities.
    Modern { rpc: Request, session: Session },
}

/// A JSON-RPC answer for a legacy client: a result with 200, an error with the status
/// [`legacy_status`] gives it and its headers (a 429's `Retry-After`).
pub fn answer(id: Option<&RequestId>, outcome: Result<Value, McpError>) -> HttpResponse {
    match outcome {
        Ok(result) => HttpResponse::json(
            200,
            jsonrpc::result_response(id.expect("results answer a request"), &result),
        ),
        Err(e) => {
            let mut response = HttpResponse::json(
                legacy_status(e.http_status()),
                jsonrpc::error_response(id, &e.to_wire()),
            );
            response.headers.extend(e.http_headers(""));
            response
        }
    }
}

/// The 2025-11-25 transport's "session not found" (404, 2025-11-25 transports "Session
/// Management"), as the Worker's route answers it too (`legacy::route`).
pub fn not_found() -> HttpResponse {
    let e = McpError::SessionNotFound;
    HttpResponse::json(e.http_status(), jsonrpc::error_response(None, &e.to_wire()))
}

/// One HTTP request on the session object, at `now_ms`; `trace` is the Worker's request
/// id, for the log lines.
pub async fn request<P: SessionPlatform>(
    p: &mut P,
    server: &Server,
    incoming: Incoming<'_>,
    now_ms: u64,
    trace: Option<&str>,
) -> Result<Next, String> {
    let stored = load(p).await?;
    let owned = stored
        .as_ref()
        .filter(|s| s.belongs_to(incoming.principal))
        .cloned();
    let mut decision = plan::plan(server, stored, incoming, now_ms);
    let session = match owned {
        Some(session) => Some(touch(p, server, session, &mut decision, now_ms).await?),
        None => None,
    };
    let reply = |response| Ok(Next::Reply(response));
    let serve = match decision {
        Decision::NotFound => return reply(not_found()),
        Decision::Reply { status, body } => return reply(HttpResponse::json(status, body)),
        Decision::Accepted => return reply(HttpResponse::empty(202)),
        Decision::Initialize {
            id,
            session,
            result,
        } => return reply(initialize(p, server, &id, *session, &result, trace).await?),
        Decision::End(session) => {
            end(p, server, &session, "deleted").await?;
            return reply(HttpResponse::empty(204));
        }
        Decision::Store { id, session } => {
            store(p, &session, None).await?;
            return reply(answer(Some(&id), Ok(Value::Object(Map::new()))));
        }
        Decision::Subscribe {
            id,
            session,
            uri,
            subscribed,
        } => {
            let response = match p.subscribe(&uri, &session.id, subscribed).await {
                Err(refused) => answer(Some(&id), Err(refused)),
                Ok(()) => {
                    store(p, &session, None).await?;
                    answer(Some(&id), Ok(Value::Object(Map::new())))
                }
            };
            return reply(response);
        }
        Decision::OpenStream { last_event_id } => Serve::OpenStream { last_event_id },
        Decision::Cancel { request_id } => Serve::Cancel { request_id },
        Decision::CreateTask { id, record } => Serve::CreateTask { id, record },
        Decision::Deliver { request_id, answer } => Serve::Deliver {
            request_id,
            answer,
            session: with_session(session)?,
        },
        Decision::Task { id, op } => Serve::Task {
            id,
            op,
            session: with_session(session)?,
        },
        Decision::Modern(rpc) => Serve::Modern {
            rpc,
            session: with_session(session)?,
        },
    };
    Ok(Next::Serve(Box::new(serve)))
}

/// The caller's session, which the planner decides these for only when it has one.
fn with_session(session: Option<Session>) -> Result<Session, String> {
    session.ok_or_else(|| "a session's decision came without its session".to_owned())
}

/// Keeps a used session alive: its last request, coarsely, and its ledger place. The
/// touched session goes into a decision that stores anyway (one write), else it is
/// stored here; a session being ended is not.
async fn touch<P: SessionPlatform>(
    p: &mut P,
    server: &Server,
    session: Session,
    decision: &mut Decision,
    now_ms: u64,
) -> Result<Session, String> {
    let Some((touched, renew)) = session.touched(now_ms, server.config.session_idle_ms) else {
        return Ok(session);
    };
    if renew {
        let renewal = LedgerRequest::AcquireSession {
            session_id: touched.id.clone(),
            until_ms: touched.held_until_ms,
            quotas: server.config.quotas,
        };
        // Renewing a place already held is never refused; a ledger that cannot be
        // reached leaves the old deadline, which the next request retries.
        if let Err(why) = p.ledger(&touched.opened_by, renewal).await {
            let line = logs::warning(&format!("renewing a session's quota place: {why}"))
                .principal(&touched.principal)
                .field("session", fingerprint(&touched.id));
            p.print(vec![line]);
        }
    }
    match decision {
        Decision::Store { session, .. } | Decision::Subscribe { session, .. } => {
            session.last_seen_ms = touched.last_seen_ms;
            session.held_until_ms = touched.held_until_ms;
        }
        Decision::End(_) => {}
        _ => store(p, &touched, None).await?,
    }
    Ok(touched)
}

/// A new session: its place in the opener's ledger first (`QUOTA_SESSIONS`), then the
/// session and its idle alarm.
async fn initialize<P: SessionPlatform>(
    p: &mut P,
    server: &Server,
    id: &RequestId,
    mut session: Session,
    result: &Value,
    trace: Option<&str>,
) -> Result<HttpResponse, String> {
    if server.config.quotas.sessions.is_some() {
        let acquire = LedgerRequest::AcquireSession {
            session_id: session.id.clone(),
            until_ms: session.held_until_ms,
            quotas: server.config.quotas,
        };
        if let Err(refused) = p.ledger(&session.opened_by, acquire).await {
            p.print(
                logs::refused(&refused, Some(&session.opened_by), trace)
                    .into_iter()
                    .collect(),
            );
            return Ok(answer(Some(id), Err(refused)));
        }
    }
    if server.tells_tool_changes()
        && session.subscriptions.contains(TOOLS_LISTED)
        && let Err(why) = p.subscribe(TOOLS_LISTED, &session.id, true).await
    {
        let line = logs::warning(&format!("telling a session of tool list changes: {why}"))
            .field("session", fingerprint(&session.id));
        p.print(vec![line]);
        session.subscriptions.remove(TOOLS_LISTED);
    }
    let alarm = session.expires_at_ms(server.config.session_idle_ms);
    store(p, &session, Some(alarm)).await?;
    let opened = logs::session(event::SESSION_OPENED, &session.id, &session.principal, None)
        .field("protocolVersion", session.protocol_version.as_str());
    p.print(vec![opened]);
    let mut response = HttpResponse::json(200, jsonrpc::result_response(id, result));
    response
        .headers
        .push((super::SESSION_HEADER, session.id.clone()));
    Ok(response)
}

/// Ends the session (`reason`: `deleted` by the client, or `idle`): its streams close,
/// its subscriptions and ledger place go, and its storage is erased (then every request
/// on it is 404).
async fn end<P: SessionPlatform>(
    p: &mut P,
    server: &Server,
    session: &Session,
    reason: &str,
) -> Result<(), String> {
    let ended = logs::session(
        event::SESSION_ENDED,
        &session.id,
        &session.principal,
        Some(reason),
    );
    p.print(vec![ended]);
    p.close_streams();
    for uri in &session.subscriptions {
        // Best effort: a registry that keeps an ended session tells it in vain.
        if let Err(why) = p.subscribe(uri, &session.id, false).await {
            let line = logs::warning(&format!("unsubscribing {uri}: {why}"))
                .field("session", fingerprint(&session.id));
            p.print(vec![line]);
        }
    }
    if server.config.quotas.sessions.is_some() {
        let release = LedgerRequest::ReleaseSession {
            session_id: session.id.clone(),
        };
        // Best effort: the place's deadline is the fallback.
        if let Err(why) = p.ledger(&session.opened_by, release).await {
            let line = logs::warning(&format!("releasing a session's quota place: {why}"))
                .principal(&session.principal)
                .field("session", fingerprint(&session.id));
            p.print(vec![line]);
        }
    }
    p.write(Write::erase()).await
}

/// The alarm at `now_ms`: a session idle for `SESSION_IDLE_MS` ends; one used since is
/// checked again when it would next expire.
pub async fn alarm<P: SessionPlatform>(
    p: &mut P,
    server: &Server,
    now_ms: u64,
) -> Result<(), String> {
    let Some(session) = load(p).await? else {
        return Ok(());
    };
    match plan::alarm(&session, now_ms, server.config.session_idle_ms) {
        None => end(p, server, &session, "idle").await,
        Some(at) => {
            let alarm = Write {
                alarm: Some(Some(at)),
                ..Write::default()
            };
            p.write(alarm).await
        }
    }
}
