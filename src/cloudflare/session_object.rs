//! The 2025-11-25 session Durable Object's implementation, [`SessionRunner`]: one object
//! per `Mcp-Session-Id`. It loads the session, lets the pure planner (`legacy::plan`)
//! decide, performs the decision's I/O and stores. It is also the meeting point of
//! server→client requests: a step that needs input asks on its response stream and waits
//! here; the client's answer arrives as a new POST with the same session id, reaches this
//! object, and is handed to the waiting step. A session idle for `SESSION_IDLE_MS` is
//! deleted by its alarm.

mod asker;
mod modern;
mod questions;
pub(crate) mod registry;
mod resumable;
mod tasks;

use super::bench::{self, SESSION};
use super::principal_object;
use super::{log, now_ms, server};
use crate::error::McpError;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, RequestId};
use crate::legacy::{self, Decision, Incoming, SESSION_HEADER, Session};
use crate::ops::log::{self as logs, event, fingerprint};
use crate::quota::LedgerRequest;
use crate::server::Server;
use crate::tasks::protocol::{PRINCIPAL_HEADER, REQUEST_ID_HEADER};
use asker::Pending;
use questions::GetStreams;
pub(crate) use resumable::Stream;
use resumable::Streams;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use worker::{Env, Request, Response, Result, State};

const SESSION_KEY: &str = "session";

/// What the `SessionObject` class of `export_worker!` runs.
pub struct SessionRunner {
    state: State,
    env: Env,
    build: fn() -> Server,
    pending: Pending,
    /// Open GET streams, for notifications not tied to a request, and a legacy task's
    /// questions for clients that poll instead of calling `tasks/result`.
    streams: Rc<RefCell<GetStreams>>,
    questions: Rc<RefCell<legacy::Questions>>,
    /// Response streams, kept for clients that reconnect with `Last-Event-ID`.
    resumable: Streams,
}

fn rust_error(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

fn json_response(status: u16, body: Vec<u8>) -> Result<Response> {
    super::to_worker_response(HttpResponse::json(status, body))
}

/// A JSON-RPC answer for a legacy client, an error with the status
/// [`crate::error::legacy_status`] gives it (and its headers: a 429's `Retry-After`).
fn json_reply(
    id: Option<&RequestId>,
    outcome: std::result::Result<Value, McpError>,
) -> Result<Response> {
    match outcome {
        Ok(result) => json_response(
            200,
            jsonrpc::result_response(id.expect("a request"), &result),
        ),
        Err(e) => {
            let status = crate::error::legacy_status(e.http_status());
            let mut response =
                HttpResponse::json(status, jsonrpc::error_response(id, &e.to_wire()));
            response.headers.extend(e.http_headers(""));
            super::to_worker_response(response)
        }
    }
}

fn not_found() -> Result<Response> {
    let e = McpError::InvalidRequest(
        "Session not found: it ended or never existed; send initialize to start a new one".into(),
    );
    json_response(404, jsonrpc::error_response(None, &e.to_wire()))
}

impl SessionRunner {
    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        SessionRunner {
            state,
            env,
            build,
            pending: Pending::default(),
            streams: Rc::default(),
            questions: Rc::default(),
            resumable: Streams::default(),
        }
    }

    async fn load(&self) -> Result<Option<Session>> {
        bench::rows_read(SESSION, 1);
        match super::js_api::storage_get_text(&self.state.storage(), SESSION_KEY).await? {
            None => Ok(None),
            Some(text) => crate::jsonrpc::read(text.as_bytes())
                .map(Some)
                .map_err(|e| rust_error(format!("corrupt session: {e}"))),
        }
    }

    async fn store(&self, session: &Session) -> Result<()> {
        let text = serde_json::to_string(session).map_err(rust_error)?;
        bench::rows_written(SESSION, 1);
        self.state.storage().put_raw(SESSION_KEY, text).await
    }

    /// A request from the Worker: the client's HTTP request, with the principal and the
    /// session id set by the Worker.
    pub async fn fetch(&self, req: Request) -> Result<Response> {
        if let Some(op) = req.headers().get(registry::REGISTRY_HEADER)? {
            return registry::handle(self, &op, req).await;
        }
        let server = server(&self.env, self.build)?;
        let header = |name: &str| req.headers().get(name).ok().flatten();
        let principal = header(PRINCIPAL_HEADER).unwrap_or_default();
        let session_id = header(SESSION_HEADER).unwrap_or_default();
        let last_event_id = header("last-event-id");
        // The Worker's request id, for the log lines of this request.
        let trace = header(REQUEST_ID_HEADER);
        let accept = header("accept");
        let method = req.method().to_string();
        let body = match method.as_str() {
            "POST" => super::read_whole_body(&req).await?,
            _ => Vec::new(),
        };
        let stored = self.load().await?;
        let now = now_ms();
        let incoming = Incoming {
            method: &method,
            session_id: &session_id,
            principal: &principal,
            last_event_id: last_event_id.as_deref(),
            accept: accept.as_deref(),
            body: &body,
        };
        let accepts_sse = incoming.accepts_event_stream();
        let mut decision = legacy::plan::plan(&server, stored.clone(), incoming, now);
        if let Some(session) = stored.filter(|s| s.belongs_to(&principal)) {
            self.touch(&server, &session, &mut decision, now).await?;
        }
        self.execute(server, decision, accepts_sse, trace, now)
            .await
    }

    /// Keeps a used session alive: its last request, coarsely, and its ledger place.
    async fn touch(
        &self,
        server: &Server,
        session: &Session,
        decision: &mut Decision,
        now: u64,
    ) -> Result<()> {
        let Some((touched, renew)) = session.touched(now, server.config.session_idle_ms) else {
            return Ok(());
        };
        if renew {
            let renewal = LedgerRequest::AcquireSession {
                session_id: touched.id.clone(),
                until_ms: touched.held_until_ms,
                quotas: server.config.quotas,
            };
            // Renewing a place already held is never refused; a ledger that cannot be
            // reached leaves the old deadline, which the next request retries.
            if let Err(why) =
                principal_object::ledger(&self.env, &touched.opened_by, &renewal).await
            {
                let line = logs::warning(&format!("renewing a session's quota place: {why}"))
                    .principal(&touched.principal)
                    .field("session", fingerprint(&touched.id));
                log::print(&line, &server.config.log);
            }
        }
        match decision {
            Decision::Store { session, .. } | Decision::Subscribe { session, .. } => {
                session.last_seen_ms = touched.last_seen_ms;
                session.held_until_ms = touched.held_until_ms;
                Ok(())
            }
            Decision::End(_) => Ok(()),
            _ => self.store(&touched).await,
        }
    }

    async fn execute(
        &self,
        server: Rc<Server>,
        decision: Decision,
        accepts_sse: bool,
        trace: Option<String>,
        now: u64,
    ) -> Result<Response> {
        match decision {
            Decision::NotFound => not_found(),
            Decision::Reply { status, body } => json_response(status, body),
            Decision::Accepted => Ok(Response::empty()?.with_status(202)),
            Decision::Initialize {
                id,
                session,
                result,
            } => {
                self.initialize(&server, id, *session, result, trace.as_deref())
                    .await
            }
            Decision::End(session) => {
                self.end(&server, &session, "deleted").await?;
                Ok(Response::empty()?.with_status(204))
            }
            Decision::OpenStream { last_event_id } => self.open_stream(last_event_id.as_deref()),
            Decision::Deliver { request_id, answer } => {
                // A step waiting on a response stream, else a question sent on a GET
                // stream (its task takes the answer); late or unknown answers are dropped.
                if let Some(answer) = self.pending.deliver(&request_id, answer) {
                    let session = self.owned_session().await?;
                    self.answer_question(&request_id, answer, &session.principal)
                        .await;
                }
                Ok(Response::empty()?.with_status(202))
            }
            Decision::Store { id, session } => {
                self.store(&session).await?;
                json_reply(Some(&id), Ok(json!({})))
            }
            Decision::Subscribe {
                id,
                session,
                uri,
                subscribed,
            } => {
                if let Err(refused) = registry::set(&self.env, &uri, &session.id, subscribed).await
                {
                    return json_reply(Some(&id), Err(refused.into()));
                }
                self.store(&session).await?;
                json_reply(Some(&id), Ok(json!({})))
            }
            Decision::Task { id, op } => {
                let session = self.owned_session().await?;
                tasks::handle(self, &server, &id, op, &session.principal, accepts_sse).await
            }
            Decision::CreateTask { id, record } => {
                let principal = record.owner().to_owned();
                tasks::create(self, &server, &id, record, &principal, trace.as_deref()).await
            }
            Decision::Modern(rpc) => {
                let session = self.owned_session().await?;
                let asked = modern::Asked {
                    now,
                    accepts_sse,
                    trace,
                };
                self.modern(server, rpc, session, asked).await
            }
        }
    }

    /// The session a decision was made for (it was loaded and checked moments ago).
    async fn owned_session(&self) -> Result<Session> {
        self.load()
            .await?
            .ok_or_else(|| rust_error("the session ended meanwhile"))
    }

    /// A new session: its place in the opener's ledger first (`QUOTA_SESSIONS`), then the
    /// session and its idle alarm.
    async fn initialize(
        &self,
        server: &Server,
        id: RequestId,
        session: Session,
        result: Value,
        trace: Option<&str>,
    ) -> Result<Response> {
        let acquire = LedgerRequest::AcquireSession {
            session_id: session.id.clone(),
            until_ms: session.held_until_ms,
            quotas: server.config.quotas,
        };
        if server.config.quotas.sessions.is_some()
            && let Err(refused) =
                principal_object::ledger(&self.env, &session.opened_by, &acquire).await
        {
            log::print_all(
                logs::refused(&refused, Some(&session.opened_by), trace),
                &server.config.log,
            );
            return json_reply(Some(&id), Err(refused));
        }
        self.store(&session).await?;
        let expires = session.expires_at_ms(server.config.session_idle_ms);
        self.set_alarm(expires).await?;
        let opened = logs::session(event::SESSION_OPENED, &session.id, &session.principal, None)
            .field("protocolVersion", session.protocol_version.as_str());
        log::print(&opened, &server.config.log);
        let mut response = HttpResponse::json(200, jsonrpc::result_response(&id, &result));
        response
            .headers
            .push(("mcp-session-id", session.id.clone()));
        super::to_worker_response(response)
    }

    async fn set_alarm(&self, at_ms: u64) -> Result<()> {
        let at = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(at_ms as f64));
        bench::rows_written(SESSION, 1);
        self.state
            .storage()
            .set_alarm(worker::ScheduledTime::new(at))
            .await
    }

    /// Ends the session (`reason`: `deleted` by the client, or `idle`): its streams
    /// close, its subscriptions and ledger place go, and its storage is deleted (then
    /// every request on it is 404).
    async fn end(&self, server: &Server, session: &Session, reason: &str) -> Result<()> {
        let ended = logs::session(
            event::SESSION_ENDED,
            &session.id,
            &session.principal,
            Some(reason),
        );
        log::print(&ended, &server.config.log);
        self.streams.borrow_mut().close_all();
        for uri in &session.subscriptions {
            // Best effort: a registry that keeps an ended session tells it in vain.
            if let Err(why) = registry::set(&self.env, uri, &session.id, false).await {
                let line = logs::warning(&format!("unsubscribing {uri}: {why}"))
                    .field("session", fingerprint(&session.id));
                log::print(&line, &server.config.log);
            }
        }
        if server.config.quotas.sessions.is_some() {
            let release = LedgerRequest::ReleaseSession {
                session_id: session.id.clone(),
            };
            // Best effort: the place's deadline is the fallback.
            if let Err(why) =
                principal_object::ledger(&self.env, &session.opened_by, &release).await
            {
                let line = logs::warning(&format!("releasing a session's quota place: {why}"))
                    .principal(&session.principal)
                    .field("session", fingerprint(&session.id));
                log::print(&line, &server.config.log);
            }
        }
        bench::rows_written(SESSION, 1);
        self.state.storage().delete_alarm().await?;
        bench::before_delete_all(SESSION, &self.state.storage()).await;
        self.state.storage().delete_all().await
    }

    /// The alarm: a session idle for `SESSION_IDLE_MS` ends; one used since is checked
    /// again when it would next expire.
    pub async fn alarm(&self) -> Result<Response> {
        let server = server(&self.env, self.build)?;
        let Some(session) = self.load().await? else {
            return Response::empty();
        };
        match legacy::plan::alarm(&session, now_ms(), server.config.session_idle_ms) {
            None => self.end(&server, &session, "idle").await?,
            Some(at) => self.set_alarm(at).await?,
        }
        Response::empty()
    }

    /// `notifications/resources/updated` on the open GET streams, if this session is still
    /// subscribed to `uri`.
    async fn resource_updated(&self, uri: &str) -> Result<()> {
        let subscribed = self
            .load()
            .await?
            .is_some_and(|s| s.subscriptions.contains(uri));
        if subscribed {
            let message =
                jsonrpc::notification("notifications/resources/updated", json!({ "uri": uri }));
            let text = message.to_string();
            for (_, stream) in self.streams.borrow_mut().live() {
                stream.send(text.as_bytes());
            }
        }
        Ok(())
    }
}
