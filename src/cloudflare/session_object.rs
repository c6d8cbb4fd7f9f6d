//! The 2025-11-25 session Durable Object's implementation, [`SessionRunner`]: one object
//! per `Mcp-Session-Id`. The core's runner (`legacy::object`) loads the session, lets the
//! pure planner decide and performs what needs storage, the ledger and the registry, on
//! this object's [`Platform`]; what it leaves here needs streams or the task objects
//! (`legacy::result_loop` decides `tasks/result`'s turns). It is also the meeting point of
//! server→client requests: a step that needs input asks on its response stream and waits
//! here; the client's answer arrives as a new POST with the same session id, reaches this
//! object, and is handed to the waiting step. A session idle for `SESSION_IDLE_MS` is
//! deleted by its alarm.

mod asker;
mod modern;
mod reach;
mod streams;
mod tasks;

use super::bench::SESSION;
use super::creation::Objects;
use super::leave::Leaves;
use super::mirror::Mirror;
use super::registry_object as registry;
use super::sse::Channel;
use super::{log, now_ms, rust_error, server};
use crate::error::McpError;
use crate::jsonrpc::RequestId;
use crate::legacy::memory::Memory;
use crate::legacy::object::{self, Next, SESSION_KEY, Serve, SessionPlatform};
use crate::legacy::subscribers;
use crate::legacy::{Heads, task_ops};
use crate::objects::Write;
use crate::ops::log as logs;
use crate::quota;
use crate::quota::LedgerRequest;
use crate::server::Server;
/// A session's resumable response stream (`legacy::resumable`) on the Worker's channels.
pub(crate) type Stream = crate::legacy::resumable::Stream<Channel>;
use serde_json::Value;
use worker::{Env, Response, Result, State, web_sys};

/// What the `SessionObject` class of `export_worker!` runs.
pub struct SessionRunner {
    state: State,
    env: Env,
    build: fn() -> Server,
    /// The steps waiting for answers, the GET and response streams (`legacy::memory`).
    memory: Memory<Channel>,
    /// Tool calls in flight, for `notifications/cancelled`.
    leaves: Leaves,
    /// The session's row as this instance last read or wrote it (`super::mirror`): a
    /// warm session answers without reading it again.
    row: Mirror,
}

/// A JSON-RPC answer for a legacy client (`legacy::object::answer`).
fn json_reply(
    id: Option<&RequestId>,
    outcome: std::result::Result<Value, McpError>,
) -> Result<Response> {
    super::to_worker_response(object::answer(id, outcome))
}

/// The session object's platform for one request or alarm (`legacy::object`): its
/// storage, the quota ledger, the subscription registry, the log and its streams.
struct Platform<'a> {
    runner: &'a SessionRunner,
    server: &'a Server,
}

impl SessionPlatform for Platform<'_> {
    async fn load(&mut self) -> std::result::Result<Option<String>, String> {
        let storage = self.runner.state.storage();
        self.runner
            .row
            .get(&storage)
            .await
            .map_err(|e| e.to_string())
    }

    async fn write(&mut self, write: Write) -> std::result::Result<(), String> {
        let storage = self.runner.state.storage();
        let written = self.runner.row.write(&storage, write).await;
        written.map_err(|e| e.to_string())
    }

    async fn ledger(
        &mut self,
        principal: &str,
        request: LedgerRequest,
    ) -> std::result::Result<(), McpError> {
        quota::calls::ledger(&self.runner.env, principal, &request).await
    }

    async fn subscribe(
        &mut self,
        uri: &str,
        session_id: &str,
        subscribed: bool,
    ) -> std::result::Result<(), McpError> {
        subscribers::set(&self.runner.env, uri, session_id, subscribed).await
    }

    fn print(&mut self, lines: Vec<logs::Line>) {
        log::print_all(lines, &self.server.config.log);
    }

    fn close_streams(&mut self) {
        self.runner.memory.close_streams();
    }
}

impl SessionRunner {
    /// How this object reaches tasks for a request (`legacy::reach`).
    fn reacher<'a>(&'a self, server: &'a Server) -> reach::Reacher<'a> {
        reach::Reacher {
            runner: self,
            server,
        }
    }

    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        SessionRunner {
            state,
            env,
            build,
            memory: Memory::default(),
            leaves: Leaves::default(),
            row: Mirror::new(SESSION_KEY, SESSION),
        }
    }

    /// A request from the Worker: the client's HTTP request, with the principal and the
    /// session id set by the Worker.
    pub async fn fetch(&self, req: web_sys::Request) -> Result<Response> {
        // The runtime's request as it comes: its headers read in one crossing.
        let headers = super::http::request_headers(&req);
        if let Some(op) = headers.get(subscribers::REGISTRY_HEADER) {
            let updated = async |uri: &str| self.resource_updated(uri).await;
            return registry::handle(&self.state, &self.env, self.build, &op, &req, updated).await;
        }
        let server = super::upstreams::current(&self.env, self.build).await?;
        let heads = Heads::read(&headers);
        let trace = heads.trace.clone();
        let method = req.method();
        let body = match method.as_str() {
            "POST" => super::read_whole_body(&req).await?,
            _ => Vec::new(),
        };
        let now = now_ms();
        let incoming = heads.incoming(&method, &body);
        let accepts_sse = incoming.accepts_event_stream();
        let mut platform = Platform {
            runner: self,
            server: &server,
        };
        let next = object::request(&mut platform, &server, incoming, now, trace.as_deref())
            .await
            .map_err(rust_error)?;
        let serve = match next {
            Next::Reply(response) => return super::to_worker_response(response),
            Next::Serve(serve) => *serve,
        };
        match serve {
            Serve::OpenStream { last_event_id } => self.open_stream(last_event_id.as_deref()),
            Serve::Deliver {
                request_id,
                answer,
                session,
            } => {
                let mut reacher = self.reacher(&server);
                let delivered = self
                    .memory
                    .deliver(&mut reacher, &request_id, answer, &session);
                if let Some(line) = delivered.await {
                    log::print(&line.request_id(trace.as_deref()), &server.config.log);
                }
                Ok(Response::empty()?.with_status(202))
            }
            Serve::Cancel { request_id } => {
                self.leaves.cancel(&request_id);
                Ok(Response::empty()?.with_status(202))
            }
            Serve::Task { id, op, session } => {
                tasks::handle(self, &server, &id, op, &session, accepts_sse).await
            }
            Serve::CreateTask { id, mut record } => {
                record.assign_id(super::new_task_id()?);
                let objects = Objects {
                    server: &server,
                    env: &self.env,
                    trace: trace.as_deref(),
                };
                let quotas = server.config.quotas;
                json_reply(Some(&id), task_ops::create(&objects, quotas, record).await)
            }
            Serve::Modern { rpc, session } => {
                self.modern(server, rpc, session, now, accepts_sse, trace)
                    .await
            }
        }
    }

    /// The alarm: a session idle for `SESSION_IDLE_MS` ends; one used since is checked
    /// again when it would next expire (`legacy::object::alarm`).
    pub async fn alarm(&self) -> Result<Response> {
        let server = server(&self.env, self.build)?;
        let mut platform = Platform {
            runner: self,
            server: &server,
        };
        object::alarm(&mut platform, &server, now_ms())
            .await
            .map_err(rust_error)?;
        Response::empty()
    }

    /// `notifications/resources/updated` (or a gateway's `tools/list_changed`) on the open
    /// GET streams, if this session is still subscribed to `uri`.
    async fn resource_updated(&self, uri: &str) -> Result<()> {
        let server = server(&self.env, self.build)?;
        let mut platform = Platform {
            runner: self,
            server: &server,
        };
        let stored = object::load(&mut platform).await.map_err(rust_error)?;
        let subscribed = stored.is_some_and(|s| s.subscriptions.contains(uri));
        if subscribed {
            self.memory.resource_updated(uri);
        }
        Ok(())
    }
}
