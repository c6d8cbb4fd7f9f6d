//! The 2025-11-25 session Durable Object's implementation, [`SessionRunner`]: one object
//! per `Mcp-Session-Id`. It keeps the session (negotiated version, client capabilities,
//! log level, subscriptions, its tasks), answers the session's requests with the same
//! handlers as the 2026-07-28 front end, and is the meeting point for server→client
//! requests: a step that needs input sends `elicitation/create` (or sampling, roots) on
//! its response stream and waits here; the client's answer arrives as a new POST with
//! the same session id, so it reaches this object, which hands it to the waiting step.

pub(crate) mod registry;
mod resumable;
mod tasks;

use super::sse::Channel;
use super::{WorkerHost, now_ms, server};
use crate::error::McpError;
use crate::host::BoxFuture;
use crate::http::HttpResponse;
use crate::jsonrpc::{self, ErrorObject, Message, Request as RpcRequest, RequestId};
use crate::legacy::{self, SESSION_HEADER, Session};
use crate::server::call::{Asker, progress_notification};
use crate::server::dispatch;
use crate::server::{Action, Context, Cors, Server};
use crate::tasks::protocol::PRINCIPAL_HEADER;
use crate::tools::Progress;
use futures_util::future::{Either, select};
pub(crate) use resumable::Stream;
use resumable::Streams;
use serde_json::{Map, Value, json};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::task::{Poll, Waker};
use std::time::Duration;
use worker::{Delay, Env, Method, Request, Response, Result, State};

const SESSION_KEY: &str = "session";
/// How long a step waits for the client to answer a server→client request.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(600);

/// An answer slot: the client's `result` (or `error`) and the waiting task's waker.
type Slot = Rc<
    RefCell<(
        Option<std::result::Result<Value, ErrorObject>>,
        Option<Waker>,
    )>,
>;
type Pending = Rc<RefCell<HashMap<String, Slot>>>;

/// What the author's `#[durable_object]` session type delegates to.
pub struct SessionRunner {
    state: State,
    env: Env,
    build: fn() -> Server,
    /// Server→client requests awaiting the client's answer (memory: they belong to
    /// response streams this instance is serving).
    pending: Pending,
    /// Open GET streams, for notifications not tied to a request.
    streams: Rc<RefCell<Vec<Channel>>>,
    /// Response streams, kept for clients that reconnect with `Last-Event-ID`.
    resumable: Streams,
    counter: Rc<Cell<u64>>,
}

fn json_response(status: u16, body: Vec<u8>) -> Result<Response> {
    let response = HttpResponse::json(status, body);
    super::to_worker_response(response)
}

/// A JSON-RPC error for a legacy client: HTTP 200, as the 2025-11-25 transport carries
/// errors (its clients treat other statuses as transport failures).
fn error_body(id: Option<&RequestId>, e: &McpError) -> Vec<u8> {
    jsonrpc::error_response(id, &e.to_wire())
}

/// A modern response body (JSON-RPC) with its result reshaped for 2025-11-25.
fn legacy_body(body: &[u8]) -> Vec<u8> {
    match serde_json::from_slice::<Value>(body) {
        Ok(mut message) => {
            if let Some(result) = message.get_mut("result") {
                *result = legacy::legacy_result(result.take());
            }
            serde_json::to_vec(&message).unwrap_or_else(|_| body.to_vec())
        }
        Err(_) => body.to_vec(),
    }
}

impl SessionRunner {
    pub fn new(state: State, env: Env, build: fn() -> Server) -> Self {
        SessionRunner {
            state,
            env,
            build,
            pending: Rc::default(),
            streams: Rc::default(),
            resumable: Streams::default(),
            counter: Rc::default(),
        }
    }

    async fn load(&self) -> Result<Option<Session>> {
        match self.state.storage().get::<String>(SESSION_KEY).await? {
            None => Ok(None),
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| worker::Error::RustError(format!("corrupt session: {e}"))),
        }
    }

    async fn store(&self, session: &Session) -> Result<()> {
        let text =
            serde_json::to_string(session).map_err(|e| worker::Error::RustError(e.to_string()))?;
        self.state.storage().put(SESSION_KEY, text).await
    }

    /// A request from the Worker: the client's HTTP request, with the principal and
    /// the session id set by the Worker.
    pub async fn fetch(&self, req: Request) -> Result<Response> {
        if let Some(op) = req.headers().get(registry::REGISTRY_HEADER)? {
            return registry::handle(self, &op, req).await;
        }
        let server = server(&self.env, self.build)?;
        let principal = req.headers().get(PRINCIPAL_HEADER)?.unwrap_or_default();
        let session_id = req.headers().get(SESSION_HEADER)?.unwrap_or_default();
        let accepts_sse = req
            .headers()
            .get("accept")?
            .is_some_and(|a| a.contains("text/event-stream"));
        let session = self.load().await?.filter(|s| s.principal == principal);
        match req.method() {
            Method::Delete => {
                if session.is_none() {
                    return not_found();
                }
                for stream in self.streams.borrow_mut().drain(..) {
                    stream.close();
                }
                if let Some(session) = &session {
                    for uri in &session.subscriptions {
                        // Best effort: a registry that keeps an ended session tells it in vain.
                        if let Err(why) = registry::set(&self.env, uri, &session.id, false).await {
                            worker::console_warn!("unsubscribing {uri}: {why}");
                        }
                    }
                }
                self.state.storage().delete_all().await?;
                return Ok(Response::empty()?.with_status(204));
            }
            Method::Get => {
                if session.is_none() {
                    return not_found();
                }
                let channel = Channel::default();
                let resumed = match req.headers().get("last-event-id")? {
                    Some(last) => self.resumable.resume(&last, &channel),
                    None => false,
                };
                if !resumed {
                    self.streams.borrow_mut().retain(|s| !s.is_finished());
                    self.streams.borrow_mut().push(channel.clone());
                    keep_alive(channel.clone());
                }
                return channel.response(HttpResponse::empty(200));
            }
            Method::Post => {}
            _ => {
                return json_response(
                    405,
                    error_body(None, &McpError::MethodNotAllowed(req.method().to_string())),
                );
            }
        }
        let body = super::read_whole_body(&req).await?;
        let value: Value = match serde_json::from_slice(&body) {
            Ok(value) => value,
            Err(e) => {
                return json_response(
                    400,
                    error_body(None, &McpError::Parse(format!("Parse error: {e}"))),
                );
            }
        };
        if value.get("method").is_none() && value.get("id").is_some() {
            // The client's answer to one of our requests.
            self.deliver(&value);
            return Ok(Response::empty()?.with_status(202));
        }
        let message = match jsonrpc::parse_message(&body) {
            Ok(message) => message,
            Err(e) => return json_response(400, jsonrpc::error_response(e.id.as_ref(), &e.error)),
        };
        let rpc = match message {
            Message::Notification(_) if session.is_some() => {
                return Ok(Response::empty()?.with_status(202));
            }
            Message::Notification(_) => return not_found(),
            Message::Request(rpc) => rpc,
        };
        let ctx = Context {
            principal,
            now_ms: now_ms(),
        };
        if rpc.method == "initialize" {
            return self
                .initialize(&server, &rpc, &session_id, &ctx, session.is_some())
                .await;
        }
        let Some(session) = session else {
            return not_found();
        };
        self.request(server, rpc, session, ctx, accepts_sse).await
    }

    async fn initialize(
        &self,
        server: &Server,
        rpc: &RpcRequest,
        session_id: &str,
        ctx: &Context,
        exists: bool,
    ) -> Result<Response> {
        if exists {
            let e = McpError::InvalidRequest("This session is already initialized".into());
            return json_response(200, error_body(Some(&rpc.id), &e));
        }
        match legacy::initialize(server, &rpc.params, session_id, &ctx.principal, ctx.now_ms) {
            Ok((result, session)) => {
                self.store(&session).await?;
                let body = jsonrpc::result_response(&rpc.id, &result);
                let mut response = HttpResponse::json(200, body);
                response
                    .headers
                    .push(("mcp-session-id", session_id.to_owned()));
                super::to_worker_response(response)
            }
            Err(e) => json_response(200, error_body(Some(&rpc.id), &e)),
        }
    }

    /// Hands a client's answer to the step waiting for it.
    fn deliver(&self, message: &Value) {
        let id = match &message["id"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let Some(slot) = self.pending.borrow().get(&id).cloned() else {
            return; // unknown or late: nothing waits for it
        };
        let answer = match message.get("error") {
            Some(error) => Err(
                serde_json::from_value(error.clone()).unwrap_or(ErrorObject {
                    code: jsonrpc::ErrorCode::INTERNAL_ERROR,
                    message: format!("the client answered with a malformed error: {error}"),
                    data: None,
                }),
            ),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let waker = {
            let mut slot = slot.borrow_mut();
            slot.0 = Some(answer);
            slot.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    async fn request(
        &self,
        server: Rc<Server>,
        rpc: RpcRequest,
        mut session: Session,
        ctx: Context,
        accepts_sse: bool,
    ) -> Result<Response> {
        let ok = |result: Value| json_response(200, jsonrpc::result_response(&rpc.id, &result));
        let fail = |e: McpError| json_response(200, error_body(Some(&rpc.id), &e));
        match rpc.method.as_str() {
            "ping" => return ok(json!({})),
            "logging/setLevel" => {
                return match legacy::parse_level(&rpc.params) {
                    Ok(level) => {
                        session.log_level = Some(level);
                        self.store(&session).await?;
                        ok(json!({}))
                    }
                    Err(e) => fail(e),
                };
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let Some(uri) = rpc.params.get("uri").and_then(Value::as_str) else {
                    return fail(McpError::InvalidParams(
                        "params.uri must be a string".into(),
                    ));
                };
                let subscribed = rpc.method == "resources/subscribe";
                if subscribed {
                    session.subscriptions.insert(uri.to_owned());
                } else {
                    session.subscriptions.remove(uri);
                }
                let registered = registry::set(&self.env, uri, &session.id, subscribed).await;
                if let Err(why) = registered {
                    return fail(McpError::Internal(format!(
                        "the subscription registry is unavailable: {why}"
                    )));
                }
                self.store(&session).await?;
                return ok(json!({}));
            }
            "tools/list" => return ok(legacy::legacy_tools(&server)),
            "server/discover" | "subscriptions/listen" | "tasks/update" => {
                return fail(McpError::MethodNotFound(rpc.method.clone()));
            }
            "tasks/get" | "tasks/cancel" | "tasks/list" | "tasks/result" => {
                return tasks::handle(self, &server, &rpc, &ctx, accepts_sse).await;
            }
            "tools/call" => match legacy::task_params(&rpc.params) {
                Err(e) => return fail(e),
                Ok(Some(ttl)) => {
                    return tasks::create(self, &server, &rpc, &session, &ctx, ttl).await;
                }
                Ok(None) => {
                    if let Some(e) = legacy::needs_task(&server, &rpc.params) {
                        return fail(e);
                    }
                }
            },
            _ => {}
        }
        let meta = session.meta();
        let cors = Cors::default();
        let action = match dispatch::route(&server, &rpc, None, &meta, &ctx, &cors) {
            Ok(action) => action,
            Err(e) => return fail(e),
        };
        let host = WorkerHost::host(self.env.clone(), &server);
        match action {
            Action::Respond(response) => json_response(200, legacy_body(&response.body)),
            Action::Read(read) => match server.read(*read, &host).await {
                Action::Respond(response) => json_response(200, legacy_body(&response.body)),
                other => fail(McpError::Internal(format!("unexpected action {other:?}"))),
            },
            Action::Run(run) => {
                let channel = Channel::default();
                let out = self.resumable.open(channel.clone());
                let asker = self.asker(out.clone(), None, accepts_sse);
                let progress = self.progress(&session, out.clone(), run.progress_token.clone());
                worker::wasm_bindgen_futures::spawn_local(async move {
                    let body = match server.run(*run, &ctx, &host, &progress, Some(&asker)).await {
                        Action::Respond(response) => legacy_body(&response.body),
                        other => {
                            let e = McpError::Internal(format!("unexpected action {other:?}"));
                            jsonrpc::error_response(None, &e.to_wire())
                        }
                    };
                    out.finish(&body);
                });
                channel.response(HttpResponse::empty(200))
            }
            other => fail(McpError::Internal(format!("unexpected action {other:?}"))),
        }
    }

    /// `notifications/resources/updated` on the open GET streams, if this session is still
    /// subscribed to `uri`.
    async fn resource_updated(&self, uri: &str) -> Result<()> {
        let subscribed = self
            .load()
            .await?
            .is_some_and(|s| s.subscriptions.contains(uri));
        if subscribed {
            let message = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": { "uri": uri } });
            let text = message.to_string();
            self.streams.borrow_mut().retain(|s| !s.is_finished());
            for stream in self.streams.borrow().iter() {
                stream.send(text.as_bytes());
            }
        }
        Ok(())
    }

    /// Progress (if the request asked) and log messages (at the session's level) onto
    /// the response stream.
    fn progress(&self, session: &Session, channel: Stream, token: Option<Value>) -> Progress {
        let sink = channel.clone();
        let progress = Progress::to(move |report| {
            if let Some(token) = &token {
                sink.send(progress_notification(token, report).to_string().as_bytes());
            }
        });
        let session = session.clone();
        let stream = channel.clone();
        let progress = progress.disconnecting_to(move || stream.disconnect());
        progress.logging_to(move |level, data| {
            if session.logs(level) {
                let message = json!({ "jsonrpc": "2.0", "method": "notifications/message",
                    "params": { "level": level, "data": data } });
                channel.send(message.to_string().as_bytes());
            }
        })
    }

    /// Server→client requests on `channel`, answered by later POSTs to this object.
    fn asker(
        &self,
        channel: Stream,
        related_task: Option<String>,
        streaming: bool,
    ) -> SessionAsker {
        SessionAsker {
            channel,
            pending: self.pending.clone(),
            counter: self.counter.clone(),
            related_task,
            streaming,
        }
    }
}

fn not_found() -> Result<Response> {
    let e = McpError::InvalidRequest(
        "Session not found: it ended or never existed; send initialize to start a new one".into(),
    );
    json_response(404, error_body(None, &e))
}

/// A comment every 25 s keeps an idle GET stream open through proxies.
fn keep_alive(channel: Channel) {
    worker::wasm_bindgen_futures::spawn_local(async move {
        while !channel.is_finished() {
            Delay::from(Duration::from_secs(25)).await;
            channel.keepalive();
        }
    });
}

/// Sends a step's input requests to the client and waits for the answers.
pub(crate) struct SessionAsker {
    channel: Stream,
    pending: Pending,
    counter: Rc<Cell<u64>>,
    related_task: Option<String>,
    streaming: bool,
}

impl SessionAsker {
    async fn wait(slot: Slot) -> Option<std::result::Result<Value, ErrorObject>> {
        let answer = std::future::poll_fn(|cx| {
            let mut slot = slot.borrow_mut();
            match slot.0.take() {
                Some(answer) => Poll::Ready(answer),
                None => {
                    slot.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        });
        match select(Box::pin(answer), Box::pin(Delay::from(ANSWER_TIMEOUT))).await {
            Either::Left((answer, _)) => Some(answer),
            Either::Right(_) => None,
        }
    }
}

impl Asker for SessionAsker {
    fn ask(
        &self,
        requests: Map<String, Value>,
    ) -> BoxFuture<'_, std::result::Result<Map<String, Value>, McpError>> {
        Box::pin(async move {
            if !self.streaming {
                return Err(McpError::InvalidRequest(
                    "This call needs input from the client: send Accept: text/event-stream so the server can ask".into(),
                ));
            }
            let mut waiting = Vec::new();
            for (key, request) in requests {
                let n = self.counter.get() + 1;
                self.counter.set(n);
                let id = format!("server-request-{n}");
                let mut params = request.get("params").cloned().unwrap_or_else(|| json!({}));
                if let Some(task_id) = &self.related_task {
                    params["_meta"]["io.modelcontextprotocol/related-task"] =
                        json!({ "taskId": task_id });
                }
                let message = json!({ "jsonrpc": "2.0", "id": id, "method": request["method"], "params": params });
                let slot: Slot = Rc::default();
                self.pending.borrow_mut().insert(id.clone(), slot.clone());
                self.channel.send(message.to_string().as_bytes());
                waiting.push((key, id, slot));
            }
            let mut answers = Map::new();
            for (key, id, slot) in waiting {
                let answer = Self::wait(slot).await;
                self.pending.borrow_mut().remove(&id);
                match answer {
                    Some(Ok(result)) => {
                        answers.insert(key, result);
                    }
                    Some(Err(error)) => return Err(McpError::Wire(error)),
                    None => {
                        return Err(McpError::Internal(format!(
                            "the client did not answer {key:?} within {} s",
                            ANSWER_TIMEOUT.as_secs()
                        )));
                    }
                }
            }
            Ok(answers)
        })
    }
}
